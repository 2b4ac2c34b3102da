"""What runs on a challenge platform's worker: one upload scored with the kit, for EvalAI and Codabench.

This module and everything it imports need only numpy and the standard library: the bundles carry a
copy of that part of the kit (`bundle.core_files`), so that a worker without network and without the
kit installed scores exactly as `kaist-kit eval` does. An upload the kit refuses (unreadable, boxes
written as corners, ids off by one, detections of other images, nothing that counts) gives the
participant the kit's one-line message and no traceback; the host's own mistakes (a phase the
configuration does not know, an annotation file that cannot be read) are said in one line too.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..data.detections import method_name
from ..data.groundtruth import GroundTruth
from ..data.results import SUBMISSION_MANIFEST
from ..datasets.kaist_truth import load_ground_truth
from ..errors import InputError, where
from ..io.read import load_json, read_bytes
from ..io.write import scratch_folder, write_bytes_atomic, write_text_atomic
from ..metrics.evaluate import Result, ResultFiles
from ..scoring.findings import NO_PEDESTRIANS, Finding, evaluate_inspected
from .columns import ColumnSpec
from .platforms import STORAGE_NAME

CONFIG_NAME = "challenge.json"  # beside the entry point: the columns and the phases
CONFIG_FORMAT = 1
SCORED_BY = f"kaist-kit {__version__}"


@dataclass
class Scored:
    """One upload's numbers by column label (percent, as `kaist-kit eval` prints them) and findings."""

    values: dict[str, float]
    findings: list[Finding]
    results: list[Result]

    def finding_lines(self) -> list[str]:
        return [f"{f.level}: {f.line(with_source=False)}" for f in self.findings]


def score_upload(gt: GroundTruth, path: str | os.PathLike, spec: ColumnSpec, method: str | None = None) -> Scored:
    """Score a result file (or per-image folder, or archive) as `kaist-kit eval` does, for every column
    of ``spec``. An `InputError` when the kit refuses the file, or when no pedestrian counts in a
    column (its number would mean nothing)."""
    inspected = evaluate_inspected(ResultFiles((path,), (method or method_name(path),)), gt, spec.grid())
    empty = [f for f in inspected.findings if f.kind is NO_PEDESTRIANS]
    if empty:
        raise InputError(f"[{NO_PEDESTRIANS.code}] {empty[0].message}", path)
    by_cell = {(r.protocol, r.setting, r.split): r for r in inspected.results}
    values = {c.label: 100 * by_cell[(c.protocol, c.setting, c.split)].value(c.metric) for c in spec.columns()}
    return Scored(values, inspected.findings, inspected.results)


def read_config(path: str | os.PathLike) -> tuple[ColumnSpec, dict]:
    """The bundle's configuration: its columns, and the rest (phases, kit version) as read."""
    data = load_json(path)
    if not isinstance(data, dict) or data.get("kaist_kit_challenge") != CONFIG_FORMAT:
        raise InputError("not a challenge configuration written by `kaist-kit host`", path)
    spec = ColumnSpec.from_dict(data["columns"])
    if data.get("labels", []) and data["labels"] != [c.label for c in spec.columns()]:
        raise InputError("its labels are not those of its columns: it was edited by hand", path)
    return spec, data


def participant_message(exc: InputError, folder: str | os.PathLike) -> str:
    """The kit's one-line message as the participant should read it: the worker's ``folder`` (where the
    upload lies) left out, and a name the platform gave the file (EvalAI stores it as a UUID) said as
    "your file"."""
    path = shown_path(exc.path or "", folder)
    reason = _scrubbed(exc.reason, folder)
    if reason.endswith(AS_IS_HINT):  # a file that looks misread: the fix is the packager's option
        reason = reason[: -len(AS_IS_HINT)] + ", as `kaist-kit submit` packages it, and upload the file it writes"
    if not path:
        return reason
    if path.startswith(YOUR_FILE):
        return f"{path}{'' if exc.line is None else f', line {exc.line}'}: {reason}"
    return f"{where(path, exc.line)}: {reason}"


YOUR_FILE = "your file"


def shown_path(path: str, folder: str | os.PathLike) -> str:
    """``path`` below ``folder``, with a storage name (a UUID) said as "your file"."""
    base = str(folder).rstrip(os.sep) + os.sep
    if path.startswith(base):
        path = path[len(base) :]
    return _scrubbed(path, folder)


def _scrubbed(text: str, folder: str | os.PathLike) -> str:
    """``text`` without the worker's folder, and with the platform's storage names said as "your file"."""
    text = text.replace(str(folder).rstrip(os.sep) + os.sep, "")
    return STORAGE_NAME.sub(YOUR_FILE, text)


# How `findings.refuse_errors` ends its message; on a platform there is no --as-is to pass.
AS_IS_HINT = "; or pass --as-is to score the file as read"

_GT_CACHE: dict[tuple, GroundTruth] = {}


def cached_ground_truth(path: str | os.PathLike) -> GroundTruth:
    """The annotation file, read once per worker process (a worker scores many uploads)."""
    info = os.stat(path)
    key = (os.path.abspath(path), info.st_size, info.st_mtime_ns)
    if key not in _GT_CACHE:
        _GT_CACHE.clear()
        _GT_CACHE[key] = load_ground_truth(path)
    return _GT_CACHE[key]


# --- EvalAI -------------------------------------------------------------------------------------


def evalai_evaluate(
    test_annotation_file: str,
    user_submission_file: str,
    phase_codename: str,
    config_path: str | os.PathLike,
    submission_metadata: dict | None = None,
) -> dict:
    """EvalAI's ``evaluate``: ``{"result": [{split codename: {label: value}}], "submission_result": ...}``.

    EvalAI's worker redirects standard output and error to the files the participant reads, and shows
    a traceback for anything ``evaluate`` raises. So nothing is raised: a refused upload prints the
    kit's one line to standard error and returns no result (EvalAI marks the submission failed);
    an internal error prints one line there too, and its traceback to the worker's own log.
    """
    try:
        spec, config = read_config(config_path)
        phases = config["phases"]
        if phase_codename not in phases:
            raise _HostError(
                f"this evaluation script knows the phases {', '.join(map(repr, phases))}, not "
                f"{phase_codename!r}: the challenge configuration and the script disagree"
            )
        gt = _host_ground_truth(test_annotation_file)
        scored = score_upload(gt, user_submission_file, spec, _method(user_submission_file, submission_metadata))
    except InputError as exc:
        return _refused(f"refused: {participant_message(exc, Path(user_submission_file).parent)}")
    except _HostError as exc:
        return _refused(f"the challenge is misconfigured: {exc}")
    except Exception as exc:  # noqa: BLE001 - a participant sees one line, the host the traceback
        traceback.print_exc(file=sys.__stderr__)
        return _refused(
            f"internal error of the evaluator ({type(exc).__name__}: {exc}); the organisers have its details"
        )
    for line in scored.finding_lines():
        print(line)
    split = phases[phase_codename]["split"]
    print(f"scored by {SCORED_BY}: " + ", ".join(f"{label} {value:.2f}" for label, value in scored.values.items()))
    return {
        "result": [{split: scored.values}],
        "submission_result": {split: scored.values, "findings": scored.finding_lines(), "scored_by": SCORED_BY},
    }


def _method(upload: str | os.PathLike, metadata: object) -> str:
    """The method's name: the one the participant gave EvalAI, else the file's (EvalAI's storage name, a
    UUID, names nothing)."""
    given = metadata.get("method_name") if isinstance(metadata, dict) else None
    if isinstance(given, str) and given.strip():
        return given.strip()
    name = method_name(upload)
    return "submission" if STORAGE_NAME.fullmatch(Path(str(upload)).name) else name


class _HostError(Exception):
    """The host's configuration or annotation file, not the participant's upload, is at fault."""


def _host_ground_truth(path: str | os.PathLike) -> GroundTruth:
    try:
        return cached_ground_truth(path)
    except (InputError, OSError) as exc:
        raise _HostError(f"the test annotation file cannot be read ({exc})") from None


def _refused(line: str) -> dict:
    print(line, file=sys.stderr)
    print(line)
    return {}


# --- Codabench ----------------------------------------------------------------------------------

SCORES_NAME = "scores.json"
DEFAULT_INPUT, DEFAULT_OUTPUT = "/app/input", "/app/output"


# What Codabench's compute worker writes into the prediction's output, which the scoring step finds in
# input/res beside the participant's files: its `metadata` (exit code, elapsed time), at the top
# (codalab/codabench compute_worker/compute_worker.py, Run.push_output). The participant's zip cannot
# hold one there: the worker then fails the submission before scoring.
WORKER_FILES = ("metadata",)


def find_upload(res: Path) -> Path | list[Path]:
    """The result in Codabench's ``input/res`` (the participant's zip, extracted, and the worker's
    `metadata` beside it): its one result file (a manifest beside it is left out), or its per-image
    files."""
    files = sorted(
        p
        for p in res.rglob("*")
        if p.is_file()
        and not p.name.startswith(".")
        and "__MACOSX" not in p.parts
        and p.relative_to(res).as_posix() not in WORKER_FILES
    )
    results = [p for p in files if p.name != SUBMISSION_MANIFEST and not p.name.endswith(".manifest.json")]
    if len(results) > 1 and all(p.suffix.lower() == ".txt" for p in results):
        return results  # per-image files, setXX_VYYY_IZZZZZ.txt (the reader says if they are not)
    if len(results) != 1:
        names = ", ".join(p.relative_to(res).as_posix() for p in results[:5]) or "nothing"
        raise InputError(
            f"the submission must hold one result file (.json or .txt, as `kaist-kit submit` writes "
            f"it) or per-image files; it holds {names}"
        )
    return results[0]


def codabench_main(argv: list[str], config_path: str | os.PathLike) -> int:
    """Codabench's scoring program: ``score.py INPUT OUTPUT`` reads the reference from INPUT/ref and
    the submission from INPUT/res, and writes OUTPUT/scores.json keyed by the leaderboard's columns.
    A refused submission is one line on standard error and exit code 1."""
    input_dir = Path(argv[0] if argv else DEFAULT_INPUT)
    output_dir = Path(argv[1] if len(argv) > 1 else DEFAULT_OUTPUT)
    res = input_dir / "res"
    try:
        spec, config = read_config(config_path)
        reference = input_dir / "ref" / config["reference"]
        gt = _host_ground_truth(reference)
        upload = find_upload(res)
        if isinstance(upload, list):  # read as a folder of their own, without the worker's files
            with scratch_folder("submission") as staged:
                for path in upload:
                    write_bytes_atomic(staged / path.relative_to(res), read_bytes(path))
                res = staged
                scored = score_upload(gt, staged, spec, "submission")
        else:
            scored = score_upload(gt, upload, spec, method_name(upload))
    except InputError as exc:
        print(f"refused: {participant_message(exc, res)}", file=sys.stderr)
        return 1
    except _HostError as exc:
        print(f"the competition is misconfigured: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - no participant sees a traceback
        print(f"internal error of the scoring program ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 1
    for line in scored.finding_lines():
        print(line)
    keys = {c.label: c.key for c in spec.columns()}
    scores = {keys[label]: value for label, value in scored.values.items()}
    write_text_atomic(output_dir / SCORES_NAME, json.dumps(scores, indent=1) + "\n")
    print(f"scored by {SCORED_BY}: " + ", ".join(f"{label} {value:.2f}" for label, value in scored.values.items()))
    return 0
