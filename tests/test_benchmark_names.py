"""No module outside `kaist_kit/datasets/` asks which benchmark it holds by its name or its identity
(`bench is KAIST`, `benchmark.name == "llvip"`, `name in ("kaist", "m3fd")`): it asks a field or a method
of the spec, so that a benchmark registered from outside the kit takes every path a shipped one does."""

import ast
from pathlib import Path

from kaist_kit.datasets import BENCHMARKS

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
