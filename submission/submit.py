"""Packaging a result as a challenge entry, and checking a file before it is uploaded.

`package` writes the COCO results JSON to upload (normalised so that the target's evaluator scores
it correctly) with its manifest beside it (``NAME.json`` and ``NAME.manifest.json``), or both in a
zip kept for records (``NAME.zip``). `check` validates a result file or a submission without
writing anything, says which target it suits, and predicts its score.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kaist_kit import __version__
from kaist_kit.data.detections import ReadOptions, method_name
from kaist_kit.data.groundtruth import GroundTruth
from kaist_kit.data.results import SUBMISSION_MANIFEST
from kaist_kit.data.writers import coco_results_chunks, txt_results_chunks
from kaist_kit.datasets.kaist_truth import load_ground_truth
from kaist_kit.errors import InputError
from kaist_kit.io.archives import is_archive, read_archive
from kaist_kit.io.read import open_input, read_bytes
from kaist_kit.io.text import decode_text, parse_json
from kaist_kit.io.write import atomic_file, check_writable
from kaist_kit.metrics.evaluate import Result
from kaist_kit.metrics.spec import LAMR
from kaist_kit.scoring.findings import CHALLENGE_CATEGORY, refuse_errors
from kaist_kit.zoo.resolve import published_file

from .checks import (
    ERROR,
    MANIFEST,
    MANIFEST_MISMATCH,
    SIZE,
    TEST_IMAGES,
    UPLOAD_LIMIT_BYTES,
    Finding,
    Inspection,
    inspect_result,
    submission_ids,
)
from .evaluators import CORRECT, EVALUATORS, MISSCORE, Crash, Loaded, Outcome, load_upload, outcome
from .targets import (
    CHALLENGE2024,
    LEADERBOARD,
    TXT_SUFFIX,
    UPLOAD_SUFFIX,
    Target,
    get_target,
    target_of_file,
)

MANIFEST_FORMAT = 2  # 2: the target it was packaged for
# The results file is named after the method; this bound keeps its name within what every file
# system extracts (255 bytes).
MAX_METHOD_CHARS = 100
MANIFEST_SUFFIX = ".manifest.json"  # beside NAME.json: NAME.manifest.json
# Fixed entry times make the same input give the same zip, byte for byte.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class _OfInspection:
    inspection: Inspection

    @property
    def findings(self) -> list[Finding]:
        return self.inspection.findings


@dataclass
class PackageReport(_OfInspection):
    out: Path  # the results JSON to upload, or the zip that holds it
    results_name: str  # the results file's name (inside the zip, for a zip)
    results_bytes: int
    zip_bytes: int | None  # None: written as .json, with the manifest beside it
    manifest: dict
    inspection: Inspection
    target: Target
    manifest_path: Path | None = None  # beside a .json

    @property
    def upload(self) -> str:
        """What to upload: the results file, beside its manifest or inside the zip."""
        return str(self.out) if self.zip_bytes is None else f"{self.results_name} (inside {self.out})"

    @property
    def results(self) -> list[Result]:
        return self.inspection.results


@dataclass
class CheckReport:
    """What `check` finds: the file as kaist-kit reads it (``inspection``, None when it cannot), and
    what each evaluator does with it as uploaded (``outcomes``), the verdict being that of the target
    the file is written for."""

    path: Path
    inspection: Inspection | None
    verdict: str  # "correct", "mis-score" or "crash": what the evaluator of ``target`` does
    as_submitted: list[Result]  # the leaderboard's numbers for the file as it is (verdict "correct")
    manifest: dict | None  # of a submission zip, or the manifest beside a packaged .json or .txt
    target: Target | None  # the target the file is written for (None: neither's, a per-image folder)
    challenge: dict | None = None  # the 2024 challenge's columns for the file (its target is that)
    outcomes: dict[str, Outcome] = field(default_factory=dict)  # target name -> what its evaluator does
    refused: str = ""  # why kaist-kit cannot read the file, when it cannot
    inner: tuple[str, dict[str, Outcome]] | None = None  # an archive's results file and what each does with it
    extra_findings: list[Finding] = field(default_factory=list)  # of the upload itself (size, manifest)

    @property
    def ok(self) -> bool:
        return self.verdict == CORRECT

    @property
    def findings(self) -> list[Finding]:
        return (self.inspection.findings if self.inspection is not None else []) + self.extra_findings

    @property
    def judged(self) -> Outcome:
        """What the evaluator of the file's target does with it."""
        return self.outcomes[(self.target or LEADERBOARD).name]

    @property
    def packaged(self) -> list[Result]:
        """The numbers once `kaist-kit submit` has packaged the file (needs ground truth)."""
        return self.inspection.results if self.inspection is not None else []


def package(
    result: str | os.PathLike,
    out: str | os.PathLike,
    gt: GroundTruth | str | os.PathLike | None = None,
    method: str | None = None,
    *,
    target: str = LEADERBOARD.name,
    options: ReadOptions | None = None,
) -> PackageReport:
    """Write the result normalised for ``target``'s evaluator, with a manifest.

    ``out`` is ``NAME.json``, the file to upload, written with ``NAME.manifest.json`` beside it;
    ``NAME.txt``, the leaderboard's txt to upload instead (leaderboard target only), with its manifest
    beside it; or ``NAME.zip``, an archive for records that holds the JSON and the manifest (the file
    to upload is the JSON inside: the evaluators read .json and .txt uploads only). A result with an
    error finding (boxes written as corners, ids written with the other base, detections of other
    images) is refused with its fix, and nothing is written, unless ``options.as_is``. Every file is written
    beside its final place and renamed only when complete: a failure leaves nothing new (and an
    existing file untouched).
    """
    result, out = Path(result), Path(out)
    chosen = get_target(target)
    kind = _entry_kind(out, chosen)
    manifest_path = out.with_name(out.stem + MANIFEST_SUFFIX) if kind != ".zip" else None
    for path in (out, manifest_path):
        if path is not None:
            check_writable(path)
    _not_anothers_manifest(manifest_path, out)
    if method is not None and len(method) > MAX_METHOD_CHARS:
        raise InputError(
            f"the method name has {len(method)} characters; at most {MAX_METHOD_CHARS}, so that "
            "the zip's file names can be extracted everywhere"
        )
    options = options or ReadOptions()
    inspection = inspect_result(result, _ground_truth(gt), options)
    inspection.findings[:] = refuse_errors(_for_target(inspection.findings, chosen), options.as_is)
    if len(inspection.packaged) == 0:
        raise InputError("no detections left to submit (the evaluators crash on an empty result)", result)
    method = method or method_name(result)
    if manifest_path is None:
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", method).strip("_")[:MAX_METHOD_CHARS].strip("_.") or "method"
        results_name = f"{stem}_result.json"
    else:
        results_name = out.name
    chunks = results_txt_chunks(inspection) if kind == TXT_SUFFIX else results_json_chunks(inspection, chosen)

    def manifest_of(size: int, sha256: str) -> tuple[dict, bytes]:
        if size > UPLOAD_LIMIT_BYTES:
            what = "the results txt" if kind == TXT_SUFFIX else "the results JSON"
            inspection.findings.append(Finding(SIZE, _size_found(size, what)))
        manifest = _manifest(inspection, method, results_name, sha256, chosen)
        return manifest, json.dumps(manifest, indent=1).encode() + b"\n"

    try:
        if manifest_path is not None:
            with atomic_file(out) as handle, atomic_file(manifest_path) as manifest_handle:
                size, sha256 = _write_chunks(chunks, handle.write)
                manifest, manifest_text = manifest_of(size, sha256)
                manifest_handle.write(manifest_text)
            return PackageReport(out, results_name, size, None, manifest, inspection, chosen, manifest_path)
        with atomic_file(out) as handle:
            with zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as archive:
                with archive.open(_zip_entry(results_name), "w") as entry:
                    size, sha256 = _write_chunks(chunks, entry.write)
                manifest, manifest_text = manifest_of(size, sha256)
                archive.writestr(_zip_entry(SUBMISSION_MANIFEST), manifest_text)
    except OSError as exc:
        raise InputError(f"cannot write the submission: {exc.strerror or exc}", out) from None
    return PackageReport(out, results_name, size, out.stat().st_size, manifest, inspection, chosen)


def _not_anothers_manifest(manifest_path: Path | None, out: Path) -> None:
    """NAME.json and NAME.txt would share NAME.manifest.json: one entry's manifest is not replaced by
    another's."""
    if manifest_path is None or not manifest_path.is_file():
        return
    try:
        # The previous run's manifest, which this one replaces: not one of the command's inputs.
        owner = _read_manifest(read_bytes(manifest_path, note=False), manifest_path).get("results_file")
    except InputError:
        return  # not a manifest of the kit's: check_writable has judged it
    if owner not in (None, out.name):
        raise InputError(
            f"{manifest_path.name} beside it is the manifest of {owner}; write this entry under another name", out
        )


def _entry_kind(out: Path, target: Target) -> str:
    """What ``out`` is written as: ``.json`` or ``.txt`` (the file to upload, named as the evaluators
    read it: they pick their reader by the name's end, case-sensitively), or ``.zip`` (for records)."""
    suffix = out.suffix
    if suffix.lower() == ".zip":
        return ".zip"
    if suffix.lower() in (UPLOAD_SUFFIX, TXT_SUFFIX) and suffix not in (UPLOAD_SUFFIX, TXT_SUFFIX):
        raise InputError(
            f"the evaluators read a file named NAME{suffix.lower()}, not NAME{suffix}: they pick their "
            f"reader by the name's end, case-sensitively; write NAME{suffix.lower()}",
            out,
        )
    if suffix not in (UPLOAD_SUFFIX, TXT_SUFFIX):
        raise InputError(
            f"write the entry as NAME{UPLOAD_SUFFIX} (COCO result JSON) or NAME{TXT_SUFFIX} (the "
            "leaderboard's txt), the files the evaluators read, with NAME.manifest.json beside it; or "
            "as NAME.zip, an archive for records",
            out,
        )
    if suffix == TXT_SUFFIX and target is not LEADERBOARD:
        raise InputError(
            f"the 2024 challenge's evaluator reads every line of a {TXT_SUFFIX} file as category 1 and "
            f"scores category 0 alone, so a {TXT_SUFFIX} entry gets -1 in every column there; write "
            f"NAME{UPLOAD_SUFFIX} for it",
            out,
        )
    return suffix


def _zip_entry(name: str) -> zipfile.ZipInfo:
    entry = zipfile.ZipInfo(name, _ZIP_TIME)
    entry.external_attr = 0o644 << 16
    entry.compress_type = zipfile.ZIP_DEFLATED
    return entry


def _write_chunks(chunks: Iterable[bytes], write: Callable[[bytes], object]) -> tuple[int, str]:
    """Write the chunks in order; return the size and sha256 of what was written."""
    digest, size = hashlib.sha256(), 0
    for chunk in chunks:
        digest.update(chunk)
        write(chunk)
        size += len(chunk)
    return size, digest.hexdigest()


def check(
    path: str | os.PathLike, gt: GroundTruth | str | os.PathLike | None = None, options: ReadOptions | None = None
) -> CheckReport:
    """Validate a result file or a submission as it is: which target it is written for, what each
    target's evaluator would do with it as uploaded (`kaist_kit.submission.evaluators`, a model of
    their loaders on the file's bytes) and what kaist-kit finds in it, read as ``options`` say
    (`kaist-kit submit --check` reads ids and boxes as written). For ``zoo:NAME``, the entry's file as
    its repository publishes it."""
    path = published_file(path)
    gt = _ground_truth(gt)
    ids = submission_ids(gt) if gt is not None else np.arange(TEST_IMAGES)
    upload = load_upload(path, image_ids=ids.tolist())
    outcomes = {e.name: outcome(upload, e, gt, ids) for e in EVALUATORS}
    try:
        inspection = inspect_result(path, gt, options)
        refused = ""
    except InputError as exc:
        if not path.is_file() or is_archive(path):
            raise  # a folder or an archive kaist-kit cannot read (encrypted, escaping its folder, ...)
        # A single file: what the evaluators do with it is known whatever kaist-kit makes of it.
        inspection, refused = None, str(exc)
    if inspection is not None:
        judged = target_of_file(inspection.format, inspection.read.facts.challenge_category)
        inspection.findings[:] = _for_target(inspection.findings, judged)
    else:
        judged = _target_of_upload(upload)
    extra: list[Finding] = []
    manifest = _manifest_of(path, extra)
    if path.is_file() and path.stat().st_size > UPLOAD_LIMIT_BYTES:
        extra.append(Finding(SIZE, _size_found(path.stat().st_size, "the file")))
    inner = None
    member = _archive_member(path) if inspection is not None else None
    if member is not None:
        name, data = member
        loaded = load_upload(path, name, data, ids.tolist())
        inner = (name, {e.name: outcome(loaded, e, gt, ids) for e in EVALUATORS})
    mine = outcomes[(judged or LEADERBOARD).name]
    errors = [f for f in (inspection.findings if inspection is not None else []) if f.level == ERROR]
    if errors and mine.verdict == CORRECT:
        mine.verdict = MISSCORE
        mine.reasons.append(
            f"it scores the file as it is written, which is not what it means ([{errors[0].code}] above)"
        )
        mine.results = []
    challenge = None
    if mine.verdict == CORRECT and judged is CHALLENGE2024 and mine.printed is not None:
        challenge = {"columns": mine.printed}
    return CheckReport(
        path, inspection, mine.verdict, mine.results, manifest, judged, challenge, outcomes, refused, inner, extra
    )


def _target_of_upload(upload: Crash | Loaded) -> Target | None:
    """The target of a file kaist-kit cannot read, from what the evaluators load: JSON whose every
    detection says category 0 is the 2024 challenge's; anything else the leaderboard's."""
    if isinstance(upload, Crash):
        return None if upload.exception == "" else LEADERBOARD
    if (
        not upload.loader.rows
        and upload.records
        and all(isinstance(r, dict) and r.get("category_id") == CHALLENGE2024.category_id for r in upload.records)
    ):
        return CHALLENGE2024
    return LEADERBOARD


def _archive_member(path: Path) -> tuple[str, bytes] | None:
    """The one results file of an archive, as kaist-kit reads it (the evaluators take no archive)."""
    if not path.is_file() or not is_archive(path):
        return None
    members = read_archive(path)
    results = [
        n
        for n in members
        if n.lower().endswith((".json", ".txt"))
        and Path(n).name != SUBMISSION_MANIFEST
        and not Path(n).name.startswith(".")
        and "__MACOSX" not in n
    ]
    if len(results) != 1:
        return None
    return Path(results[0]).name, members[results[0]]


def _for_target(findings: list[Finding], target: Target | None) -> list[Finding]:
    """The findings that concern ``target``: category 0 throughout is the 2024 challenge's own."""
    if target is CHALLENGE2024:
        return [f for f in findings if f.kind is not CHALLENGE_CATEGORY]
    return findings


def results_json(inspection: Inspection, target: Target = LEADERBOARD) -> bytes:
    """The packaged detections as compact COCO result JSON, in the leaderboard's image ids and the
    target's category."""
    return b"".join(results_json_chunks(inspection, target))


def results_json_chunks(inspection: Inspection, target: Target = LEADERBOARD) -> Iterator[bytes]:
    """`results_json` in pieces that make it joined."""
    dets = inspection.packaged
    return coco_results_chunks(inspection.submission_ids[dets.image], dets.boxes, dets.scores, target.category_id)


def results_txt_chunks(inspection: Inspection) -> Iterator[bytes]:
    """The packaged detections as the leaderboard's txt: ids 1-based (the leaderboard's id + 1),
    comma-separated, a newline after every line and no blank line at the end."""
    dets = inspection.packaged
    return txt_results_chunks(inspection.submission_ids[dets.image] + 1, dets.boxes, dets.scores)


def _ground_truth(gt: GroundTruth | str | os.PathLike | None) -> GroundTruth | None:
    if gt is None or isinstance(gt, GroundTruth):
        return gt
    return load_ground_truth(gt)


def _size_found(size: int, what: str) -> str:
    return f"{what} is {size / 1e6:.1f} MB"


def source_sha256(path: Path) -> tuple[str, str]:
    """The sha256 of a result file (a zoo entry's as published), or of a folder's files in sorted path
    order; and what was hashed."""
    path = published_file(path)
    if not path.is_dir():
        digest = hashlib.sha256()
        with open_input(path) as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest(), "the file"
    digest = hashlib.sha256()
    for file in sorted((p for p in path.rglob("*") if p.is_file()), key=lambda p: p.relative_to(path).as_posix()):
        digest.update(file.relative_to(path).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(read_bytes(file)).digest())
    return digest.hexdigest(), "the folder: each file's relative path, a NUL byte and its sha256, in path order"


def _manifest(inspection: Inspection, method: str, results_name: str, results_sha256: str, target: Target) -> dict:
    source_hash, hashed = source_sha256(inspection.source)
    gt = inspection.gt
    evaluation = None
    if inspection.results:
        lamr: dict = {}
        for r in inspection.results:
            lamr.setdefault(r.setting, {})[r.split] = r.lamr
        evaluation = {
            "protocol": "leaderboard",
            "protocol_description": "the public KAIST leaderboard's evaluator, as `kaist-kit eval "
            "--protocol leaderboard` reproduces it",
            "lamr_is": "log-average miss rate as a fraction, lower is better",
            LAMR.name: lamr,
        }
    return {
        "kaist_kit_submission": MANIFEST_FORMAT,
        "method": method,
        "kit_version": __version__,
        "target": {
            "name": target.name,
            "description": target.description,
            "category_id": target.category_id,
            "evaluator": target.evaluator,
        },
        "results_file": results_name,
        "results_sha256": results_sha256,
        "source": {
            "name": inspection.source.name,
            "format": inspection.format.name,
            "sha256": source_hash,
            "sha256_of": hashed,
        },
        "options": inspection.options,
        "counts": inspection.counts,
        "lowest_score": inspection.lowest_score,
        "ground_truth": None
        if gt is None
        else {
            "name": Path(gt.path).name if gt.path else None,
            "md5": gt.md5,
            "leaderboard_file": gt.is_leaderboard_file,
        },
        "self_evaluation": evaluation,
        "target_evaluation": target.self_evaluation(gt, inspection.packaged) if gt is not None else None,
        "findings": [f.to_dict() for f in inspection.findings],
    }


def _manifest_of(path: Path, findings: list[Finding]) -> dict | None:
    """A submission's manifest (in its zip, or NAME.manifest.json beside NAME.json), checked against
    the results file beside it."""
    if not path.is_file():
        return None
    if path.suffix.lower() in (UPLOAD_SUFFIX, ".txt"):
        beside = path.with_name(path.stem + MANIFEST_SUFFIX)
        if not beside.is_file():
            return None
        manifest = _read_manifest(read_bytes(beside), beside)
        if manifest.get("results_file") not in (None, path.name):
            return None  # the manifest of NAME.json beside NAME.txt, or the reverse
        return _matching(manifest, read_bytes(path), findings, beside)
    if path.suffix.lower() != ".zip":
        return None
    entries = read_archive(path)
    if SUBMISSION_MANIFEST not in entries:
        return None
    where = f"{path}/{SUBMISSION_MANIFEST}"
    manifest = _read_manifest(entries[SUBMISSION_MANIFEST], where)
    results = [n for n in entries if n != SUBMISSION_MANIFEST]
    data = entries[results[0]] if len(results) == 1 else b""
    return _matching(manifest, data, findings, where)


# What the kit reads of a manifest, each text of at most this many characters when it is there.
MANIFEST_TEXTS = {"results_file": 1000, "results_sha256": 64, "kit_version": 100, "method": MAX_METHOD_CHARS}


def _read_manifest(data: bytes, where) -> dict:
    """A manifest's bytes read as JSON and checked against what the kit reads of it (`MANIFEST_TEXTS`):
    an object, whose keys read are text of a bounded length; else an `InputError` naming the file and
    the key."""
    manifest = parse_json(decode_text(data, where), where)
    if not isinstance(manifest, dict):
        raise InputError("the submission's manifest is not a JSON object", where)
    for key, longest in MANIFEST_TEXTS.items():
        value = manifest.get(key)
        if value is not None and not (isinstance(value, str) and len(value) <= longest):
            what = f"{len(value):,} characters long" if isinstance(value, str) else f"a {type(value).__name__}"
            raise InputError(
                f"the submission's manifest has a {key} that is {what}, not text of at most {longest}", where
            )
    return manifest


def _matching(manifest: dict, data: bytes, findings: list[Finding], where) -> dict:
    if manifest.get("results_sha256") == hashlib.sha256(data).hexdigest():
        findings.append(
            Finding(
                MANIFEST,
                f"packaged by kaist-kit {manifest.get('kit_version')} as "
                f"{manifest.get('method')!r}; the manifest matches its results file",
            )
        )
    else:
        findings.append(Finding(MANIFEST_MISMATCH, "the manifest does not match the results file beside it"))
    return manifest
