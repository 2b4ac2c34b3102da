"""`eval`, `compare`, `diagnose`, `submit --check` and `fetch` on the other benchmarks (--benchmark):
the numbers equal the evaluators' own (pycocotools, `kaist_kit.metrics.yolov5`, the miss rates of
`kaist_kit.metrics.per_class`) on the real FLIR-aligned and M3FD conversions with generated detections
and on synthetic LLVIP and CVC-14 sets in their native layout; the benchmark is recognised from the
ground truth and said in one line; KAIST, the default, prints what it always printed."""

import contextlib
import io
import json
import os

import numpy as np
import pytest
from conftest import SHARED
from test_inputs import run_cli
from typer.testing import CliRunner

from kaist_kit.cli import app
from kaist_kit.data.groundtruth import read_ground_truth
from kaist_kit.data.results import load_detections
from kaist_kit.datasets.readers import read_benchmark
from kaist_kit.datasets.synth import BenchmarkSynthConfig, generate_benchmark
from kaist_kit.metrics.per_class import evaluate_benchmark
from kaist_kit.metrics.yolov5 import yolov5_evaluate

FLIR_TEST = SHARED / "data" / "flir-aligned" / "rgb-test-flir.json"
M3FD_TEST = SHARED / "data" / "m3fd" / "m3fd-test.json"

runner = CliRunner()


def invoke(*args, env=None):
    result = runner.invoke(app, [str(a) for a in args], env=env)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def real(path):
    if not path.is_file():
        pytest.skip(
            f"the public conversion {path.name} is not at {path.parent} (set KAIST_KIT_SHARED to the shared folder)"
        )
    return path


def generated_detections(annotations, seed=0, drop=0.2, background=300):
    """A detector's output on the ground truth: most boxes found with jitter, some scores tied, false
    positives of every class, written with the ground truth's image ids (strings or integers)."""
    rng = np.random.default_rng(seed)
    records = []
    class_ids = [c.id for c in annotations.classes]
    for k in range(len(annotations.ann_ids)):
        if annotations.iscrowd[k] or rng.random() < drop:
            continue
        x, y, w, h = annotations.boxes[k] + rng.normal(0, [2, 2, 2, 2])
        score = 0.5 if rng.random() < 0.1 else float(rng.random())  # ties
        records.append(
            {
                "image_id": annotations.image_ids.tolist()[annotations.ann_image[k]],
                "category_id": class_ids[annotations.ann_class[k]],
                "bbox": [float(x), float(y), float(max(w, 1)), float(max(h, 1))],
                "score": score,
            }
        )
    for _ in range(background):
        image = annotations.image_ids.tolist()[int(rng.integers(annotations.n_images))]
        w, h = rng.uniform(8, 80, 2)
        records.append(
            {
                "image_id": image,
                "category_id": int(rng.choice(class_ids)),
                "bbox": [float(rng.uniform(0, 500)), float(rng.uniform(0, 400)), float(w), float(h)],
                "score": float(rng.random() * 0.6),
            }
        )
    return records


def write_json(path, data):
    path.write_text(json.dumps(data))
    return path


def pycocotools_stats(gt_path, dets_path):
    """pycocotools' AP, AP50, AP75 per category id, and over all of them."""
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO(str(gt_path))
        dt = coco.loadRes(str(dets_path))
    stats = {}
    for cat in [*coco.getCatIds(), None]:
        evaluation = COCOeval(coco, dt, "bbox")
        if cat is not None:
            evaluation.params.catIds = [cat]
        with contextlib.redirect_stdout(io.StringIO()):
            evaluation.evaluate()
            evaluation.accumulate()
            evaluation.summarize()
        stats[cat] = evaluation.stats
    return stats


def rows_of(result, protocol, split="all"):
    data = json.loads(result.stdout)
    return {r["category"]: r for r in data["results"] if r["protocol"] == protocol and r["split"] == split}


@pytest.fixture(scope="module")
def flir(tmp_path_factory):
    gt = real(FLIR_TEST)
    annotations = read_ground_truth(gt, "flir-aligned")
    dets = write_json(tmp_path_factory.mktemp("flir") / "fusion.json", generated_detections(annotations))
    return gt, dets, annotations


@pytest.fixture(scope="module")
def m3fd(tmp_path_factory):
    gt = real(M3FD_TEST)
    annotations = read_ground_truth(gt, "m3fd")
    dets = write_json(tmp_path_factory.mktemp("m3fd") / "fusion.json", generated_detections(annotations, seed=1))
    return gt, dets, annotations


@pytest.fixture(scope="module")
def synth_sets(tmp_path_factory):
    """Synthetic LLVIP and CVC-14 sets in their native layout (40 test frames each), with detections."""
    made = {}
    for name in ("llvip", "cvc-14"):
        root = tmp_path_factory.mktemp(name) / name
        generate_benchmark(name, root, BenchmarkSynthConfig(seed=3, train_frames=1, test_frames=40))
        annotations = read_benchmark(name, root, "test")
        dets = write_json(
            root.parent / "fusion.json", generated_detections(annotations, seed=2, drop=0.1, background=60)
        )
        made[name] = root, dets, annotations
    return made


def test_flir_eval_is_recognised_and_equals_pycocotools_per_class(flir):
    gt, dets, annotations = flir
    result = invoke("eval", dets, "--gt", gt, "--format", "json")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0].startswith("benchmark: flir-aligned (recognised from the ground truth")
    rows = rows_of(result, "coco")
    assert list(rows) == ["person", "bicycle", "car", "mean"]
    stats = pycocotools_stats(gt, dets)
    for info in annotations.classes:
        row = rows[info.name]
        assert (row["ap"], row["ap50"], row["ap75"]) == tuple(stats[info.id][:3])
    assert (rows["mean"]["ap"], rows["mean"]["ap50"], rows["mean"]["ap75"]) == tuple(stats[None][:3])
    # day and night: the conversion's scene labels
    assert {r["split"] for r in json.loads(result.stdout)["results"]} == {"all", "day", "night"}


def test_m3fd_protocols_equal_their_evaluators(m3fd):
    gt, dets, annotations = m3fd
    result = invoke(
        "eval",
        dets,
        "--gt",
        gt,
        "--benchmark",
        "m3fd",
        "--protocol",
        "yolov5",
        "--protocol",
        "coco",
        "--split",
        "all",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    assert "recognised from the ground truth" in result.stderr.splitlines()[0]
    box_dets = load_detections(dets, annotations)
    yolo = yolov5_evaluate(annotations, box_dets)
    rows = rows_of(result, "yolov5")
    assert list(rows) == [*yolo.class_names, "mean"]
    for k, name in enumerate(yolo.class_names):
        assert rows[name]["ap50"] == yolo.summary("ap50", k) and rows[name]["ap"] == yolo.summary("ap", k)
    assert rows["mean"]["ap50"] == yolo.summary("ap50") and rows["mean"]["ap"] == yolo.summary("ap")
    stats = pycocotools_stats(gt, dets)
    coco = rows_of(result, "coco")
    for info in annotations.classes:
        assert (coco[info.name]["ap"], coco[info.name]["ap50"]) == tuple(stats[info.id][:2])
    assert (coco["mean"]["ap"], coco["mean"]["ap50"]) == tuple(stats[None][:2])


@pytest.mark.parametrize("name", ["llvip", "cvc-14"])
def test_native_folders_score_as_the_benchmark_evaluators_do(synth_sets, name):
    root, dets, annotations = synth_sets[name]
    result = invoke("eval", dets, "--gt", root, "--benchmark", name, "--format", "json")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == (
        f"benchmark: {name} (as named; its test annotations read from the dataset's folder)"
    )
    data = json.loads(result.stdout)
    box_dets = load_detections(dets, annotations)
    splits = sorted({r["split"] for r in data["results"]}, key=["all", "day", "night"].index)
    expected = evaluate_benchmark(annotations, box_dets, name, method="fusion", splits=splits)
    got = {(r["protocol"], r["split"], r["category"], r.get("setting")): r for r in data["results"]}
    assert len(got) == len(expected) == len(data["results"])
    protocols, compared = set(), 0
    for row in expected:  # the evaluators compute every metric; eval shows the benchmark's papers' ones
        mine = got[(row.protocol, row.split, row.category, row.setting or None)]
        protocols.add(row.protocol)
        for metric in set(row.values) & set(mine):
            value = row.values[metric]
            assert mine[metric] == (None if np.isnan(value) else value), (row, metric)
            compared += 1
    assert compared >= len(expected)
    assert protocols == ({"ms-detr", "matlab"} if name == "cvc-14" else {"coco", "yolov5", "leaderboard"})


def test_compare_and_diagnose_give_the_rows_of_eval(flir, tmp_path):
    gt, dets, annotations = flir
    other = write_json(tmp_path / "other.json", generated_detections(annotations, seed=5))
    evaluated = invoke("eval", dets, other, "--gt", gt, "--split", "all", "--format", "json")
    compared = invoke("compare", dets, other, "--gt", gt, "--split", "all", "--format", "json")
    assert compared.exit_code == 0, compared.output
    assert json.loads(compared.stdout)["results"] == json.loads(evaluated.stdout)["results"]
    table = invoke("compare", dets, other, "--gt", gt, "--split", "all")
    assert table.stdout.splitlines()[1].split() == ["class", "metric", "fusion", "other"]
    diagnosed = invoke("diagnose", dets, "--gt", gt, "--format", "json")
    assert diagnosed.exit_code == 0, diagnosed.output
    data = json.loads(diagnosed.stdout)
    mine = {r["category"]: r for r in data["results"] if r["split"] == "all"}
    assert mine == {r["category"]: r for r in json.loads(evaluated.stdout)["results"] if r["method"] == "fusion"}
    counted = data["detections_by_type"]
    assert list(counted) == ["person", "bicycle", "car"]
    for k, info in enumerate(annotations.classes):
        boxes = int(((annotations.ann_class == k) & ~annotations.iscrowd & ~annotations.ignore).sum())
        assert counted[info.name]["correct"] + counted[info.name]["missed"] == boxes


def test_submit_check_self_scores_and_no_entry_is_packaged(flir, tmp_path):
    gt, dets, annotations = flir
    checked = invoke("submit", dets, "--check", "--gt", gt)
    assert checked.exit_code == 0, checked.output
    stats = pycocotools_stats(gt, dets)
    mean = [line for line in checked.stdout.splitlines() if line.strip().startswith("mean")]
    assert mean and mean[0].split()[1:] == [f"{100 * v:.2f}" for v in stats[None][:3]]
    proc = run_cli("submit", dets, "--gt", gt, "--out", tmp_path / "entry.json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines()[-1].startswith(
        "error: Invalid value for --benchmark: FLIR-aligned has no leaderboard"
    )
    assert not (tmp_path / "entry.json").exists()


def test_fetch_pins_another_benchmark_and_eval_finds_it(flir, tmp_path):
    gt, dets, annotations = flir
    env = {k: v for k, v in os.environ.items() if k not in ("KAIST_KIT_OFFLINE", "KAIST_KIT_FLIR_ALIGNED_GT")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), KAIST_KIT_FLIR_ALIGNED_GT_URL=gt.as_uri())
    proc = run_cli("fetch", "--benchmark", "flir-aligned", env=env)
    assert proc.returncode == 0, proc.stderr
    cached = tmp_path / "data" / "kaist-kit" / "flir-aligned-test.coco.json"
    assert cached.read_bytes() == gt.read_bytes()
    env["KAIST_KIT_OFFLINE"] = "1"
    proc = run_cli("eval", dets, "--benchmark", "flir-aligned", "--split", "all", "--format", "json", env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        "benchmark: flir-aligned (its pinned ground truth, flir-aligned-test.coco.json)"
    )
    assert (
        json.loads(proc.stdout)["results"]
        == json.loads(invoke("eval", dets, "--gt", gt, "--split", "all", "--format", "json").stdout)["results"]
    )
    # a changed pinned copy is not taken: fetched again, and without network an error
    cached.write_bytes(gt.read_bytes()[:-1])
    proc = run_cli("eval", dets, "--benchmark", "flir-aligned", env=env)
    assert proc.returncode == 2 and proc.stdout == "" and len(proc.stderr.splitlines()) <= 2


def test_kaist_stays_the_default_and_prints_as_before(kaist):
    gt = kaist / "test-all-20.leaderboard.json"
    result = kaist / "results" / "MLPD_result.txt"
    default = invoke("eval", result, "--gt", gt)
    named = invoke("eval", result, "--gt", gt, "--benchmark", "kaist")
    assert default.exit_code == named.exit_code == 0
    assert default.stdout == named.stdout and default.stderr == named.stderr
    assert "benchmark:" not in default.stderr


def test_an_image_list_is_one_more_split_scored_as_pycocotools_scores_those_images(flir, tmp_path):
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    gt, dets, annotations = flir
    chosen = list(annotations.image_ids[::7])
    listing = tmp_path / "every-seventh.txt"
    listing.write_text("".join(f"{name.split('.')[0] if k % 2 else name}\n" for k, name in enumerate(chosen)))
    result = invoke("eval", dets, "--gt", gt, "--split", "all", "--images", listing, "--format", "json")
    assert result.exit_code == 0, result.output
    splits = {r["split"] for r in json.loads(result.stdout)["results"]}
    assert splits == {"all", "every-seventh"}
    rows = rows_of(result, "coco", "every-seventh")
    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO(str(gt))
        evaluation = COCOeval(coco, coco.loadRes(str(dets)), "bbox")
        evaluation.params.imgIds = chosen
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    assert (rows["mean"]["ap"], rows["mean"]["ap50"], rows["mean"]["ap75"]) == tuple(evaluation.stats[:3])
    assert rows["mean"]["n_images"] == len(chosen)
