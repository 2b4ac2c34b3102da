"""The log-average miss rate of CVC-14 (MS-DETR's evaluation) and of LLVIP (the KAIST leaderboard's
evaluator) against the plain loop implementation, on random cases in their frames: boxes at the
borders of a 640 x 471 or 1280 x 1024 frame, non-mandatory (ignore) boxes, ties, empty images."""

import math

import numpy as np
import pytest
from plain_lamr import plain_lamr

from kaist_kit.data.groundtruth import ground_truth_from_coco
from kaist_kit.data.results import detections_from_coco
from kaist_kit.datasets import CVC14, LLVIP
from kaist_kit.metrics.per_class import ScoringOptions, evaluate_benchmark, lamr_rows


def random_case(rng, bench):
    """(COCO ground truth, its plain images and annotations, detections) in the benchmark's frame."""
    width, height = bench.image_size
    n_images = int(rng.choice([1, 3, 10, 40]))
    names = (
        [f"{'Day' if k % 2 else 'Night'}/2014_05_04_10_00_00_{k:06d}" for k in range(n_images)]
        if bench is CVC14
        else [f"{190001 + k:06d}" for k in range(n_images)]
    )
    images = [{"id": name, "file_name": name, "width": width, "height": height} for name in names]
    anns, records = [], []
    ann_ids = list(rng.permutation(n_images * 8))  # id 0 anywhere, or nowhere
    for name in names:
        boxes = []
        for _ in range(int(rng.choice([0, 1, 2, 5]))):
            h = float(rng.choice([rng.integers(20, 200), 55, 54]))
            w = float(max(2, round(h * rng.uniform(0.3, 0.6))))
            x = float(rng.choice([rng.integers(-10, width - int(w) + 10), 5, width - 5 - w, 4]))
            y = float(rng.choice([rng.integers(0, height - int(h)), 5, height - 5 - h, height - 4 - h]))
            ignore = rng.random() < 0.2
            anns.append(
                {
                    "id": int(ann_ids.pop()),
                    "image_id": name,
                    "category_id": 1,
                    "bbox": [x, y, w, h],
                    "label": "person?" if ignore else "person",
                    "ignore": int(ignore and bench is LLVIP),
                }
            )
            boxes.append((x, y, w, h))
        pool = rng.choice([0.9, 0.5, 0.25], size=3)
        for box in boxes:
            for _ in range(int(rng.choice([0, 1, 1, 2]))):
                bx, by, bw, bh = np.array(box) + rng.normal(0, [4, 4, 3, 5])
                records.append(
                    {
                        "image_id": name,
                        "category_id": 1,
                        "bbox": [bx, by, max(bw, 0.0), max(bh, 0.0)],
                        "score": float(rng.choice(pool)) if rng.random() < 0.4 else float(rng.random()),
                    }
                )
        for _ in range(int(rng.choice([0, 1, 3]))):
            w, h = rng.uniform(5, 80), rng.uniform(20, 200)
            records.append(
                {
                    "image_id": name,
                    "category_id": 1,
                    "bbox": [rng.uniform(0, width - w), rng.uniform(0, height - h), w, h],
                    "score": float(rng.random()),
                }
            )
    gt = {"images": images, "annotations": anns, "categories": [{"id": 1, "name": "person"}]}
    return gt, records


def plain_inputs(gt, records, frame):
    """The plain implementation's images, annotations and detections (integer ids in the ground truth's id
    order, the order in which the reference scripts concatenate images)."""
    index = {image_id: k for k, image_id in enumerate(sorted(image["id"] for image in gt["images"]))}
    images = [{"id": k, "width": frame[0], "height": frame[1]} for k in range(len(gt["images"]))]
    anns = [
        {
            "id": a["id"],
            "image_id": index[a["image_id"]],
            "bbox": a["bbox"],
            "height": a["bbox"][3],
            "occlusion": 0,
            "ignore": int(a["label"] == "person?" or a.get("ignore", 0)),
        }
        for a in gt["annotations"]
    ]
    dets = [dict(r, image_id=index[r["image_id"]]) for r in records]
    return images, anns, dets


@pytest.mark.parametrize("seed", range(5))
def test_cvc14_ms_detr_against_the_plain_loops(seed):
    """MS-DETR's rules with exact reference powers and stable sorts (tie_order 'stable'), which are the
    devkit's but for numpy's mean; its numpy 1.26 arithmetic is tested against its own code in
    tests/test_ms_detr_reference.py."""
    rng = np.random.default_rng(7000 + seed)
    differs = 0
    clean = ScoringOptions(tie_order="stable")
    for case in range(60):
        gt, records = random_case(rng, CVC14)
        annotations = ground_truth_from_coco(gt, benchmark="cvc-14")
        detections = detections_from_coco(records, annotations)
        all_images = np.ones(annotations.n_images, bool)
        (row,) = lamr_rows(annotations, detections, all_images, CVC14, "all", protocol="ms-detr", options=clean)
        (devkit,) = lamr_rows(
            annotations, detections, np.ones(annotations.n_images, bool), CVC14, "all", protocol="matlab"
        )
        images, anns, dets = plain_inputs(gt, records, (640, 471))
        want, miss, n_gt = plain_lamr(images, anns, dets, "reasonable", set(range(len(images))), "matlab")
        context = f"seed {seed} case {case}"
        assert row.n_gt == n_gt, context
        if n_gt == 0:
            assert math.isnan(row.value("lamr")), context
            continue
        # MS-DETR: np.exp(np.mean(np.log(np.maximum(1 - recall, 1e-10)))); the devkit sums the logs in order.
        assert row.value("lamr") == float(np.exp(np.mean(np.log(np.maximum(miss, 1e-10))))), context
        assert math.isclose(devkit.value("lamr"), want, rel_tol=1e-12), context
        differs += row.value("lamr") != devkit.value("lamr")
    assert differs >= 1  # the two arithmetics part ways in the last bits


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("bounds", ["frame", "kaist"])
def test_llvip_leaderboard_against_the_plain_loops(seed, bounds):
    rng = np.random.default_rng(8000 + seed)
    for case in range(60):
        gt, records = random_case(rng, LLVIP)
        annotations = ground_truth_from_coco(gt, benchmark="llvip")
        detections = detections_from_coco(records, annotations)
        (row,) = lamr_rows(
            annotations,
            detections,
            np.ones(annotations.n_images, bool),
            LLVIP,
            "all",
            protocol="leaderboard",
            llvip_bounds=bounds,
        )
        frame = (1280, 1024) if bounds == "frame" else (640, 512)
        images, anns, dets = plain_inputs(gt, records, frame)
        want, miss, n_gt = plain_lamr(images, anns, dets, "reasonable", set(range(len(images))), "leaderboard")
        context = f"seed {seed} case {case}"
        assert row.n_gt == n_gt, context
        if n_gt:
            assert math.isclose(row.value("lamr"), want, rel_tol=1e-12, abs_tol=1e-300), context


def test_rows_per_class_carry_their_category():
    rng = np.random.default_rng(3)
    gt, records = random_case(rng, LLVIP)
    annotations = ground_truth_from_coco(gt, benchmark="llvip")
    rows = evaluate_benchmark(annotations, detections_from_coco(records, annotations), method="m")
    assert [(r.protocol, r.category) for r in rows] == [
        ("coco", "person"),
        ("yolov5", "person"),
        ("leaderboard", "person"),
    ]
    lamr = rows[-1].to_dict()
    assert list(lamr) == [
        "method",
        "benchmark",
        "protocol",
        "split",
        "category",
        "setting",
        "iou",
        "lamr",
        "n_images",
        "n_gt",
        "recall",
    ]
    assert lamr["category"] == "person" and lamr["setting"] == "reasonable" and lamr["benchmark"] == "llvip"


def test_protocols_are_specs_that_every_benchmark_names():
    """Every protocol a benchmark names is a spec with its evaluator; miss-rate protocols say which KAIST
    evaluator they run and how the logs are averaged, so that no code compares protocol names."""
    from kaist_kit.datasets import BENCHMARKS
    from kaist_kit.metrics.per_class import BENCHMARK_PROTOCOLS, benchmark_protocol, protocols_of
    from kaist_kit.metrics.settings import PROTOCOLS

    for bench in BENCHMARKS.values():
        assert [p.name for p in protocols_of(bench)] == list(bench.protocols)
    for spec in BENCHMARK_PROTOCOLS.values():
        assert benchmark_protocol(spec.name) is spec and spec.metrics and callable(spec.rows)
        assert not spec.miss_rate or spec.kaist_protocol in PROTOCOLS or callable(spec.numpy_protocol)
    assert [name for name, p in BENCHMARK_PROTOCOLS.items() if p.numpy_mean] == ["ms-detr"]
    assert [name for name, p in BENCHMARK_PROTOCOLS.items() if p.needs_sorted] == ["leaderboard"]
    with pytest.raises(ValueError, match="unknown protocol 'voc'"):
        benchmark_protocol("voc")
    rng = np.random.default_rng(5)
    gt, records = random_case(rng, CVC14)
    annotations = ground_truth_from_coco(gt, benchmark="cvc-14")
    detections = detections_from_coco(records, annotations)
    with pytest.raises(ValueError, match="llvip_bounds='kaist' applies"):
        evaluate_benchmark(annotations, detections, protocols=["ms-detr"], llvip_bounds="kaist")
    rows = evaluate_benchmark(annotations, detections, method="m")
    assert [r.protocol for r in rows] == ["ms-detr", "matlab"]


def test_ms_detr_settings_under_its_names(tmp_path):
    """Under ms-detr the settings carry MS-DETR's names: its 'all' is height >= 1 (the kit's
    all-pedestrians is height >= 20), the kit's 'reasonable' and 'far' are its 'Reasonable' and
    'Scale=far', and a row says the key MS-DETR reports it under. The command takes them on CVC-14 and
    refuses them on KAIST."""
    import json

    from conftest import frames
    from test_inputs import run_cli

    from kaist_kit.datasets.cvc14 import read_cvc14

    lines = {  # centre x, y, w, h: 16 and 60 pixels high, then one not mandatory
        "Day/2014_05_04_10_00_00_100000": ["100 100 8 16 1 0 0 0 0 1 0", "300 200 30 60 1 0 0 0 0 2 0"],
        "Night/2014_05_04_23_00_00_100001": ["200 200 30 60 1 0 0 0 0 1 0", "400 200 30 60 0 0 0 0 0 2 0"],
    }
    for name, text in lines.items():
        period, stem = name.split("/")
        for modality in ("Visible", "FIR"):
            folder = tmp_path / "tree" / period / modality / "NewTest" / "Annotations"
            folder.mkdir(parents=True)
            (folder / f"{stem}.txt").write_text("\n".join(text) + "\n")
    annotations = read_cvc14(tmp_path / "tree", "test")
    records = [
        {"image_id": name, "category_id": 1, "bbox": [x - w / 2, y - h / 2, w, h], "score": 0.5}
        for name, text in lines.items()
        for x, y, w, h in [map(float, line.split()[:4]) for line in text]
    ]
    detections = detections_from_coco(records, annotations)
    wanted = ("reasonable", "all", "far", "occ-none", "all-pedestrians")
    rows = evaluate_benchmark(
        annotations, detections, "cvc-14", ["ms-detr"], splits=("all", "day"), options=ScoringOptions(settings=wanted)
    )
    found = {(r.setting, r.split): (r.n_gt, r.extra.get("reported_as")) for r in rows}
    assert found == {
        ("Reasonable", "all"): (2, "Reasonable-all"),
        ("all", "all"): (3, "all"),
        ("Scale=far", "all"): (1, "Scale=far"),
        ("occ-none", "all"): (3, None),
        ("all-pedestrians", "all"): (2, None),
        ("Reasonable", "day"): (1, "Reasonable-day"),
        ("all", "day"): (2, "all-day"),
        ("Scale=far", "day"): (1, None),
        ("occ-none", "day"): (1 + 1, None),
        ("all-pedestrians", "day"): (1, None),
    }
    dets = tmp_path / "dets.json"
    dets.write_text(json.dumps(records))
    proc = run_cli(
        "eval", dets, "--gt", tmp_path / "tree", "--benchmark", "cvc-14", "--setting", "all", "--format", "json"
    )
    assert proc.returncode == 0, proc.stderr
    assert {(r["protocol"], r["setting"], r.get("reported_as")) for r in json.loads(proc.stdout)["results"]} == {
        ("ms-detr", "all", "all"),
        ("ms-detr", "all", "all-day"),
        ("ms-detr", "all", "all-night"),
        ("matlab", "all", None),
    }
    # Every score is 0.5: the note says how ms-detr orders them (the matlab protocol keeps file order).
    assert "note: [tied-scores] " in proc.stderr and "4 detections share their score with another" in proc.stderr
    proc = run_cli("eval", dets, "--gt", tmp_path / "tree", "--benchmark", "cvc-14", "--protocol", "matlab")
    assert proc.returncode == 0 and "tied-scores" not in proc.stderr
    kaist = tmp_path / "kaist.json"
    kaist.write_text(json.dumps({"images": frames(2), "annotations": []}))
    proc = run_cli("eval", dets, "--gt", kaist, "--setting", "Scale=far")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stdout == ""
    assert "'Scale=far' is a setting of CVC-14 as the ms-detr protocol names it (--benchmark cvc-14)" in proc.stderr
