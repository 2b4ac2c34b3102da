"""What the verbs print and write, byte for byte, on a fixed list of commands.

The list covers the verbs a user types most, on KAIST's real files (both protocols, AP and AR, MR-4,
custom settings, scenes, image lists, per-image folders, compare, diagnose, submit and its check, stats,
convert) and on the other benchmarks (real FLIR-aligned and M3FD test files, synthetic LLVIP and CVC-14
folders). Each command's exit code, standard output, standard error and the files it writes are kept in
tests/golden/NAME.txt. A change of the code's shape must leave them all as they are; a change that
means to change an output regenerates them (KAIST_KIT_GOLDEN_UPDATE=1 python -m pytest
tests/test_golden_outputs.py) and the diff shows, in review, exactly what changed.

The inputs are made here without the kit's library: the real files copied into a fresh folder, the
detections of the other benchmarks drawn from their ground truths by a seeded plain generator, and the
synthetic folders written by `kaist-kit synth`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("KAIST_KIT_SHARED", ROOT.parent / "shared"))
GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("KAIST_KIT_GOLDEN_UPDATE") == "1"
# Files larger than this are kept as their size and SHA-256, smaller text files whole.
WHOLE_LIMIT = 64 * 1024

GT = "test-all-20.leaderboard.json"
MBNET, MLPD, MLPD_JSON, MBNET_TAR = "MBNet_result.txt", "MLPD_result.txt", "MLPD_result.json", "MBNet-per-image.tar.gz"

# name: the arguments of `kaist-kit`, run in the work folder.
COMMANDS: dict[str, list[str]] = {
    # KAIST: eval
    "eval-default": ["eval", MBNET, "--gt", GT],
    "eval-protocols": [
        *("eval", MBNET, MLPD_JSON, "--gt", GT, "--protocol", "leaderboard", "--protocol", "matlab"),
        *("--setting", "reasonable", "--setting", "far"),
    ],
    "eval-ap-json": [
        *("eval", MBNET, "--gt", GT, "--format", "json"),
        *("--metric", "ap50", "--metric", "ap75", "--metric", "ap", "--metric", "ar"),
    ],
    "eval-mr4-csv": ["eval", MLPD, "--gt", GT, "--fppi-range", "1e-4:1", "--protocol", "matlab", "--format", "csv"],
    "eval-custom-settings": [
        *("eval", MBNET, "--gt", GT, "--format", "markdown", "--setting", "height=50:inf,occlusion=none+partial"),
        *("--setting", "reasonable-h50", "--setting", "all-pedestrians", "--setting", "reasonable-small"),
    ],
    "eval-scenes": [
        *("eval", MBNET, MLPD, "--gt", GT, "--split", "campus", "--split", "road-night", "--split", "set07"),
    ],
    "eval-per-image-ious": ["eval", MBNET_TAR, "--gt", GT, "--protocol", "matlab", "--iou", "0.6", "--iou", "0.75"],
    "eval-image-list": [
        *("eval", MLPD_JSON, "--gt", GT, "--images", "first-100.txt", "--split", "day", "--format", "json"),
    ],
    "eval-corners-refused": ["eval", MLPD, "--gt", GT, "--corners"],
    "eval-challenge-metrics": [
        *("eval", MLPD_JSON, "--gt", GT, "--metric", "lamr", "--metric", "ap50", "--iou", "0.5"),
        *("--setting", "reasonable", "--setting", "all-pedestrians", "--split", "night"),
    ],
    # KAIST: compare, diagnose
    "compare-table": ["compare", MBNET, MLPD, "--gt", GT, "--resamples", "100", "--seed", "7"],
    "compare-json": [
        *("compare", MBNET, MLPD_JSON, "--gt", GT, "--resamples", "50", "--seed", "3"),
        *("--setting", "far", "--protocol", "matlab", "--format", "json"),
    ],
    "diagnose-out": ["diagnose", MBNET, "--gt", GT, "--out", "diag", "--resamples", "50", "--seed", "1"],
    "diagnose-json": [
        *("diagnose", MLPD_JSON, "--gt", GT, "--format", "json", "--resamples", "50", "--seed", "2"),
        *("--split", "night"),
    ],
    "diagnose-markdown": ["diagnose", MLPD, "--gt", GT, "--format", "markdown", "--resamples", "20", "--seed", "5"],
    # KAIST: submit
    "submit-leaderboard": ["submit", MBNET, "--gt", GT, "--out", "entry/MBNet.json"],
    "submit-challenge": ["submit", MLPD_JSON, "--target", "challenge2024", "--gt", GT, "--out", "entry2/MLPD.json"],
    "submit-check-json": ["submit", "--check", MLPD_JSON, "--gt", GT],
    "submit-check-txt": ["submit", "--check", MBNET, "--gt", GT],
    # KAIST: stats, convert
    "stats": ["stats", GT],
    "stats-json": ["stats", GT, "--json"],
    "convert-improved": ["convert", "improved", "test-improved-bbgt.tar.gz", "--out", "improved.json"],
    "convert-improved-compat": [
        *("convert", "improved", "test-improved-bbgt.tar.gz", "--out", "improved-lb.json", "--compat", "leaderboard"),
    ],
    "convert-xml-test": [
        *("convert", "xml", "annotations-xml-original.tar.gz", "--image-set", "test-all-20", "--out", "xml-test.json"),
    ],
    # The other benchmarks
    "flir-eval": ["eval", "fusion_flir.json", "--gt", "flir-test.json", "--benchmark", "flir-aligned"],
    "flir-eval-json": ["eval", "fusion_flir.json", "--gt", "flir-test.json", "--split", "all", "--format", "json"],
    "flir-compare": [
        *("compare", "fusion_flir.json", "other_flir.json", "--gt", "flir-test.json"),
        *("--benchmark", "flir-aligned", "--split", "all"),
    ],
    "flir-diagnose": ["diagnose", "fusion_flir.json", "--gt", "flir-test.json", "--benchmark", "flir-aligned"],
    "flir-submit-check": [
        *("submit", "--check", "fusion_flir.json", "--gt", "flir-test.json", "--benchmark", "flir-aligned"),
    ],
    "flir-stats": ["stats", "flir-test.json", "--benchmark", "flir-aligned"],
    "flir-category-offset-refused": ["eval", "zero_based_flir.json", "--gt", "flir-test.json"],
    "m3fd-eval": ["eval", "fusion_m3fd.json", "--gt", "m3fd-test.json", "--protocol", "yolov5", "--protocol", "coco"],
    "m3fd-stats-json": ["stats", "m3fd-test.json", "--benchmark", "m3fd", "--json"],
    "llvip-synth": ["synth", "LLVIP", "--benchmark", "llvip", "--train", "1", "--test", "24", "--seed", "1"],
    "llvip-convert": ["convert", "voc", "LLVIP", "--benchmark", "llvip", "--split", "test", "--out", "llvip-test.json"],
    "llvip-eval-folder": ["eval", "fusion_llvip.json", "--gt", "LLVIP", "--benchmark", "llvip", "--split", "all"],
    "llvip-eval-kaist-bounds": [
        *("eval", "fusion_llvip_ids.json", "--gt", "llvip-test.json", "--benchmark", "llvip"),
        *("--llvip-bounds", "kaist", "--format", "csv"),
    ],
    "cvc14-synth": ["synth", "CVC-14", "--benchmark", "cvc-14", "--train", "1", "--test", "24", "--seed", "1"],
    "cvc14-eval": [
        *("eval", "fusion_cvc14.json", "--gt", "CVC-14", "--benchmark", "cvc-14", "--protocol", "matlab"),
        *("--format", "json"),
    ],
}


def plain_detections(truth: dict, seed: int, drop: float = 0.15, background: float = 1.5, class_base: int = 0) -> list:
    """A detector's COCO results drawn from a COCO ground truth: most boxes found, a little off, some of
    another class, and false positives on every image (numpy's seeded generator, nothing of the kit)."""
    rng = np.random.default_rng(seed)
    categories = sorted(c["id"] for c in truth["categories"])
    sizes = {img["id"]: (img.get("width", 640), img.get("height", 512)) for img in truth["images"]}
    records = []
    for ann in truth["annotations"]:
        if rng.random() < drop:
            continue
        x, y, w, h = ann["bbox"]
        dx, dy, dw, dh = rng.normal(0.0, 0.06, 4)
        category = ann["category_id"] if rng.random() > 0.03 else int(rng.choice(categories))
        box = [x + dx * w, y + dy * h, w * (1 + dw), h * (1 + dh)]
        records.append(
            {
                "image_id": ann["image_id"],
                "category_id": category - class_base,
                "bbox": [round(float(v), 2) for v in box],
                "score": round(float(rng.uniform(0.2, 1.0)), 4),
            }
        )
    for image_id, (width, height) in sizes.items():
        for _ in range(int(rng.poisson(background))):
            w, h = rng.uniform(15, 120, 2)
            x, y = rng.uniform(0, width - w), rng.uniform(0, height - h)
            records.append(
                {
                    "image_id": image_id,
                    "category_id": int(rng.choice(categories)) - class_base,
                    "bbox": [round(float(v), 2) for v in (x, y, w, h)],
                    "score": round(float(rng.uniform(0.01, 0.6)), 4),
                }
            )
    return records


def _write_json(path: Path, data) -> None:
    path.write_text(json.dumps(data), encoding="utf-8")


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAIST_KIT_")}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        XDG_DATA_HOME=str(home / "data"),
        HOME=str(home),
        KAIST_KIT_OFFLINE="1",
        COLUMNS="100",
        LC_ALL="C.UTF-8",
        PYTHONHASHSEED="0",
    )
    env.pop("TERM", None)
    return env


def _run(work: Path, env: dict, args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(["kaist-kit", *args], cwd=work, env=env, capture_output=True, timeout=600)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    kaist = SHARED / "data" / "kaist"
    flir, m3fd = SHARED / "data" / "flir-aligned" / "rgb-test-flir.json", SHARED / "data" / "m3fd" / "m3fd-test.json"
    for needed in (kaist / GT, flir, m3fd):
        if not needed.is_file():
            pytest.skip(f"real benchmark files not found ({needed}; set KAIST_KIT_SHARED to the shared folder)")
    folder = tmp_path_factory.mktemp("golden")
    home = tmp_path_factory.mktemp("golden-home")
    env = _environment(home)
    for name in (GT, "test-improved-bbgt.tar.gz", "annotations-xml-original.tar.gz"):
        shutil.copyfile(kaist / name, folder / name)
    for name in (MBNET, MLPD, MLPD_JSON, MBNET_TAR):
        shutil.copyfile(kaist / "results" / name, folder / name)
    truth = json.loads((kaist / GT).read_text(encoding="utf-8"))
    names = [img["im_name"] for img in truth["images"][:100]]
    (folder / "first-100.txt").write_text("\n".join(names) + "\n", encoding="utf-8")

    shutil.copyfile(flir, folder / "flir-test.json")
    shutil.copyfile(m3fd, folder / "m3fd-test.json")
    flir_truth = json.loads(flir.read_text(encoding="utf-8"))
    _write_json(folder / "fusion_flir.json", plain_detections(flir_truth, seed=1))
    _write_json(folder / "other_flir.json", plain_detections(flir_truth, seed=2, drop=0.3))
    _write_json(folder / "zero_based_flir.json", plain_detections(flir_truth, seed=3, class_base=1))
    _write_json(folder / "fusion_m3fd.json", plain_detections(json.loads(m3fd.read_text(encoding="utf-8")), seed=4))
    # The synthetic folders, and the detections on them, are made by the commands in COMMANDS' order.
    return folder, env


def _record(work: Path, name: str, args: list[str], proc: subprocess.CompletedProcess, before: set[Path]) -> str:
    lines = [f"$ kaist-kit {' '.join(args)}", f"exit: {proc.returncode}", "--- stdout", proc.stdout.decode("utf-8")]
    lines += ["--- stderr", proc.stderr.decode("utf-8")]
    for path in sorted(p for p in work.rglob("*") if p.is_file() and p not in before):
        relative = path.relative_to(work).as_posix()
        data = path.read_bytes().replace(str(work).encode(), b"<work>")
        if path.suffix in (".png", ".pdf", ".svg", ".jpg", ".tif") or relative.startswith(("LLVIP/", "CVC-14/")):
            lines.append(f"--- file {relative} (binary or picture: named only)")
        elif len(data) > WHOLE_LIMIT:
            lines.append(f"--- file {relative}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")
        else:
            lines += [f"--- file {relative}", data.decode("utf-8")]
    # The work folder's absolute path (a temporary one) is written by some outputs: kept as <work>.
    return ("\n".join(lines) + "\n").replace(str(work), "<work>")


def _after(work: Path, name: str) -> None:
    """Inputs the next commands need, drawn from what a command just wrote."""
    if name == "llvip-convert":
        truth = json.loads((work / "llvip-test.json").read_text(encoding="utf-8"))
        records = plain_detections(truth, seed=5, drop=0.1, background=3)
        _write_json(work / "fusion_llvip_ids.json", records)
        _write_json(work / "fusion_llvip.json", _named_ids(records, truth))
    if name == "cvc14-synth":
        # The detections on CVC-14's synthetic test frames: the folder's own boxes, read as MS-DETR does
        # (x, y the box's centre), through a conversion to COCO by the kit's converter.
        out = work / "cvc14-test.json"
        env = dict(os.environ, KAIST_KIT_OFFLINE="1")
        subprocess.run(
            ["kaist-kit", "convert", "cvc-14", "CVC-14", "--benchmark", "cvc-14", "--split", "test", "--out", str(out)],
            cwd=work,
            env=env,
            check=True,
            capture_output=True,
        )
        truth = json.loads(out.read_text(encoding="utf-8"))
        out.unlink()
        records = plain_detections(truth, seed=6, drop=0.1, background=3)
        _write_json(work / "fusion_cvc14.json", _named_ids(records, truth))


def _named_ids(records: list, truth: dict) -> list:
    """The records with each image id written as the dataset's folder names the image (its frame name)."""
    names = {img["id"]: img["im_name"] for img in truth["images"]}
    return [dict(record, image_id=names[record["image_id"]]) for record in records]


def test_outputs_are_byte_identical(work):
    folder, env = work
    GOLDEN.mkdir(exist_ok=True)
    differ = []
    for name, args in COMMANDS.items():
        before = {p for p in folder.rglob("*") if p.is_file()}
        proc = _run(folder, env, args)
        got = _record(folder, name, args, proc, before)
        _after(folder, name)
        golden = GOLDEN / f"{name}.txt"
        if UPDATE:
            golden.write_text(got, encoding="utf-8")
        elif not golden.is_file() or golden.read_text(encoding="utf-8") != got:
            differ.append(name)
            (folder.parent / f"{name}.got.txt").write_text(got, encoding="utf-8")
    assert not differ, f"outputs differ from tests/golden for {differ}; what was printed is in {folder.parent}"


def test_every_golden_file_is_a_command():
    assert {p.stem for p in GOLDEN.glob("*.txt")} == set(COMMANDS)
