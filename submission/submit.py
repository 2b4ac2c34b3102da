"""Packaging a result as a leaderboard submission, and checking a file before it is uploaded.

`package` writes a zip with one COCO results JSON (normalised so that the leaderboard scores it
correctly) and a `manifest.json`. `check` validates a result file or a submission zip without
writing anything and predicts its leaderboard score.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from kaist_kit import __version__
from kaist_kit.detections import SUBMISSION_MANIFEST, method_name
from kaist_kit.errors import InputError
from kaist_kit.evaluate import Result
from kaist_kit.files import atomic_path, check_writable
from kaist_kit.findings import refuse_errors
from kaist_kit.groundtruth import GroundTruth, load_ground_truth
from kaist_kit.results import coco_results_text

from .checks import (
    CRASH,
    ERROR,
    MANIFEST,
    MANIFEST_MISMATCH,
    MISSCORE,
    SIZE,
    UPLOAD_LIMIT_BYTES,
    Finding,
    Inspection,
    inspect_result,
    score_leaderboard,
)

MANIFEST_FORMAT = 1
# The results file is named after the method; this bound keeps its name within what every file
# system extracts (255 bytes).
MAX_METHOD_CHARS = 100
# Fixed entry times make the same input give the same zip, byte for byte.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass
class PackageReport:
    out: Path
    results_name: str
    results_bytes: int
    zip_bytes: int
    manifest: dict
    inspection: Inspection

    @property
    def findings(self) -> list[Finding]:
        return self.inspection.findings

    @property
    def results(self) -> list[Result]:
        return self.inspection.results


@dataclass
class CheckReport:
    path: Path
    inspection: Inspection
    verdict: str  # "correct", "mistake", "mis-score", "crash" or "not-accepted"
    as_submitted: list[Result]  # the leaderboard's numbers for the file as it is (verdict "correct")
    manifest: dict | None  # of a submission zip

    @property
    def ok(self) -> bool:
        return self.verdict == "correct"

    @property
    def findings(self) -> list[Finding]:
        return self.inspection.findings

    @property
    def packaged(self) -> list[Result]:
        """The numbers once `kaist-kit submit` has packaged the file (needs ground truth)."""
        return self.inspection.results


def package(result: str | os.PathLike, out_zip: str | os.PathLike,
            gt: GroundTruth | str | os.PathLike | None = None, method: str | None = None, *,
            id_offset: int = 0, corners: bool = False, format: str = "auto",
            devkit_shift: bool = True, as_is: bool = False) -> PackageReport:
    """Write ``out_zip``: the result normalised for the leaderboard, and a manifest.

    A result with an error finding (boxes written as corners, ids written with the other base,
    detections of other images) is refused with its fix, and nothing is written, unless ``as_is``.
    The zip is written beside its final place and renamed only when complete: a failure leaves
    no zip (and an existing one untouched).
    """
    result, out_zip = Path(result), Path(out_zip)
    if out_zip.suffix.lower() != ".zip":
        raise InputError("the submission is written as a .zip file", out_zip)
    check_writable(out_zip)
    if method is not None and len(method) > MAX_METHOD_CHARS:
        raise InputError(f"the method name has {len(method)} characters; at most {MAX_METHOD_CHARS}, so that "
                         "the zip's file names can be extracted everywhere")
    inspection = inspect_result(result, _ground_truth(gt), id_offset=id_offset, corners=corners,
                                format=format, devkit_shift=devkit_shift)
    inspection.findings[:] = refuse_errors(inspection.findings, as_is)
    if len(inspection.packaged) == 0:
        raise InputError("no detections left to submit (the leaderboard's evaluator crashes on an empty "
                         "result)", result)
    method = method or method_name(result)
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", method).strip("_")[:MAX_METHOD_CHARS].strip("_.") or "method"
    results_name = f"{stem}_result.json"
    text = results_json(inspection)
    if len(text) > UPLOAD_LIMIT_BYTES:
        inspection.findings.append(Finding(SIZE, _size_found(len(text), "the results JSON")))
    manifest = _manifest(inspection, method, results_name, text)
    try:
        with atomic_path(out_zip) as tmp:
            with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
                for name, data in ((results_name, text), (SUBMISSION_MANIFEST,
                                                          json.dumps(manifest, indent=1).encode() + b"\n")):
                    entry = zipfile.ZipInfo(name, _ZIP_TIME)
                    entry.external_attr = 0o644 << 16
                    archive.writestr(entry, data, zipfile.ZIP_DEFLATED)
    except OSError as exc:
        raise InputError(f"cannot write the submission: {exc.strerror or exc}", out_zip) from None
    return PackageReport(out_zip, results_name, len(text), out_zip.stat().st_size, manifest, inspection)


def check(path: str | os.PathLike, gt: GroundTruth | str | os.PathLike | None = None, *,
          format: str = "auto", devkit_shift: bool = True) -> CheckReport:
    """Validate a result file or a submission zip as it is, and predict its leaderboard score."""
    path = Path(path)
    inspection = inspect_result(path, _ground_truth(gt), format=format, devkit_shift=devkit_shift)
    findings = inspection.findings
    manifest = _manifest_of(path, findings)
    if path.is_file() and path.stat().st_size > UPLOAD_LIMIT_BYTES:
        findings.append(Finding(SIZE, _size_found(path.stat().st_size, "the file")))
    leaderboard = {f.leaderboard for f in findings}
    if inspection.format == "per-image":
        verdict = "not-accepted"
    elif CRASH in leaderboard:
        verdict = "crash"
    elif MISSCORE in leaderboard:
        verdict = "mis-score"
    elif any(f.level == ERROR for f in findings):
        verdict = "mistake"
    else:
        verdict = "correct"
    as_submitted = inspection.results
    if verdict == "correct" and inspection.counts["non_positive_size"] and inspection.gt is not None:
        # Zero-area boxes stay in the file the leaderboard sees, each a false positive.
        as_submitted = score_leaderboard(inspection.gt, inspection.read)
    return CheckReport(path, inspection, verdict, as_submitted if verdict == "correct" else [], manifest)


def results_json(inspection: Inspection) -> bytes:
    """The packaged detections as compact COCO result JSON, in the leaderboard's image ids."""
    dets = inspection.packaged
    return coco_results_text(inspection.submission_ids[dets.image], dets.boxes, dets.scores)


def _ground_truth(gt: GroundTruth | str | os.PathLike | None) -> GroundTruth | None:
    if gt is None or isinstance(gt, GroundTruth):
        return gt
    return load_ground_truth(gt)


def _size_found(size: int, what: str) -> str:
    return f"{what} is {size / 1e6:.1f} MB"


def source_sha256(path: Path) -> tuple[str, str]:
    """The sha256 of a result file, or of a folder's files in sorted path order; and what was hashed."""
    if not path.is_dir():
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest(), "the file"
    digest = hashlib.sha256()
    for file in sorted((p for p in path.rglob("*") if p.is_file()), key=lambda p: p.relative_to(path).as_posix()):
        digest.update(file.relative_to(path).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest(), "the folder: each file's relative path, a NUL byte and its sha256, in path order"


def _manifest(inspection: Inspection, method: str, results_name: str, text: bytes) -> dict:
    source_hash, hashed = source_sha256(inspection.source)
    gt = inspection.gt
    evaluation = None
    if inspection.results:
        lamr: dict = {}
        for r in inspection.results:
            lamr.setdefault(r.setting, {})[r.split] = r.lamr
        evaluation = {"protocol": "leaderboard",
                      "protocol_description": "the public KAIST leaderboard's evaluator, as `kaist-kit eval "
                                              "--protocol leaderboard` reproduces it",
                      "lamr_is": "log-average miss rate as a fraction, lower is better",
                      "lamr": lamr}
    return {
        "kaist_kit_submission": MANIFEST_FORMAT,
        "method": method,
        "kit_version": __version__,
        "results_file": results_name,
        "results_sha256": hashlib.sha256(text).hexdigest(),
        "source": {"name": inspection.source.name, "format": inspection.format, "sha256": source_hash,
                   "sha256_of": hashed},
        "options": inspection.options,
        "counts": inspection.counts,
        "lowest_score": inspection.lowest_score,
        "ground_truth": None if gt is None else {
            "name": Path(gt.path).name if gt.path else None, "md5": gt.md5,
            "leaderboard_file": gt.is_leaderboard_file},
        "self_evaluation": evaluation,
        "findings": [f.to_dict() for f in inspection.findings],
    }


def _manifest_of(path: Path, findings: list[Finding]) -> dict | None:
    """A submission zip's manifest, checked against the results file beside it."""
    if not (path.is_file() and path.suffix.lower() == ".zip"):
        return None
    try:
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if not n.endswith("/")]
            if SUBMISSION_MANIFEST not in names:
                return None
            manifest = json.loads(archive.read(SUBMISSION_MANIFEST))
            results = [n for n in names if n != SUBMISSION_MANIFEST]
            data = archive.read(results[0]) if len(results) == 1 else b""
    except (zipfile.BadZipFile, OSError, ValueError, RuntimeError, NotImplementedError) as exc:
        raise InputError(f"cannot read the submission's manifest: {exc}", path) from None
    if not isinstance(manifest, dict):
        raise InputError("manifest.json is not a JSON object", f"{path}/{SUBMISSION_MANIFEST}")
    if manifest.get("results_sha256") == hashlib.sha256(data).hexdigest():
        findings.append(Finding(MANIFEST, f"packaged by kaist-kit {manifest.get('kit_version')} as "
                                          f"{manifest.get('method')!r}; the manifest matches its results file"))
    else:
        findings.append(Finding(MANIFEST_MISMATCH, "manifest.json does not match the results file beside it"))
    return manifest

