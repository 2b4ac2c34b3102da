"""The zoo's real entries against their real files: every file at hand is its pin (blob or tree id), each
is read with its entry's reading, and gives the numbers recorded in its entry, the leaderboard script's to
1e-12 (tests/zoo_references.json, made by running MLPD's evaluation_script.py as it is) and the MATLAB
devkit's where ../shared has them.

The files come from a local copy of the repositories' files, anywhere under KAIST_KIT_ZOO_FILES (``kaist-kit
zoo fetch --all`` on a machine with network, then point it at the kit's zoo folder; or files copied from
clones at the pinned commits); without it these tests skip. Nothing here downloads."""

import json
import os
from pathlib import Path

import pytest

from kaist_kit.data.detections import ReadOptions
from kaist_kit.data.results import load_detections
from kaist_kit.metrics.evaluate import Evaluation
from kaist_kit.zoo.resolve import all_entries, find_entry
from kaist_kit.zoo.specs import PROTOCOLS, SPLITS
from kaist_kit.zoo.store import local_path, take_from

FILES_ENV = "KAIST_KIT_ZOO_FILES"
REFERENCES = json.loads((Path(__file__).parent / "zoo_references.json").read_text())["values"]


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    """The entries whose files are under $KAIST_KIT_ZOO_FILES, taken into a data folder of the tests' own."""
    source = os.environ.get(FILES_ENV)
    if not source or not Path(source).is_dir():
        pytest.skip(f"no copy of the zoo's files: set {FILES_ENV} to a folder holding them (see this module)")
    data = tmp_path_factory.mktemp("zoo-data")
    saved = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(data)
    try:
        taken = {t.entry.name for t in take_from(source, all_entries())}
        yield taken
    finally:
        if saved is None:
            os.environ.pop("XDG_DATA_HOME", None)
        else:
            os.environ["XDG_DATA_HOME"] = saved


@pytest.fixture(scope="module")
def scored(kept, leaderboard_gt):
    """Each entry at hand scored as zoo:NAME, both protocols, reasonable, the splits its file covers."""
    out = {}
    for name in sorted(kept):
        entry = find_entry(name)
        evaluation = Evaluation(leaderboard_gt, load_detections(f"zoo:{name}", leaderboard_gt), ["reasonable"])
        out[name] = {(p, s): evaluation.score("reasonable", s, p).lamr for p in PROTOCOLS for s in entry.reading.covers}
    return out


def test_every_entry_with_recorded_numbers_is_at_hand(kept):
    recorded = {e.name for e in all_entries() if e.kit}
    assert recorded <= kept, f"files missing from {os.environ[FILES_ENV]}: {sorted(recorded - kept)}"


def test_the_recorded_numbers_are_the_kits(scored):
    for name, values in scored.items():
        entry = find_entry(name)
        for (protocol, split), lamr in values.items():
            assert round(100 * lamr, 4) == entry.kit[protocol][SPLITS.index(split)], (name, protocol, split)


def test_the_leaderboard_scripts_numbers(scored):
    assert set(REFERENCES) == set(scored)
    for name, splits in REFERENCES.items():
        for split, want in splits.items():
            assert scored[name][("leaderboard", split)] == pytest.approx(want, abs=1e-12, rel=0), (name, split)


def test_the_devkits_numbers_where_shared_has_them(scored, kaist):
    devkit = json.loads((kaist / "results" / "reference-lamr.matlab.json").read_text())["values"]
    # MLPD's copy of MBNet and MLPD's file are the shared files; MBNet's per-image folder is the shared one.
    for name, reference in (("MBNet", "MBNet"), ("MLPD", "MLPD"), ("MBNet-authors-per-image", "MBNet-per-image")):
        for split, want in devkit[reference]["reasonable"].items():
            assert scored[name][("matlab", split)] == pytest.approx(want, abs=1e-12, rel=0), (name, split)


def test_the_quirks(scored, kept, leaderboard_gt):
    # MBNet's per-image files as written (0-based corners) score 8.40; with the +1 they are its aggregated file.
    folder = local_path(find_entry("MBNet-authors-per-image").file)
    as_written = load_detections(folder, leaderboard_gt, ReadOptions(devkit_shift=False))
    assert (
        round(100 * Evaluation(leaderboard_gt, as_written, ["reasonable"]).score("reasonable", "all").lamr, 2) == 8.40
    )
    assert scored["MBNet-authors-per-image"] == scored["MBNet-authors"]
    # A file of one period gives the all file's number there.
    for method in ("MBNet-authors", "CFR", "GAFF", "TFDet"):
        for period in ("day", "night"):
            for protocol in PROTOCOLS:
                key = (protocol, period)
                assert scored[f"{method}-{period}"][key] == scored[method][key], (method, period, protocol)
    assert scored["MLPD-json"] == scored["MLPD"]
    assert {"INSANet", "TFDet"} <= kept
    assert round(100 * scored["INSANet"][("leaderboard", "all")], 2) == 5.50
    assert round(100 * scored["INSANet"][("matlab", "all")], 2) == 5.76
