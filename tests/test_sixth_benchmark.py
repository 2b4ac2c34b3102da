"""A sixth benchmark added from one test-only module (`sixth_benchmark`: its spec, its made-up data, its
registration), with no change under kaist_kit/: `convert`, `stats`, `eval`, `compare`, `diagnose` and
`submit --check` take it by name, in a ``kaist-kit`` process that loads the module from
``KAIST_KIT_BENCHMARKS``, and their numbers are those a plain computation gives."""

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kaist_kit.datasets import BENCHMARKS, PLUGINS_ENV, get_benchmark, recognise, register, unregister

HERE = Path(__file__).resolve().parent
SHIFT = 20.0  # pixels the second method's boxes are moved right


def kit(*args):
    env = {**os.environ, PLUGINS_ENV: "sixth_benchmark"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-m", "kaist_kit", *map(str, args)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def sixth():
    """The module, its benchmark registered in this process while this file's tests run (imported here,
    not at collection, so that the other tests' registry holds the kit's five)."""
    module = importlib.import_module("sixth_benchmark")
    register(module.YARD)
    yield module
    unregister(module.YARD.name)


@pytest.fixture(scope="module")
def yard(sixth, tmp_path_factory):
    folder = tmp_path_factory.mktemp("yard")
    gt = sixth.write_ground_truth(folder / "yard.json")
    found = sixth.write_detections(folder / "found.json")
    moved = sixth.write_detections(folder / "moved.json", SHIFT)
    return gt, found, moved


def plain_ap(iou: float) -> tuple[float, float]:
    """(AP, AP50) of a class whose detections each overlap one box of it by ``iou`` and nothing else:
    every threshold the overlap reaches is a perfect curve (1), every other an empty one (0)."""
    thresholds = np.linspace(0.5, 0.95, 10)
    return float(np.mean(iou >= thresholds - 1e-12)), float(iou >= 0.5)


def plain_numbers(boxes, shift: float) -> dict[str, tuple[float, float]]:
    """Per class, (AP, AP50) of the boxes moved ``shift`` right: IoU (w - s) / (w + s)."""
    numbers = {}
    for category, name in ((1, "walker"), (2, "cart")):
        (width,) = {b[2] for _, c, b in boxes if c == category}  # one width per class: one overlap
        numbers[name] = plain_ap((width - shift) / (width + shift))
    return numbers


def rows(text: str) -> dict[tuple[str, str], dict]:
    return {(r["method"], r["category"]): r for r in json.loads(text)["results"]}


def test_the_module_registers_it_and_nothing_under_the_kit_names_it(sixth):
    assert get_benchmark("yard") is sixth.YARD and "yard" in BENCHMARKS
    assert recognise(sixth.FRAMES, ["walker", "cart"]).benchmark is sixth.YARD
    kit_files = (HERE.parent / "kaist_kit").rglob("*.py")
    assert not [p for p in kit_files if "yard" in p.read_text(encoding="utf-8").lower()]


def test_convert_writes_its_coco_with_every_box(yard, tmp_path):
    gt, _, _ = yard
    out = tmp_path / "converted.json"
    kit("convert", "coco", gt, "--benchmark", "yard", "--out", out)
    written, source = json.loads(out.read_text()), json.loads(gt.read_text())
    assert written["info"]["benchmark"] == "yard"
    assert written["categories"] == [{"id": 1, "name": "walker"}, {"id": 2, "name": "cart"}]
    boxes = sorted((a["image_id"], a["category_id"], a["bbox"]) for a in written["annotations"])
    assert boxes == sorted((a["image_id"], a["category_id"], a["bbox"]) for a in source["annotations"])


def test_stats_counts_its_classes(sixth, yard):
    gt, _, _ = yard
    stats = json.loads(kit("stats", gt, "--benchmark", "yard", "--json"))
    boxes = sixth.boxes()
    assert stats["images"] == len(sixth.FRAMES) and stats["boxes"] == len(boxes)
    for cat, name in ((1, "walker"), (2, "cart")):
        assert stats["classes"][name]["boxes"] == sum(c == cat for _, c, _ in boxes)
        assert stats["classes"][name]["images"] == len({f for f, c, _ in boxes if c == cat})


def test_eval_gives_the_plain_numbers(sixth, yard):
    gt, found, moved = yard
    found_rows = rows(kit("eval", found, "--gt", gt, "--benchmark", "yard", "--format", "json"))
    moved_rows = rows(kit("eval", moved, "--gt", gt, "--format", "json"))  # recognised from its frame names
    expected = plain_numbers(sixth.boxes(), SHIFT)
    for name in ("walker", "cart"):
        assert (found_rows["found", name]["ap"], found_rows["found", name]["ap50"]) == (1.0, 1.0)
        assert (moved_rows["moved", name]["ap"], moved_rows["moved", name]["ap50"]) == pytest.approx(expected[name])
    assert expected == {"walker": (0.0, 0.0), "cart": (0.5, 1.0)}  # IoU 1/3 and 5/7: the computation is not idle


def test_compare_puts_both_methods_side_by_side(yard):
    gt, found, moved = yard
    text = kit("compare", found, moved, "--gt", gt, "--benchmark", "yard")
    assert "Yard RGB-T" in text
    cart = [line.split() for line in text.splitlines() if line.startswith("cart")]
    assert cart == [["cart", "AP", "100.00", "50.00"], ["cart", "AP50", "100.00", "100.00"]]


def test_diagnose_finds_the_moved_walkers_mislocated(sixth, yard):
    gt, _, moved = yard
    text = kit("diagnose", moved, "--gt", gt, "--benchmark", "yard")
    table = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.startswith(("walker ", "cart "))}
    walkers = sum(c == 1 for _, c, _ in sixth.boxes())
    carts = len(sixth.boxes()) - walkers
    # correct, other, loc, dup, bg, missed: IoU 1/3 is a mislocation, 5/7 a hit
    assert table["walker"][-6:] == ["0", "0", str(walkers), "0", "0", str(walkers)]
    assert table["cart"][-6:] == [str(carts), "0", "0", "0", "0", "0"]


def test_submit_check_scores_it(yard):
    gt, _, moved = yard
    text = kit("submit", moved, "--check", "--gt", gt, "--benchmark", "yard")
    assert [line.split() for line in text.splitlines() if line.strip().startswith("cart")] == [
        ["cart", "50.00", "100.00"]
    ]


def test_an_unknown_name_lists_the_registered_ones(yard):
    gt, found, _ = yard
    env = {**os.environ, PLUGINS_ENV: "sixth_benchmark", "PYTHONPATH": str(HERE)}
    done = subprocess.run(
        [sys.executable, "-m", "kaist_kit", "eval", str(found), "--gt", str(gt), "--benchmark", "kitti"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 2
    assert done.stderr.strip().endswith("'kitti' is not one of kaist, flir-aligned, llvip, cvc-14, m3fd, yard")


@pytest.mark.parametrize(
    "module, source",
    [("no_such_benchmark_module", None), ("broken_benchmark_module", "x = ("), ("raising_benchmark_module", "1 / 0")],
)
def test_a_module_that_cannot_be_imported_is_a_one_line_error(yard, tmp_path, module, source):
    gt, found, _ = yard
    if source is not None:
        (tmp_path / f"{module}.py").write_text(source)
    env = {**os.environ, PLUGINS_ENV: module, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "kaist_kit", "eval", str(found), "--gt", str(gt)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"KAIST_KIT_BENCHMARKS names '{module}', which cannot be imported" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
