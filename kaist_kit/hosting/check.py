"""`kaist-kit host check`: what is wrong with a challenge bundle, the kit's or a hand-made one, as the
platforms would find it.

It reads the configuration (EvalAI's challenge_config.yaml or Codabench's competition.yaml) within
bounds (`yamlin`) and reports, one line each:

- what the platform's validator refuses: each key's type as its serializers read it (`schema`), a worker
  interpreter it does not offer, a file the configuration names that is missing, or that lies outside
  the bundle (an absolute path, ``..``, a link out of it: never read, never run);
- what a participant would suffer: leaderboard labels whose sort order contradicts their metric (a miss
  rate ranked highest first, an AP lowest first), and a default order that does; descriptions that
  repeat one another; allowed file types that no KAIST result is written as; for EvalAI, an
  evaluation script that a challenge made from a GitHub repository (EvalAI-Starters) would lose.

Then, unless told not to, it runs the bundle's evaluator as the platform's worker runs it (`workers`),
in an interpreter of the worker's Python version when this machine has one, on uploads made from the
bundle's own test annotations: their boxes as detections, in each allowed file type, and a truncated
file. A perfect upload must score perfectly in every column it is shown in, every label must come
back, and a malformed upload must be refused in one line that names the participant's file as they
know it (EvalAI hands the evaluator a UUID), never with a traceback.

The bundle's code runs on this machine: check only bundles you trust, as the platform would run them.
Its messages name the bundle's files as the configuration names them, never the check's own folders.
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..io.archives import read_archive
from ..io.read import load_json, read_bytes
from ..io.write import scratch_folder, write_bytes_atomic, write_text_atomic
from . import schema
from .platforms import STORAGE_NAME, codabench_worker, evalai_worker
from .schema import drf_bool, drf_int
from .templates import UPLOAD_TYPES
from .workers import (
    CodabenchRun,
    Interpreter,
    find_interpreter,
    run_codabench,
    run_evalai,
)
from .yamlin import parse_yaml

ERROR, WARNING, NOTE = "error", "warning", "note"
# EvalAI's default when a phase does not say (challenges.models.ChallengePhase).
EVALAI_DEFAULT_TYPES = ".json, .zip, .txt, .tsv, .gz, .csv, .h5, .npy"
RUN_TIMEOUT_S = 600
MAX_LINES = 30  # of one kind: a configuration wrong everywhere is not listed whole
# A perfect upload's miss rate is 0 and its AP or AR 1 (or 100 in percent). Under the leaderboard
# protocol a pedestrian whose annotation id is 0 is missed whatever matches it, so a miss rate up to
# this (in either unit) still counts as perfect; a sentinel such as -1 or -100 never does.
PERFECT_LOWER = 0.5
_LOWER = re.compile(r"(?i)(^|[^a-z])(mr|lamr|miss|error|fppi)([^a-z]|$)|miss[ _-]?rate")
_HIGHER = re.compile(r"(?i)(^|[^a-z])(ap|ar|map|precision|recall|accuracy|f1)([^a-z]|$)|ap\d|ar\d")
SCRIPT_FOLDER = "evaluation_script"  # what EvalAI-Starters' processing script zips into the script


@dataclass(frozen=True)
class Problem:
    level: str
    code: str
    message: str

    def line(self) -> str:
        return f"{self.level}: [{self.code}] {self.message}"


@dataclass
class CheckReport:
    bundle: Path
    platform: str  # "EvalAI" or "Codabench"
    problems: list[Problem] = field(default_factory=list)
    probes: list[dict] = field(default_factory=list)  # what each run gave
    ran: bool = False
    interpreter: str = ""  # what the evaluator ran in

    @property
    def ok(self) -> bool:
        return not any(p.level == ERROR for p in self.problems)

    @property
    def ok_to_run(self) -> bool:
        """Whether the evaluator can be run: its files are there, inside the bundle, and the
        configuration has its parts."""
        return not any(p.code in ("missing-file", "outside", "config", "yaml") for p in self.problems)

    def add(self, level: str, code: str, message: str) -> None:
        if sum(p.code == code for p in self.problems) < MAX_LINES:
            self.problems.append(Problem(level, code, message))


def metric_direction(label: str, description: str = "") -> str | None:
    """ "lower" for a miss rate or an error, "higher" for an AP, AR or accuracy, None when unclear."""
    for text in (label, description):
        lower, higher = bool(_LOWER.search(text)), bool(_HIGHER.search(text))
        if lower != higher:
            return "lower" if lower else "higher"
    return None


def check_bundle(
    path: str | os.PathLike, run: bool = True, timeout: float = RUN_TIMEOUT_S, python: str | None = None
) -> CheckReport:
    """Check the bundle at ``path``: a folder, or a zip of one. ``python``: the interpreter to run the
    evaluator in (default: one of the worker's version found on this machine)."""
    path = Path(path)
    # A zip is unpacked, and the evaluator run, in a folder of the check's own, removed at the end; no
    # message names it.
    with scratch_folder("host-check") as scratch:
        try:
            root = _unpacked(path, scratch / "bundle")
            report = _check(Bundle(root, path), run, timeout, python, scratch)
        except InputError as exc:
            raise InputError(_scrubbed(str(exc), scratch, path)) from None
        for k, problem in enumerate(report.problems):
            report.problems[k] = Problem(problem.level, problem.code, _scrubbed(problem.message, scratch, path))
        for probe in report.probes:
            for key, value in probe.items():
                if isinstance(value, str):
                    probe[key] = _scrubbed(value, scratch, path)
    return report


def _scrubbed(text: str, scratch: Path, bundle: Path) -> str:
    """``text`` without the check's own folders: the unpacked bundle named as the bundle, the rest left out."""
    text = text.replace(f"{scratch / 'bundle'}{os.sep}", f"{bundle}/").replace(str(scratch / "bundle"), str(bundle))
    return re.sub(re.escape(str(scratch)) + r"[^\s:'\"),]*/", "", text).replace(str(scratch), "")


# --- reading ------------------------------------------------------------------------------------


class Bundle:
    """The bundle's folder, and its files found as the configuration names them, inside it or not at all."""

    def __init__(self, root: Path, shown: Path):
        self.root = Path(os.path.realpath(root))
        self.shown = shown

    def find(self, name: object, what: str, report: CheckReport, folder: bool = False) -> Path | None:
        """The file (or folder) ``name`` of the bundle; None, with the problem reported, when it is not
        named, is missing, or lies outside the bundle."""
        if not isinstance(name, str) or not name.strip():
            report.add(ERROR, "missing-file", f"{what}: no file named")
            return None
        parts = name.replace("\\", "/").split("/")
        if os.path.isabs(name) or name.startswith(("/", "\\")) or ".." in parts or re.match(r"[A-Za-z]:", name):
            report.add(ERROR, "outside", f"{what} names {name!r}, outside the bundle: not read")
            return None
        target = self.root / name
        real = Path(os.path.realpath(target))
        if real != self.root and self.root not in real.parents:
            report.add(ERROR, "outside", f"{what} names {name!r}, a link out of the bundle: not read")
            return None
        if not (real.is_dir() if folder else real.exists()):
            report.add(ERROR, "missing-file", f"{what} names {name}, which is not in the bundle")
            return None
        return target

    def members(self, source: Path) -> dict[str, bytes]:
        """A program's or data's files by name: a zip's (read bounded), or a folder's regular files
        inside the bundle (links out of it, and anything not a regular file, left out)."""
        if source.is_file():
            return read_archive(source)
        found = {}
        for folder, folders, files in os.walk(source):
            folders[:] = sorted(f for f in folders if self._inside(Path(folder) / f))
            for name in sorted(files):
                file = Path(folder) / name
                if self._inside(file) and file.is_file():
                    found[file.relative_to(source).as_posix()] = read_bytes(file)
        return found

    def _inside(self, path: Path) -> bool:
        """Whether ``path`` is in the bundle once every link is followed."""
        real = Path(os.path.realpath(path))
        return real == self.root or self.root in real.parents


def _unpacked(path: Path, scratch: Path) -> Path:
    if path.is_dir():
        return path
    if not path.is_file():
        raise InputError("no such bundle (a folder or a .zip)", path)
    if path.suffix.lower() != ".zip":
        raise InputError("a bundle is a folder or a .zip", path)
    _write_members(scratch, read_archive(path))  # bounded, and no entry outside the folder
    return scratch


def _find_config(root: Path) -> Path | None:
    names = ("challenge_config.yaml", "challenge_config.yml", "competition.yaml", "competition.yml")
    for depth in ("", "*/"):
        found = [p for name in names for p in sorted(root.glob(depth + name)) if p.is_file() and not p.is_symlink()]
        if found:
            return found[0]
    return None


def _check(bundle: Bundle, run: bool, timeout: float, python: str | None, scratch: Path) -> CheckReport:
    config = _find_config(bundle.root)
    if config is None:
        raise InputError(
            "neither challenge_config.yaml (EvalAI) nor competition.yaml (Codabench) is in the bundle", bundle.shown
        )
    evalai = config.name.startswith("challenge_config")
    report = CheckReport(bundle.shown, "EvalAI" if evalai else "Codabench")
    base = Bundle(config.parent, bundle.shown)
    shown_config = config.relative_to(bundle.root).as_posix()
    try:
        data = parse_yaml(read_bytes(config), shown_config)
    except InputError as exc:
        report.add(ERROR, "yaml", str(exc))
        return report
    if not isinstance(data, dict):
        report.add(ERROR, "config", f"{shown_config} is not a YAML mapping")
        return report
    for line in schema.validate(data, schema.EVALAI if evalai else schema.CODABENCH):
        report.add(ERROR, "type", f"{shown_config}: {line}")
    if evalai:
        _check_evalai(data, base, report, shown_config)
        if run and report.ok_to_run:
            _run_evalai(data, base, report, scratch, timeout, python)
    else:
        _check_codabench(data, base, report, shown_config)
        if run and report.ok_to_run:
            _run_codabench(data, base, report, scratch, timeout, python)
    if not run:
        _labels_in_sources(report, base, data)
    return report


def _dicts(value: object) -> list[dict]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _texts(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _types(text: object) -> list[str]:
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        return []
    return [t.strip().lower() for t in str(text).split(",") if t.strip()]


# --- EvalAI -------------------------------------------------------------------------------------


def _check_evalai(data: dict, base: Bundle, report: CheckReport, config: str) -> None:
    for key in ("description", "evaluation_details", "terms_and_conditions", "submission_guidelines", "image"):
        base.find(data.get(key), key, report)
    script = data.get("evaluation_script")
    if isinstance(script, str) and not script.endswith(".zip"):
        report.add(ERROR, "config", f"evaluation_script names {script}: EvalAI takes a .zip")
    if not _starters_only(data, base):
        base.find(script, "evaluation_script", report)
    _starters_layout(data, base, report)
    leaderboards = {drf_int(lb.get("id")): lb for lb in _dicts(data.get("leaderboard"))}
    if not leaderboards:
        report.add(ERROR, "config", f"{config} defines no leaderboard")
    for lb_id, lb in leaderboards.items():
        _check_evalai_leaderboard(lb_id, lb, data, report)
    phase_ids = set()
    for phase in _dicts(data.get("challenge_phases")):
        name = phase.get("codename") or phase.get("name")
        phase_ids.add(drf_int(phase.get("id")))
        base.find(phase.get("description"), f"phase {name!r} description", report)
        base.find(phase.get("test_annotation_file"), f"phase {name!r} test_annotation_file", report)
        for kind in _types(phase.get("allowed_submission_file_types", EVALAI_DEFAULT_TYPES)):
            if kind not in UPLOAD_TYPES and kind != ".gz":
                report.add(
                    ERROR,
                    "file-type",
                    f"phase {name!r} accepts {kind} uploads, which no KAIST result is written as (results are "
                    f"{', '.join(UPLOAD_TYPES)})",
                )
    splits = {drf_int(s.get("id")) for s in _dicts(data.get("dataset_splits"))}
    for link in _dicts(data.get("challenge_phase_splits")):
        for key, known in (
            ("challenge_phase_id", phase_ids),
            ("leaderboard_id", set(leaderboards)),
            ("dataset_split_id", splits),
        ):
            value = drf_int(link.get(key))
            if value is not None and value not in known:
                report.add(ERROR, "config", f"a challenge_phase_split's {key} {value} names nothing {config} defines")


def _check_evalai_leaderboard(lb_id: object, lb: dict, data: dict, report: CheckReport) -> None:
    board = _dict(lb.get("schema"))
    labels = _texts(board.get("labels"))
    metadata = _dict(board.get("metadata"))
    default = board.get("default_order_by")
    if isinstance(board.get("labels"), list) and isinstance(default, str) and default not in labels:
        report.add(
            ERROR, "default-order", f"leaderboard {lb_id}: default_order_by {default!r} is not one of its labels"
        )
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        report.add(ERROR, "config", f"leaderboard {lb_id}: the labels {', '.join(map(repr, duplicates))} repeat")
    descriptions: dict[str, list[str]] = defaultdict(list)
    for label in labels:
        meta = _dict(metadata.get(label))
        text = meta.get("description", "")
        description = text.strip() if isinstance(text, str) else ""
        if not description:
            report.add(WARNING, "no-description", f"label {label!r} has no description")
        else:
            descriptions[description].append(label)
        direction = metric_direction(label, description)
        ascending = meta.get("sort_ascending")
        if direction and isinstance(ascending, bool) and ascending != (direction == "lower"):
            way = "ascending (lowest first)" if ascending else "descending (highest first)"
            report.add(
                ERROR,
                "sort-order",
                f"label {label!r} is sorted {way}, but a "
                f"{'miss rate' if direction == 'lower' else 'higher-is-better metric'} ranks "
                f"{'lowest' if direction == 'lower' else 'highest'} first: sort_ascending: "
                f"{str(direction == 'lower').lower()}",
            )
    for description, same in descriptions.items():
        if len(same) > 1:
            report.add(
                ERROR,
                "same-description",
                f"labels {', '.join(map(repr, same))} share one description ({description!r}): a participant "
                "cannot tell them apart",
            )
    if default not in labels:
        return
    for split in _dicts(data.get("challenge_phase_splits")):
        if drf_int(split.get("leaderboard_id")) != lb_id:
            continue
        direction = metric_direction(default, str(_dict(metadata.get(default)).get("description", "")))
        given = "is_leaderboard_order_descending" in split
        descending = drf_bool(split.get("is_leaderboard_order_descending", True))
        if direction and descending is not None and descending != (direction == "higher"):
            report.add(
                ERROR,
                "default-order",
                f"phase {split.get('challenge_phase_id')}: the leaderboard is ranked by {default!r} "
                f"{'highest' if descending else 'lowest'} first (is_leaderboard_order_descending: "
                f"{descending}{'' if given else ', the default'}), which puts the worst entry on top",
            )


def _starters_layout(data: dict, base: Bundle, report: CheckReport) -> None:
    """A challenge made from a GitHub repository (EvalAI-Starters' github/challenge_processing_script.py)
    gets the zip of the `evaluation_script/` folder, rebuilt whatever evaluation_script.zip holds."""
    folder = base.root / SCRIPT_FOLDER
    if data.get("evaluation_script") != f"{SCRIPT_FOLDER}.zip":
        return
    if not folder.is_dir() or folder.is_symlink():
        report.add(
            ERROR,
            "starters",
            f"no {SCRIPT_FOLDER}/ folder: a challenge made from a GitHub repository (EvalAI-Starters) rebuilds "
            f"{SCRIPT_FOLDER}.zip from it, and gets an empty evaluation script",
        )
        return
    zipped = base.root / f"{SCRIPT_FOLDER}.zip"
    if zipped.is_file() and not zipped.is_symlink():
        if _starters_script(base) != read_archive(zipped):
            report.add(
                ERROR,
                "starters",
                f"{SCRIPT_FOLDER}.zip and the {SCRIPT_FOLDER}/ folder hold different files: a challenge made from a "
                "GitHub repository scores with the folder's, one uploaded as a zip with the zip's",
            )


def _starters_only(data: dict, base: Bundle) -> bool:
    """A repository made from EvalAI-Starters without the zip, which its workflow makes of the folder."""
    name = data.get("evaluation_script")
    folder = base.root / SCRIPT_FOLDER
    return name == f"{SCRIPT_FOLDER}.zip" and not os.path.lexists(base.root / name) and folder.is_dir()


def _starters_script(base: Bundle) -> dict[str, bytes]:
    """The script the Starters' processing script zips: every file under `evaluation_script/`."""
    return base.members(base.root / SCRIPT_FOLDER)


def _evalai_script(data: dict, base: Bundle, report: CheckReport) -> dict[str, bytes] | None:
    """The evaluation script's files: the zip the configuration names, or, in a repository made from
    EvalAI-Starters without it, the folder its workflow zips."""
    name = data.get("evaluation_script")
    if _starters_only(data, base):
        return _starters_script(base)
    path = base.find(name, "evaluation_script", report)
    if path is None:
        return None
    try:
        return read_archive(path)
    except InputError as exc:
        report.add(ERROR, "config", f"evaluation_script: {exc.reason}")
        return None


def _run_evalai(data: dict, base: Bundle, report: CheckReport, scratch: Path, timeout: float, python) -> None:
    script = _evalai_script(data, base, report)
    if script is None:
        return
    if not script:
        report.add(ERROR, "config", "the evaluation script is empty: every submission would fail")
        return
    worker = evalai_worker(data.get("worker_python_version"))
    interpreter = _interpreter(worker, python, report, "EvalAI")
    calls, shown = [], []
    for k, phase in enumerate(_dicts(data.get("challenge_phases"))):
        annotation = base.find(phase.get("test_annotation_file"), "test_annotation_file", report)
        if annotation is None:
            continue
        types = [
            t
            for t in _types(phase.get("allowed_submission_file_types", EVALAI_DEFAULT_TYPES))
            if t in (".json", ".txt", ".zip", ".tar", ".tgz", ".gz")
        ]
        probes = _probe_files(annotation, scratch / f"probes-{k}", report, f"phase {phase.get('codename')!r}")
        if probes is None:
            continue
        chosen = [(kind, probes[kind]) for kind in types if kind in probes] + [
            ("malformed .json", probes["malformed .json"])
        ]
        for kind, upload in chosen:
            calls.append((annotation, upload, str(phase.get("codename")), drf_int(phase.get("id")) or k + 1))
            shown.append((kind, phase, upload.name))
    if not calls:
        return
    outcome, stored = run_evalai(script, calls, scratch / "evalai", interpreter, timeout)
    if outcome.failure:
        report.add(ERROR, "crash", outcome.failure)
        return
    report.ran = True
    if outcome.import_error:
        last = outcome.import_error.strip().splitlines()[-1]
        report.add(
            ERROR,
            "import",
            f"EvalAI's worker cannot import the evaluation script ({last[:200]}): every submission fails",
        )
        return
    for record, (kind, phase, name), where in zip(outcome.records or [], shown, stored):
        report.probes.append({"type": kind, "phase": phase.get("codename"), "file": name, **record})
        _judge_evalai(record, kind, phase, data, report, where.name)


def _interpreter(worker, python: str | None, report: CheckReport, platform: str) -> Interpreter:
    interpreter = find_interpreter(worker, python)
    report.interpreter = interpreter.describe()
    if interpreter.note:
        worker_text = f"{platform}'s worker runs Python {worker.python} with numpy {worker.numpy}" if worker else ""
        report.add(WARNING, "worker-python", f"{worker_text}; {interpreter.note}".lstrip("; "))
    return interpreter


def _judge_evalai(record: dict, kind: str, phase: dict, data: dict, report: CheckReport, stored: str) -> None:
    codename = phase.get("codename")
    said = (record.get("stderr") or "") + (record.get("stdout") or "")
    if "raised" in record:
        report.add(
            ERROR,
            "traceback",
            f"phase {codename!r}: evaluate() raises on a {kind} upload ({record['raised']}): EvalAI shows the "
            "participant its traceback",
        )
        return
    if STORAGE_NAME.search(said) or stored in said:
        report.add(
            ERROR,
            "storage-name",
            f"phase {codename!r}: on a {kind} upload evaluate() names the file by EvalAI's storage name (a UUID), "
            "which the participant never saw",
        )
    if kind.startswith("malformed"):
        lines = (record.get("stderr") or "").strip().splitlines()
        if len(lines) > 1:
            report.add(
                WARNING,
                "message",
                f"phase {codename!r}: a {kind} upload is refused in {len(lines)} lines of standard error, not one",
            )
        return
    output = record.get("output")
    results = output.get("result") if isinstance(output, dict) else None
    if not isinstance(results, list) or not results:
        report.add(
            ERROR,
            "mis-score",
            f"phase {codename!r}: evaluate() returns no result for a {kind} upload of the test annotations' own boxes"
            + _said(record),
        )
        return
    splits = {s.get("codename") for s in _dicts(data.get("dataset_splits"))}
    labels_of = _evalai_labels(data, phase)
    for entry in results:
        if not isinstance(entry, dict) or len(entry) != 1 or not isinstance(next(iter(entry.values())), dict):
            report.add(
                ERROR, "result", f"phase {codename!r}: a result entry is not one {{split codename: {{label: value}}}}"
            )
            continue
        ((split, values),) = entry.items()
        if split not in splits:
            report.add(
                ERROR,
                "result",
                f"phase {codename!r}: evaluate() returns split {split!r}, which dataset_splits does not define",
            )
            continue
        labels = labels_of.get(split, [])
        _not_returned(labels, values, f"phase {codename!r}: evaluate() never returns", "it returns", report)
        _judge_perfect(values, labels, kind, f"phase {codename!r}", report)


def _not_returned(wanted: list, returned: dict, never: str, holds: str, report, nothing: str = "nothing") -> None:
    """The leaderboard's labels a scoring run does not return: one error naming them, and what it returns."""
    missing = [label for label in wanted if label not in returned]
    if missing:
        report.add(
            ERROR,
            "label-not-returned",
            f"{never} {', '.join(map(repr, missing))} ({holds} {', '.join(map(repr, returned)) or nothing})",
        )


def _evalai_labels(data: dict, phase: dict) -> dict[str, list[str]]:
    """The labels each dataset split of this phase shows."""
    boards = {
        drf_int(lb.get("id")): _texts(_dict(lb.get("schema")).get("labels")) for lb in _dicts(data.get("leaderboard"))
    }
    splits = {drf_int(s.get("id")): s.get("codename") for s in _dicts(data.get("dataset_splits"))}
    out: dict[str, list[str]] = {}
    for link in _dicts(data.get("challenge_phase_splits")):
        if drf_int(link.get("challenge_phase_id")) == drf_int(phase.get("id")):
            out[splits.get(drf_int(link.get("dataset_split_id")))] = boards.get(drf_int(link.get("leaderboard_id")), [])
    return out


def _judge_perfect(values: dict, labels: list, kind: str, where: str, report: CheckReport) -> None:
    wrong = []
    for label in labels:
        value = values.get(label)
        direction = metric_direction(str(label))
        if isinstance(value, bool) or not isinstance(value, (int, float)) or direction is None:
            continue
        perfect = (
            0 <= value <= PERFECT_LOWER
            if direction == "lower"
            else 0.99 <= value <= 1 + 1e-9 or 99 <= value <= 100 + 1e-7
        )
        if not perfect:
            wrong.append(f"{label} {value:g}")
    if wrong:
        report.add(
            ERROR,
            "mis-score",
            f"{where}: a {kind} upload of the test annotations' own boxes (a perfect detector) scores "
            f"{', '.join(wrong)}",
        )


def _said(record: dict) -> str:
    said = (record.get("stderr") or record.get("stdout") or "").strip().splitlines()
    return f"; it says: {said[-1][:200]}" if said else ""


# --- Codabench ----------------------------------------------------------------------------------


def _check_codabench(data: dict, base: Bundle, report: CheckReport, config: str) -> None:
    if data.get("version") != 2:
        report.add(WARNING, "config", f"{config} has no `version: 2` (checked as version 2)")
    base.find(data.get("image"), "image", report)
    base.find(data.get("terms"), "terms", report)
    for page in _dicts(data.get("pages")):
        base.find(page.get("file"), f"page {page.get('title')!r}", report)
    if "docker_image" not in data:
        report.add(
            NOTE,
            "worker-python",
            "no docker_image: Codabench runs the scoring program in codalab/codalab-legacy:py37 (Python 3.7)",
        )
    elif codabench_worker(data.get("docker_image")) is None and isinstance(data.get("docker_image"), str):
        report.add(
            NOTE, "worker-python", f"docker_image {data['docker_image']}: an image the kit does not know the Python of"
        )
    task_indexes = set()
    for task in _dicts(data.get("tasks")):
        task_indexes.add(task.get("index") if isinstance(task.get("index"), int) else None)
        if "key" in task:
            continue
        for key in ("scoring_program", "reference_data"):
            found = base.find(task.get(key), f"task {task.get('index')} {key}", report, folder=False)
            if found is not None and key == "scoring_program" and found.is_dir():
                if not any((found / m).is_file() for m in ("metadata.yaml", "metadata")):
                    report.add(
                        ERROR, "missing-file", f"the scoring program {task[key]} has no metadata.yaml with its command"
                    )
    for phase in _dicts(data.get("phases")):
        if "public_data" in phase:
            base.find(phase["public_data"], f"phase {phase.get('name')!r} public_data", report)
        for index in phase.get("tasks") if isinstance(phase.get("tasks"), list) else []:
            if isinstance(index, int) and not isinstance(index, bool) and index not in task_indexes:
                report.add(
                    ERROR, "config", f"phase {phase.get('name')!r} names task {index}, which tasks does not define"
                )
    boards = _dicts(data.get("leaderboards"))
    if not boards:
        report.add(ERROR, "config", f"{config} defines no leaderboards")
    for board in boards:
        titles: dict[str, list[str]] = defaultdict(list)
        for column in _dicts(board.get("columns")):
            title = str(column.get("title", ""))
            titles[title].append(str(column.get("key")))
            direction = metric_direction(title, str(column.get("key", "")))
            sorting = column.get("sorting", "desc")
            if sorting not in ("asc", "desc"):
                continue  # the type line says it
            if direction and (sorting == "asc") != (direction == "lower"):
                should = "asc" if direction == "lower" else "desc"
                ranks = "a miss rate ranks lowest first" if direction == "lower" else "it ranks highest first"
                default = "" if "sorting" in column else " (the default)"
                report.add(
                    ERROR,
                    "sort-order",
                    f"column {title!r} is sorted {sorting}{default}, but {ranks}: sorting: {should}",
                )
        for title, keys in titles.items():
            if len(keys) > 1:
                report.add(ERROR, "same-description", f"columns {', '.join(keys)} share the title {title!r}")


def _run_codabench(data: dict, base: Bundle, report: CheckReport, scratch: Path, timeout: float, python) -> None:
    worker = codabench_worker(data.get("docker_image"))
    interpreter = None
    columns = [c for board in _dicts(data.get("leaderboards")) for c in _dicts(board.get("columns"))]
    for k, task in enumerate(t for t in _dicts(data.get("tasks")) if "key" not in t):
        program_path = base.find(task.get("scoring_program"), "scoring_program", report)
        reference_path = base.find(task.get("reference_data"), "reference_data", report)
        if program_path is None or reference_path is None:
            continue
        try:
            program, reference = base.members(program_path), base.members(reference_path)
        except InputError as exc:
            report.add(ERROR, "config", f"task {task.get('index')}: {exc.reason}")
            continue
        metadata = next((m for m in ("metadata.yaml", "metadata") if m in program), None)
        try:
            settings = parse_yaml(program[metadata], f"{task['scoring_program']}/{metadata}") if metadata else {}
        except InputError as exc:
            report.add(ERROR, "yaml", str(exc))
            continue
        command = _dict(settings).get("command")
        if not isinstance(command, str) or not command.strip():
            report.add(ERROR, "missing-file", "the scoring program's metadata has no command")
            continue
        annotations = sorted(name for name in reference if name.endswith(".json"))
        if len(annotations) != 1:
            report.add(WARNING, "reference", "the reference data does not hold one .json annotation file: not run")
            continue
        if interpreter is None:
            interpreter = _interpreter(worker, python, report, "Codabench")
        annotation = scratch / f"reference-{k}" / Path(annotations[0]).name
        write_bytes_atomic(annotation, reference[annotations[0]])
        probes = _probe_files(annotation, scratch / f"probes-{k}", report, f"task {task.get('index')}")
        if probes is None:
            continue
        for n, kind in enumerate((".json", ".txt", "malformed .json")):
            upload = probes[kind]
            outcome = run_codabench(
                program,
                reference,
                {f"MY_result{upload.suffix}": read_bytes(upload)},
                command,
                interpreter,
                scratch / f"codabench-{k}-{n}",
                timeout,
            )
            if outcome.refused:
                report.add(ERROR, "outside", f"the scoring program: {outcome.refused}")
                return
            if outcome.failure:
                report.add(ERROR, "crash", outcome.failure)
                return
            report.ran = True
            record = {"returncode": outcome.returncode, "stdout": outcome.stdout, "stderr": outcome.stderr}
            report.probes.append({"type": kind, "scores": outcome.scores, **record})
            _judge_codabench(outcome, kind, columns, report)


def _judge_codabench(outcome: CodabenchRun, kind: str, columns: list, report: CheckReport) -> None:
    said = outcome.stderr + outcome.stdout
    if "Traceback (most recent call last)" in said:
        report.add(
            ERROR, "traceback", f"the scoring program prints a traceback on a {kind} upload: the participant sees it"
        )
    if kind.startswith("malformed"):
        return
    scores = outcome.scores
    if outcome.returncode != 0 or not isinstance(scores, dict):
        last = said.strip().splitlines()
        report.add(
            ERROR,
            "mis-score",
            f"the scoring program writes no scores for a {kind} upload of the test annotations' own boxes, in the "
            "worker's input/res (with its metadata file)" + (f"; it says: {last[-1][:200]}" if last else ""),
        )
        return
    keys = [c.get("key") for c in columns if not c.get("computation")]
    _not_returned(keys, scores, "scores.json never holds the column keys", "it holds", report, nothing="")
    titles = {c.get("key"): str(c.get("title", c.get("key"))) for c in columns}
    _judge_perfect(
        {titles.get(k, k): v for k, v in scores.items()},
        [titles[k] for k in keys if k in titles],
        kind,
        "the scoring program",
        report,
    )


def _write_members(folder: Path, members: dict[str, bytes]) -> None:
    for name, data in members.items():
        write_bytes_atomic(folder / name, data)


# --- shared -------------------------------------------------------------------------------------


def _probe_files(annotation: Path, folder: Path, report: CheckReport, where: str) -> dict[str, Path] | None:
    """Uploads made of the test annotations' own boxes (score 1, each box's category): a perfect
    detector, as COCO JSON, as the leaderboard's txt (1-based positions in id order), zipped, tarred;
    and a truncated JSON file. None, with the problem reported, when the annotations are not COCO's."""
    import io
    import tarfile

    from ..io.write import atomic_file
    from .bundle import write_zip

    try:
        data = load_json(annotation)
        images = sorted(_number(img["id"]) for img in data["images"])
        position = {image: k + 1 for k, image in enumerate(images)}
        records = [
            {
                "image_id": _number(a["image_id"]),
                "category_id": _number(a.get("category_id", 1)),
                "bbox": [_number(v) for v in a["bbox"]],
                "score": 1.0,
            }
            for a in data.get("annotations", [])
            if _number(a["image_id"]) in position
        ]
        if any(len(r["bbox"]) != 4 for r in records):
            raise ValueError("a bbox is not four numbers")
    except InputError as exc:
        report.add(ERROR, "annotation", f"{where}: the test annotation file cannot be read: {exc.reason}")
        return None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        report.add(
            ERROR,
            "annotation",
            f"{where}: the test annotation file is not a COCO ground truth the probe uploads can be made from "
            f"({type(exc).__name__}: {str(exc)[:80]})",
        )
        return None
    text = json.dumps(records)
    txt = "".join(f"{position[r['image_id']]},{','.join(repr(float(v)) for v in r['bbox'])},1.0\n" for r in records)
    paths = {
        ".json": folder / "probe_result.json",
        ".txt": folder / "probe_result.txt",
        ".zip": folder / "probe_result.zip",
        ".tar": folder / "probe_result.tar",
        ".tgz": folder / "probe_result.tgz",
        ".gz": folder / "probe_result.tar.gz",
        "malformed .json": folder / "broken_result.json",
    }
    write_text_atomic(paths[".json"], text)
    write_text_atomic(paths[".txt"], txt)
    write_zip(paths[".zip"], {"probe_result.json": text.encode()})
    for kind, mode in ((".tar", "w"), (".tgz", "w:gz"), (".gz", "w:gz")):
        with atomic_file(paths[kind]) as handle, tarfile.open(fileobj=handle, mode=mode) as archive:
            info = tarfile.TarInfo("probe_result.json")
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
    write_text_atomic(paths["malformed .json"], text[: max(1, len(text) // 2)])
    return paths


def _number(value: object):
    """An id or a coordinate as the ground truth holds it: a number (not a boolean)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{value!r} is not a number")
    return value


def _labels_in_sources(report: CheckReport, base: Bundle, data: dict) -> None:
    """Without running: labels that no file of the evaluator mentions (it can only build them)."""
    silent = CheckReport(report.bundle, report.platform)  # a file not found was reported already
    texts: list[str] = []
    try:
        if report.platform == "EvalAI":
            script = _evalai_script(data, base, silent) or {}
            texts = [d.decode("utf-8", "replace") for n, d in script.items() if n.endswith((".py", ".json"))]
            labels = [
                label
                for lb in _dicts(data.get("leaderboard"))
                for label in _texts(_dict(lb.get("schema")).get("labels"))
            ]
        else:
            for task in _dicts(data.get("tasks")):
                program = base.find(task.get("scoring_program"), "scoring_program", silent)
                if program is not None:
                    members = base.members(program)
                    texts += [d.decode("utf-8", "replace") for n, d in members.items() if n.endswith((".py", ".json"))]
            labels = [c.get("key") for b in _dicts(data.get("leaderboards")) for c in _dicts(b.get("columns"))]
    except InputError:
        return
    blob = "\n".join(texts)
    for label in labels:
        if str(label) not in blob:
            report.add(
                WARNING,
                "label-not-returned",
                f"no file of the evaluator mentions {label!r}: evaluate() can return it only by building the name",
            )
