"""The registry of benchmarks: the five the kit ships (registered once, by `kaist_kit.datasets`), and any
a user registers.

A benchmark is one module (its spec and its adapter); `register` adds one, and every verb, option and
reader asks the registry, never a benchmark's name. A module named in the environment variable
``KAIST_KIT_BENCHMARKS`` (comma-separated import names) is imported when the registry is first read, so
that a ``kaist-kit`` process sees a benchmark registered outside the kit.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ..errors import InputError
from .kaist import KAIST
from .spec import Benchmark

PLUGINS_ENV = "KAIST_KIT_BENCHMARKS"

_REGISTERED: dict[str, Benchmark] = {}
# Recognition tries distinctive frame names first: a KAIST name also holds five digits, and LLVIP's
# six-digit names and M3FD's five-digit ones exclude each other.
_RECOGNITION_ORDER: list[Benchmark] = []
_plugins_loaded = False


def register(benchmark: Benchmark, recognise_before: Benchmark | None = None) -> Benchmark:
    """Adds ``benchmark`` to the registry (replacing one of the same name); returns it. Recognition
    from a ground truth's image names tries it after those registered before, or just before
    ``recognise_before`` where its frame names are the more distinctive."""
    _REGISTERED[benchmark.name] = benchmark
    order = [b for b in _RECOGNITION_ORDER if b.name != benchmark.name]
    at = next(
        (i for i, b in enumerate(order) if recognise_before is not None and b.name == recognise_before.name), None
    )
    order.insert(len(order) if at is None else at, benchmark)
    _RECOGNITION_ORDER[:] = order
    return benchmark


def unregister(name: str) -> None:
    """Removes a registered benchmark (a test's, when it is done)."""
    _REGISTERED.pop(name, None)
    _RECOGNITION_ORDER[:] = [b for b in _RECOGNITION_ORDER if b.name != name]


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for module in filter(None, (m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(","))):
        try:
            importlib.import_module(module)
        except Exception as exc:  # the user's module, failing in any way: missing, broken, raising
            raise InputError(f"{PLUGINS_ENV} names {module!r}, which cannot be imported ({exc!r})") from None


class _Registry(Mapping):
    """The registered benchmarks by name, in the order they were registered (read-only)."""

    def __getitem__(self, name: str) -> Benchmark:
        _load_plugins()
        return _REGISTERED[name]

    def __iter__(self) -> Iterator[str]:
        _load_plugins()
        return iter(list(_REGISTERED))

    def __len__(self) -> int:
        _load_plugins()
        return len(_REGISTERED)


BENCHMARKS: Mapping[str, Benchmark] = _Registry()
DEFAULT_BENCHMARK = KAIST


def get_benchmark(name: str | Benchmark) -> Benchmark:
    """A registered benchmark by name or one of its aliases ('flir' is 'flir-aligned'), any case."""
    if isinstance(name, Benchmark):
        return name
    key = name.lower()
    for benchmark in BENCHMARKS.values():
        if key == benchmark.name or key in benchmark.aliases:
            return benchmark
    raise ValueError(f"unknown benchmark {name!r}; choose from {', '.join(BENCHMARKS)}")


@dataclass(frozen=True)
class Recognition:
    """Which benchmark a ground truth is, and why the kit thinks so (said in the output)."""

    benchmark: Benchmark
    reason: str


def recognise(
    image_names: Iterable[str], category_names: Iterable[str] = (), md5: str | None = None
) -> Recognition | None:
    """The benchmark a ground truth belongs to, from its MD5 (a pinned file), else from what its
    images are called (most must be frame names of one benchmark) and its classes; None when unsure."""
    if md5:
        for benchmark in BENCHMARKS.values():
            if benchmark.ground_truth is not None and benchmark.ground_truth.md5 == md5:
                return Recognition(benchmark, f"the pinned file {benchmark.ground_truth.filename}")
    names = [str(n) for n in image_names]
    if not names:
        return None
    classes = {str(c).lower() for c in category_names}
    _load_plugins()
    for benchmark in _RECOGNITION_ORDER:
        named = sum(benchmark.frame(n) is not None for n in names)
        known = {n.lower() for c in benchmark.categories for n in c.names()} | set(benchmark.ignore_labels)
        if named * 10 >= len(names) * 9 and classes <= known | {"__ignore__", "ignore"}:
            return Recognition(benchmark, f"its image names are {benchmark.title} frame names")
    return None
