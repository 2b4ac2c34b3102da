"""The code's shape: no import cycle between the kit's modules.

Every module of kaist_kit, converters/ and submission/ (installed as kaist_kit.converters and
kaist_kit.submission) is parsed, not imported. An edge A -> B is any import of B in A, at module
level or inside a function, with relative imports resolved; ``from P import name`` is an edge to
the module P.name when there is one, else to P. A package's own __init__ is not counted as
imported by its submodules (Python runs it first, but only a cycle through an import statement
can leave a module half-initialised).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "kaist_kit": ROOT / "kaist_kit",
    "kaist_kit.converters": ROOT / "converters",
    "kaist_kit.submission": ROOT / "submission",
}


def modules() -> dict[str, Path]:
    """Module name -> file, for every module of the kit."""
    found = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The kit's modules that ``name`` imports anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    edges = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets = [
                f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in known else origin for alias in node.names
            ]
        else:
            continue
        for target in targets:
            # `import a.b.c` also needs a.b, whose own imports the walk of a.b covers.
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                edges.add(target)
    return edges


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a list of modules (the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_graph_sees_every_kind_of_import():
    graph = import_graph()
    # Relative, at module level: the diagnosis' computation uses the bootstrap.
    assert "kaist_kit.metrics.bootstrap" in graph["kaist_kit.diagnosis.compute"]
    # Relative, inside a function: the CLI imports its library calls where the verb runs.
    assert "kaist_kit.scoring.run" in graph["kaist_kit.cli.scoring"]
    # Absolute, across the installed folders: the submission package uses the evaluator.
    assert "kaist_kit.metrics.evaluate" in graph["kaist_kit.submission.report"]
    # `from .. import report` names a module.
    assert "kaist_kit.scoring.report" in graph["kaist_kit.scoring.run"]


def test_find_cycle_reports_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_metric_names_are_spelled_in_their_specs_alone():
    """A metric is named in kaist_kit/metrics/spec.py; everything else reads the spec (its name, label,
    direction, IoUs, column), so that a metric added there appears in every verb, report and column."""
    from kaist_kit.metrics.spec import all_metrics

    names = {m.name for m in all_metrics()}
    spelled = []
    for name, path in modules().items():
        if name == "kaist_kit.metrics.spec":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                spelled.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not spelled, "metric names spelled outside kaist_kit/metrics/spec.py:\n" + "\n".join(spelled)


def test_every_package_of_the_kit_is_installed():
    """A wheel holds the packages pyproject.toml lists, and nothing else: a folder of modules missing
    from the list works in a checkout and an editable install and is absent from a real one."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    present = {
        ".".join([package, *init.parent.relative_to(folder).parts])
        for package, folder in PACKAGES.items()
        for init in folder.rglob("__init__.py")
    }
    assert listed == present, (
        f"listed but absent: {sorted(listed - present)}; present but not listed: {sorted(present - listed)}"
    )
