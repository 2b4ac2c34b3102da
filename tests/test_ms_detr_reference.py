"""The ms-detr protocol against MS-DETR's own evaluation of CVC-14, run as it is: its
`eval.kaist_eval_full.kaist_eval_full(detDir, gtDir, 'test', cvc14=True)` and its `evaluate` for a few
more settings, from ../shared/reference/ms-detr (YinghuiXing/MS-DETR at a726dcc, put on sys.path), in
the numpy 1.26 environment it needs (numpy1-py311). Each case is a CVC-14 tree, MS-DETR given its
per-frame detection files and its ground-truth folders, the kit the same boxes as COCO results:

- a tree of `kaist_kit.datasets.synth` with generated detections, with distinct and with tied scores
  (19 cells: its 15 results and Scale=medium / Scale=far by day and by night), to 1e-9;
- a tree written here where a detection overlaps two pedestrians exactly alike, so that which one it
  takes depends on how numpy's unstable sort orders the image's ground truths.

Where this CPU has AVX-512, numpy 1.26 sorts with it; the tied case is then also run with AVX-512
switched off (numpy 1.26's introsort) against the kit told so.

MS-DETR reads its ground truth with y and h divided by 1.087044832 (its converter's 512 / 471 scaling):
its files are written with y and h multiplied so that the division gives the tree's numbers back, and
where no float does, the kit is given the numbers MS-DETR reads.
"""

import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from kaist_kit.data.results import detections_from_coco
from kaist_kit.datasets.cvc14 import read_cvc14
from kaist_kit.datasets.synth import BenchmarkSynthConfig, generate_benchmark
from kaist_kit.metrics.ms_detr import RESULT_KEYS, SETTING_NAMES
from kaist_kit.metrics.per_class import ScoringOptions, evaluate_benchmark
from kaist_kit.metrics.sort_orders import NUMPY1_AVX512, NUMPY1_INTROSORT, numpy1_order

MS_DETR = Path(__file__).resolve().parents[1] / ".." / "shared" / "reference" / "ms-detr"
SCALE = 1.087044832  # eval/bbGt.py, load_gt_bbox with cvc14=True: bbox[1] / 1.087044832, bbox[3] / ...
AVX512 = "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL"  # numpy 1.26's feature names

# Settings MS-DETR's evaluate takes beyond kaist_eval_full's fifteen: [name, condition, heights, occlusions].
EXTRA = [
    ["Scale=medium-day", "test-day", [45, 115], ["none"]],
    ["Scale=medium-night", "test-night", [45, 115], ["none"]],
    ["Scale=far-day", "test-day", [1, 45], ["none"]],
    ["Scale=far-night", "test-night", [1, 45], ["none"]],
]
EXTRA_KEYS = {("Scale=medium", "day"): "Scale=medium-day", ("Scale=medium", "night"): "Scale=medium-night"}
EXTRA_KEYS.update({("Scale=far", "day"): "Scale=far-day", ("Scale=far", "night"): "Scale=far-night"})

# kaist_eval_full on each (detection folder, ground-truth folder) of a list, in one interpreter.
RUN_MS_DETR = """
import contextlib, io, json, sys
sys.path.insert(0, sys.argv[1])
import matplotlib
matplotlib.use("Agg")
from eval.kaist_eval_full import aggregate_detections, evaluate, kaist_eval_full
runs, extra, results = json.loads(sys.argv[2]), json.loads(sys.argv[3]), []
for det, gt in runs:
    with contextlib.redirect_stdout(io.StringIO()):
        result = kaist_eval_full(det, gt, "test", cvc14=True)
        paths, _ = aggregate_detections(det, dataset_type="test", cvc14=True)
        for setting in extra:
            result[setting[0]] = float(evaluate(setting, gt, paths, True)["imp_mr"])
    results.append(result)
print(json.dumps(results))
"""


def scaled(value: float) -> float:
    """A float whose division by MS-DETR's 1.087044832 gives ``value`` (or the closest there is)."""
    best = value * SCALE
    for candidate in (best, *(np.nextafter(best, d) for d in (-math.inf, math.inf))):
        if abs(float(candidate) / SCALE - value) < abs(best / SCALE - value):
            best = float(candidate)
    return best


def frame_file(name: str) -> str:
    """MS-DETR's file name of a CVC-14 frame (engine.py, writeDetResult: 'day_' or 'night_' + stem)."""
    period, stem = name.split("/")
    return f"{period.lower()}_{stem}.txt"


def ms_detr_inputs(annotations, records, work: Path) -> tuple[Path, Path]:
    """MS-DETR's ground-truth folders (bbGt version 3 files in test-{all,day,night}/annotations and
    annotations_KAIST_test_set) and its folder of per-frame detection files ('person x1 y1 x2 y2 score',
    to which aggregate_detections adds 1 at x1 and y1). Adjusts ``annotations`` to what MS-DETR reads."""
    gt, det = work / "gt", work / "run" / "det"
    det.mkdir(parents=True)
    for name in ("test-all", "test-day", "test-night"):
        for sub in ("annotations", "annotations_KAIST_test_set"):
            (gt / name / sub).mkdir(parents=True)
    y_file = [scaled(v) for v in annotations.boxes[:, 1].tolist()]
    h_file = [scaled(v) for v in annotations.boxes[:, 3].tolist()]
    annotations.boxes[:, 1] = np.array(y_file) / SCALE
    annotations.boxes[:, 3] = np.array(h_file) / SCALE
    for k, name in enumerate(annotations.image_names):
        lines = ["% bbGt version=3"]
        for j in np.flatnonzero(annotations.ann_image == k):
            x, _, w, _ = annotations.boxes[j].tolist()
            label, ignore = annotations.labels[j], int(annotations.ignore[j])
            lines.append(f"{label} {x!r} {y_file[j]!r} {w!r} {h_file[j]!r} 0 0 0 0 0 {ignore} 0")
        text = "\n".join(lines) + "\n"
        for split in ("test-all", f"test-{name.split('/')[0].lower()}"):
            for sub in ("annotations", "annotations_KAIST_test_set"):
                (gt / split / sub / frame_file(name)).write_text(text, encoding="utf-8")
    lines: dict[str, list[str]] = {name: [] for name in annotations.image_names}
    for r in records:
        x1, y1, x2, y2 = corners(r)
        lines[r["image_id"]].append(f"person {x1!r} {y1!r} {x2!r} {y2!r} {r['score']!r}\n")
    for name, text in lines.items():
        (det / frame_file(name)).write_text("".join(text), encoding="utf-8")
    return det, gt


def corners(record: dict) -> tuple[float, ...]:
    """The per-frame file's x1 y1 x2 y2 of a COCO box [x1 + 1, y1 + 1, x2 - x1, y2 - y1]."""
    if "corners" in record:
        return tuple(record["corners"])
    x, y, w, h = record["bbox"]
    x1, y1 = x - 1, y - 1
    assert x1 + 1 == x and y1 + 1 == y and (x1 + w) - x1 == w and (y1 + h) - y1 == h, record
    return x1, y1, x1 + w, y1 + h


def run_ms_detr(python: Path, runs: list[tuple[Path, Path]], env=None) -> list[dict[str, float]]:
    out = subprocess.run(
        [
            str(python),
            "-c",
            RUN_MS_DETR,
            str(MS_DETR),
            json.dumps([[str(d), str(g)] for d, g in runs]),
            json.dumps(EXTRA),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def kit_cells(annotations, records, tie_order: str = "") -> dict[str, float]:
    rows = evaluate_benchmark(
        annotations,
        detections_from_coco([{k: v for k, v in r.items() if k != "corners"} for r in records], annotations),
        "cvc-14",
        ["ms-detr"],
        splits=("all", "day", "night"),
        options=ScoringOptions(settings=SETTING_NAMES, tie_order=tie_order),
    )
    keys = {**RESULT_KEYS, **EXTRA_KEYS}
    cells = {keys[(r.setting, r.split)]: r.values["lamr"] for r in rows if (r.setting, r.split) in keys}
    assert all(r.extra.get("reported_as") == RESULT_KEYS.get((r.setting, r.split)) for r in rows)
    return cells


def assert_cells_agree(ms: dict, kit: dict, minimum_defined: int) -> None:
    assert set(kit) == set(ms) and len(ms) == 19
    for cell, want in ms.items():
        if math.isnan(want):  # no pedestrian counts there: nan for both
            assert math.isnan(kit[cell]), cell
        else:
            assert abs(kit[cell] - want) <= 1e-9, (cell, kit[cell], want)
    assert sum(not math.isnan(v) for v in ms.values()) >= minimum_defined


def generated_records(annotations, rng, scores: str, per_image: tuple[int, int] = (2, 9)) -> list[dict]:
    """Detections near the pedestrians and elsewhere. 'tied': on a 1/16-pixel grid (which MS-DETR's
    '%.4f' of x1 + 1 and x2 - x1 keeps exact), scores drawn from six values; 'distinct': every number as
    drawn, which MS-DETR rounds to 4 decimals ('%.4f', the scores to 8: '%.8f') and the kit with it;
    'tied as printed': so, with scores that differ from the six values below the 8th decimal only."""
    records = []
    for k, name in enumerate(annotations.image_names):
        boxes = [np.array(b) + rng.normal(0, [3, 3, 3, 4]) for b in annotations.boxes[annotations.ann_image == k]]
        boxes = [b for b in boxes for _ in range(int(rng.choice([0, 1, 1, 2])))]
        for _ in range(int(rng.integers(*per_image))):
            w, h = rng.uniform(8, 60), rng.uniform(20, 150)
            boxes.append(np.array([rng.uniform(-5, 640 - w), rng.uniform(-5, 471 - h), w, h]))
        for box in boxes:
            box = np.round(box * 16) / 16 if scores == "tied" else box
            box[2:] = np.maximum(box[2:], 1 / 16)
            score = float(rng.choice([0.95, 0.9, 0.7, 0.5, 0.3, 0.1]))
            if scores != "tied":
                score = float(rng.random()) if scores == "distinct" else score + 4e-9 * float(rng.random())
            x1, y1, w, h = (box - [1, 1, 0, 0]).tolist()
            made = [x1, y1, x1 + w, y1 + h]  # the per-frame file's corners; the COCO box as MS-DETR makes it
            bbox = [made[0] + 1, made[1] + 1, made[2] - made[0], made[3] - made[1]]
            records.append({"image_id": name, "category_id": 1, "bbox": bbox, "score": score, "corners": made})
    return records


def write_tree(root: Path, frames: dict[str, list[str]]) -> None:
    """A CVC-14 test tree of these frames' annotation lines, in both modalities."""
    for name, lines in frames.items():
        period, stem = name.split("/")
        for modality in ("Visible", "FIR"):
            folder = root / period / modality / "NewTest" / "Annotations"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{stem}.txt").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def alike_overlaps(root: Path, rng) -> list[dict]:
    """A tree where in each frame a detection overlaps two pedestrians 10 pixels apart exactly alike
    (IoU 0.778 with each) and a second overlaps the first of them only (0.778 and 0.455): the first
    detection takes the one MS-DETR's loop meets last, in the order numpy's argsort gives the image's
    ignore flags, and the second is then a true positive or a false one. Returns its detections."""
    frames, records = {}, []
    for k in range(24):
        name = f"{'Day' if k < 12 else 'Night'}/2014_05_04_{10 if k < 12 else 23}_00_00_{100000 + k:06d}"
        lines = []
        for _ in range(int(rng.integers(0, 12))):  # others: counted, ignored (mandatory 0), small, far
            w, h = 2 * int(rng.integers(6, 30)), 2 * int(rng.integers(15, 90))
            cx, cy = int(rng.integers(w // 2, 640 - w // 2)), int(rng.integers(h // 2, 471 - h // 2))
            lines.append(f"{cx} {cy} {w} {h} {int(rng.random() < 0.8)} 0 0 0 0 1 0")
            records.append(
                {"image_id": name, "category_id": 1, "bbox": [cx - w / 2 + 1, cy - h / 2, w, h], "score": 0.7}
            )
        y, w, h = int(rng.integers(60, 300)), 40, int(rng.choice([100, 130]))
        for shift in (0, 10):  # inserted anywhere among the others
            line = f"{120 + shift + w // 2} {y + h // 2} {w} {h} 1 0 0 0 0 1 0"
            lines.insert(int(rng.integers(0, len(lines) + 1)), line)
        frames[name] = lines
        for x, score in ((125, 0.9), (115, 0.9 if rng.random() < 0.5 else 0.5), (400, 0.3)):
            records.append({"image_id": name, "category_id": 1, "bbox": [x, y, w, h], "score": score})
    write_tree(root, frames)
    return records


@pytest.fixture(scope="module")
def cases(reference_env, tmp_path_factory) -> dict:
    """Each case's annotations (as MS-DETR reads them), detections and MS-DETR's results, run once for
    all: with numpy 1.26 as it runs here, and where this CPU has AVX-512, with it switched off (two of the
    tied cases)."""
    python = reference_env("numpy1-py311")
    work = tmp_path_factory.mktemp("ms-detr")
    generate_benchmark("cvc-14", work / "synthetic", BenchmarkSynthConfig(seed=1, train_frames=0, test_frames=24))
    made = {}
    for case, seed in (("distinct", 1), ("tied", 2), ("tied as printed, crowded", 3), ("alike overlaps", 4)):
        rng = np.random.default_rng(seed)
        if case == "alike overlaps":
            records = alike_overlaps(work / "alike", rng)
            annotations = read_cvc14(work / "alike", "test")
        else:
            annotations = read_cvc14(work / "synthetic", "test")
            # Crowded: often more than the 64 detections a frame that x86-simd-sort's networks sort alone.
            per_image = (50, 80) if "crowded" in case else (2, 9)
            records = generated_records(annotations, rng, case.partition(",")[0], per_image)
        made[case] = (annotations, records, ms_detr_inputs(annotations, records, work / case))
    names = list(made)
    found = run_ms_detr(python, [made[c][2] for c in names])
    results = {c: (made[c][0], made[c][1], found[k], None) for k, c in enumerate(names)}
    if numpy1_order() == NUMPY1_AVX512:
        env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=AVX512)
        tied = ["tied", "alike overlaps"]
        for case, found in zip(tied, run_ms_detr(python, [made[c][2] for c in tied], env)):
            results[case] = (*results[case][:3], found)
    return results


@pytest.mark.parametrize("case", ["distinct", "tied", "tied as printed, crowded", "alike overlaps"])
def test_ms_detr_on_cvc14_trees(cases, case):
    annotations, records, ms, without_avx512 = cases[case]
    assert_cells_agree(ms, kit_cells(annotations, records), 12)
    if without_avx512 is not None:
        assert_cells_agree(without_avx512, kit_cells(annotations, records, NUMPY1_INTROSORT), 12)
        if case == "tied":  # numpy 1.26's two sorts give MS-DETR two numbers
            assert any(abs(without_avx512[cell] - ms[cell]) > 1e-9 for cell in ms if not math.isnan(ms[cell]))
    if case == "alike overlaps":  # which pedestrian is taken matters: stable sorts give other numbers
        stable = kit_cells(annotations, records, "stable")
        assert any(abs(stable[cell] - ms[cell]) > 1e-9 for cell in ms if not math.isnan(ms[cell]))
