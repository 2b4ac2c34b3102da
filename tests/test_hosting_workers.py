"""The bundles' evaluators run as the platforms' workers run them, in each worker's interpreter and numpy.

Each test runs once in this interpreter isolated to its numpy alone, and once in each reference
environment of the platform (tests/reference_envs.py: EvalAI's Python 3.7, 3.8 and 3.9 workers,
Codabench's codalab-legacy py37, py39 and py312 images, each with its numpy), on the real files of
../shared: the numbers are those `kaist-kit eval` prints, to the last digit. `portable` (what the copied
core may use) is the guard that fails first when a core module stops running on Python 3.7; these runs
are its arbiter.
"""

import json
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pytest
import yaml
from hosting_helpers import (
    RESULTS,
    SPEC,
    codabench_res,
    evalai_layout,
    expected_values,
    kit_eval,
    make_archive_and_extract,
    method_of,
    numpy_only,
    run_evalai_worker,
    starters_zip,
    stored_upload,
)
from reference_envs import ENVS

from kaist_kit.hosting import portable
from kaist_kit.hosting.bundle import core_files, core_modules
from kaist_kit.hosting.codabench import write_codabench_bundle
from kaist_kit.hosting.columns import ColumnSpec
from kaist_kit.hosting.evalai import write_evalai_bundle
from kaist_kit.hosting.options import HostOptions
from kaist_kit.hosting.platforms import CODABENCH_WORKERS, EVALAI_WORKERS, STORAGE_NAME
from kaist_kit.hosting.workers import CODABENCH_METADATA
from kaist_kit.io.archives import read_archive

EVALAI_ENVS = [None, "evalai-py37", "evalai-py38", "evalai-py39"]
CODABENCH_ENVS = [None, "codabench-py37", "codabench-py39", "codabench-py312"]


def python_of(env, reference_env):
    return None if env is None else reference_env(env)


@pytest.fixture(scope="module")
def expected(kaist):
    return kit_eval([kaist / "results" / n for n in RESULTS], kaist / "test-all-20.leaderboard.json")


def test_the_environments_are_the_workers_named_in_platforms():
    """The reference environments hold what kaist_kit.hosting.platforms says the workers hold."""
    for worker in EVALAI_WORKERS:
        env = ENVS[f"evalai-py{worker.python.replace('.', '')}"]
        assert env.python == worker.python and env.packages == (f"numpy=={worker.numpy}",)
    for worker in CODABENCH_WORKERS:
        name = f"codabench-py{worker.python.replace('.', '')}"
        if name in ENVS:  # gpu310 (Python 3.10, numpy 1.26.4) is not made: the kit itself runs on 3.10
            assert ENVS[name].python == worker.python and ENVS[name].packages == (f"numpy=={worker.numpy}",)


# --- EvalAI -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("env", EVALAI_ENVS, ids=lambda e: e or "numpy-alone")
def test_evalai_worker_scores_the_starters_rebuild_under_storage_names(env, kaist, tmp_path, expected, reference_env):
    python = python_of(env, reference_env)
    gt = kaist / "test-all-20.leaderboard.json"
    bundle = tmp_path / "bundle"
    write_evalai_bundle(gt, bundle, HostOptions(spec=SPEC))
    config = yaml.safe_load((bundle / "challenge_config.yaml").read_text())
    assert config["worker_python_version"] == "3.9"
    # The GitHub route rebuilds the zip from the folder: the same files as the zip of the bundle.
    rebuilt = starters_zip(bundle / "evaluation_script")
    (tmp_path / "rebuilt.zip").write_bytes(rebuilt)
    assert read_archive(tmp_path / "rebuilt.zip") == read_archive(bundle / "evaluation_script.zip")
    compute, annotation = evalai_layout(tmp_path, rebuilt, bundle / "annotations" / gt.name)

    sources = tmp_path / "uploads"
    sources.mkdir()
    for name in RESULTS[:2]:
        shutil.copy(kaist / "results" / name, sources / name)
    # EvalAI keeps the extension alone (.gz of a .tar.gz, which the phase does not allow): uploaded as .tgz.
    shutil.copy(kaist / "results" / RESULTS[2], sources / "MBNet-per-image.tgz")
    rows = np.loadtxt(kaist / "results" / "MBNet_result.txt", delimiter=",")
    rows[:, 3:5] += rows[:, 1:3]  # MBNet's boxes written as corners: the kit refuses it
    (sources / "Corners_result.txt").write_text(
        "".join(f"{int(r[0])}," + ",".join(repr(float(v)) for v in r[1:]) + "\n" for r in rows)
    )
    (sources / "Cut_result.json").write_text('[{"image_id": 0, "category_id": 1, "bbox": [1, 2')
    names = [*RESULTS[:2], "MBNet-per-image.tgz", "Corners_result.txt", "Cut_result.json"]
    stored = [stored_upload(compute, k, sources / name) for k, name in enumerate(names, 1)]
    metadata = {"id": 1, "method_name": "", "status": "running"}
    calls = [[str(annotation), str(path), "test", metadata] for path in stored]
    calls.append([str(annotation), str(stored[0]), "dev", metadata])
    report = run_evalai_worker(python, tmp_path, compute, calls)

    if env is not None:
        assert report["version"] == [int(v) for v in ENVS[env].python.split(".")]
    assert not any(report["isolation"].values()), report["isolation"]  # numpy alone: not the kit, not msgspec
    assert report["kit_from"] and all(str(compute) in f for f in report["kit_from"])
    for name, record in zip(names[:3], report["records"]):
        assert record["raised"] is None, record["stderr"]
        values = record["output"]["result"][0]["test_split"]
        assert values == expected_values(expected, method_of(name))  # exactly, every column
        assert list(values) == [c.label for c in SPEC.columns()]
        assert json.loads(record["submission_result"])["test_split"] == values
    assert "[threshold]" in report["records"][0]["stdout"]  # the kit's findings reach the participant

    refused, cut, unknown_phase = report["records"][3:]
    for record in (refused, cut, unknown_phase):
        assert record["raised"] is None and record["output"] == {}
        assert "Traceback" not in record["stderr"] + record["stdout"]
        assert len(record["stderr"].strip().splitlines()) == 1
        assert not STORAGE_NAME.search(record["stderr"] + record["stdout"])  # never EvalAI's UUID
        assert str(compute) not in record["stderr"]
    assert refused["stderr"].startswith("refused: your file: [corners] the boxes look like corners")
    assert "--as-is" not in refused["stderr"] and "kaist-kit submit" in refused["stderr"]
    assert cut["stderr"] == "refused: your file, line 1: truncated JSON\n"
    assert "knows the phases 'test', not 'dev'" in unknown_phase["stderr"]


# --- Codabench --------------------------------------------------------------------------------------


CODABENCH_SPEC = ColumnSpec(("lamr", "ap75"), ("reasonable", "reasonable-small"), ("all", "night"), ("leaderboard",))


@pytest.fixture(scope="module")
def codabench_case(kaist, tmp_path_factory):
    """The bundle unpacked, the numbers `kaist-kit eval` prints, and the zip `kaist-kit submit` writes."""
    folder = tmp_path_factory.mktemp("codabench")
    gt = kaist / "test-all-20.leaderboard.json"
    bundle = folder / "bundle.zip"
    write_codabench_bundle(gt, bundle, HostOptions(spec=CODABENCH_SPEC))
    unpacked = folder / "unpacked"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(unpacked)
    expected = kit_eval([kaist / "results" / "MBNet_result.txt", kaist / "results" / RESULTS[2]], gt, CODABENCH_SPEC)
    submitted = folder / "MBNet.zip"
    subprocess.run(
        [sys.executable, "-m", "kaist_kit", "submit", str(kaist / "results" / "MBNet_result.txt")]
        + ["--out", str(submitted), "--gt", str(gt)],
        check=True,
        capture_output=True,
    )
    return unpacked, expected, submitted


@pytest.mark.parametrize("env", CODABENCH_ENVS, ids=lambda e: e or "numpy-alone")
def test_codabench_scoring_reads_the_workers_input_res_with_its_metadata(
    env, kaist, tmp_path, reference_env, codabench_case
):
    python = python_of(env, reference_env)
    spec = CODABENCH_SPEC
    unpacked, expected, submitted = codabench_case
    competition = yaml.safe_load((unpacked / "competition.yaml").read_text())
    assert competition["docker_image"] == "codalab/codalab-legacy:py312"
    command = yaml.safe_load((unpacked / "scoring_program" / "metadata.yaml").read_text())["command"]
    assert command == "python3 /app/program/score.py /app/input /app/output"

    app = tmp_path / "app"
    make_archive_and_extract(unpacked / "scoring_program", app / "program")
    make_archive_and_extract(unpacked / "reference_data", app / "input" / "ref")
    if python is None:
        start = [sys.executable, "-I", "-S", "-c"]
        numpy_dir = str(numpy_only(tmp_path / "np"))
    else:
        start, numpy_dir = [str(python), "-I", "-c"], ""

    def score(participant_zip: bytes, k: int) -> subprocess.CompletedProcess:
        for folder in (app / "input" / "res", app / "output"):
            shutil.rmtree(folder, ignore_errors=True)
        codabench_res(app / "input" / "res", participant_zip, tmp_path / f"prediction-{k}")
        (app / "output").mkdir()
        argv = [a.replace("/app/", f"{app}/") for a in command.split()[1:]]
        runner = (
            f"import runpy, sys; sys.path.append({numpy_dir!r}) if {numpy_dir!r} else None; sys.argv = {argv!r}; "
            f"runpy.run_path(sys.argv[0], run_name='__main__')"
        )
        return subprocess.run([*start, runner], capture_output=True, text=True, cwd=app / "program", timeout=600)

    def zipped(files: dict) -> bytes:
        path = tmp_path / "participant.zip"
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in files.items():
                archive.writestr(name, data)
        return path.read_bytes()

    done = score(submitted.read_bytes(), 1)  # the zip `kaist-kit submit` writes
    assert done.returncode == 0, done.stderr
    assert (app / "input" / "res" / "metadata").read_text() == CODABENCH_METADATA  # the worker's, beside it
    scores = json.loads((app / "output" / "scores.json").read_text())
    keys = {c.label: c.key for c in spec.columns()}
    assert scores == {keys[label]: v for label, v in expected_values(expected, "MBNet", spec).items()}

    if env in (None, "codabench-py37"):  # per-image files beside `metadata` (2,252 files: twice, not in every env)
        done = score(zipped(read_archive(kaist / "results" / "MBNet-per-image.tar.gz")), 2)
        assert done.returncode == 0, done.stderr
        per_image = expected_values(expected, "MBNet-per-image", spec)
        assert json.loads((app / "output" / "scores.json").read_text()) == {keys[k]: v for k, v in per_image.items()}

    done = score(zipped({"MBNet_result.txt": b"garbage\n"}), 3)
    assert done.returncode == 1 and not (app / "output" / "scores.json").exists()
    assert done.stderr.startswith("refused: MBNet_result.txt:1: ") and "Traceback" not in done.stderr
    done = score(zipped({"a_result.json": b"[]", "b_result.json": b"[]"}), 4)
    assert done.returncode == 1 and "must hold one result file" in done.stderr and "metadata" not in done.stderr


# --- what the copied core may use -------------------------------------------------------------------


def test_the_copied_core_is_portable_and_numpy_only():
    modules = core_modules()  # refuses a module that imports more than numpy or needs more than Python 3.7
    assert "kaist_kit.hosting.scoring" in modules and "kaist_kit.scoring.findings" in modules
    assert not any(name.startswith(("kaist_kit.cli", "kaist_kit.models", "kaist_kit.submission")) for name in modules)
    assert "kaist_kit.metrics.spec" in modules  # labels and column texts come from the metric specs
    assert not any(name.startswith("kaist_kit.zoo.") and name != "kaist_kit.zoo.names" for name in modules)
    for name, path in modules.items():
        assert portable.problems(path.read_bytes(), name) == [], name


NEWER = {
    "walrus": "def f(x):\n    return (y := x)\n",
    "match": "def f(x):\n    match x:\n        case 1:\n            return 2\n",
    "positional-only": "def f(x, /):\n    return x\n",
    "union at run time": "from __future__ import annotations\nNumber = int | float\n",
    "isinstance union": "from __future__ import annotations\ndef f(x):\n    return isinstance(x, int | None)\n",
    "list[int] at run time": "from __future__ import annotations\nRows = list[int]\n",
    "ABC subscripted": (
        "from __future__ import annotations\nfrom collections.abc import Callable\nEcho = Callable[[str], None]\n"
    ),
    "removeprefix": "def f(s):\n    return s.removeprefix('a')\n",
    "functools.cache": "import functools\nf = functools.cache(len)\n",
    "from functools import cache": "from functools import cache\n",
    "typing.Protocol": "from typing import Protocol\n",
    "dataclass slots": "from dataclasses import dataclass\n@dataclass(slots=True)\nclass A:\n    x: int = 0\n",
    "zip strict": "def f(a, b):\n    return list(zip(a, b, strict=True))\n",
    "numpy default_rng": "import numpy as np\nrng = np.random.default_rng(0)\n",
    "math.prod": "import math\nx = math.prod([1, 2])\n",
    "annotations evaluated": "def f(x: int | None) -> list[int]:\n    return [x]\n",
}


@pytest.mark.parametrize("case", sorted(NEWER))
def test_the_guard_names_what_python_37_lacks(case):
    found = portable.problems(NEWER[case], "m.py")
    assert found and all(line.startswith("m.py:") for line in found), case


def test_the_guard_leaves_annotations_and_guarded_blocks_alone():
    source = """from __future__ import annotations
import sys
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from typing import Protocol
    Alias = list[int] | None
if sys.version_info >= (3, 10):
    Number = int | float
def f(x: int | None, *, y: dict[str, list[int]] = None) -> tuple[int, ...] | None:
    z: list[int] | None = None
    return x | 3
"""
    assert portable.problems(source, "m.py") == []


def test_every_core_module_imports_on_the_oldest_worker(tmp_path, reference_env):
    """Every module of the copy, imported alone in Python 3.7 with numpy 1.16 (Codabench's default image)."""
    python = reference_env("codabench-py37")
    for name, data in core_files().items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    code = (
        f"import importlib, sys\nsys.path.insert(0, {str(tmp_path)!r})\nimport numpy\n"
        f"for name in {list(core_modules())!r}:\n    importlib.import_module(name)\nprint(numpy.__version__)"
    )
    done = subprocess.run([str(python), "-I", "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1.16.4"
