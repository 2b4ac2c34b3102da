"""Other interpreters and library versions the tests run outside code in, or run the kit's own code in.

Some references only run where their users run them: MS-DETR's evaluation needs numpy 1.x; the
platforms' workers run Python 3.7 to 3.9 with their own numpy. Each is a virtual environment named here,
made under `.venvs/` in the repository by `python tests/reference_envs.py` (CI runs it before the tests;
it installs from the package index, which the tests themselves never do). A test asks for one with the
`reference_env` fixture (tests/conftest.py): it skips with the reason when the environment is not there,
and fails instead where KAIST_KIT_REQUIRE_ENVS is set, as in CI.

    python tests/reference_envs.py            # every environment, those already made kept
    python tests/reference_envs.py NAME ...   # only these
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / ".venvs"


@dataclass(frozen=True)
class ReferenceEnv:
    name: str
    python: str  # major.minor
    packages: tuple[str, ...]
    why: str

    @property
    def folder(self) -> Path:
        return FOLDER / self.name

    @property
    def executable(self) -> Path:
        return self.folder / "bin" / "python"

    def ready(self) -> bool:
        return (self.folder / "ready").is_file() and self.executable.is_file()


ENVS: dict[str, ReferenceEnv] = {
    env.name: env
    for env in (
        ReferenceEnv(
            "numpy1-py311",
            "3.11",
            ("numpy==1.26.4", "matplotlib==3.8.4"),
            "MS-DETR's evaluation (../shared/reference/ms-detr) fails on numpy 2",
        ),
        # The challenge platforms' workers (docs/hosting.md): a bundle's evaluation script and scoring
        # program run in each, numpy alone, as the worker image pins it.
        ReferenceEnv(
            "evalai-py37",
            "3.7",
            ("numpy==1.21.0",),
            "EvalAI's Python 3.7 worker (Cloud-CV/EvalAI requirements/worker_py3_7.txt)",
        ),
        ReferenceEnv(
            "evalai-py38",
            "3.8",
            ("numpy==1.21.0",),
            "EvalAI's Python 3.8 worker (Cloud-CV/EvalAI requirements/worker_py3_8.txt)",
        ),
        ReferenceEnv(
            "evalai-py39",
            "3.9",
            ("numpy==1.26.4",),
            "EvalAI's Python 3.9 worker, the bundle's (Cloud-CV/EvalAI requirements/worker_py3_9.txt)",
        ),
        ReferenceEnv(
            "evalai-validators",
            "3.9",
            ("django==2.2.20", "djangorestframework==3.10.3", "PyYAML==5.4.1"),
            "EvalAI's serializers read challenge_config.yaml (Cloud-CV/EvalAI requirements/common.txt)",
        ),
        ReferenceEnv(
            "codabench-py37",
            "3.7",
            ("numpy==1.16.4",),
            "Codabench's default image codalab/codalab-legacy:py37 (Anaconda3-2019.07's numpy)",
        ),
        ReferenceEnv(
            "codabench-py39",
            "3.9",
            ("numpy==1.22.4",),
            "Codabench's image codalab/codalab-legacy:py39 (codalab/codalab-dockers Dockerfile-py39)",
        ),
        ReferenceEnv(
            "codabench-py312",
            "3.12",
            ("numpy==1.26.4",),
            "Codabench's image codalab/codalab-legacy:py312, the bundle's (codalab/codalab-dockers Dockerfile-py312)",
        ),
    )
}


def find_python(version: str) -> str | None:
    """An interpreter of ``version`` (major.minor) that runs: pythonX.Y on PATH, else one of pyenv's. (pyenv's
    shim for pythonX.Y is on PATH even where that version is not the active one, and then fails.)"""
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates = [shutil.which(f"python{version}")]
    candidates += sorted(glob.glob(os.path.join(root, "versions", f"{version}.*", "bin", f"python{version}")))[::-1]
    for candidate in filter(None, candidates):
        probe = [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"]
        done = subprocess.run(probe, capture_output=True, text=True, check=False)
        if done.returncode == 0 and done.stdout.strip() == version:
            return candidate
    return None


def make(env: ReferenceEnv) -> None:
    if env.ready():
        print(f"{env.name}: ready")
        return
    python = find_python(env.python)
    if python is None:
        raise SystemExit(f"{env.name}: no Python {env.python} on this machine (PATH or pyenv)")
    shutil.rmtree(env.folder, ignore_errors=True)
    subprocess.run([python, "-m", "venv", str(env.folder)], check=True)
    pip = [str(env.executable), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, *env.packages], check=True)
    (env.folder / "ready").write_text("\n".join(env.packages) + "\n", encoding="utf-8")
    print(f"{env.name}: made (Python {env.python}: {', '.join(env.packages)})")


def main(names: list[str]) -> None:
    unknown = [n for n in names if n not in ENVS]
    if unknown:
        raise SystemExit(f"unknown environments {unknown}; known: {', '.join(ENVS)}")
    for name in names or list(ENVS):
        make(ENVS[name])


if __name__ == "__main__":
    main(sys.argv[1:])
