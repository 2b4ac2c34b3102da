"""Drawn frames: a method keeps the colour of its curves, the legend names the ground truth's boxes, and
score labels never cover one another."""

import itertools

import numpy as np
import pytest
from matplotlib.colors import to_hex
from PIL import Image

from kaist_kit.output import plots
from kaist_kit.output.plots import IGNORE_COLOUR, TRUTH_COLOUR, series_colours
from kaist_kit.output.show import pair_figure
from kaist_kit.tools.demo import run_demo


@pytest.fixture
def pictures(tmp_path):
    paths = []
    for modality in ("visible", "lwir"):
        path = tmp_path / f"set09_V000_I00039_{modality}.png"
        Image.fromarray(np.full((512, 640, 3), 40, np.uint8)).save(path)
        paths.append(path)
    return paths


def score_labels(fig):
    return [t for ax in fig.axes for t in ax.texts if t.get_text().replace(".", "").isdigit()]


def test_overlapping_score_labels_are_moved_apart(pictures):
    rng = np.random.default_rng(0)
    # Three methods, each with boxes piled on two pedestrians: their labels would all sit on two spots.
    detections = []
    for name in ("A", "B", "C"):
        boxes = np.array([[200, 150, 40, 100], [210, 152, 38, 98], [420, 300, 30, 70]] * 4, float)
        boxes += rng.normal(0, 1.5, boxes.shape)
        detections.append((name, boxes, rng.uniform(0.3, 1.0, len(boxes))))
    fig = pair_figure(*pictures, "set09/V000/I00039", [([200, 150, 40, 100], "person", False)], detections)
    renderer = fig.canvas.get_renderer()
    labels = score_labels(fig)
    assert len(labels) == 2 * 3 * 12
    for ax in fig.axes[:2]:
        boxes = [t.get_window_extent(renderer) for t in ax.texts if t in labels]
        overlapping = [
            (a, b)
            for a, b in itertools.combinations(boxes, 2)
            if a.x0 < b.x1 - 0.5 and b.x0 < a.x1 - 0.5 and a.y0 < b.y1 - 0.5 and b.y0 < a.y1 - 0.5
        ]
        assert not overlapping
    # each label keeps its method's colour and a dark ground behind it
    assert {to_hex(t.get_color()) for t in labels} == {to_hex(c) for c in series_colours("ABC").values()}
    assert all(t.get_bbox_patch() is not None for t in labels)


def handles(legend):
    """A legend's handles: `legendHandles` before matplotlib 3.7 (the kit declares 3.5 and up)."""
    return legend.legend_handles if hasattr(legend, "legend_handles") else legend.legendHandles


def dashes(patch):
    """A patch's dash pattern (None: solid); `_us_dashes` before matplotlib 3.6."""
    return (patch._unscaled_dash_pattern if hasattr(patch, "_unscaled_dash_pattern") else patch._us_dashes)[1]


def test_the_legend_names_pedestrians_ignore_regions_and_methods(pictures):
    truth = [([100, 100, 40, 100], "person", False), ([300, 100, 60, 80], "people", True)]
    detections = [("mine", np.array([[100, 100, 40, 100.0]]), np.array([0.9]))]
    fig = pair_figure(*pictures, "", truth, detections, colours={"mine": "C4"})
    (legend,) = fig.legends
    names = [t.get_text() for t in legend.get_texts()]
    assert names == ["pedestrian (ground truth)", "ignore region (ground truth)", "mine"]
    edges = [to_hex(h.get_edgecolor()) for h in handles(legend)]
    assert edges == [to_hex(TRUTH_COLOUR), to_hex(IGNORE_COLOUR), to_hex("C4")]
    # drawn dashed (the legend's copy of a patch keeps its dashes, not the style's name)
    assert dashes(handles(legend)[1]) is not None
    assert dashes(handles(legend)[0]) is None
    only_people = pair_figure(*pictures, "", truth[1:], [])
    assert [t.get_text() for t in only_people.legends[0].get_texts()] == ["ignore region (ground truth)"]


def test_method_colours_keep_clear_of_the_ground_truths():
    colours = series_colours(f"method {k}" for k in range(len(plots.PALETTE)))
    assert len(set(colours.values())) == len(plots.PALETTE)
    assert not {to_hex(c) for c in colours.values()} & {to_hex("C2"), to_hex("C7")}  # green and grey


def test_the_demo_draws_each_method_in_the_colour_of_its_curves(tmp_path, monkeypatch):
    figures = []
    original = plots.save_figure

    def record(fig, path, layout=True):
        figures.append((str(path), fig))
        original(fig, path, layout)

    monkeypatch.setattr(plots, "save_figure", record)
    run_demo(tmp_path / "demo", frames=20, seed=1, say=lambda line: None)
    drawn = dict(figures)
    curves = {}
    for ax in drawn[str(tmp_path / "demo" / "mr-fppi.png")].axes:
        for line in ax.get_lines():
            if "% " in line.get_label():
                curves.setdefault(line.get_label().split("% ", 1)[1], set()).add(to_hex(line.get_color()))
    frame = drawn[str(tmp_path / "demo" / "night-frame.png")].legends[0]
    in_frame = {t.get_text(): to_hex(h.get_edgecolor()) for t, h in zip(frame.get_texts(), handles(frame))}
    assert set(curves) == {"sim-fusion", "sim-visible", "sim-thermal"}
    for method, colours in curves.items():
        assert colours == {in_frame[method]}, method
    assert len({in_frame[m] for m in curves}) == 3
