"""No module outside `kaist_kit/datasets/` asks which benchmark it holds by its name or its identity
(`bench is KAIST`, `benchmark.name == "llvip"`, `name in ("kaist", "m3fd")`): it asks a field or a method
of the spec, so that a benchmark registered from outside the kit takes every path a shipped one does. And no
field, property or method of the spec is named after a dataset (`kaist_model`): that is the same question."""

import ast
import dataclasses
from pathlib import Path

from kaist_kit.datasets import BENCHMARKS, spec

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kaist_kit", "converters", "submission")
DATASETS = Path("kaist_kit/datasets")
SPEC_NAMES = {"KAIST", "FLIR_ALIGNED", "LLVIP", "CVC14", "M3FD", "DEFAULT_BENCHMARK"}
COMPARISONS = (ast.Is, ast.IsNot, ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def benchmark_names() -> set[str]:
    return {name for b in BENCHMARKS.values() for name in (b.name, *b.aliases)}


def _names_a_benchmark(node: ast.AST, names: set[str]) -> bool:
    if isinstance(node, ast.Name) and node.id in SPEC_NAMES:
        return True
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_benchmark(element, names) for element in node.elts)
    return False


def comparisons_by_name(source: str, names: set[str]) -> list[int]:
    """The lines of ``source`` that compare something with a benchmark's spec or name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(isinstance(op, COMPARISONS) for op in node.ops):
            if any(_names_a_benchmark(side, names) for side in (node.left, *node.comparators)):
                found.append(node.lineno)
    return found


def outside_the_datasets() -> list[str]:
    names = benchmark_names()
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative.is_relative_to(DATASETS):
                continue
            for line in comparisons_by_name(path.read_text(encoding="utf-8"), names):
                found.append(f"{relative.as_posix()}:{line}")
    return found


def test_no_module_outside_the_datasets_asks_a_benchmark_by_name():
    assert outside_the_datasets() == []


def test_the_guard_sees_each_way_of_asking():
    names = benchmark_names()
    asking = [
        "bench is KAIST",
        "bench is not LLVIP",
        'benchmark.name == "llvip"',
        'name != "flir-aligned"',
        'name in ("kaist", "m3fd")',
        '"cvc14" == key',
    ]
    for text in asking:
        assert comparisons_by_name(text, names) == [1], text
    fine = ['protocol == "leaderboard"', "bench.quiet", "bench is None", 'name == "unnamed"']
    for text in fine:
        assert comparisons_by_name(text, names) == [], text


# --- the spec names no dataset --------------------------------------------------------------------
# A spec field, property or method named after a dataset (`kaist_model`, `is_flir`) is a question "is it
# that one?" in disguise: only that dataset would answer yes. What it stands for is a field any benchmark
# may declare (a rule of its ground truth, a column, a reader, a function of its adapter).


def _dataset_words() -> set[str]:
    """Each registered benchmark's name and alias as an identifier spells it ('flir-aligned': flir_aligned,
    fliraligned), and its first word ('flir', 'cvc')."""
    words = set()
    for name in benchmark_names():
        words |= {name.replace("-", "_"), name.replace("-", ""), name.split("-")[0]}
    return {word for word in words if len(word) > 2}


def attributes_naming_a_dataset(classes, words: set[str]) -> list[str]:
    """The public attributes (fields, properties, methods) of ``classes`` whose names hold a dataset's."""
    found = []
    for cls in classes:
        names = {f.name for f in dataclasses.fields(cls)} | {n for n in vars(cls) if not n.startswith("_")}
        found += [f"{cls.__name__}.{n}" for n in sorted(names) if any(word in n.lower() for word in words)]
    return found


def _spec_classes() -> list[type]:
    return [
        value
        for value in vars(spec).values()
        if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == spec.__name__
    ]


def test_no_spec_attribute_names_a_dataset():
    classes = _spec_classes()
    assert spec.Benchmark in classes and spec.TruthRules in classes
    assert attributes_naming_a_dataset(classes, _dataset_words()) == []


def test_the_spec_guard_sees_a_dataset_in_a_name():
    words = _dataset_words()
    assert {"kaist", "flir", "flir_aligned", "llvip", "cvc", "cvc_14", "m3fd"} <= words

    @dataclasses.dataclass(frozen=True)
    class Asking:
        kaist_model: bool = False
        layout: str = "classes"

        @property
        def is_flir(self) -> bool:
            return False

        def cvc_14_origin(self) -> str:
            return ""

    assert attributes_naming_a_dataset([Asking], words) == [
        "Asking.cvc_14_origin",
        "Asking.is_flir",
        "Asking.kaist_model",
    ]
