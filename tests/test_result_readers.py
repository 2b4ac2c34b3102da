"""The result readers read exactly what the standard library reads, or refuse.

- Values are checked, never coerced: a bbox is a list of four numbers (not the keys of an object,
  which json.dumps writes for a dict with int keys), a JSON boolean is not a number, and a string is
  read as a number only when it holds exactly a JSON number (counted: the `string-values` finding).
- A frame given twice in one per-image tree or archive, and an archive (or folder) that mixes
  per-image files with another result file, are errors naming both files.
- The fast paths (`kaist_kit.data.bulkread`) against the careful readers (json.loads, float of
  str.split fields) on generated mutations of the real result files in ../shared: key orders, white
  space, nesting, extra keys, number spellings, booleans, strings, objects for boxes, escapes, a
  byte-order mark, CRLF, keys written twice, trailing garbage. Both read the same detections, bit for
  bit, or both refuse with the same error; and msgspec, which the COCO fast path decodes with, reads
  every number spelling json.loads reads as json.loads reads it, or declines.

hypothesis runs derandomized (fixed seeds) with bounded examples.
"""

import io
import json
import math
import random
import tarfile
import zipfile

import numpy as np
import pytest
from conftest import frames, make_gt, person
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_inputs import run_cli

import kaist_kit.data.detections as detections
import kaist_kit.data.results as results
from kaist_kit.data.bulkread import coco_columns, txt_rows
from kaist_kit.data.detections import COCO, PER_IMAGE, TXT, Dropped, ReadOptions
from kaist_kit.data.results import _JSON_NUMBER, _parse_rows, load_detections, read_coco, read_txt
from kaist_kit.errors import InputError
from kaist_kit.io.text import decode_text, json_line
from kaist_kit.scoring.findings import inspect

GT = make_gt(frames(6, night_from=3), [person(k + 1, k % 6, (20 + 40 * k, 100, 40, 100)) for k in range(12)])
SETTINGS = settings(
    derandomize=True,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)


def error_of(call) -> InputError:
    with pytest.raises(InputError) as caught:
        call()
    return caught.value


def write(path, text: str | bytes):
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


# --- values checked, never coerced --------------------------------------------------------------


def records(n=6) -> list[dict]:
    return [
        {"image_id": k % 6, "category_id": 1, "bbox": [20 + 40 * k, 100, 40, 100], "score": 0.9 - k / 100}
        for k in range(n)
    ]


def test_a_bbox_written_as_an_object_is_refused_with_its_line(tmp_path):
    """json.dumps writes a dict with int keys as {"0": x, "1": y, ...}: read as its keys, such a box
    scored 100.00 with exit code 0."""
    recs = records()
    recs[3]["bbox"] = {k: v for k, v in enumerate(recs[3]["bbox"])}
    text = json.dumps(recs, indent=1)
    path = write(tmp_path / "dict_result.json", text)
    e = error_of(lambda: load_detections(path, GT))
    assert "bbox must be a list of 4 numbers [x, y, w, h], not an object" in e.reason
    assert text.splitlines()[e.line - 1].strip() == "{" and e.line == json_line(text, 3)
    for data in (text.encode(), text):  # the fast path and the careful one
        assert "not an object" in str(error_of(lambda data=data: read_coco(data, "r", GT)))
    gt = tmp_path / "gt.json"
    gt.write_text(
        json.dumps(
            {
                "images": frames(6, 3),
                "annotations": [person(k + 1, k % 6, (20 + 40 * k, 100, 40, 100)) for k in range(12)],
                "categories": [{"id": 1}],
            }
        )
    )
    proc = run_cli("eval", path, "--gt", gt)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == f"error: {path}:{e.line}: {e.reason}"


@pytest.mark.parametrize(
    "key, value, expect",
    [
        ("bbox", [True, 100, 40, 100], "bbox holds true, not a number"),
        ("bbox", [20, 100, 40, None], "bbox holds null, not a number"),
        ("bbox", [[20], 100, 40, 100], "bbox holds a list, not a number"),
        ("bbox", [20, 100, 40, {"h": 1}], "bbox holds an object, not a number"),
        ("bbox", [20, 100, 40], "not a list of 3"),
        ("bbox", [20, 100, 40, 100, 1], "not a list of 5"),
        ("bbox", "20,100,40,100", "not '20,100,40,100'"),
        ("bbox", [20, 100, 40, "nan"], "the text 'nan', which is not a number"),
        ("bbox", [20, 100, 40, " 100"], "the text ' 100', which is not a number"),
        ("bbox", [20, 100, 40, "1_000"], "the text '1_000', which is not a number"),
        ("bbox", [20, 100, 40, "0x10"], "the text '0x10', which is not a number"),
        ("bbox", [20, 100, 40, ""], "the text '', which is not a number"),
        ("score", False, "score holds false, not a number"),
        ("score", "Infinity", "the text 'Infinity'"),
        ("category_id", True, "category_id holds true, not a number"),
        ("category_id", None, "category_id holds null, not a number"),
        ("image_id", True, "image_id true is not an integer"),
        ("image_id", "3", "image_id '3' is not an integer"),
    ],
)
def test_values_that_are_not_numbers_are_refused(tmp_path, key, value, expect):
    recs = records()
    recs[2][key] = value
    text = json.dumps(recs, indent=1)
    for data in (text.encode(), text):
        for dropped in (None, Dropped()):
            e = error_of(lambda data=data, dropped=dropped: read_coco(data, "r", GT, dropped))
            assert expect in e.reason and e.line == json_line(text, 2), e


def test_strings_holding_json_numbers_read_as_those_numbers_and_are_counted():
    recs = records()
    recs[1]["bbox"] = ["60", "1e2", "40.0", "100"]
    recs[4]["score"] = "-0"
    recs[5]["category_id"] = "1"
    text = json.dumps(recs)
    for data in (text.encode(), text):
        dets = read_coco(data, "r", GT)
        assert dets.boxes[1].tolist() == [60.0, 100.0, 40.0, 100.0]
        assert np.signbit(dets.scores[4]) == np.signbit(float(json.loads("-0")))  # as json.loads reads -0
        assert dets.facts.string_values == 3
        found = {f.code: f for f in inspect(dets, GT)}
        assert "the leaderboard's evaluator crashes" in found["string-values"].message


def test_integers_beyond_the_float_range_read_as_json_reads_1e400(tmp_path):
    recs = records()
    recs[2]["bbox"][2] = 10**400
    text = json.dumps(recs)
    assert "non-finite number" in error_of(lambda: read_coco(text.encode(), "r", GT)).reason
    dets = read_coco(text, "r", GT, Dropped())
    assert dets.dropped.non_finite == 1 and len(dets) == 5


# --- the same frame twice; per-image files beside another result -------------------------------


def per_image_files(n=6) -> dict[str, str]:
    return {
        f"{name.replace('/', '_')}.txt": f"person {20 + 40 * k} 100 {60 + 40 * k} 200 0.9\n"
        for k, name in enumerate(image["im_name"] for image in frames(n, 3))
    }


def test_a_frame_twice_in_a_folder_is_refused_naming_both(tmp_path):
    folder = tmp_path / "det"
    for sub in ("a", "b"):
        (folder / sub).mkdir(parents=True)
    for name, text in per_image_files().items():
        write(folder / "a" / name, text)
    write(folder / "b" / "set06_V000_I00001.txt", "")  # an empty copy would wipe the first one's detections
    e = error_of(lambda: load_detections(folder, GT))
    assert "two per-image files of frame set06/V000/I00001" in e.reason
    assert str(folder / "a" / "set06_V000_I00001.txt") in e.reason and str(folder / "b") in e.reason


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_a_frame_twice_in_an_archive_is_refused_naming_both(tmp_path, kind):
    files = {f"run1/{name}": text for name, text in per_image_files().items()}
    files["run2/set09_V000_I00004.txt"] = "person 1 1 2 2 0.1\n"
    path = archive(tmp_path / f"det.{kind}", files)
    e = error_of(lambda: load_detections(path, GT))
    assert "two per-image files of frame set09/V000/I00004" in e.reason
    assert "run1/set09_V000_I00004.txt" in e.reason and "run2/set09_V000_I00004.txt" in e.reason


@pytest.mark.parametrize("other", ["MBNet_result.txt", "det-test-all.txt", "results.json"])
def test_per_image_files_beside_another_result_are_refused(tmp_path, other):
    files = {f"det/{name}": text for name, text in per_image_files().items()}
    files[other] = "1,20,100,40,100,0.9\n"
    path = archive(tmp_path / "mixed.zip", files)
    e = error_of(lambda: load_detections(path, GT))
    assert "per-image files" in e.reason and other in e.reason and "keep one" in e.reason
    folder = tmp_path / "folder"
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        write(folder / name, text)
    e = error_of(lambda: load_detections(folder, GT))
    assert other in e.reason and "keep one" in e.reason


def test_a_submission_manifest_and_hidden_files_are_not_results(tmp_path):
    files = {f"det/{name}": text for name, text in per_image_files().items()}
    files.update({"manifest.json": "{}", "det/.DS_Store": "x", "__MACOSX/det/._set06_V000_I00000.txt": "x"})
    dets = load_detections(archive(tmp_path / "ok.zip", files), GT)
    assert dets.format is PER_IMAGE and len(dets) == 6


def test_the_real_per_image_archive_with_a_frame_twice(kaist, leaderboard_gt, tmp_path):
    """MBNet's folder with one frame given again in another sub-folder: the last one won, and 8.13
    became 52.87."""
    with tarfile.open(kaist / "results" / "MBNet-per-image.tar.gz") as source:
        members = {m.name: source.extractfile(m).read() for m in source if m.isfile()}
    name = sorted(members)[100]
    members["again/" + name.rpartition("/")[2]] = b""
    path = tmp_path / "MBNet-twice.tar.gz"
    with tarfile.open(path, "w:gz") as out:
        for member, data in members.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    e = error_of(lambda: load_detections(path, leaderboard_gt))
    assert "two per-image files of frame" in e.reason and name in e.reason


def archive(path, files: dict[str, str]):
    if path.suffix == ".zip":
        with zipfile.ZipFile(path, "w") as out:
            for name, text in files.items():
                out.writestr(name, text)
        return path
    with tarfile.open(path, "w:gz") as out:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    return path


# --- the formats as specs -----------------------------------------------------------------------


def test_formats_say_what_the_branches_decided():
    assert (COCO.image_ids, COCO.id_base, COCO.upload_suffix, COCO.carries_category) == (
        detections.GT_IDS,
        0,
        ".json",
        True,
    )
    assert (TXT.image_ids, TXT.id_base, TXT.upload_suffix, TXT.carries_category) == (
        detections.POSITIONS,
        1,
        ".txt",
        False,
    )
    assert not PER_IMAGE.uploadable and not PER_IMAGE.rereadable and PER_IMAGE.devkit_shift
    assert COCO.other_base(-1) == "1-based" and TXT.other_base(1) == "0-based" and COCO.other_base(1) == "off by one"
    assert COCO.written_ids(GT) == "0..5" and TXT.written_ids(GT) == "1..6 (1-based)"
    assert detections.Detections.empty(format="txt").format is TXT
    with pytest.raises(ValueError, match="unknown result format"):
        ReadOptions(format="xml")
    for bad in (True, 2**63, 1.5, "1"):
        with pytest.raises(ValueError, match="id_offset"):
            ReadOptions(id_offset=bad)


def test_no_module_compares_format_names():
    """The formats are specs: code asks them (`dets.format.rereadable`), never compares names."""
    from test_structure import modules

    for name, path in modules().items():
        text = path.read_text(encoding="utf-8")
        for spelled in ('"coco"', '"txt"', '"per-image"', "'coco'", "'txt'", "'per-image'"):
            for line in text.splitlines():
                if spelled in line and name != "kaist_kit.data.detections":
                    assert not any(op in line for op in ("==", "!=", " in (", " in [")), (name, line)


# --- the fast paths against the careful readers, on mutations of the real files ----------------


def outcome(reader, data, lenient: bool, gt=GT):
    """What a read makes of ``data``: the detections and what it counted, or the error."""
    try:
        dets = reader(data, "r_result", gt, Dropped() if lenient else None)
    except InputError as exc:
        return f"error: {exc}"
    arrays = [(a.dtype.str, a.shape, a.tobytes()) for a in (dets.image, dets.boxes, dets.scores)]
    return arrays, dets.facts, dets.dropped, dets.format


def assert_read_alike(reader, data: bytes, gt) -> None:
    """The bytes (the fast path first) and the decoded text (the careful path) read the same."""
    try:
        text = decode_text(data, "r_result")
    except InputError:
        return
    for lenient in (False, True):
        assert outcome(reader, data, lenient, gt) == outcome(reader, text, lenient, gt), data[:300]


SPACES = ["", " ", "\n", "\t", "\r\n", "  \n    "]


def spellings(value: float) -> list[str]:
    """Ways writers spell a number: as Python and numpy write it, with an exponent, 17 digits."""
    found = [repr(value), f"{value:.17g}", f"{value:.4f}", f"{value:e}", f"{value:.16E}"]
    if float(value).is_integer():
        found += [str(int(value)), f"{int(value)}.0", f"{int(value)}e0"]
    if value == 0:
        found += ["-0", "-0.0", "0e5", "-0E-3"]
    return found


HOSTILE = [
    "true",
    "false",
    "null",
    '"12.5"',
    '"nan"',
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    "-1e400",
    "[1]",
    '{"0": 1}',
    "01",
    "+1",
    ".5",
    "1.",
    "0x1",
    "1_0",
    '"\\u0031"',
    str(10**400),
]


@st.composite
def coco_texts(draw, source: list[dict]) -> str:
    """A COCO result text made of records of a real file, rewritten the ways writers and mistakes do."""
    picked = draw(st.lists(st.integers(0, len(source) - 1), min_size=1, max_size=20))
    space = draw(st.sampled_from(SPACES))
    hostile = draw(st.booleans())

    def number(value) -> str:
        if hostile and draw(st.integers(0, 30)) == 0:
            return draw(st.sampled_from(HOSTILE))
        return draw(st.sampled_from(spellings(float(value))))

    out = []
    for k in picked:
        record = dict(source[k])
        if draw(st.integers(0, 6)) == 0:
            record.pop("category_id", None)
        fields = {
            key: (
                "[" + ("," + space).join(number(v) for v in record[key]) + "]"
                if key == "bbox"
                else number(record[key])
                if key != "image_id"
                else draw(st.sampled_from([str(record[key]), f"{record[key]}.0", f"{record[key]}e0"]))
            )
            for key in record
        }
        if hostile and draw(st.integers(0, 12)) == 0:
            fields[draw(st.sampled_from(["id", "area", "segmentation", "note"]))] = draw(
                st.sampled_from(["3", '"é"', "[]", '{"a": 1}', '"\\ud800"', "null"])
            )
        if hostile and draw(st.integers(0, 12)) == 0:
            fields["bbox"] = '{"0": 1, "1": 2, "2": 3, "3": 4}'
        keys = draw(st.permutations(list(fields)))
        parts = [f'"{key}":{space}{fields[key]}' for key in keys]
        if hostile and draw(st.integers(0, 12)) == 0:  # a key twice: json.loads keeps the last
            parts.append(draw(st.sampled_from(parts)))
        if hostile and draw(st.integers(0, 12)) == 0:
            parts[0] = parts[0].replace('"image_id"', '"\\u0069mage_id"').replace('"score"', '"\\u0073core"')
        out.append("{" + space + ("," + space).join(parts) + space + "}")
    text = "[" + space + ("," + space).join(out) + space + "]" + draw(st.sampled_from(["", "\n", " \r\n"]))
    if hostile:
        text = draw(
            st.sampled_from(
                [
                    text,
                    text,
                    '{"annotations": ' + text + "}",
                    "\ufeff" + text,
                    text + "x",
                    text + ",",
                    text[:-3],
                    text.replace("\n", "\r\n"),
                    text.replace(",", ",,", 1),
                    "[" + text + "]",
                ]
            )
        )
    return text


@pytest.fixture(scope="module")
def mlpd_records(kaist):
    return json.loads((kaist / "results" / "MLPD_result.json").read_text())


def test_coco_mutations_of_the_real_file_read_alike(mlpd_records, leaderboard_gt):
    taken = []

    @SETTINGS
    @given(coco_texts(mlpd_records))
    def check(text):
        data = text.encode()
        columns = coco_columns(data)
        if columns is not None:
            taken.append(text)
            parsed = json.loads(text)
            for key in ("image_id", "category_id", "score", "bbox"):
                expected = np.array([r.get(key, 1) if key == "category_id" else r[key] for r in parsed], np.float64)
                assert expected.tobytes() == columns[key].tobytes(), (key, text[:300])
        assert_read_alike(read_coco, data, leaderboard_gt)

    check()
    assert len(taken) > 40, "the fast path took too few of the files"


JSON_NUMBERS = st.one_of(
    st.from_regex(_JSON_NUMBER, fullmatch=True),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda v: f"{v:.17e}"),
    st.integers(-(2**1100), 2**1100).map(str),
    st.builds(lambda d, e: f"{d}e{e}", st.integers(10**16, 10**17 - 1), st.integers(-345, 330)),
    st.builds(lambda d, e: f"0.{d}e{e}", st.integers(0, 10**40), st.integers(-330, 310)),
    st.sampled_from(
        [
            "-0",
            "-0.0",
            "0e0",
            "0E-0",
            "4.9e-324",
            "5e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "2.2250738585072011e-308",
            "2.2250738585072014e-308",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "9007199254740993",
            "9007199254740993.0",
            "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203124",
            "123456789012345678901234567890",
            "1" + "0" * 308,
            "1" + "0" * 309,
            "0." + "0" * 400 + "1",
            "7" * 800 + "e-800",
            "NaN",
            "Infinity",
            "-Infinity",
            "1e400",
            "-1e-400",
        ]
    ),
)


def finite(value) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond the float range
        return False


def test_the_bulk_decoder_reads_numbers_as_json_loads():
    """msgspec, as the COCO fast path uses it, reads each number spelling as json.loads does, bit for
    bit, or declines the file (then json.loads reads it); it declines only what json.loads reads
    beyond the float range, NaN and the infinities."""
    taken = []

    @SETTINGS
    @given(numbers=st.lists(JSON_NUMBERS, min_size=6, max_size=6), duplicate=st.booleans())
    def check(numbers, duplicate):
        bbox, score, category = numbers[:4], numbers[4], numbers[5]
        extra = f', "score": {numbers[0]}' if duplicate else ""
        text = (
            f'[{{"image_id": 3, "category_id": {category}, "bbox": [{", ".join(bbox)}], "score": {score}'
            f'{extra}}}, {{"image_id": 1, "bbox": [1, 2, 3, 4], "score": {score}}}]'
        )
        columns = coco_columns(text.encode())
        try:
            parsed = json.loads(text)
        except ValueError:
            assert columns is None, text
            return
        if columns is None:
            values = [v for r in parsed for v in (*r["bbox"], r["score"], r.get("category_id", 1))]
            assert not all(map(finite, values)), text[:300]
            return
        taken.append(text)
        for key in ("category_id", "score", "bbox"):
            expected = np.array([r.get(key, 1) for r in parsed], np.float64)
            assert expected.tobytes() == columns[key].tobytes(), (key, text[:300])

    check()
    assert len(taken) > 40


@st.composite
def txt_texts(draw, lines: list[str]) -> str:
    picked = draw(st.lists(st.sampled_from(lines), min_size=1, max_size=25))
    separator = draw(st.sampled_from([",", ",", ", ", " ,", " ", "\t", ",\t"]))
    hostile = draw(st.booleans())
    out = []
    for line in picked:
        fields = line.split(",")
        if hostile and draw(st.integers(0, 10)) == 0:
            k = draw(st.integers(0, 5))
            fields[k] = draw(
                st.sampled_from(
                    ["nan", "inf", "+" + fields[k], fields[k] + "e0", "1_0", "١", "0x1", "", ".", fields[k] + "."]
                )
            )
        elif draw(st.booleans()):
            fields = [draw(st.sampled_from(spellings(float(f)))) if k else f for k, f in enumerate(fields)]
        if hostile and draw(st.integers(0, 20)) == 0:
            fields = fields[:-1] if draw(st.booleans()) else fields + ["1"]
        out.append(separator.join(fields))
    if hostile and draw(st.integers(0, 4)) == 0:
        out.insert(
            draw(st.integers(0, len(out))),
            draw(st.sampled_from(["", "  ", "# comment", "% comment", "image_id,x,y,w,h,score", "1,2,3,4,5,6,"])),
        )
    ending = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"] if hostile else ["\n", "\r\n"]))
    text = ending.join(out) + draw(st.sampled_from(["", ending, ending * 2 if hostile else ""]))
    if hostile and draw(st.integers(0, 6)) == 0:
        text = "\ufeff" + text
    return text


@pytest.fixture(scope="module")
def txt_lines(kaist):
    return [
        line
        for name in ("MBNet_result.txt", "MLPD_result.txt")
        for line in (kaist / "results" / name).read_text().splitlines()
    ]


def test_txt_mutations_of_the_real_files_read_alike(txt_lines, leaderboard_gt):
    taken = []

    @SETTINGS
    @given(txt_texts(txt_lines))
    def check(text):
        data = text.encode()
        found = txt_rows(data, 6)
        if found is not None:
            taken.append(text)
            rows, lines = _parse_rows(decode_text(data, "r"), "r", 6)
            assert rows.tobytes() == found[0].tobytes() and lines.tolist() == found[1].tolist(), text[:300]
        assert_read_alike(read_txt, data, leaderboard_gt)

    check()
    assert len(taken) > 40


def test_per_image_mutations_of_the_real_archive_read_alike(kaist, leaderboard_gt, tmp_path, monkeypatch):
    with tarfile.open(kaist / "results" / "MBNet-per-image.tar.gz") as source:
        members = {m.name.rpartition("/")[2]: source.extractfile(m).read().decode() for m in source if m.isfile()}
    names = sorted(members)
    rnd = random.Random(20261125)
    taken = 0
    for case in range(60):
        folder = tmp_path / str(case)
        folder.mkdir()
        hostile = rnd.random() < 0.5
        for name in rnd.sample(names, 8):
            lines = members[name].splitlines()
            if hostile and lines and rnd.random() < 0.3:
                k = rnd.randrange(len(lines))
                lines[k] = rnd.choice(
                    [
                        lines[k].replace("person", "Person"),
                        lines[k].replace(" ", "\t", 1),
                        lines[k].replace(" ", "  "),
                        lines[k] + " 1",
                        "",
                        "# c",
                        lines[k] + " ",
                        lines[k].replace("person ", "person +"),
                    ]
                )
            ending = rnd.choice(["\n", "\r\n"])
            write(folder / name, ending.join(lines) + rnd.choice(["", ending]))
        read = []
        for bulk in (True, False):
            if not bulk:
                monkeypatch.setattr(results, "labelled_rows", lambda *args: None)
            for lenient in (False, True):
                try:
                    dets = load_detections(folder, leaderboard_gt, on_invalid="drop" if lenient else "error")
                    read.append(
                        ([a.tobytes() for a in (dets.image, dets.boxes, dets.scores)], dets.facts, dets.dropped)
                    )
                except InputError as exc:
                    read.append(str(exc))
            monkeypatch.undo()
        assert read[:2] == read[2:], case
        taken += not hostile
    assert taken > 20
