"""Property-based fuzzing of the result readers and what follows them (inspection, scoring, packaging).

Random bytes, valid-looking lines with one field broken, and random JSON shapes: nothing may escape
but the kit's own `InputError`, and a failed packaging leaves no file behind. Seeds are fixed
(derandomize) and example counts bounded, so that the run is the same every time and short.
"""

import json
import tarfile
import tempfile
import zipfile
from io import BytesIO
from pathlib import Path

from conftest import frames, make_gt, person
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kaist_kit.data.detections import ReadOptions
from kaist_kit.data.results import load_detections
from kaist_kit.errors import InputError
from kaist_kit.metrics.evaluate import ResultFiles, ScoreGrid
from kaist_kit.scoring.findings import evaluate_inspected, inspect
from kaist_kit.submission import check, package

GT = make_gt(frames(6, night_from=3), [person(k + 1, k % 6, (20 + 40 * k, 100, 40, 100)) for k in range(12)])
AS_IS = ReadOptions(as_is=True)
FUZZ = settings(
    derandomize=True,
    deadline=None,
    max_examples=120,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

NASTY = [
    "",
    " ",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "1e400",
    "1e-400",
    "0x10",
    "1_000",
    "１",
    "١",
    "1,5",
    "--1",
    "+",
    ".",
    "1e",
    "abc",
    "None",
    "null",
    "true",
    "9" * 30,
    "-9" * 20,
    "0.",
    "\t",
    "\u00a0",
    "é",
    "#",
    "%",
    "1.5.5",
    "[1]",
    "{}",
    '"1"',
]
FIELD = st.one_of(
    st.sampled_from(NASTY),
    st.text(max_size=6),
    st.floats(allow_nan=True).map(repr),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
)


def run_everything(path: Path) -> None:
    """Every way the kit reads a result: strict and lenient reads, the inspection, scoring (as read),
    a submission check, and packaging, which must leave nothing behind when it fails."""
    for on_invalid in ("error", "drop"):
        try:
            dets = load_detections(path, GT, on_invalid=on_invalid)
        except InputError:
            event(f"{on_invalid}: input error")
            continue
        event(f"{on_invalid}: read, {'some' if len(dets) else 'no'} detections")
        inspect(dets, GT, ["reasonable", "all-pedestrians"], ["all", "day", "night"], ["leaderboard", "matlab"])
    for call in (
        lambda: evaluate_inspected(
            ResultFiles((path,), options=AS_IS), GT, ScoreGrid(protocols=("leaderboard", "matlab"))
        ),
        lambda: check(path, GT),
    ):
        try:
            call()
        except InputError:
            pass
    out = path.parent / "out" / "submission.zip"
    before = set(path.parent.rglob("*"))
    try:
        package(path, out, GT, options=AS_IS)
    except InputError:
        assert set(path.parent.rglob("*")) - before <= {out.parent}, "a failed packaging left a file"
        assert not out.exists()
    else:
        assert zipfile.is_zipfile(out)


def fuzz(name: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        run_everything(path)


@FUZZ
@given(
    st.binary(max_size=300),
    st.sampled_from(["r_result.txt", "r_result.json", "set06_V000_I00001.txt", "r.zip", "r.tar.gz"]),
)
def test_random_bytes(data, name):
    fuzz(name, data)


def valid_rows(draw, n, per_image):
    rows = []
    for _ in range(n):
        x, y = draw(st.integers(0, 600)), draw(st.integers(0, 480))
        w, h = draw(st.integers(0, 80)), draw(st.integers(0, 150))
        score = draw(st.floats(0, 1, allow_nan=False))
        if per_image:
            rows.append(["person", str(x), str(y), str(x + w), str(y + h), repr(score)])
        else:
            rows.append([str(draw(st.integers(1, 6))), str(x), str(y), str(w), str(h), repr(score)])
    return rows


@st.composite
def broken_text(draw):
    """Valid lines of a txt or per-image file, with one field replaced by something else."""
    per_image = draw(st.booleans())
    rows = valid_rows(draw, draw(st.integers(1, 12)), per_image)
    k, field = draw(st.integers(0, len(rows) - 1)), draw(st.integers(0, 5))
    rows[k][field] = draw(FIELD)
    separator = " " if per_image else draw(st.sampled_from([",", ", ", " "]))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    text = ending.join(separator.join(row) for row in rows) + draw(st.sampled_from(["", ending]))
    return ("set06_V000_I00001.txt" if per_image else "r_result.txt"), text.encode("utf-8", "surrogatepass")


@FUZZ
@given(broken_text())
def test_valid_lines_with_one_field_broken(case):
    name, data = case
    fuzz(name, data)


JSON = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers(-(2**70), 2**70) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)
RECORD = st.fixed_dictionaries(
    {
        "image_id": st.one_of(st.integers(-2, 8), JSON),
        "bbox": st.one_of(st.lists(st.floats(-10, 700), min_size=4, max_size=4), JSON),
        "score": st.one_of(st.floats(0, 1), JSON),
    },
    optional={"category_id": st.one_of(st.just(1), JSON)},
)


@FUZZ
@given(
    st.one_of(JSON, st.lists(RECORD, max_size=8), st.fixed_dictionaries({"annotations": st.lists(RECORD, max_size=4)}))
)
def test_random_json_shapes(value):
    fuzz("r_result.json", json.dumps(value, allow_nan=True).encode())


@FUZZ
@given(broken_text(), st.sampled_from(["r.zip", "r.tar.gz"]), st.sampled_from(["", "a/", "../", "/abs/"]))
def test_archives_of_broken_files(case, name, folder):
    member, data = case
    buffer = BytesIO()
    if name.endswith(".zip"):
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr(folder + member, data)
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            info = tarfile.TarInfo(folder + member)
            info.size = len(data)
            archive.addfile(info, BytesIO(data))
    fuzz(name, buffer.getvalue())
