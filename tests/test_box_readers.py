"""The result reader of any class (the other benchmarks), with KAIST's reader's guarantees.

A result's bytes of the usual layout are read in bulk (msgspec); the same text given as str is read
record by record from `json.loads`. Generated files, well-formed and broken, on ground truths with
integer and with string image ids, must come out the same both ways (the detections bit for bit, the
facts and counts, or the same error), and what the fast path reads it reads as `json.loads` does.
Types are checked, never coerced: a string id is not an integer id, a boolean is not a number.
Seeds are fixed.
"""

import json
import random

import numpy as np
import pytest
from bench_cases import FLIR_TEST, M3FD_TEST, detections_for, load

from kaist_kit.data.bulkread import coco_columns
from kaist_kit.data.detections import COCO, TXT, Dropped, ReadOptions
from kaist_kit.data.groundtruth import ground_truth_from_coco
from kaist_kit.data.results import load_detections, read_coco, read_txt
from kaist_kit.datasets import UNNAMED
from kaist_kit.errors import InputError


def truth(string_ids: bool, classes=((1, "person"), (2, "bicycle"), (3, "car"))):
    ids = [f"FLIR_{9000 + k:05d}.jpeg_RGB" if string_ids else 10 + k for k in range(6)]
    gt = {
        "images": [{"id": i, "width": 640, "height": 512} for i in ids],
        "annotations": [
            {
                "id": k + 1,
                "image_id": ids[k % 6],
                "category_id": classes[k % len(classes)][0],
                "bbox": [20 + 40 * k, 100, 40, 100],
            }
            for k in range(12)
        ],
        "categories": [{"id": i, "name": n} for i, n in classes],
    }
    return ground_truth_from_coco(gt, benchmark="flir-aligned")


INTS, STRINGS = truth(False), truth(True)
KEYS = ("image_id", "category_id", "bbox", "score")


def outcome(reader, data, gt, lenient: bool, options=None):
    try:
        dets = reader(data, "r_result", gt, Dropped() if lenient else None, options)
    except InputError as exc:
        return f"error: {exc}"
    arrays = [(a.dtype.str, a.shape, a.tobytes()) for a in (dets.image, dets.category, dets.boxes, dets.scores)]
    return arrays, dets.facts, dets.dropped, dets.format


def number(rnd: random.Random, broken: bool) -> str:
    forms = [
        lambda: str(rnd.randint(-5, 700)),
        lambda: repr(rnd.uniform(-5, 700)),
        lambda: repr(rnd.random() ** 8),
        lambda: f"{rnd.uniform(0, 9):.4f}",
        lambda: f"{rnd.randint(1, 9)}e{rnd.randint(-7, 2)}",
        lambda: rnd.choice(["0", "-0", "-0.0", "1.0", "9007199254740993", "4.9e-324", "0.1e1"]),
    ]
    if broken and rnd.random() < 0.3:
        return rnd.choice(["01", "+1", ".5", "NaN", "Infinity", "1e400", '"1.5"', "null", "true", "[1]", "1e"])
    return rnd.choice(forms)()


def image_id(rnd: random.Random, gt, broken: bool) -> str:
    ids = gt.image_ids.tolist()
    if not broken or rnd.random() < 0.8:
        return json.dumps(rnd.choice(ids))
    if isinstance(ids[0], str):  # strings: another string, a number, an id written as a number
        return rnd.choice(['"FLIR_09999.jpeg_RGB"', "9001", '"FLIR_09001"', "null", "true", json.dumps(ids[0] + " ")])
    return rnd.choice(['"10"', "10.0", "10.5", "9", "16", "-1", "1e20", "true", "9007199254740993"])


def category(rnd: random.Random, broken: bool) -> str:
    if broken and rnd.random() < 0.2:
        return rnd.choice(['"2"', "2.0", "2.5", "true", "null", "0", "4", "1e300", '"x"'])
    return rnd.choice(["1", "2", "3"])


def coco_text(rnd: random.Random, gt, broken: bool) -> tuple[str, bool]:
    keys = rnd.sample(KEYS, 4) if rnd.random() < 0.5 else list(KEYS)
    if broken and rnd.random() < 0.1:
        keys.remove(rnd.choice(KEYS))
    compact = rnd.random() < 0.5
    item, colon = (",", ":") if compact else (", ", ": ")
    records = []
    for _ in range(rnd.randint(1, 12)):
        values = {
            "image_id": image_id(rnd, gt, broken),
            "category_id": category(rnd, broken),
            "bbox": "["
            + item.join(number(rnd, broken) for _ in range(4 if not broken or rnd.random() < 0.9 else 3))
            + "]",
            "score": number(rnd, broken),
        }
        parts = [f'"{key}"{colon}{values[key]}' for key in keys]
        if broken and rnd.random() < 0.03:
            parts.append('"id"' + colon + "3")
        if broken and rnd.random() < 0.03:
            parts.insert(0, parts[-1])  # a key twice: json.loads keeps the last
        records.append("{" + item.join(parts) + "}")
    text = "[" + item.join(records) + "]"
    if broken and rnd.random() < 0.1:
        cut = rnd.randrange(len(text))
        text = text[:cut] + rnd.choice(["", " ", ",", "}", "{", "]", "1", '"']) + text[cut + 1 :]
    if broken and rnd.random() < 0.05:
        text = '{"annotations": ' + text + "}"
    return text, not broken and "e400" not in text


@pytest.mark.parametrize("gt", [INTS, STRINGS], ids=["integer-ids", "string-ids"])
def test_fast_path_reads_as_json_loads(gt):
    """Every file the fast path reads, it reads as json.loads does; files of the usual layout take it;
    bytes and text read alike, errors included."""
    rnd = random.Random(20260301 + len(str(gt.image_ids[0])))
    string_ids = isinstance(gt.image_ids[0], str)
    taken = 0
    for _ in range(500):
        text, usual = coco_text(rnd, gt, broken=rnd.random() < 0.5)
        data = text.encode()
        columns = coco_columns(data, classes=True, string_ids=string_ids)
        if usual:
            assert columns is not None, text[:300]
        if columns is not None:
            taken += 1
            records = json.loads(text)
            assert columns["image_id"].tolist() == [r["image_id"] for r in records]
            for key in ("category_id", "score", "bbox"):
                reference = np.array([r[key] for r in records], np.float64)
                assert reference.tobytes() == columns[key].tobytes(), (key, text[:300])
        for lenient in (False, True):
            assert outcome(read_coco, data, gt, lenient) == outcome(read_coco, text, gt, lenient), text[:300]
    assert taken > 150


def test_types_are_checked_never_coerced():
    record = {"image_id": 10, "category_id": 2, "bbox": [1, 2, 3, 4], "score": 0.5}

    def read(gt, **changes):
        return read_coco(json.dumps([{**record, **changes}]).encode(), "r.json", gt)

    assert read(INTS).category.tolist() == [2] and read(INTS).image.tolist() == [0]
    assert read(STRINGS, image_id="FLIR_09001.jpeg_RGB").image.tolist() == [1]
    for gt, changes, message in [
        (
            INTS,
            {"image_id": "10"},
            "image_id '10' is not an integer (written as a string; the ground truth's ids are integers)",
        ),
        (
            STRINGS,
            {"image_id": 9000},
            "image_id 9000 is not among the ground truth's images (written as an "
            "integer; the ground truth's ids are strings, 'FLIR_09000.jpeg_RGB'",
        ),
        (INTS, {"image_id": True}, "image_id true is not an integer"),
        (INTS, {"category_id": True}, "category_id holds true, not a number"),
        (INTS, {"category_id": 2.5}, "category_id 2.5 is not a whole number"),
        (INTS, {"score": None}, "score holds null, not a number"),
        (INTS, {"bbox": [1, 2, 3]}, "bbox must be a list of 4 numbers"),
        (INTS, {"image_id": 17}, "image id 17 is not in the ground truth \\(ids 10..15\\)"),
    ]:
        with pytest.raises(
            InputError, match=message.replace("(", "\\(").replace(")", "\\)") if "\\(" not in message else message
        ):
            read(gt, **changes)
    without = dict(record)
    del without["category_id"]
    with pytest.raises(InputError, match="detection without 'category_id'"):
        read_coco(json.dumps([without]).encode(), "r.json", INTS)
    # A number written as text is read as that number, and counted (the string-values finding).
    dets = read(INTS, category_id="2", score="0.5")
    assert dets.category.tolist() == [2] and dets.facts.string_values == 1
    # The id offset moves integer ids; string ids cannot be moved.
    assert read(INTS, image_id=11).image.tolist() == [1]
    moved = read_coco(
        json.dumps([{**record, "image_id": 11}]).encode(), "r.json", INTS, options=ReadOptions(id_offset=-1)
    )
    assert moved.image.tolist() == [0] and moved.facts.id_offset == -1
    with pytest.raises(InputError, match="--id-offset moves integer image ids"):
        read_coco(b"[]", "r.json", STRINGS, options=ReadOptions(id_offset=1))
    # Categories counted from 0 read with the offset that moves them.
    shifted = read_coco(
        json.dumps([{**record, "category_id": 0}]).encode(), "r.json", INTS, options=ReadOptions(category_offset=1)
    )
    assert shifted.category.tolist() == [1] and shifted.facts.category_offset == 1


def test_lenient_read_counts_what_it_leaves_out():
    records = [{"image_id": i, "category_id": 1, "bbox": [1, 2, 3, 4], "score": 0.5} for i in (10, 99, 99, 11)]
    records.append({"image_id": 12, "category_id": 1, "bbox": [1, 2, -3, 4], "score": 0.5})
    for data in (json.dumps(records).encode(), json.dumps(records)):
        dets = read_coco(data, "r.json", INTS, Dropped())
        assert dets.image.tolist() == [0, 1] and dets.dropped.unknown_ids == {99: 2}
        assert dets.dropped.negative_size == 1


def test_txt_on_a_ground_truth_of_one_class():
    single = truth(False, ((1, "person"),))
    text = b"1,10,20,30,40,0.9\n6,1,2,3,4,0.5\n"
    dets = read_txt(text, "r.txt", single)
    assert dets.image.tolist() == [0, 5] and dets.category.tolist() == [1, 1] and dets.format is TXT
    assert outcome(read_txt, text, single, False) == outcome(read_txt, text.decode(), single, False)
    with pytest.raises(InputError, match="has 3 classes: write COCO result JSON"):
        read_txt(text, "r.txt", INTS)
    with pytest.raises(InputError, match="image id 7 is not in the ground truth \\(ids 1..6, 1-based\\)"):
        read_txt(b"7,1,2,3,4,0.5\n", "r.txt", single)


def test_files_archives_and_folders(tmp_path):
    import zipfile

    records = [{"image_id": "FLIR_09002.jpeg_RGB", "category_id": 3, "bbox": [1, 2, 3, 4], "score": 0.5}]
    path = tmp_path / "m_result.json"
    path.write_text(json.dumps(records))
    dets = load_detections(path, STRINGS)
    assert dets.image.tolist() == [2] and dets.format is COCO and dets.source == str(path)
    with zipfile.ZipFile(tmp_path / "m.zip", "w") as archive:
        archive.writestr("inner/m_result.json", json.dumps(records))
    assert load_detections(tmp_path / "m.zip", STRINGS).image.tolist() == [2]
    with pytest.raises(InputError, match="a folder of per-image files is the KAIST devkit's format"):
        load_detections(tmp_path, STRINGS)


@pytest.mark.parametrize("path", [FLIR_TEST, M3FD_TEST], ids=["flir-aligned", "m3fd"])
def test_real_ground_truths_with_generated_detections(path):
    """Generated detections of the real files (string image ids) read in bulk and record by record
    give the same arrays, equal to the records themselves."""
    if not path.is_file():
        pytest.skip(f"{path} is absent (the shared real files)")
    gt_data, records = detections_for(load(path), 3)
    annotations = ground_truth_from_coco(gt_data, benchmark=UNNAMED)
    text = json.dumps(records)
    fast = read_coco(text.encode(), "r.json", annotations)
    assert coco_columns(text.encode(), classes=True, string_ids=True) is not None
    assert outcome(read_coco, text.encode(), annotations, False) == outcome(read_coco, text, annotations, False)
    assert fast.boxes.tolist() == [r["bbox"] for r in records]
    assert [annotations.image_ids[k] for k in fast.image] == [r["image_id"] for r in records]
    assert fast.category.tolist() == [r["category_id"] for r in records]
