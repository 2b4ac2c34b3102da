"""Figures: a method or split keeps its colour everywhere, legends stay off the data, and a bin without
pedestrians is not drawn as a miss rate of 0."""

import warnings

from conftest import det, frames, make_dets, make_gt, person
from matplotlib.colors import to_hex

from kaist_kit.diagnosis import DiagnosisParams, diagnose, figures
from kaist_kit.diagnosis.figures import _grouped_bars
from kaist_kit.errors import KitWarning
from kaist_kit.metrics.evaluate import evaluate
from kaist_kit.output import plots
from kaist_kit.output.plots import draw_mr_fppi, new_figure, save_figure, series_colours


def two_methods():
    # A finds the day pedestrian, B the night one: their LAMR order flips between the splits.
    gt = make_gt(frames(2, night_from=1), [person(1, 0, [100, 100, 40, 100]), person(2, 1, [100, 100, 40, 100])])
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)
        for name, image in (("A", 0), ("B", 1)):
            dets = make_dets(gt, [det(image, [100, 100, 40, 100], 0.9), det(1 - image, [400, 300, 40, 100], 0.8)])
            results += evaluate(gt, dets, ["reasonable"], method=name)
    return results


def test_a_method_keeps_its_colour_in_every_panel():
    results = two_methods()
    by_split = {s: [r for r in results if r.split == s] for s in ("day", "night")}
    assert [min(rs, key=lambda r: r.lamr).method for rs in by_split.values()] == ["A", "B"]
    colours = series_colours(r.method for r in results)
    fig, axes = new_figure(1, 2)
    seen = {}
    for ax, rs in zip(axes[0], by_split.values()):
        draw_mr_fppi(ax, rs, colours=colours)
        for line in ax.get_lines():
            if line.get_label().endswith((" A", " B")):
                seen.setdefault(line.get_label()[-1], set()).add(line.get_color())
    assert seen == {"A": {colours["A"]}, "B": {colours["B"]}} and colours["A"] != colours["B"]


def test_legends_are_outside_the_axes():
    results = two_methods()
    fig, axes = new_figure(1, 1)
    draw_mr_fppi(axes[0][0], results)
    fig.canvas.draw()
    legend = axes[0][0].get_legend().get_window_extent()
    assert legend.x0 > axes[0][0].get_window_extent().x1


def test_a_bin_without_pedestrians_is_marked_not_drawn_as_zero():
    fig, axes = new_figure(1, 1)
    ax = axes[0][0]
    _grouped_bars(ax, ["near", "far"], {"day": [0.0, 50.0], "night": [None, 25.0]}, series_colours(["day", "night"]))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["day", "night", "no pedestrians"]
    crosses = [line for line in ax.get_lines() if line.get_marker() == "x"]
    assert len(crosses) == 1 and len(crosses[0].get_xdata()) == 1  # night, near
    night = ax.containers[1]
    assert night.patches[0].get_linewidth() == 0 and night.patches[1].get_height() == 25.0
    day = ax.containers[0]
    assert day.patches[0].get_height() == 0 and day.patches[0].get_linewidth() > 0  # 0 misses: a visible line


def test_diagnosis_figures_give_a_split_one_colour(tmp_path, monkeypatch):
    gt = make_gt(frames(4, night_from=2), [person(k + 1, k, [100, 100, 40, 100]) for k in range(4)])
    # Day is found whole, night half: the splits' LAMR order (day, all, night) is not their order.
    dets = make_dets(gt, [det(k, [100 + 30 * (k == 3), 100, 40, 100], 0.9 - 0.1 * k) for k in range(4)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)
        found = diagnose(gt, dets, DiagnosisParams(settings=("reasonable", "near"), resamples=5))
    lamr = {s: found.view("reasonable", s).result.lamr for s in found.params.splits}
    assert sorted(lamr, key=lamr.get) == ["day", "all", "night"]
    drawn = {}  # split -> colours of its curves and bars in every figure

    def record(fig, path):
        for ax in fig.axes:
            for line in ax.get_lines():
                if not line.get_label().startswith("_"):
                    drawn.setdefault(line.get_label().split()[-1], set()).add(to_hex(line.get_color()))
            for bars in ax.containers:
                drawn.setdefault(bars.get_label(), set()).update(to_hex(b.get_facecolor()) for b in bars.patches)
        save_figure(fig, path)

    monkeypatch.setattr(plots, "save_figure", record)
    for draw in (figures.plot_curves, figures.plot_false_positives, figures.plot_misses, figures.plot_oracles):
        assert draw(found, tmp_path / f"{draw.__name__}.png").is_file()
    colours = series_colours(found.params.splits)
    assert drawn == {split: {to_hex(colours[split])} for split in found.params.splits}
