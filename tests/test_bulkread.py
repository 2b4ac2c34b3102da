"""The readers' fast path (`kaist_kit.data.bulkread`) against their careful path.

A reader given a file's bytes reads a file of the usual layout in bulk; given the same text as str,
it reads it record by record (or line by line). Random files, well-formed and broken, must come out
the same both ways: the same detections, bit for bit, with the same facts and the same counts of
what a lenient read left out, or the same error. Well-formed files must take the fast path. Seeds
are fixed.
"""

import json
import random
import subprocess
import sys

import numpy as np
import pytest
from conftest import frames, make_gt, person

from kaist_kit.data import bulkread
from kaist_kit.data.bulkread import coco_columns, labelled_rows, txt_rows
from kaist_kit.data.detections import Dropped
from kaist_kit.data.results import read_coco, read_txt
from kaist_kit.errors import InputError

GT = make_gt(frames(6, night_from=3), [person(k + 1, k % 6, (20 + 40 * k, 100, 40, 100)) for k in range(12)])
KEYS = ("image_id", "category_id", "bbox", "score")


def outcome(reader, text, lenient: bool):
    """What a read makes of ``text``: the detections and what it counted, or the error."""
    try:
        dets = reader(text, "r_result", GT, Dropped() if lenient else None)
    except InputError as exc:
        return f"error: {exc}"
    arrays = [(a.dtype.str, a.shape, a.tobytes()) for a in (dets.image, dets.boxes, dets.scores)]
    return arrays, dets.facts, dets.dropped, dets.format


def assert_same_both_ways(reader, data: bytes) -> None:
    for lenient in (False, True):
        assert outcome(reader, data, lenient) == outcome(reader, data.decode(), lenient), data[:300]


# --- COCO JSON ------------------------------------------------------------------------------------


def json_number(rnd: random.Random, broken: bool) -> str:
    """A number as some writer writes it; when ``broken``, possibly something json.loads rejects or
    reads another way (a string, NaN)."""
    forms = [
        lambda: str(rnd.randint(-5, 700)),
        lambda: repr(rnd.uniform(-5, 700)),
        lambda: repr(float(np.float32(rnd.uniform(0, 700)))),
        lambda: repr(rnd.random() ** 8),  # small scores, often written with an exponent
        lambda: f"{rnd.uniform(0, 9):.4f}",
        lambda: f"{rnd.randint(1, 9)}e{rnd.randint(-7, 2)}",
        lambda: f"{rnd.uniform(1, 9):.3f}E+0{rnd.randint(0, 2)}",
        lambda: rnd.choice(
            [
                "0",
                "-0",
                "-0.0",
                "0.0",
                "1",
                "1.0",
                "-1.5",
                "2e0",
                "1e-05",
                "9007199254740993",
                "123456789012345678901234567890",
                "4.9e-324",
                "0.1e1",
            ]
        ),
    ]
    if broken and rnd.random() < 0.3:
        return rnd.choice(
            [
                "01",
                "+1",
                ".5",
                "1.",
                "-",
                "1e",
                "--1",
                "1.2.3",
                "1e5e5",
                "0x10",
                "NaN",
                "Infinity",
                "1e400",
                "-1e400",
                "-Infinity",
                '"1.5"',
                "null",
                "true",
                "[1]",
                "1 2",
                "",
                "#",
                "1_000",
                "１",
            ]
        )
    return rnd.choice(forms)()


def json_record(rnd: random.Random, keys: list, broken: bool, category: str | None) -> dict:
    values = {
        "image_id": rnd.choice(["0", "1", "2", "3", "4", "5"])
        if rnd.random() < 0.9
        else rnd.choice(["6", "-1", "2.0", "2.5", "1e0", "9007199254740993", "1e20"]),
        "category_id": category or rnd.choice(["1"] * 8 + ["1.0", "0", "2"]),
        "bbox": [json_number(rnd, broken) for _ in range(4 if not broken or rnd.random() < 0.9 else 3)],
        "score": json_number(rnd, broken),
    }
    return {key: values[key] for key in keys}


def json_text(rnd: random.Random, broken: bool) -> tuple[str, bool]:
    """A COCO result list and whether it is of the usual layout: records of the usual keys, numbers
    within the float range."""
    keys = rnd.sample(KEYS, 4) if rnd.random() < 0.5 else list(KEYS)
    if rnd.random() < 0.2:
        keys.remove("category_id")
    layout = rnd.choice(["compact", "dumps", "indent", "ragged"])
    item, colon = {"compact": (",", ":"), "dumps": (", ", ": ")}.get(layout, (",\n        ", ": "))
    # Some files give every detection the 2024 challenge's category (0).
    category = rnd.choice([None, None, "0", "0.0"])
    records = []
    for k in range(rnd.randint(1, 15)):
        fields = json_record(rnd, keys, broken, category)
        if broken and rnd.random() < 0.05:
            fields = {key: fields[key] for key in rnd.sample(list(fields), len(fields))}  # another order
        if broken and rnd.random() < 0.03:
            fields["id"] = str(k)
        parts = []
        for key, value in fields.items():
            value = "[" + item.join(value) + "]" if isinstance(value, list) else value
            space = " " * rnd.randint(0, 2) if layout == "ragged" else ""
            parts.append(f'"{key}"{colon}{space}{value}')
        if broken and rnd.random() < 0.03:
            parts.insert(rnd.randint(0, len(parts)), parts[rnd.randrange(len(parts))])  # a key twice
        records.append(
            "{" + item.join(parts) + "}" if layout != "indent" else "{\n        " + item.join(parts) + "\n    }"
        )
    between = {"compact": ",", "dumps": ", ", "indent": ",\n    ", "ragged": ",\n"}[layout]
    text = (
        "[" + ("\n    " if layout == "indent" else "") + between.join(records) + ("\n]" if layout == "indent" else "]")
    )
    if broken and rnd.random() < 0.1:
        cut = rnd.randrange(len(text))
        text = text[:cut] + rnd.choice(["", " ", ",", "}", "{", "]", "1", "e", '"', "\t", "\x0c"]) + text[cut + 1 :]
    if broken and rnd.random() < 0.05:
        text = '{"annotations": ' + text + "}"
    usual = not broken and "e400" not in text
    return text, usual


def test_json_fast_path_reads_as_json_loads():
    """Every file the fast path reads, it reads as json.loads does; files of the usual layout, whatever
    their numbers, take it."""
    rnd = random.Random(20240601)
    taken = 0
    for _ in range(600):
        text, usual = json_text(rnd, broken=rnd.random() < 0.5)
        data = text.encode()
        columns = coco_columns(data)
        if usual:
            assert columns is not None, text[:300]
        if columns is not None:
            taken += 1
            records = json.loads(text)
            expected = {
                "image_id": [r["image_id"] for r in records],
                "bbox": [r["bbox"] for r in records],
                "category_id": [r.get("category_id", 1) for r in records],
                "score": [r["score"] for r in records],
            }
            for key, values in expected.items():
                try:
                    reference = np.array(values, np.float64)
                except OverflowError:
                    pytest.fail(f"the fast path read an integer beyond any float: {text[:300]}")
                assert reference.tobytes() == columns[key].tobytes(), (key, text[:300])
        assert_same_both_ways(read_coco, data)
    assert taken > 200


def test_json_fast_path_passes_over_what_it_does_not_read_alike():
    """Numbers json.loads rejects or reads as something else, values that are not numbers, other keys
    and escapes are left to the careful reader; what json.loads reads in its own way (a key written
    twice, keys in any order, any white space) the fast path reads the same way."""
    record = '{"image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4], "score": %s}'
    assert coco_columns(("[" + record % "0.5" + "]").encode()) is not None
    for number in (
        "01",
        "+1",
        ".5",
        "1.",
        "1e",
        "NaN",
        "Infinity",
        '"0.5"',
        "1_0",
        "0x1",
        "1 2",
        "- 1",
        "true",
        "null",
        "1e400",
        "[0.5]",
        '{"0": 0.5}',
    ):
        assert coco_columns(("[" + record % number + "]").encode()) is None, number
    for text in (
        '[{"image_id": 1, "bbox": [1, 2, 3, 4], "score": 1, "id": 3}]',
        '[{"imag5_id": 1, "bbox": [1, 2, 3, 4], "score": 1}]',
        '[{"image_id": 1, "bbox": [1, 2, 3], "score": 1}]',
        '[{"image_id": 1, "bbox": {"0": 1, "1": 2, "2": 3, "3": 4}, "score": 1}]',
        '[{"image_id": 1, "bbox": [1, 2, 3, 4], "score": 1}',
        '[{"image_id": 1, "bbox": [1, 2, 3, 4], "score": 1}] x',
        '{"annotations": [{"image_id": 1, "bbox": [1, 2, 3, 4], "score": 1}]}',
        '[{"\\u0069mage_id": 1, "bbox": [1, 2, 3, 4], "score": 1}]',
        '\ufeff[{"image_id": 1, "bbox": [1, 2, 3, 4], "score": 1}]',
        "[]",
    ):
        assert coco_columns(text.encode()) is None, text
    for text in (
        '[{"image_id": 1, "bbox": [1, 2, 3, 4], "score": 1, "score": 2}]',
        '[{"image_id": 1, "bbox": [1, 2, 3, 4], "score": 1}, {"bbox": [1, 2, 3, 4], "image_id": 1, "score": 1}]',
        ' \r\n[{"image_id": 1,"bbox":[1,2,3,4],\t"score": 1}\n,{"image_id": 1, "bbox": [1, 2, 3, 4], "score": 1}]\n',
    ):
        records = json.loads(text)
        columns = coco_columns(text.encode())
        assert columns is not None, text
        assert columns["score"].tolist() == [r["score"] for r in records]


# --- leaderboard txt ------------------------------------------------------------------------------


def txt_field(rnd: random.Random, broken: bool) -> str:
    if broken and rnd.random() < 0.1:
        return rnd.choice(
            [
                "nan",
                "inf",
                "-inf",
                "1_0",
                "0x1",
                "+",
                ".",
                "1e",
                "--1",
                "1.5.5",
                "abc",
                "#",
                "%",
                "１",
                "1,5",
                "",
                "\t",
                "1e400",
                "9" * 30,
            ]
        )
    return rnd.choice(
        [
            lambda: str(rnd.randint(-3, 700)),
            lambda: f"{rnd.uniform(0, 700):.4f}",
            lambda: f"{rnd.random():.8f}",
            lambda: repr(rnd.random() ** 6),
            lambda: rnd.choice(["+1", ".5", "5.", "-0", "1E3", "1e-07", "007"]),
        ]
    )()


def txt_text(rnd: random.Random, broken: bool) -> tuple[str, bool]:
    separator = rnd.choice([",", ",", ", ", " ", "\t", " ,"])
    ending = rnd.choice(["\n", "\n", "\r\n"])
    lines = []
    for _ in range(rnd.randint(1, 15)):
        fields = [str(rnd.randint(1, 6) if rnd.random() < 0.95 else rnd.choice([0, 7, -1]))]
        fields += [txt_field(rnd, broken) for _ in range(5)]
        if broken and rnd.random() < 0.03:
            fields.pop() if rnd.random() < 0.5 else fields.append("1")
        lines.append(separator.join(fields))
    if broken and rnd.random() < 0.1:
        lines.insert(
            rnd.randrange(len(lines) + 1),
            rnd.choice(["", "  ", "# a comment", "% a comment", "image_id,x,y,w,h,score", "1,2,3,4,5,6,"]),
        )
    text = ending.join(lines) + rnd.choice(["", ending])
    if broken and rnd.random() < 0.05:
        text = text.replace("\n", "\r", 1)
    return text, not broken and separator not in (" ,",)


@pytest.mark.parametrize("bulk", [False, True], ids=["loadtxt", "msgspec"])
def test_txt_fast_path_reads_as_the_careful_reader(bulk, monkeypatch):
    """Both ways a txt file is read in bulk (loadtxt; msgspec, for large files of comma-separated JSON
    numbers, made to take every size here) read what the careful reader reads."""
    monkeypatch.setattr(bulkread, "_BULK_TXT", 0 if bulk else 1 << 62)
    monkeypatch.setattr(bulkread, "_BULK_TXT_LOADED", 0 if bulk else 1 << 62)
    rnd = random.Random(20240602)
    taken = by_msgspec = 0
    for _ in range(600):
        text, usual = txt_text(rnd, broken=rnd.random() < 0.5)
        data = text.encode()
        found = txt_rows(data, 6)
        if usual:
            assert found is not None, text
        taken += found is not None
        by_msgspec += bulkread._comma_rows(data, 6) is not None
        assert_same_both_ways(read_txt, data)
    assert taken > 250
    assert by_msgspec > 10  # most generated files hold a spelling outside JSON (+1, .5, 007)


def test_txt_decoded_by_msgspec_reads_as_float():
    """The msgspec way of reading txt (`_comma_rows`) reads each number as float() does, bit for bit, in
    pieces cut at line ends, or leaves the file to loadtxt: minus zero written as an integer, spellings
    outside JSON's grammar, numbers beyond the float range, lines of another length."""
    rnd = random.Random(20240603)
    spellings = ["-0", "-0.0", "-0e3", "0", "-0.5", "1E3", "1e-07", "4.9e-324", "2.5e-324", "1e-400", "9" * 30, "1e400"]
    spellings += ["+1", ".5", "5.", "007", "1_0", "nan", "inf", "0x1", "1..2"]
    taken = 0
    for case in range(400):
        rows = []
        for _ in range(rnd.randint(1, 40)):
            fields = [str(rnd.randint(1, 6))]
            for _ in range(5):
                forms = [f"{rnd.uniform(-5, 700):.4f}", repr(rnd.random() ** 6), str(rnd.randint(-3, 700))]
                fields.append(rnd.choice(forms))
            rows.append(rnd.choice([",", ", ", " , ", ",\t"]).join(fields))
        if case % 2:  # one field spelled otherwise
            line = rnd.randrange(len(rows))
            fields = rows[line].split(",")
            fields[rnd.randrange(1, 6)] = rnd.choice(spellings)
            rows[line] = ",".join(fields)
        if case % 50 == 0:
            rows.insert(rnd.randrange(len(rows) + 1), "1,2,3,4,5")
        data = ("\r\n" if case % 7 == 0 else "\n").join(rows).encode() + rnd.choice([b"", b"\n"])
        if case % 5 == 0:
            monkey = pytest.MonkeyPatch()
            monkey.setattr(bulkread, "_CHUNK", rnd.randint(1, 200))  # many pieces
        found = bulkread._comma_rows(data, 6)
        if case % 5 == 0:
            monkey.undo()
        try:
            expected = np.array([[float(f) for f in line.split(",")] for line in data.decode().splitlines()])
        except ValueError:
            assert found is None, data
            continue
        if found is None:
            assert expected.shape[1:] != (6,) or any(
                s in data.decode() for s in spellings if s not in ("0", "-0.0", "-0.5", "1E3", "1e-07")
            ), data
            continue
        taken += 1
        assert found[0].tobytes() == expected.tobytes(), data
        assert found[1].tolist() == list(range(1, len(expected) + 1))
    assert taken > 150


def test_txt_fast_path_passes_over_what_it_does_not_read_alike():
    assert txt_rows(b"1,2,3,4,5,0.5\n2, 3,4 ,5,6,1e-05\r\n", 6) is not None
    assert txt_rows(b"1 2 3 4 5 0.5\n2\t3 4 5 6 0.5\n", 6) is not None
    for text in (
        b"1,2,3,4,5,0.5\n\n1,2,3,4,5,0.5\n",
        b"# c\n1,2,3,4,5,0.5\n",
        b"1,2,3,4,5,0.5\r1,2,3,4,5,0.5",
        b"1,2,3,4,5,0.5\n2 3 4 5 6 0.5\n",
        b"1,2,3,4,5\n",
        b"1,2,3,4,5,0.5,\n",
        b"1,2,3,4,5,nan\n",
        b"1,2,3,4,5,1_0\n",
        b"1 2,3,4,5,6\n",
        b"",
        b" \n",
        b"\xef\xbb\xbf1,2,3,4,5,0.5\n",
    ):
        assert txt_rows(text, 6) is None, text


def test_the_format_is_told_from_the_first_lines_however_far(tmp_path):
    """The format is read from the start of a file, in pieces: lines that a piece cuts are read whole."""
    from kaist_kit.data.results import load_detections

    blank = "\n" * 70_000
    cases = {
        "header_result.txt": (blank + "image_id,x,y,w,h,score\n1,2,3,4,5,0.5\n", "r:70001: a header line"),
        "person_result.txt": (blank + "# c\n" * 5000 + "person 1 2 3 4 0.5\n", "r:75001: looks like a single"),
        "cut_result.txt": ("#" * 65_530 + "\nimage_id,x,y,w,h,score_and_more\n", "r:2: a header line"),
        "spaces_result.json": (" " * 70_000 + '[{"image_id": 1, "bbox": [1, 2, 3, 4], "score": 1}]', None),
        "rows_result.txt": (blank + "1,2,3,4,5,0.5\n", None),
    }
    for name, (text, error) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        if error is None:
            assert len(load_detections(path, GT)) == 1
            continue
        with pytest.raises(InputError) as caught:
            load_detections(path, GT)
        assert str(caught.value).replace(str(path), "r").startswith(error), str(caught.value)


# --- per-image folders ----------------------------------------------------------------------------


def per_image_text(rnd: random.Random, broken: bool) -> tuple[str, bool]:
    lines = []
    for _ in range(rnd.randint(0, 6)):
        label = "person" if not broken or rnd.random() < 0.9 else rnd.choice(["Person", "people", "person,", ""])
        numbers = [f"{rnd.uniform(0, 600):.4f}" if rnd.random() < 0.9 else txt_field(rnd, broken) for _ in range(5)]
        if broken and rnd.random() < 0.03:
            numbers.append("person")
        lines.append(" ".join([label, *numbers]))
    if broken and rnd.random() < 0.1:
        lines.insert(rnd.randint(0, len(lines)), rnd.choice(["", "# c", "person"]))
    ending = rnd.choice(["\n", "\r\n"])
    text = ending.join(lines) + rnd.choice(["", ending])
    return text, not broken and not text.isspace()  # a line break alone is a blank line


def test_per_image_fast_path_reads_as_the_careful_reader(tmp_path, monkeypatch):
    import kaist_kit.data.results as detections

    names = [
        "set06_V000_I00000.txt",
        "set06_V000_I00001.txt",
        "set06_V000_I00002.txt",
        "set09_V000_I00003.txt",
        "set09_V000_I00004.txt",
        "set09_V000_I00005.txt",
        "set10_V000_I00009.txt",
    ]
    rnd = random.Random(20240603)
    gt = make_gt(
        [dict(image, im_name=names[k][:-4].replace("_", "/")) for k, image in enumerate(frames(6, 3))],
        [person(k + 1, k % 6, (20 + 40 * k, 100, 40, 100)) for k in range(12)],
    )
    taken = 0
    for case in range(300):
        folder = tmp_path / str(case)
        folder.mkdir()
        broken = rnd.random() < 0.5
        usual = True
        for name in rnd.sample(names, rnd.randint(1, len(names))):
            text, plain = per_image_text(rnd, broken)
            usual &= plain
            (folder / name).write_text(text)
        read = []
        for bulk in (True, False):
            if not bulk:
                monkeypatch.setattr(detections, "labelled_rows", lambda *args: None)
            for lenient in (False, True):
                try:
                    dets = detections.load_detections(folder, gt, on_invalid="drop" if lenient else "error")
                    read.append(
                        ([a.tobytes() for a in (dets.image, dets.boxes, dets.scores)], dets.facts, dets.dropped)
                    )
                except InputError as exc:
                    read.append(str(exc))
            monkeypatch.undo()
        assert read[:2] == read[2:], case
        texts = [p.read_bytes() for p in sorted(folder.iterdir()) if p.name[:-4].replace("_", "/") in gt.index_of_name]
        taken += labelled_rows(texts, b"person", 5) is not None
        if usual and sum(t.count(b"person") for t in texts):
            assert labelled_rows(texts, b"person", 5) is not None, texts
    assert taken > 100


def test_msgspec_is_imported_only_when_a_file_is_decoded_with_it():
    """A command reading small txt files does without msgspec's import; a COCO JSON brings it in."""
    code = (
        "import sys\n"
        "from kaist_kit.data.bulkread import coco_columns, txt_rows\n"
        "assert txt_rows(b'1,2,3,4,5,0.5\\n', 6) is not None\n"
        "print('msgspec' in sys.modules)\n"
        'assert coco_columns(b\'[{"image_id": 0, "bbox": [1, 2, 3, 4], "score": 0.5}]\') is not None\n'
        "print('msgspec' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True"]
