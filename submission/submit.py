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
from dataclasses import dataclass
from pathlib import Path

from kaist_kit import __version__
from kaist_kit.detections import SUBMISSION_MANIFEST, ReadOptions, method_name
from kaist_kit.errors import InputError
from kaist_kit.evaluate import Result
from kaist_kit.files import atomic_path, check_writable
from kaist_kit.findings import CHALLENGE_CATEGORY, refuse_errors
from kaist_kit.groundtruth import GroundTruth, load_ground_truth
from kaist_kit.results import coco_results_chunks

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
from .targets import (
    CHALLENGE2024,
    LEADERBOARD,
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
class CheckReport(_OfInspection):
    path: Path
    inspection: Inspection
    verdict: str  # "correct", "mistake", "mis-score", "crash" or "not-accepted"
    as_submitted: list[Result]  # the leaderboard's numbers for the file as it is (verdict "correct")
    manifest: dict | None  # of a submission zip, or the manifest beside a packaged .json
    target: Target | None  # the target the file is written for (None: neither's, a per-image folder)
    challenge: dict | None = None  # the 2024 challenge's evaluation of the file (its target is that)

    @property
    def ok(self) -> bool:
        return self.verdict == "correct"

    @property
    def packaged(self) -> list[Result]:
        """The numbers once `kaist-kit submit` has packaged the file (needs ground truth)."""
        return self.inspection.results


def package(result: str | os.PathLike, out: str | os.PathLike,
            gt: GroundTruth | str | os.PathLike | None = None, method: str | None = None, *,
            target: str = LEADERBOARD.name, options: ReadOptions | None = None) -> PackageReport:
    """Write the result normalised for ``target``'s evaluator, with a manifest.

    ``out`` is ``NAME.json``, the file to upload, written with ``NAME.manifest.json`` beside it; or
    ``NAME.zip``, an archive for records that holds both (the file to upload is the JSON inside: the
    evaluators read .json and .txt uploads only). A result with an error finding (boxes written as
    corners, ids written with the other base, detections of other images) is refused with its fix,
    and nothing is written, unless ``options.as_is``. Every file is written beside its final place and
    renamed only when complete: a failure leaves nothing new (and an existing file untouched).
    """
    result, out = Path(result), Path(out)
    chosen = get_target(target)
    kind = out.suffix.lower()
    if kind not in (UPLOAD_SUFFIX, ".zip"):
        raise InputError(f"write the entry as NAME{UPLOAD_SUFFIX}, the file to upload (with NAME.manifest.json "
                         "beside it), or as NAME.zip, an archive for records: the evaluators read .json and .txt "
                         "uploads only", out)
    manifest_path = out.with_name(out.stem + MANIFEST_SUFFIX) if kind == UPLOAD_SUFFIX else None
    for path in (out, manifest_path):
        if path is not None:
            check_writable(path)
    if method is not None and len(method) > MAX_METHOD_CHARS:
        raise InputError(f"the method name has {len(method)} characters; at most {MAX_METHOD_CHARS}, so that "
                         "the zip's file names can be extracted everywhere")
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
    chunks = results_json_chunks(inspection, chosen)

    def manifest_of(size: int, sha256: str) -> tuple[dict, bytes]:
        if size > UPLOAD_LIMIT_BYTES:
            inspection.findings.append(Finding(SIZE, _size_found(size, "the results JSON")))
        manifest = _manifest(inspection, method, results_name, sha256, chosen)
        return manifest, json.dumps(manifest, indent=1).encode() + b"\n"

    try:
        if manifest_path is not None:
            with atomic_path(out) as results_tmp, atomic_path(manifest_path) as manifest_tmp:
                with open(results_tmp, "wb") as handle:
                    size, sha256 = _write_chunks(chunks, handle.write)
                manifest, manifest_text = manifest_of(size, sha256)
                manifest_tmp.write_bytes(manifest_text)
            return PackageReport(out, results_name, size, None, manifest, inspection, chosen, manifest_path)
        with atomic_path(out) as tmp:
            with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
                with archive.open(_zip_entry(results_name), "w") as entry:
                    size, sha256 = _write_chunks(chunks, entry.write)
                manifest, manifest_text = manifest_of(size, sha256)
                archive.writestr(_zip_entry(SUBMISSION_MANIFEST), manifest_text)
    except OSError as exc:
        raise InputError(f"cannot write the submission: {exc.strerror or exc}", out) from None
    return PackageReport(out, results_name, size, out.stat().st_size, manifest, inspection, chosen)


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


def check(path: str | os.PathLike, gt: GroundTruth | str | os.PathLike | None = None,
          options: ReadOptions | None = None) -> CheckReport:
    """Validate a result file or a submission as it is, read as ``options`` say (`kaist-kit submit
    --check` reads ids and boxes as written): which target it is written for, what that target's
    evaluator would do with it, and its score."""
    path = Path(path)
    inspection = inspect_result(path, _ground_truth(gt), options)
    judged = target_of_file(inspection.format, inspection.read.facts.challenge_category)
    findings = inspection.findings
    findings[:] = _for_target(findings, judged)
    manifest = _manifest_of(path, findings)
    if path.is_file() and path.stat().st_size > UPLOAD_LIMIT_BYTES:
        findings.append(Finding(SIZE, _size_found(path.stat().st_size, "the file")))
    leaderboard = {f.leaderboard for f in findings}
    if judged is None:
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
        # Zero-area boxes stay in the file the evaluator sees, each a false positive.
        as_submitted = score_leaderboard(inspection.gt, inspection.read)
    challenge = None
    if verdict == "correct" and judged is CHALLENGE2024 and inspection.gt is not None:
        challenge = judged.self_evaluation(inspection.gt, inspection.read)
    return CheckReport(path, inspection, verdict, as_submitted if verdict == "correct" else [], manifest, judged,
                       challenge)


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


def _manifest(inspection: Inspection, method: str, results_name: str, results_sha256: str,
              target: Target) -> dict:
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
        "target": {"name": target.name, "description": target.description, "category_id": target.category_id,
                   "evaluator": target.evaluator},
        "results_file": results_name,
        "results_sha256": results_sha256,
        "source": {"name": inspection.source.name, "format": inspection.format.name, "sha256": source_hash,
                   "sha256_of": hashed},
        "options": inspection.options,
        "counts": inspection.counts,
        "lowest_score": inspection.lowest_score,
        "ground_truth": None if gt is None else {
            "name": Path(gt.path).name if gt.path else None, "md5": gt.md5,
            "leaderboard_file": gt.is_leaderboard_file},
        "self_evaluation": evaluation,
        "target_evaluation": target.self_evaluation(gt, inspection.packaged) if gt is not None else None,
        "findings": [f.to_dict() for f in inspection.findings],
    }


def _manifest_of(path: Path, findings: list[Finding]) -> dict | None:
    """A submission's manifest (in its zip, or NAME.manifest.json beside NAME.json), checked against
    the results file beside it."""
    if not path.is_file():
        return None
    if path.suffix.lower() == UPLOAD_SUFFIX:
        beside = path.with_name(path.stem + MANIFEST_SUFFIX)
        if not beside.is_file():
            return None
        try:
            manifest = json.loads(beside.read_bytes())
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read the submission's manifest: {exc}", beside) from None
        return _matching(manifest, path.read_bytes(), findings, beside)
    if path.suffix.lower() != ".zip":
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
    return _matching(manifest, data, findings, f"{path}/{SUBMISSION_MANIFEST}")


def _matching(manifest: object, data: bytes, findings: list[Finding], where) -> dict:
    if not isinstance(manifest, dict):
        raise InputError("the manifest is not a JSON object", where)
    if manifest.get("results_sha256") == hashlib.sha256(data).hexdigest():
        findings.append(Finding(MANIFEST, f"packaged by kaist-kit {manifest.get('kit_version')} as "
                                          f"{manifest.get('method')!r}; the manifest matches its results file"))
    else:
        findings.append(Finding(MANIFEST_MISMATCH, "the manifest does not match the results file beside it"))
    return manifest

