"""What the hosting tests share: the numbers `kaist-kit eval` prints, and the platforms' workers modelled.

The worker models follow the platforms' own code (docs/hosting.md names the commits it was read at):

- EvalAI, scripts/workers/submission_worker.py: `challenge_data/challenge_<id>` made a package, the script
  zip extracted into it, the annotation at `phase_data/phase_<id>/<name>`, the compute folder appended to
  sys.path, the package imported, `evaluate(annotation, upload, codename, submission_metadata=...)` called
  with sys.stdout and sys.stderr going to files, a traceback of what it raises written there; the upload
  at `submission_files/submission_<id>/<uuid4><extension>` (apps/base/utils.py, SubmissionArtifactFileName).
- EvalAI-Starters, github/utils.py (create_challenge_zip_file): evaluation_script.zip rebuilt from every file
  under `evaluation_script/`, named relative to it.
- Codabench, compute_worker/compute_worker.py and src/apps/competitions/unpackers/utils.py: a bundle's
  folder zipped with shutil.make_archive and extracted into the container's folders; the participant's zip
  extracted, copied to the prediction's output with the worker's `metadata` (yaml.dump of the program's
  status) and zipped again, then extracted into /app/input/res for the scoring step.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap
import uuid
import zipfile
from pathlib import Path

import numpy as np

from kaist_kit.hosting.columns import ColumnSpec

SPEC = ColumnSpec(("lamr", "ap50", "ar"), ("reasonable",), ("all", "day", "night"), ("leaderboard", "matlab"))
RESULTS = ("MLPD_result.json", "MBNet_result.txt", "MBNet-per-image.tar.gz")


def kit_eval(paths, gt, spec=SPEC):
    """What `kaist-kit eval --format json` prints, by (method, protocol, setting, split): the row."""
    args = [sys.executable, "-m", "kaist_kit", "eval", *map(str, paths), "--gt", str(gt), "--format", "json"]
    for protocol in spec.protocols:
        args += ["--protocol", protocol]
    for metric in spec.metrics:
        args += ["--metric", metric]
    for setting in spec.settings:
        args += ["--setting", setting]
    for split in spec.splits:
        args += ["--split", split]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return {(r["method"], r["protocol"], r["setting"], r["split"]): r for r in json.loads(done.stdout)["results"]}


def expected_values(rows, method, spec=SPEC):
    return {c.label: 100 * rows[(method, c.protocol, c.setting, c.split)][c.metric] for c in spec.columns()}


def method_of(name: str) -> str:
    return name.split("_result")[0].replace(".tar.gz", "").replace(".tgz", "")


def numpy_only(folder: Path) -> Path:
    """A folder whose only packages are this interpreter's numpy (and the shared libraries its wheel brings)."""
    folder.mkdir()
    source = Path(np.__file__).resolve().parent
    (folder / "numpy").symlink_to(source)
    for libs in source.parent.glob("numpy*.libs"):
        (folder / libs.name).symlink_to(libs)
    return folder


def interpreter_args(python: Path | None, tmp_path: Path) -> list[str]:
    """How to start the worker's interpreter: a reference environment's (numpy is its one package), or
    this one isolated from its site-packages with its numpy alone (``python`` None)."""
    if python is not None:
        return [str(python), "-I"]
    return [sys.executable, "-I", "-S", "-c", f"import sys; sys.path.append({str(numpy_only(tmp_path / 'np'))!r})"]


# --- EvalAI ---------------------------------------------------------------------------------------

# Runs in the worker's interpreter: Python 3.7 syntax. The first argument says where numpy is, when it is
# not in the interpreter's own site-packages.
EVALAI_WORKER = textwrap.dedent("""
    import importlib, importlib.util, json, sys, traceback
    numpy_dir, compute, calls, out = sys.argv[1:]
    if numpy_dir:
        sys.path.append(numpy_dir)
    isolation = {name: importlib.util.find_spec(name) is not None for name in ("kaist_kit", "typer", "rich",
                                                                             "matplotlib", "msgspec")}
    sys.path.append(compute)
    importlib.invalidate_caches()
    module = importlib.import_module("challenge_data.challenge_7")
    records = []
    for annotation, upload, codename, metadata in json.loads(calls):
        stdout, stderr = open(out + ".stdout", "w+"), open(out + ".stderr", "w+")
        sys.stdout, sys.stderr = stdout, stderr
        try:
            output = module.evaluate(annotation, upload, codename, submission_metadata=metadata)
            raised = None
        except Exception:
            output, raised = None, traceback.format_exc()
            stderr.write(raised)
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        stdout.seek(0), stderr.seek(0)
        records.append({"output": output, "raised": raised, "stdout": stdout.read(), "stderr": stderr.read(),
                        "submission_result": json.dumps(output.get("submission_result", ""), default=str)
                        if output else ""})
    json.dump({"isolation": isolation, "version": list(sys.version_info[:2]), "records": records,
               "kit_from": [m.__file__ for n, m in sys.modules.items() if n.endswith("kaist_kit.metrics.evaluate")]},
              open(out, "w"))
""")


def starters_zip(folder: Path) -> bytes:
    """evaluation_script.zip as EvalAI-Starters' processing script builds it from the folder: every file
    under it, walked by os.walk, named relative to it, deflated."""
    out = folder.parent / "starters-evaluation_script.zip"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for root, _, files in os.walk(folder):
            for name in files:
                path = os.path.join(root, name)
                archive.write(path, path[len(str(folder)) + 1 :])
    data = out.read_bytes()
    out.unlink()
    return data


def evalai_layout(tmp_path: Path, script_zip: bytes, annotation_file: Path) -> tuple[Path, Path]:
    """The worker's compute folder with the script extracted into its challenge package, and the phase's
    annotation file where the worker puts it."""
    compute = tmp_path / "compute"
    package = compute / "challenge_data" / "challenge_7"
    package.mkdir(parents=True)
    for folder in (compute / "challenge_data", package):
        (folder / "__init__.py").write_text("")
    zip_path = package / "challenge_7.zip"
    zip_path.write_bytes(script_zip)
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(package)
    zip_path.unlink()
    annotation = package / "phase_data" / "phase_3" / annotation_file.name
    annotation.parent.mkdir(parents=True)
    shutil.copy(annotation_file, annotation)
    return compute, annotation


def stored_upload(compute: Path, k: int, source: Path) -> Path:
    """Where EvalAI's worker lays an upload: its storage name, a UUID4 and the file's extension."""
    target = compute / "submission_files" / f"submission_{k}" / f"{uuid.uuid4()}{os.path.splitext(source.name)[1]}"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, target)
    return target


def run_evalai_worker(python: Path | None, tmp_path: Path, compute: Path, calls: list) -> dict:
    out = tmp_path / "worker.json"
    if python is None:
        args = [sys.executable, "-I", "-S", "-c", EVALAI_WORKER, str(numpy_only(tmp_path / "np"))]
    else:
        args = [str(python), "-I", "-c", EVALAI_WORKER, ""]
    subprocess.run([*args, str(compute), json.dumps(calls), str(out)], check=True, cwd=tmp_path, timeout=600)
    return json.loads(out.read_text())


# --- Codabench ------------------------------------------------------------------------------------


def make_archive_and_extract(folder: Path, into: Path) -> None:
    """A folder of the bundle as Codabench's unpacker zips it (shutil.make_archive) and its worker extracts
    it (ZipFile.extractall)."""
    archive = shutil.make_archive(str(into.parent / f"{into.name}-bundle"), "zip", folder)
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(into)
    os.unlink(archive)


def codabench_res(res: Path, participant_zip: bytes, scratch: Path) -> None:
    """input/res as the scoring step sees it: the participant's zip extracted in the prediction step, copied
    into its output with the worker's `metadata`, zipped, and extracted again."""
    import yaml

    predicted = scratch / "prediction-output"
    scratch.mkdir(parents=True)
    upload = scratch / "upload.zip"
    upload.write_bytes(participant_zip)
    with zipfile.ZipFile(upload) as opened:
        opened.extractall(predicted)
    status = {"exitCode": None, "elapsedTime": None, "ingestionExitCode": None, "ingestionElapsedTime": None}
    (predicted / "metadata").write_text(yaml.dump(status, default_flow_style=False))
    make_archive_and_extract(predicted, res)
