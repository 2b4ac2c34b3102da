"""A bundle's evaluator run as the platforms' workers run it, for `host check`.

EvalAI (Cloud-CV/EvalAI, scripts/workers/submission_worker.py): the worker makes the packages
`challenge_data` and `challenge_data/challenge_<id>` (empty ``__init__.py``), extracts the script zip
into the latter, puts each phase's annotation file at `phase_data/phase_<id>/<name>`, appends its
compute folder to ``sys.path``, imports `challenge_data.challenge_<id>`, and for each submission calls
``evaluate(annotation, upload, codename, submission_metadata=...)`` with ``sys.stdout`` and
``sys.stderr`` going to the files the participant reads (a traceback of what it raises goes there too).
The upload lies at `submission_files/submission_<id>/<uuid4><extension>`: EvalAI stores it under a UUID
(apps/base/utils.py), and the participant's own file name is gone.

Codabench (codalab/codabench, compute_worker/compute_worker.py): the scoring step's container sees the
scoring program in /app/program, the reference data in /app/input/ref, the prediction step's output in
/app/input/res, that is the participant's zip extracted plus the worker's own `metadata` file, and
writes /app/output; it runs the program's ``command`` (metadata.yaml) there, its legacy ``$input``-style
names replaced, with /app/program as its working folder.

Each runs in an interpreter of the worker's Python version when this machine has one (``--python``,
pythonX.Y on PATH, pyenv's), with the numpy it has; otherwise in this one, and the report says so.
"""

from __future__ import annotations

import glob
import json
import os
import shlex
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..io.read import load_json, read_bytes
from ..io.write import make_folder, write_bytes_atomic, write_text_atomic
from .platforms import Worker
from .yamlin import read_yaml

# The `metadata` Codabench's worker writes into the prediction's output (Run.push_output, yaml.dump of
# the program's status): for a results-only submission no program ran, so every value is null.
CODABENCH_METADATA = "elapsedTime: null\nexitCode: null\ningestionElapsedTime: null\ningestionExitCode: null\n"
# Codabench's legacy names in a command (compute_worker.replace_legacy_metadata_command, scoring step).
CODABENCH_NAMES = (
    ("$input", "/app/input"),
    ("$output", "/app/output"),
    ("$program", "/app/program"),
    ("$ingestion_program", "/app/program"),
    ("$hidden", "/app/input/ref"),
    ("$shared", "/app/shared"),
    ("$submission_program", "/app/ingested_program"),
    ("$tmp", "/app/output"),
    ("$predictions", "/app/input/res"),
)


@dataclass
class Interpreter:
    executable: str
    python: str  # major.minor
    numpy: str | None
    note: str = ""  # why it is not the worker's, when it is not

    def describe(self) -> str:
        return f"Python {self.python}" + (f" with numpy {self.numpy}" if self.numpy else " without numpy")


def _probe(executable: str) -> tuple[str, str | None] | None:
    """(major.minor, numpy version or None) of an interpreter, or None when it does not run."""
    code = (
        "import sys\ntry:\n    import numpy\n    v = numpy.__version__\nexcept Exception:\n    v = ''\n"
        "print('%d.%d %s' % (sys.version_info[0], sys.version_info[1], v))"
    )
    try:
        done = subprocess.run(
            [executable, "-c", code], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=_env()
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = done.stdout.split()
    if done.returncode != 0 or not words:
        return None
    return words[0], (words[1] if len(words) > 1 else None)


def find_interpreter(worker: Worker | None, given: str | None = None) -> Interpreter:
    """The interpreter to run the evaluator in: ``given`` (``--python``), else one of the worker's Python
    version on this machine (this one, pythonX.Y on PATH, pyenv's) that has numpy, else this one with a
    note saying why."""
    own = f"{sys.version_info[0]}.{sys.version_info[1]}"
    own_numpy = _own_numpy()
    if given:
        found = _probe(given)
        if found is None:
            return Interpreter(sys.executable, own, own_numpy, f"--python {given} does not run: ran in this {own}")
        note = "" if worker is None or found[0] == worker.python else f"--python is Python {found[0]}"
        return Interpreter(given, found[0], found[1], note)
    if worker is None:
        return Interpreter(sys.executable, own, own_numpy)
    if worker.python == own:
        return Interpreter(sys.executable, own, own_numpy)
    without_numpy = None
    for candidate in _candidates(worker.python):
        found = _probe(candidate)
        if found is not None and found[0] == worker.python:
            if found[1]:
                return Interpreter(candidate, found[0], found[1])
            without_numpy = without_numpy or candidate
    why = (
        f"the Python {worker.python} found ({without_numpy}) has no numpy"
        if without_numpy
        else f"no Python {worker.python} on this machine (PATH, pyenv; or give --python)"
    )
    return Interpreter(
        sys.executable, own, own_numpy, f"{why}: ran in this Python {own}, which the worker does not have"
    )


def _own_numpy() -> str | None:
    try:
        import numpy
    except ImportError:
        return None
    return numpy.__version__


def _candidates(version: str) -> list[str]:
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found = [shutil.which(f"python{version}")]
    found += sorted(glob.glob(os.path.join(root, "versions", f"{version}.*", "bin", f"python{version}")), reverse=True)
    return list(dict.fromkeys(filter(None, found)))


def _env() -> dict:
    """The environment the evaluator runs in: a worker's has no PYTHONPATH of this machine's."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


# --- EvalAI -------------------------------------------------------------------------------------

# Runs in the worker's interpreter (Python 3.7 to 3.9): nothing newer than 3.7 in it.
EVALAI_HARNESS = r"""
import importlib, json, sys, traceback
compute, package, calls, out = sys.argv[1:]
sys.path.append(compute)
try:
    importlib.invalidate_caches()
    module = importlib.import_module(package)
except BaseException:
    with open(out, "w") as handle:
        json.dump({"import_error": traceback.format_exc()[-4000:]}, handle)
    sys.exit(0)
done = []
for annotation, upload, codename, metadata in json.loads(calls):
    record = {"upload": upload, "codename": codename}
    stdout, stderr = open(out + ".stdout", "w+"), open(out + ".stderr", "w+")
    sys.stdout, sys.stderr = stdout, stderr
    try:
        output = module.evaluate(annotation, upload, codename, submission_metadata=metadata)
        record["output"] = json.loads(json.dumps(output, default=str))
    except BaseException as exc:
        stderr.write(traceback.format_exc())
        record["raised"] = "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    for name, handle in (("stdout", stdout), ("stderr", stderr)):
        handle.seek(0)
        record[name] = handle.read()[-4000:]
        handle.close()
    done.append(record)
with open(out, "w") as handle:
    json.dump({"records": done}, handle)
"""


@dataclass
class EvalAIRun:
    """What the worker did: the import's traceback, or one record per upload."""

    import_error: str = ""
    records: list | None = None
    failure: str = ""  # the harness itself could not run


def storage_name(extension: str) -> str:
    """A name as EvalAI stores an upload under: a UUID4 and the file's extension."""
    return f"{uuid.uuid4()}{extension}"


def run_evalai(
    script: dict[str, bytes],
    calls: list[tuple[Path, Path, str, int]],
    work: Path,
    interpreter: Interpreter,
    timeout: float,
) -> tuple[EvalAIRun, list[Path]]:
    """Run the script (its files by name) on ``calls``: (annotation, upload, phase codename, phase id),
    laid out as EvalAI's worker lays them out under ``work``. Returns the run and where each upload lay."""
    compute = work / "compute"
    package = compute / "challenge_data" / "challenge_1"
    for folder in (compute / "challenge_data", package):  # as the worker makes them
        write_text_atomic(folder / "__init__.py", "")
    for name, data in script.items():
        write_bytes_atomic(package / name, data)
    laid, placed = [], []
    for k, (annotation, upload, codename, phase_id) in enumerate(calls):
        target = package / "phase_data" / f"phase_{phase_id}" / annotation.name
        if not target.is_file():
            write_bytes_atomic(target, read_bytes(annotation))
        stored = compute / "submission_files" / f"submission_{k + 1}" / storage_name(_extension(upload.name))
        write_bytes_atomic(stored, read_bytes(upload))
        metadata = {"id": k + 1, "method_name": "", "method_description": "", "status": "running"}
        laid.append([str(target), str(stored), codename, metadata])
        placed.append(stored)
    out = work / "evalai-run.json"
    failure = _run([interpreter.executable, "-c", EVALAI_HARNESS, str(compute), "challenge_data.challenge_1",
                    json.dumps(laid), str(out)], work, timeout, "the evaluation script")  # fmt: skip
    if failure:
        return EvalAIRun(failure=failure), placed
    try:
        data = load_json(out)
    except InputError as exc:
        return EvalAIRun(failure=f"the evaluation script's run left no record ({exc.reason})"), placed
    return EvalAIRun(data.get("import_error", ""), data.get("records")), placed


def _extension(name: str) -> str:
    """The extension EvalAI keeps (os.path.splitext: `.gz` of a `.tar.gz`)."""
    return os.path.splitext(name)[1]


def _run(argv: list[str], work: Path, timeout: float, what: str) -> str:
    """Run ``argv`` in an empty working folder; '' when it finished, else why not."""
    cwd = make_folder(work / "cwd")
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, cwd=cwd, env=_env()
        )
    except subprocess.TimeoutExpired:
        return f"{what} did not finish within {timeout:g} s"
    except OSError as exc:
        return f"{what} cannot be run: {exc.strerror or exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"{what} cannot be run: {last[:300]}"
    return ""


# --- Codabench ----------------------------------------------------------------------------------


@dataclass
class CodabenchRun:
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    scores: object = None
    failure: str = ""  # it could not be run
    refused: str = ""  # its command is not run (it names what is no file of the bundle)


def codabench_command(command: str, app: Path, interpreter: Interpreter) -> list[str] | str:
    """The program's command as argv in the layout under ``app``, or why it cannot be run: the legacy
    names replaced as the worker replaces them, /app/ moved under ``app``, python the chosen
    interpreter; a path outside /app is not run (it is no file of the bundle)."""
    for name, replacement in CODABENCH_NAMES:
        command = command.replace(name, replacement)
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return f"its command cannot be read ({exc})"
    argv = []
    for k, word in enumerate(words):
        program = os.path.basename(word)
        if k == 0 and (program in ("python", "python3") or program.startswith("python3.")):
            argv.append(interpreter.executable)
            continue
        if (word.startswith("/") and not (word == "/app" or word.startswith("/app/"))) or ".." in word.split("/"):
            return f"its command names {word}, outside the container's /app: not run"
        argv.append(word.replace("/app/", f"{app}/") if word.startswith("/app/") else word)
    return argv if argv else "its command is empty"


def run_codabench(
    program: dict[str, bytes],
    reference: dict[str, bytes],
    submission: dict[str, bytes],
    command: str,
    interpreter: Interpreter,
    work: Path,
    timeout: float,
) -> CodabenchRun:
    """Run the scoring program's ``command`` on one submission (its files by name, as the participant's
    zip holds them) in new copies of the container's folders under ``work``."""
    app = work / "app"
    argv = codabench_command(command, app, interpreter)
    if isinstance(argv, str):
        return CodabenchRun(refused=argv)
    for folder, members in (("program", program), ("input/ref", reference), ("input/res", submission)):
        for name, data in members.items():
            write_bytes_atomic(app / folder / name, data)
    write_text_atomic(app / "input" / "res" / "metadata", CODABENCH_METADATA)
    output = make_folder(app / "output")
    make_folder(app / "shared")
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            cwd=make_folder(app / "program"),
            env=_env(),
        )
    except subprocess.TimeoutExpired:
        return CodabenchRun(failure=f"the scoring program did not finish within {timeout:g} s")
    except OSError as exc:
        return CodabenchRun(failure=f"the scoring program cannot be run: {exc.strerror or exc}")
    scores = None
    for name in ("scores.json", "scores.txt"):  # Codabench reads either (Run.push_scores), JSON first
        if (output / name).is_file():
            try:
                scores = load_json(output / name) if name.endswith(".json") else read_yaml(output / name)
            except InputError as exc:
                scores = f"unreadable ({exc.reason})"
            break
    return CodabenchRun(done.returncode, done.stdout[-4000:], done.stderr[-4000:], scores)
