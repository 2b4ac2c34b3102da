"""`kaist-kit host check`: what is wrong with a challenge bundle, the kit's or a hand-made one.

It reads the configuration (EvalAI's challenge_config.yaml or Codabench's competition.yaml) and
reports, one line each: files the configuration names that are missing; leaderboard labels whose
sort order contradicts their metric (a miss rate ranked highest first, an AP lowest first), and a
default order that does; descriptions that repeat one another; allowed file types that no KAIST
result is written as. Then, unless told not to, it runs the bundle's evaluator as the platform runs
it (EvalAI: the script zip extracted into a package and its ``evaluate`` called; Codabench: the
scoring program's command in the container's folder layout) in a separate Python process, on
uploads made from the bundle's own test annotations: their boxes as detections, in each allowed
file type, and a truncated file. A perfect upload must score perfectly in every column it is shown
in, every label must come back, and a malformed upload must not raise (EvalAI would show the
participant its traceback).

The bundle's code runs on this machine: check only bundles you trust, as the platform would run them.
YAML is read with PyYAML (in the `host` extra), the library both platforms read it with.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..files import (
    load_json,
    make_folder,
    read_archive,
    read_bytes,
    scratch_folder,
    write_bytes_atomic,
    write_text_atomic,
)
from .templates import UPLOAD_TYPES

ERROR, WARNING, NOTE = "error", "warning", "note"
# EvalAI's default when a phase does not say (challenges.models.ChallengePhase).
EVALAI_DEFAULT_TYPES = ".json, .zip, .txt, .tsv, .gz, .csv, .h5, .npy"
RUN_TIMEOUT_S = 600
# A perfect upload's miss rate is 0 and its AP or AR 1 (or 100 in percent). Under the leaderboard
# protocol a pedestrian whose annotation id is 0 is missed whatever matches it, so a miss rate up to
# this (in either unit) still counts as perfect; a sentinel such as -1 or -100 never does.
PERFECT_LOWER = 0.5
_LOWER = re.compile(r"(?i)(^|[^a-z])(mr|lamr|miss|error|fppi)([^a-z]|$)|miss[ _-]?rate")
_HIGHER = re.compile(r"(?i)(^|[^a-z])(ap|ar|map|precision|recall|accuracy|f1)([^a-z]|$)|ap\d|ar\d")


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

    @property
    def ok(self) -> bool:
        return not any(p.level == ERROR for p in self.problems)

    @property
    def ok_to_run(self) -> bool:
        """Whether the evaluator can be run: its files are there and the configuration has its parts."""
        return not any(p.code in ("missing-file", "config") for p in self.problems)


def metric_direction(label: str, description: str = "") -> str | None:
    """ "lower" for a miss rate or an error, "higher" for an AP, AR or accuracy, None when unclear."""
    for text in (label, description):
        lower, higher = bool(_LOWER.search(text)), bool(_HIGHER.search(text))
        if lower != higher:
            return "lower" if lower else "higher"
    return None


def check_bundle(path: str | os.PathLike, run: bool = True, timeout: float = RUN_TIMEOUT_S) -> CheckReport:
    """Check the bundle at ``path``: a folder, or a zip of one."""
    path = Path(path)
    # A zip is unpacked, and the evaluator run, in a folder of the check's own, removed at the end.
    with scratch_folder("host-check") as scratch:
        root = _unpacked(path, scratch / "bundle")
        config = _find_config(root, path)
        data = _read_yaml(config)
        base = config.parent
        if config.name.startswith("challenge_config"):
            report = CheckReport(path, "EvalAI")
            _check_evalai(data, base, report, config)
            if run and report.ok_to_run:
                _run_evalai(data, base, report, scratch, timeout)
        else:
            report = CheckReport(path, "Codabench")
            _check_codabench(data, base, report, config)
            if run and report.ok_to_run:
                _run_codabench(data, base, report, scratch, timeout)
        if not run:
            _labels_in_sources(report, base, data)
    return report


# --- reading ------------------------------------------------------------------------------------


def _unpacked(path: Path, scratch: Path) -> Path:
    if path.is_dir():
        return path
    if not path.is_file():
        raise InputError("no such bundle (a folder or a .zip)", path)
    if path.suffix.lower() != ".zip":
        raise InputError("a bundle is a folder or a .zip", path)
    _write_members(scratch, read_archive(path))  # bounded, and no entry outside the folder
    return scratch


def _find_config(root: Path, shown: Path) -> Path:
    names = ("challenge_config.yaml", "challenge_config.yml", "competition.yaml", "competition.yml")
    for depth in ("", "*/"):
        found = [p for name in names for p in sorted(root.glob(depth + name))]
        if found:
            return found[0]
    raise InputError("neither challenge_config.yaml (EvalAI) nor competition.yaml (Codabench) is in the bundle", shown)


def _read_yaml(path: Path) -> dict:
    return _parse_yaml(read_bytes(path), path)


def _parse_yaml(data: bytes, path: Path) -> dict:
    try:
        import yaml
    except ImportError:
        raise InputError(
            "`kaist-kit host check` reads YAML with PyYAML, as both platforms do: pip install pyyaml "
            "(or kaist-kit[host])"
        ) from None
    text = data.decode("utf-8", errors="replace")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(
            f"invalid YAML: {getattr(exc, 'problem', None) or exc}", path, mark.line + 1 if mark else None
        ) from None
    if not isinstance(data, dict):
        raise InputError("the configuration is not a YAML mapping", path)
    return data


def _exists(report: CheckReport, base: Path, name: object, what: str) -> bool:
    if not isinstance(name, str) or not name:
        report.problems.append(Problem(ERROR, "missing-file", f"{what}: no file named"))
        return False
    if not (base / name).exists():
        report.problems.append(Problem(ERROR, "missing-file", f"{what} names {name}, which is not in the bundle"))
        return False
    return True


def _types(text: object) -> list[str]:
    return [t.strip().lower() for t in str(text).split(",") if t.strip()]


# --- EvalAI -------------------------------------------------------------------------------------


def _check_evalai(data: dict, base: Path, report: CheckReport, config: Path) -> None:
    for key in (
        "description",
        "evaluation_details",
        "terms_and_conditions",
        "submission_guidelines",
        "image",
        "evaluation_script",
    ):
        _exists(report, base, data.get(key), key)
    leaderboards = {lb.get("id"): lb for lb in data.get("leaderboard") or [] if isinstance(lb, dict)}
    if not leaderboards:
        report.problems.append(Problem(ERROR, "config", f"{config.name} defines no leaderboard"))
    for lb_id, lb in leaderboards.items():
        schema = lb.get("schema") or {}
        labels = list(schema.get("labels") or [])
        metadata = schema.get("metadata") or {}
        default = schema.get("default_order_by")
        if default not in labels:
            report.problems.append(
                Problem(
                    ERROR,
                    "default-order",
                    f"leaderboard {lb_id}: default_order_by {default!r} is not one of its labels",
                )
            )
        descriptions: dict[str, list[str]] = defaultdict(list)
        for label in labels:
            meta = metadata.get(label) or {}
            description = str(meta.get("description", "")).strip()
            if not description:
                report.problems.append(Problem(WARNING, "no-description", f"label {label!r} has no description"))
            else:
                descriptions[description].append(label)
            direction = metric_direction(label, description)
            ascending = meta.get("sort_ascending")
            if direction and ascending is not None and bool(ascending) != (direction == "lower"):
                way = "ascending (lowest first)" if ascending else "descending (highest first)"
                report.problems.append(
                    Problem(
                        ERROR,
                        "sort-order",
                        f"label {label!r} is sorted {way}, but a "
                        f"{'miss rate' if direction == 'lower' else 'higher-is-better metric'}"
                        f" ranks {'lowest' if direction == 'lower' else 'highest'} first: "
                        f"sort_ascending: {str(direction == 'lower').lower()}",
                    )
                )
        for description, same in descriptions.items():
            if len(same) > 1:
                report.problems.append(
                    Problem(
                        ERROR,
                        "same-description",
                        f"labels {', '.join(map(repr, same))} share "
                        f"one description ({description!r}): a participant cannot tell them "
                        "apart",
                    )
                )
        for split in data.get("challenge_phase_splits") or []:
            if not isinstance(split, dict) or split.get("leaderboard_id") != lb_id or default not in labels:
                continue
            direction = metric_direction(default, str((metadata.get(default) or {}).get("description", "")))
            descending = split.get("is_leaderboard_order_descending", True)
            default_note = "" if "is_leaderboard_order_descending" in split else ", the default"
            if direction and bool(descending) != (direction == "higher"):
                report.problems.append(
                    Problem(
                        ERROR,
                        "default-order",
                        f"phase {split.get('challenge_phase_id')}: the "
                        f"leaderboard is ranked by {default!r} "
                        f"{'highest' if descending else 'lowest'} first "
                        f"(is_leaderboard_order_descending: {bool(descending)}{default_note}"
                        f"), which puts the worst entry on top",
                    )
                )
    for phase in data.get("challenge_phases") or []:
        if not isinstance(phase, dict):
            continue
        name = phase.get("codename") or phase.get("name")
        _exists(report, base, phase.get("description"), f"phase {name!r} description")
        _exists(report, base, phase.get("test_annotation_file"), f"phase {name!r} test_annotation_file")
        for kind in _types(phase.get("allowed_submission_file_types", EVALAI_DEFAULT_TYPES)):
            if kind not in UPLOAD_TYPES and kind != ".gz":
                report.problems.append(
                    Problem(
                        ERROR,
                        "file-type",
                        f"phase {name!r} accepts {kind} uploads, which no "
                        f"KAIST result is written as (results are {', '.join(UPLOAD_TYPES)})",
                    )
                )


def _evalai_probes(annotation: Path, scratch: Path, types: list[str]) -> list[tuple[str, Path]]:
    probes = _probe_files(annotation, scratch)
    chosen = [(kind, probes[kind]) for kind in types if kind in probes]
    return chosen + [("malformed .json", probes["malformed .json"])]


_HARNESS = r"""
import importlib, json, sys, traceback
compute, package, calls, out = sys.argv[1:]
sys.path.append(compute)
done = []
for annotation, upload, codename in json.loads(calls):
    record = {"upload": upload, "codename": codename}
    stdout, stderr = open(out + ".stdout", "w+"), open(out + ".stderr", "w+")
    sys.stdout, sys.stderr = stdout, stderr
    try:
        module = importlib.import_module(package)
        record["output"] = json.loads(json.dumps(module.evaluate(annotation, upload, codename,
                                                                 submission_metadata={}), default=str))
    except BaseException as exc:
        record["raised"] = "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    for name, handle in (("stdout", stdout), ("stderr", stderr)):
        handle.seek(0)
        record[name] = handle.read()[-4000:]
        handle.close()
    done.append(record)
with open(out, "w") as handle:
    json.dump(done, handle)
"""


def _run_evalai(data: dict, base: Path, report: CheckReport, scratch: Path, timeout: float) -> None:
    compute = scratch / "compute"
    package = compute / "challenge_data" / "challenge_1"
    for folder in (compute, compute / "challenge_data", package):  # as the worker makes them
        write_text_atomic(folder / "__init__.py", "")
    _write_members(package, read_archive(base / data["evaluation_script"]))
    calls, shown = [], []
    for k, phase in enumerate(p for p in data.get("challenge_phases") or [] if isinstance(p, dict)):
        annotation = base / phase["test_annotation_file"]
        types = [
            t
            for t in _types(phase.get("allowed_submission_file_types", EVALAI_DEFAULT_TYPES))
            if t in (".json", ".txt", ".zip", ".tar", ".tgz", ".gz")
        ]
        for kind, upload in _evalai_probes(annotation, scratch / f"probes-{k}", types):
            calls.append([str(annotation), str(upload), str(phase.get("codename"))])
            shown.append((kind, phase))
    out = scratch / "evalai-run.json"
    records = _run_python(
        _HARNESS,
        [str(compute), "challenge_data.challenge_1", json.dumps(calls), str(out)],
        out,
        timeout,
        report,
        "the evaluation script",
    )
    report.ran = records is not None
    for record, (kind, phase) in zip(records or [], shown):
        report.probes.append({"type": kind, "phase": phase.get("codename"), **record})
        _judge_evalai(record, kind, phase, data, report)


def _judge_evalai(record: dict, kind: str, phase: dict, data: dict, report: CheckReport) -> None:
    codename = phase.get("codename")
    if "raised" in record:
        report.problems.append(
            Problem(
                ERROR,
                "traceback",
                f"phase {codename!r}: evaluate() raises on a {kind} upload "
                f"({record['raised']}): EvalAI shows the participant its traceback",
            )
        )
        return
    if kind.startswith("malformed"):
        return
    output = record.get("output")
    results = output.get("result") if isinstance(output, dict) else None
    if not isinstance(results, list) or not results:
        report.problems.append(
            Problem(
                ERROR,
                "mis-score",
                f"phase {codename!r}: evaluate() returns no result for "
                f"a {kind} upload of the test annotations' own boxes" + _said(record),
            )
        )
        return
    splits = {s.get("codename") for s in data.get("dataset_splits") or [] if isinstance(s, dict)}
    labels_of = _evalai_labels(data, phase)
    for entry in results:
        if not isinstance(entry, dict) or len(entry) != 1:
            report.problems.append(
                Problem(
                    ERROR,
                    "result",
                    f"phase {codename!r}: a result entry is not one {{split codename: {{label: value}}}}",
                )
            )
            continue
        ((split, values),) = entry.items()
        if split not in splits:
            report.problems.append(
                Problem(
                    ERROR,
                    "result",
                    f"phase {codename!r}: evaluate() returns split {split!r}, which dataset_splits does not define",
                )
            )
            continue
        labels = labels_of.get(split, [])
        missing = [label for label in labels if label not in values]
        if missing:
            report.problems.append(
                Problem(
                    ERROR,
                    "label-not-returned",
                    f"phase {codename!r}: evaluate() never returns "
                    f"{', '.join(map(repr, missing))} (it returns "
                    f"{', '.join(map(repr, values)) or 'nothing'})",
                )
            )
        _judge_perfect(values, labels, kind, f"phase {codename!r}", report)


def _evalai_labels(data: dict, phase: dict) -> dict[str, list[str]]:
    """The labels each dataset split of this phase shows."""
    boards = {
        lb.get("id"): (lb.get("schema") or {}).get("labels") or []
        for lb in data.get("leaderboard") or []
        if isinstance(lb, dict)
    }
    splits = {s.get("id"): s.get("codename") for s in data.get("dataset_splits") or [] if isinstance(s, dict)}
    out: dict[str, list[str]] = {}
    for link in data.get("challenge_phase_splits") or []:
        if isinstance(link, dict) and link.get("challenge_phase_id") == phase.get("id"):
            out[splits.get(link.get("dataset_split_id"))] = list(boards.get(link.get("leaderboard_id"), []))
    return out


def _judge_perfect(values: dict, labels: list, kind: str, where: str, report: CheckReport) -> None:
    wrong = []
    for label in labels:
        value = values.get(label)
        direction = metric_direction(str(label))
        if not isinstance(value, (int, float)) or direction is None:
            continue
        perfect = (
            0 <= value <= PERFECT_LOWER
            if direction == "lower"
            else 0.99 <= value <= 1 + 1e-9 or 99 <= value <= 100 + 1e-7
        )
        if not perfect:
            wrong.append(f"{label} {value:g}")
    if wrong:
        report.problems.append(
            Problem(
                ERROR,
                "mis-score",
                f"{where}: a {kind} upload of the test annotations' own "
                f"boxes (a perfect detector) scores {', '.join(wrong)}",
            )
        )


def _said(record: dict) -> str:
    said = (record.get("stderr") or record.get("stdout") or "").strip().splitlines()
    return f"; it says: {said[-1][:200]}" if said else ""


# --- Codabench ----------------------------------------------------------------------------------


def _check_codabench(data: dict, base: Path, report: CheckReport, config: Path) -> None:
    if data.get("version") != 2:
        report.problems.append(Problem(WARNING, "config", f"{config.name} has no `version: 2` (checked as version 2)"))
    _exists(report, base, data.get("image"), "image")
    _exists(report, base, data.get("terms"), "terms")
    for page in data.get("pages") or []:
        _exists(report, base, (page or {}).get("file"), f"page {(page or {}).get('title')!r}")
    for task in data.get("tasks") or []:
        task = task or {}
        if "key" in task:
            continue
        for key in ("scoring_program", "reference_data"):
            if _exists(report, base, task.get(key), f"task {task.get('index')} {key}") and key == "scoring_program":
                program = base / task[key]
                if program.is_dir() and not any((program / m).is_file() for m in ("metadata.yaml", "metadata")):
                    report.problems.append(
                        Problem(
                            ERROR,
                            "missing-file",
                            f"the scoring program {task[key]} has no metadata.yaml with its command",
                        )
                    )
    boards = data.get("leaderboards") or []
    if not boards:
        report.problems.append(Problem(ERROR, "config", f"{config.name} defines no leaderboards"))
    for board in boards:
        titles: dict[str, list[str]] = defaultdict(list)
        for column in (board or {}).get("columns") or []:
            title = str(column.get("title", ""))
            titles[title].append(str(column.get("key")))
            direction = metric_direction(title, str(column.get("key", "")))
            sorting = str(column.get("sorting", "desc")).lower()
            if direction and (sorting == "asc") != (direction == "lower"):
                should = "asc" if direction == "lower" else "desc"
                ranks = "a miss rate ranks lowest first" if direction == "lower" else "it ranks highest first"
                default = "" if "sorting" in column else " (the default)"
                report.problems.append(
                    Problem(
                        ERROR,
                        "sort-order",
                        f"column {title!r} is sorted {sorting}{default}, but {ranks}: sorting: {should}",
                    )
                )
        for title, keys in titles.items():
            if len(keys) > 1:
                report.problems.append(
                    Problem(ERROR, "same-description", f"columns {', '.join(keys)} share the title {title!r}")
                )


_CODABENCH_HARNESS = r"""
import json, subprocess, sys
command, cwd, out, timeout = sys.argv[1:]
try:
    done = subprocess.run(json.loads(command), cwd=cwd, capture_output=True, text=True, timeout=float(timeout),
                          stdin=subprocess.DEVNULL)
    record = {"returncode": done.returncode, "stdout": done.stdout[-4000:], "stderr": done.stderr[-4000:]}
except subprocess.TimeoutExpired:
    record = {"raised": "timed out"}
with open(out, "w") as handle:
    json.dump(record, handle)
"""


def _run_codabench(data: dict, base: Path, report: CheckReport, scratch: Path, timeout: float) -> None:
    for k, task in enumerate(t for t in data.get("tasks") or [] if isinstance(t, dict) and "key" not in t):
        program = _members(base / task["scoring_program"])
        reference = _members(base / task["reference_data"])
        metadata = next((m for m in ("metadata.yaml", "metadata") if m in program), None)
        settings = _parse_yaml(program[metadata], Path(task["scoring_program"], metadata)) if metadata else {}
        command = settings.get("command")
        if not command:
            report.problems.append(Problem(ERROR, "missing-file", "the scoring program's metadata has no command"))
            continue
        annotations = sorted(name for name in reference if "/" not in name and name.endswith(".json"))
        if len(annotations) != 1:
            report.problems.append(
                Problem(WARNING, "reference", "the reference data does not hold one .json annotation file: not run")
            )
            continue
        columns = [c for board in data.get("leaderboards") or [] for c in (board or {}).get("columns") or []]
        annotation = scratch / f"reference-{k}" / annotations[0]
        write_bytes_atomic(annotation, reference[annotations[0]])
        probes = _probe_files(annotation, scratch / f"probes-{k}")
        for n, kind in enumerate((".json", ".txt", "malformed .json")):
            # Each upload in new copies of the platform's folders: nothing of an earlier run is seen.
            app = scratch / f"app-{k}-{n}"
            _write_members(app / "program", program)
            _write_members(app / "input" / "ref", reference)
            upload = probes[kind]
            write_bytes_atomic(app / "input" / "res" / f"MY_result{upload.suffix}", read_bytes(upload))
            output = make_folder(app / "output")
            argv = [
                sys.executable if i == 0 and word.startswith("python") else word.replace("/app/", f"{app}/")
                for i, word in enumerate(shlex.split(command))
            ]
            run = app / "run.json"
            record = _run_python(
                _CODABENCH_HARNESS,
                [json.dumps(argv), str(app / "program"), str(run), str(timeout)],
                run,
                timeout + 30,
                report,
                "the scoring program",
            )
            if record is None:
                return
            report.ran = True
            scores_path = output / "scores.json"
            record["scores"] = load_json(scores_path) if scores_path.is_file() else None
            report.probes.append({"type": kind, **record})
            _judge_codabench(record, kind, columns, report)


def _judge_codabench(record: dict, kind: str, columns: list, report: CheckReport) -> None:
    if "Traceback (most recent call last)" in (record.get("stderr") or "") + (record.get("stdout") or ""):
        report.problems.append(
            Problem(
                ERROR,
                "traceback",
                f"the scoring program prints a traceback on a {kind} upload: the participant sees it",
            )
        )
    if kind.startswith("malformed") or record.get("raised"):
        if record.get("raised"):
            report.problems.append(
                Problem(ERROR, "crash", f"the scoring program {record['raised']} on a {kind} upload")
            )
        return
    scores = record.get("scores")
    if record.get("returncode") != 0 or not isinstance(scores, dict):
        report.problems.append(
            Problem(
                ERROR,
                "mis-score",
                f"the scoring program writes no scores.json for a {kind} "
                "upload of the test annotations' own boxes" + _said(record),
            )
        )
        return
    keys = [c.get("key") for c in columns if not c.get("computation")]
    missing = [k for k in keys if k not in scores]
    if missing:
        report.problems.append(
            Problem(
                ERROR,
                "label-not-returned",
                f"scores.json never holds the column keys "
                f"{', '.join(map(repr, missing))} (it holds {', '.join(map(repr, scores))})",
            )
        )
    titles = {c.get("key"): str(c.get("title", c.get("key"))) for c in columns}
    _judge_perfect(
        {titles.get(k, k): v for k, v in scores.items()},
        [titles[k] for k in keys if k in titles],
        kind,
        "the scoring program",
        report,
    )


def _members(source: Path) -> dict[str, bytes]:
    """A program's or data's files by name: those of a folder, or of a zip (read bounded)."""
    if source.is_file():
        return read_archive(source)
    return {p.relative_to(source).as_posix(): read_bytes(p) for p in sorted(source.rglob("*")) if p.is_file()}


def _write_members(folder: Path, members: dict[str, bytes]) -> None:
    for name, data in members.items():
        write_bytes_atomic(folder / name, data)


# --- shared -------------------------------------------------------------------------------------


def _probe_files(annotation: Path, folder: Path) -> dict[str, Path]:
    """Uploads made of the test annotations' own boxes (score 1, each box's category): a perfect
    detector, as COCO JSON, as the leaderboard's txt (1-based positions in id order), zipped, tarred;
    and a truncated JSON file."""
    import io
    import tarfile

    from ..files import atomic_file
    from .bundle import write_zip

    data = load_json(annotation)
    images = sorted(int(img["id"]) for img in data.get("images", []))
    position = {image: k + 1 for k, image in enumerate(images)}
    anns = [a for a in data.get("annotations", []) if a.get("image_id") in position]
    records = [
        {"image_id": a["image_id"], "category_id": a.get("category_id", 1), "bbox": a["bbox"], "score": 1.0}
        for a in anns
    ]
    text = json.dumps(records)
    txt = "".join(f"{position[a['image_id']]},{','.join(repr(float(v)) for v in a['bbox'])},1.0\n" for a in anns)
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


def _run_python(harness: str, args: list[str], out: Path, timeout: float, report: CheckReport, what: str):
    try:
        done = subprocess.run(
            [sys.executable, "-c", harness, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        report.problems.append(Problem(ERROR, "crash", f"{what} did not finish within {timeout:g} s"))
        return None
    if done.returncode != 0 or not out.is_file():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        report.problems.append(Problem(ERROR, "crash", f"{what} cannot be run: {last[:300]}"))
        return None
    return load_json(out)


def _labels_in_sources(report: CheckReport, base: Path, data: dict) -> None:
    """Without running: labels that no file of the evaluator mentions (it can only build them)."""
    if report.platform == "EvalAI":
        script = base / str(data.get("evaluation_script", ""))
        if not script.is_file():
            return
        texts = [d.decode("utf-8", "replace") for n, d in read_archive(script).items() if n.endswith((".py", ".json"))]
        labels = [
            lb
            for board in data.get("leaderboard") or []
            for lb in ((board or {}).get("schema") or {}).get("labels") or []
        ]
    else:
        texts, labels = [], []
        for task in data.get("tasks") or []:
            program = base / str((task or {}).get("scoring_program", ""))
            if program.exists():
                members = (
                    read_archive(program)
                    if program.is_file()
                    else {p.name: read_bytes(p) for p in program.rglob("*") if p.is_file()}
                )
                texts += [d.decode("utf-8", "replace") for n, d in members.items() if n.endswith((".py", ".json"))]
        labels = [c.get("key") for b in data.get("leaderboards") or [] for c in (b or {}).get("columns") or []]
    blob = "\n".join(texts)
    for label in labels:
        if str(label) not in blob:
            report.problems.append(
                Problem(
                    WARNING,
                    "label-not-returned",
                    f"no file of the evaluator mentions {label!r}: evaluate() can return it only by building the name",
                )
            )
