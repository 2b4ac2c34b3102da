"""Importing a module twice is harmless: nothing registers itself at import.

`converters/` and `submission/` install as kaist_kit.converters and kaist_kit.submission, but from the
repository root (as `python -c` runs) they are importable as top-level packages too, and then each of
their modules runs twice in one process, once under each name.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP_LEVEL = {"submission": "kaist_kit.submission", "converters": "kaist_kit.converters"}


def modules_of(folder: str) -> list[str]:
    return sorted(p.stem for p in (ROOT / folder).glob("*.py") if p.stem != "__init__")


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("folder", sorted(TOP_LEVEL))
@pytest.mark.parametrize("first", ["top-level", "installed"])
def test_every_module_imports_under_both_names(folder, first):
    installed = TOP_LEVEL[folder]
    names = [f"{folder}.{m}" for m in modules_of(folder)] + [folder]
    names += [f"{installed}.{m}" for m in modules_of(folder)] + [installed]
    if first == "installed":
        names.reverse()
    code = "\n".join(
        ["import importlib", "from kaist_kit.scoring.findings import KINDS", "before = dict(KINDS)"]
        + [f"importlib.import_module({name!r})" for name in names]
        + [
            "import kaist_kit.cli",
            "assert KINDS == before, 'a finding kind was declared at import'",
            "print('imported')",
        ]
    )
    proc = run_python(code)
    assert proc.returncode == 0 and proc.stdout.strip() == "imported", proc.stderr


def test_the_command_from_the_repository_root_imports_the_submission_twice():
    proc = run_python(
        "import submission.checks\nimport submission.report\nfrom kaist_kit.cli import app\n"
        "from kaist_kit.submission import check\nprint('ok')"
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_finding_codes_are_unique_and_every_kind_is_listed():
    import kaist_kit.scoring.findings as findings

    declared = [v for v in vars(findings).values() if isinstance(v, findings.Kind)]
    assert len({k.code for k in declared}) == len(declared)
    assert sorted(k.code for k in declared) == sorted(findings.KINDS)
