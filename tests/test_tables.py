"""The table module: each rendering of one `Table`."""

import csv
import io

import numpy as np
from rich.console import Console

from kaist_kit.errors import percent
from kaist_kit.output.tables import Table, with_interval


def test_text_pads_like_format_strings():
    # The submission report's layout, written with format strings before the table module took it
    # over: 18 characters for the setting, 8 for each number, wider values running over.
    rng = np.random.default_rng(3)
    for _ in range(50):
        splits = ["all", "day", "night", "a-longer-split-name"][: rng.integers(1, 5)]
        settings = ["reasonable", "reasonable-small", "a-setting-name-beyond-18"][: rng.integers(1, 4)]
        values = {(s, p): float(rng.choice([0.0, 1.0, rng.random()])) for s in settings for p in splits}
        want = ["title", f"  {'setting':<18}" + "".join(f"{s:>8}" for s in splits)]
        want += [f"  {s:<18}" + "".join(f"{100 * values[(s, p)]:>8.2f}" for p in splits) for s in settings]
        rows = [[s] + [percent(values[(s, p)]) for p in splits] for s in settings]
        table = Table("title", ["setting"] + splits, rows)
        assert table.to_text(indent=2, widths=(18, 8)).split("\n") == want


def test_text_without_widths_fits_the_longest_cell():
    table = Table("", ["name", "n"], [["a", "1"], ["longer", "100"]], note="a note")
    assert table.to_text(indent=0) == "name        n\na           1\nlonger    100\na note"


def test_markdown_aligns_labels_left_and_numbers_right():
    table = Table("t", ["method", "setting", "all"], [["A", "reasonable", "8.13"]], label_columns=2)
    assert table.to_markdown() == "| method | setting | all |\n|---|---|---:|\n| A | reasonable | 8.13 |"


def test_csv_round_trips_awkward_cells():
    rows = [["a, b", 'say "hi"', "1.5"], ["line\nbreak", "", "-"]]
    table = Table("ignored in CSV", ["x", "y", "z"], rows)
    assert list(csv.reader(io.StringIO(table.to_csv()))) == [["x", "y", "z"], *rows]


def test_rich_rendering_of_a_list_of_named_values():
    console = Console(width=60, record=True, file=io.StringIO())
    named = Table("stats", [], [["labels", "person 3"], ["height", "median 55 px"]], label_columns=2)
    console.print(named.to_rich())
    text = console.export_text()
    assert text.splitlines()[0].rstrip() == "stats" and "│ labels │ person 3     │" in text


def test_percent_and_interval():
    assert percent(0.0813) == "8.13" and percent(None) == "-" and percent(float("nan")) == "-"
    assert with_interval(0.0813, (0.0671, 0.0962)) == "8.13 [6.71, 9.62]"
