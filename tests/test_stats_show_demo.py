"""`kaist-kit stats`, `show`, `simulate` and `demo`."""

import json
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from kaist_kit.datasets.kaist_truth import load_ground_truth
from kaist_kit.errors import InputError
from kaist_kit.output.show import draw_frame, find_pictures
from kaist_kit.tools.demo import run_demo
from kaist_kit.tools.stats import dataset_stats


def cli(*args):
    return subprocess.run([sys.executable, "-m", "kaist_kit", *map(str, args)], capture_output=True, text=True)


def test_stats_of_the_leaderboard_ground_truth(kaist, leaderboard_gt):
    stats = dataset_stats(leaderboard_gt)
    raw = json.loads((kaist / "test-all-20.leaderboard.json").read_text())
    persons = [a for a in raw["annotations"] if not a["ignore"]]
    assert stats["images"] == 2252 and stats["boxes"] == 4254 and stats["pedestrians"] == len(persons) == 3390
    # The leaderboard's file lost the labels of ignore regions: they read as "ignore".
    assert stats["labels"] == {"ignore": 864, "person": 3390}
    day = sum(1 for a in persons if a["image_id"] < 1455)  # ids 0..1454 are the day frames
    assert stats["periods"] == {
        "day": {"images": 1455, "pedestrians": day},
        "night": {"images": 797, "pedestrians": 3390 - day},
    }
    assert stats["occlusion"] == {
        name: sum(1 for a in persons if a["occlusion"] == k) for k, name in enumerate(("none", "partial", "heavy"))
    }
    heights = np.array([a["height"] for a in persons], float)
    assert stats["height_quantiles"] == {
        "10%": np.quantile(heights, 0.1),
        "50%": np.median(heights),
        "90%": np.quantile(heights, 0.9),
    }
    assert stats["caltech_scales"] == pytest.approx(
        {
            "far": np.mean(heights <= 30),
            "medium": np.mean((heights > 30) & (heights <= 80)),
            "near": np.mean(heights > 80),
        }
    )
    per = stats["pedestrians_per_image"]
    assert per["mean"] == pytest.approx(3390 / 2252)
    assert per["images_with_none"] == 2252 - len({a["image_id"] for a in persons})


def test_stats_cli_table_json_and_figure(kaist, tmp_path):
    gt = kaist / "test-all-20.leaderboard.json"
    proc = cli("stats", gt, "--plot", tmp_path / "heights.png")
    assert proc.returncode == 0 and "person 3390" in proc.stdout and "median" in proc.stdout
    assert (tmp_path / "heights.png").read_bytes()[:4] == b"\x89PNG"
    proc = cli("stats", gt, "--json")
    assert json.loads(proc.stdout)["pedestrians"] == 3390


def test_show_draws_a_real_frame(kaist, leaderboard_gt, tmp_path):
    frame = "set08/V001/I02579"
    visible, lwir = find_pictures(frame, [kaist / "demo-images"])
    assert visible.name == "set08_V001_I02579_visible.png"
    out = tmp_path / "frame.png"
    index = leaderboard_gt.image_index(frame)
    assert leaderboard_gt.ann_start[index + 1] > leaderboard_gt.ann_start[index]  # it has boxes to draw
    draw_frame(leaderboard_gt, index, visible, lwir, out)
    with Image.open(out) as picture:
        width, height = picture.size
    assert width > 2 * 640 * 0.9 and height > 512 * 0.9


def test_show_cli_with_detections_and_errors(kaist, tmp_path):
    out = tmp_path / "shown.png"
    proc = cli(
        "show",
        "set06/V001/I00459",
        "set11/V000/I01279",
        "--gt",
        kaist / "test-all-20.leaderboard.json",
        "--images",
        kaist / "demo-images",
        "--det",
        kaist / "results" / "MLPD_result.json",
        "--out",
        out,
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shown_set06_V001_I00459.png", "shown_set11_V000_I01279.png"]
    proc = cli(
        "show",
        "set06/V000/I00019",
        "--gt",
        kaist / "test-all-20.leaderboard.json",
        "--images",
        kaist / "demo-images",
        "--out",
        tmp_path / "x.png",
    )
    assert proc.returncode == 2 and "no visible/lwir pictures of set06/V000/I00019" in proc.stderr
    with pytest.raises(InputError):
        find_pictures("set06/V000/I00019", [])


def test_demo_end_to_end(tmp_path):
    lines = []
    run = run_demo(tmp_path / "demo", frames=60, seed=2, say=lines.append)
    assert len(lines) == 7
    methods = {r.method for r in run.scores}
    assert methods == {"sim-fusion", "sim-visible", "sim-thermal"}
    lamr = {(r.method, r.split): r.lamr for r in run.scores}
    # The simulated colour detector fails at night; fusion beats it there.
    assert lamr[("sim-visible", "night")] > lamr[("sim-fusion", "night")]
    assert run.figure.read_bytes()[:4] == b"\x89PNG" and run.frame.read_bytes()[:4] == b"\x89PNG"
    assert load_ground_truth(run.gt).n_images == 60
    assert run.extra["submission"].is_file()
    assert (run.extra["diagnosis"] / "diagnosis.json").is_file() and (run.extra["diagnosis"] / "report.md").is_file()
    night = [
        d for d in run.comparison.differences if d.split == "night" and {d.a, d.b} == {"sim-fusion", "sim-visible"}
    ]
    assert len(night) == 1 and night[0].sentence().startswith("sim-fusion ")  # the lower LAMR first
    # A second run replaces what the first wrote, and nothing else.
    listed = set(json.loads((tmp_path / "demo" / "demo.json").read_text())["files"])
    assert {"test-gt.json", "submission.json", "mr-fppi.png", "diagnosis/report.md"} <= listed
    run_demo(tmp_path / "demo", frames=10, seed=2, say=lines.append)
    assert load_ground_truth(tmp_path / "demo" / "test-gt.json").n_images == 10
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not a previous demo"):
        run_demo(tmp_path / "other", frames=10)
    # A folder with a demo.json of its own, or a demo's folder where something else was put: nothing
    # is removed.
    (tmp_path / "other" / "demo.json").write_text('{"frames": 200, "seed": 0}')
    (tmp_path / "demo" / "results" / "my_result.json").write_text("[]")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    with pytest.raises(InputError, match="not a previous demo"):
        run_demo(tmp_path / "other", frames=10)
    with pytest.raises(
        InputError, match="holds results/my_result.json, which the previous demo did not write: nothing was removed"
    ):
        run_demo(tmp_path / "demo", frames=10)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_simulated_detectors_on_small_pictures(tmp_path):
    from kaist_kit.converters import convert
    from kaist_kit.tools.simulate import DEMO_METHODS, simulate
    from kaist_kit.tools.synth import SynthConfig, generate

    generate(tmp_path / "s", SynthConfig(seed=1, train_frames=0, test_frames=20, width=96, height=64))
    convert("improved", tmp_path / "s" / "annotations-improved", tmp_path / "gt.json", image_size=(96, 64))
    gt = load_ground_truth(tmp_path / "gt.json")
    for method in DEMO_METHODS:
        found = simulate(gt, method)
        assert len(found) and np.all((found.boxes[:, 1] >= 0) & (found.boxes[:, 1] <= 64) & (found.boxes[:, 2] > 0))


def test_simulate_writes_a_detectors_file_for_any_ground_truth(tmp_path):
    """On another benchmark's folder: the ground truth's ids as it writes them (strings here) and its class
    ids, read back by eval as that benchmark with no finding; on KAIST's, the demo's detector. (80 frames:
    on a handful, the few false positives' lowest score is above 0.05, which eval rightly calls the mark of
    a score threshold.)"""
    from kaist_kit.converters import convert
    from kaist_kit.datasets.readers import read_benchmark
    from kaist_kit.datasets.synth import BenchmarkSynthConfig, generate_benchmark
    from kaist_kit.tools.simulate import DEMO_METHODS, simulate
    from kaist_kit.tools.synth import SynthConfig, generate

    generate_benchmark("flir-aligned", tmp_path / "flir", BenchmarkSynthConfig(seed=3, train_frames=1, test_frames=80))
    truth = read_benchmark("flir-aligned", tmp_path / "flir", "test")
    out = tmp_path / "sim.json"
    proc = cli("simulate", "--gt", tmp_path / "flir", "--benchmark", "flir-aligned", "--out", out, "--seed", 4)
    assert proc.returncode == 0, proc.stderr
    records = json.loads(out.read_text())
    assert f"wrote {out}: {len(records):,} detections of sim-fusion, simulated on " in proc.stderr
    assert {r["image_id"] for r in records} <= set(truth.image_ids.tolist())
    assert all(isinstance(r["image_id"], str) for r in records)
    made = {r["category_id"] for r in records}
    assert made <= {c.id for c in truth.classes} and len(made) > 1  # each box found as its own class
    scored = cli("eval", out, "--gt", tmp_path / "flir", "--benchmark", "flir-aligned", "--split", "all")
    assert scored.returncode == 0 and "warning" not in scored.stderr, scored.stderr
    assert "FLIR-aligned: Average precision" in scored.stdout
    again = tmp_path / "again.json"
    cli("simulate", "--gt", tmp_path / "flir", "--benchmark", "flir-aligned", "--out", again, "--seed", 4)
    assert again.read_bytes() == out.read_bytes()  # the seed decides everything
    # KAIST: the demo's simulated detector, its detections unchanged by the classes other benchmarks have.
    generate(tmp_path / "k", SynthConfig(seed=1, train_frames=0, test_frames=12))
    convert("improved", tmp_path / "k" / "annotations-improved", tmp_path / "k.json")
    gt = load_ground_truth(tmp_path / "k.json")
    proc = cli("simulate", "--gt", tmp_path / "k.json", "--out", out, "--method", "sim-thermal")
    assert proc.returncode == 0, proc.stderr
    found = simulate(gt, DEMO_METHODS[2])
    records = json.loads(out.read_text())
    assert [r["image_id"] for r in records] == gt.image_ids[found.image].tolist()
    assert [r["bbox"] for r in records] == found.boxes.tolist() and [
        r["score"] for r in records
    ] == found.scores.tolist()
    assert {r["category_id"] for r in records} == {1}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kill -9")
def test_a_demo_killed_at_any_moment_is_replaced_by_the_next(tmp_path):
    """The marker lists what each write is about to make before it makes it: after a kill -9, the next
    demo finds only what the demo owns, removes it and runs."""
    import random
    import signal
    import time

    rng = random.Random(5)
    command = [sys.executable, "-m", "kaist_kit", "demo", "--frames", "20", "--out", str(tmp_path / "d")]
    for _ in range(2):
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.5, 3.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        again = subprocess.run(command, capture_output=True, text=True)
        assert again.returncode == 0, again.stderr
        assert not [p for p in (tmp_path / "d").rglob("*") if p.name.endswith(".kaist-kit.tmp")]
