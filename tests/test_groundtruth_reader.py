"""The ground-truth reader checks types and never coerces: property-tested against a plain reader
written from the rules (hypothesis, derandomized), and the named cases refused with file:line."""

import copy
import json
import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaist_kit.data.frames import find_frame, period_of
from kaist_kit.data.groundtruth import ground_truth_from_coco
from kaist_kit.datasets.kaist_truth import load_ground_truth
from kaist_kit.errors import InputError

BASE = {
    "images": [
        {"id": 0, "im_name": "set06/V000/I00019", "width": 640, "height": 512},
        {"id": 1, "im_name": "set09/V000/I00039", "width": 640, "height": 512},
        {"id": 2, "file_name": "set06/V001/visible/I00059.jpg"},
    ],
    "annotations": [
        {
            "id": 0,
            "image_id": 0,
            "category_id": 1,
            "bbox": [505, 212, 20, 50],
            "height": 50,
            "occlusion": 0,
            "ignore": 0,
        },
        {"id": 1, "image_id": 0, "category_id": 2, "bbox": [10.5, 20, 30, 60.25], "occlusion": 1, "ignore": 1},
        {"id": 2, "image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4], "iscrowd": 0, "label": "person"},
        {"id": 3, "image_id": 2, "bbox": [100, 100, 40, 80], "ignore": True, "occlusion": 2},
    ],
    "categories": [{"id": 1, "name": "person"}, {"id": 2, "name": "cyclist"}],
}

NUMBER_LIKE = [
    0,
    1,
    2,
    -1,
    640,
    0.0,
    1.0,
    0.5,
    -0.0,
    1e308,
    2**63,
    -(2**63) - 1,
    10**400,  # an integer JSON holds and no float does
    math.nan,
    math.inf,
    True,
    False,
    None,
    "0",
    "1",
    "false",
    "true",
    "",
    "640",
    [],
    {},
    [1, 2, 3, 4],
]
BOXES = [
    [1, 2, 3, 4],
    [1.5, 2, 3, 4],
    [1, 2, 3],
    [1, 2, 3, 4, 5],
    {"0": 1, "1": 2, "2": 3, "3": 4},
    [True, 2, 3, 4],
    ["1", 2, 3, 4],
    [1, 2, math.nan, 4],
    [1, 2, -3, 4],
    [1, 2, 0, 0],
    [1, 2, math.inf, 4],
    "1,2,3,4",
    None,
    [[1], 2, 3, 4],
]
TEXTS = ["set06/V000/I00019", "set09_V001_I00099", "x.jpg", "", 3, None, True, ["a"], "day", "night", "dusk"]
IMAGE_FIELDS = {
    "id": NUMBER_LIKE,
    "width": NUMBER_LIKE,
    "height": NUMBER_LIKE,
    "im_name": TEXTS,
    "file_name": TEXTS,
    "period": TEXTS,
}
ANNOTATION_FIELDS = {
    "id": NUMBER_LIKE,
    "image_id": NUMBER_LIKE,
    "category_id": NUMBER_LIKE,
    "bbox": BOXES,
    "height": NUMBER_LIKE,
    "occlusion": NUMBER_LIKE,
    "ignore": NUMBER_LIKE,
    "iscrowd": NUMBER_LIKE,
    "label": TEXTS,
}
DELETE = object()


def is_int(v):
    return type(v) is int


def is_number(v):
    return type(v) in (int, float)


def plain_reader(doc):
    """The rules, plainly: the images sorted by id as (id, name, period, width, height), and the
    annotations in image order as (image id, id, bbox, height, occlusion, ignore, label); None: refused."""
    if not isinstance(doc, dict) or not isinstance(doc.get("images"), list):
        return None
    annotations, categories = doc.get("annotations", []), doc.get("categories", [])
    if not isinstance(annotations, list) or not isinstance(categories, list):
        return None
    names = {}
    for c in categories:
        if not isinstance(c, dict) or not is_int(c.get("id")) or not isinstance(c.get("name", ""), str):
            return None
        names[c["id"]] = c.get("name", "")
    images = {}
    for img in doc["images"]:
        if not isinstance(img, dict) or not is_int(img.get("id")) or not -(2**63) <= img["id"] < 2**63:
            return None
        texts = ("im_name", "file_name", "period")
        if any(img.get(key) is not None and not isinstance(img[key], str) for key in texts):
            return None
        name = img.get("im_name") or img.get("file_name") or ""
        name = find_frame(name) or name
        period = img.get("period") or period_of(name)
        if period not in ("day", "night", ""):
            return None
        size = (img.get("width", 640), img.get("height", 512))
        if not all(is_number(v) and 0 < v <= sys.float_info.max for v in size):
            return None
        if img["id"] in images or (name and name in [n for n, *_ in images.values()]):
            return None
        images[img["id"]] = (name, period, *map(float, size))
    rows = []
    for k, ann in enumerate(annotations):
        if not isinstance(ann, dict) or "image_id" not in ann or "bbox" not in ann:
            return None
        box = ann["bbox"]
        if not is_int(ann["image_id"]) or ann["image_id"] not in images:
            return None
        if not isinstance(box, list) or len(box) != 4 or not all(is_number(v) and math.isfinite(v) for v in box):
            return None
        if box[2] < 0 or box[3] < 0:
            return None
        height = ann.get("height", box[3])
        if not is_number(height) or not math.isfinite(height):
            return None
        occlusion = ann.get("occlusion", 0)
        if not is_int(occlusion) or occlusion not in (0, 1, 2):
            return None
        flags = [ann.get(key, 0) for key in ("ignore", "iscrowd")]
        if not all(type(f) is bool or (is_int(f) and f in (0, 1)) for f in flags):
            return None
        if any(key in ann and not is_int(ann[key]) for key in ("id", "category_id")):
            return None
        if not -(2**63) <= ann.get("id", 0) < 2**63:
            return None
        if ann.get("label") is not None and not isinstance(ann["label"], str):
            return None
        ignored = any(flags)
        label = ann["label"] if ann.get("label") else names.get(ann.get("category_id"), "person")
        if not ann.get("label") and ignored and label == "person":
            label = "ignore"
        rows.append(
            (ann["image_id"], ann.get("id", k), tuple(map(float, box)), float(height), occlusion, ignored, label)
        )
    order = sorted(images)
    rank = {i: r for r, i in enumerate(order)}
    rows.sort(key=lambda row: rank[row[0]])  # stable: file order within an image
    return [(i, *images[i]) for i in order], rows


def kit_reader(doc):
    try:
        gt = ground_truth_from_coco(doc)
    except InputError:
        return None
    images = [
        (int(i), n, p, float(w), float(h))
        for i, n, p, (w, h) in zip(gt.image_ids, gt.image_names, gt.image_periods, gt.image_sizes)
    ]
    rows = [
        (
            int(gt.image_ids[gt.ann_image[k]]),
            int(gt.ann_ids[k]),
            tuple(map(float, gt.boxes[k])),
            float(gt.heights[k]),
            int(gt.occlusion[k]),
            bool(gt.ignore[k]),
            gt.labels[k],
        )
        for k in range(len(gt.ann_ids))
    ]
    return images, rows


def mutation():
    image = st.tuples(st.just("images"), st.integers(0, 2), st.sampled_from(sorted(IMAGE_FIELDS))).flatmap(
        lambda t: st.tuples(st.just(t), st.sampled_from([*IMAGE_FIELDS[t[2]], DELETE]))
    )
    annotation = st.tuples(
        st.just("annotations"), st.integers(0, 3), st.sampled_from(sorted(ANNOTATION_FIELDS))
    ).flatmap(lambda t: st.tuples(st.just(t), st.sampled_from([*ANNOTATION_FIELDS[t[2]], DELETE])))
    return st.one_of(image, annotation)


@settings(derandomize=True, max_examples=1500, deadline=None)
@given(st.lists(mutation(), min_size=1, max_size=4))
def test_the_reader_reads_what_the_plain_reader_reads_or_refuses(mutations):
    doc = copy.deepcopy(BASE)
    for (part, k, key), value in mutations:
        if value is DELETE:
            doc[part][k].pop(key, None)
        else:
            doc[part][k][key] = copy.deepcopy(value)
    mine, theirs = kit_reader(doc), plain_reader(doc)
    assert mine == theirs


def test_the_base_document_reads():
    assert kit_reader(BASE) == plain_reader(BASE) is not None


def refused(tmp_path, text):
    path = tmp_path / "gt.json"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_ground_truth(path)
    return caught.value


@pytest.mark.parametrize(
    "field, value, says",
    [
        ("bbox", {"0": 505, "1": 212, "2": 20, "3": 50}, "is not a list of four numbers"),
        ("bbox", [505, 212, True, 50], "is not a list of four numbers"),
        ("bbox", ["505", 212, 20, 50], "is not a list of four numbers"),
        ("ignore", "0", 'ignore flag "0" is not 0, 1, true or false'),
        ("ignore", "false", 'ignore flag "false" is not 0, 1, true or false'),
        ("ignore", 2, "ignore flag 2 is not 0, 1, true or false"),
        ("iscrowd", 0.0, "iscrowd flag 0.0 is not 0, 1, true or false"),
        ("occlusion", True, "occlusion true; expected 0, 1 or 2"),
        ("occlusion", 1.0, "occlusion 1.0; expected 0, 1 or 2"),
        ("height", False, "height false is not a finite number"),
        ("image_id", True, "image_id true is not an integer"),
    ],
)
def test_named_annotation_cases_are_refused_with_file_and_line(tmp_path, field, value, says):
    doc = copy.deepcopy(BASE)
    doc["annotations"][2][field] = value
    text = json.dumps(doc, indent=1)
    error = refused(tmp_path, text)
    assert says in error.reason and error.path == str(tmp_path / "gt.json")
    lines = text.split("\n")
    opening = (
        next(
            k
            for k in range(len(lines))
            if lines[k + 1].strip() == '"id": 2,' and lines[k + 2].strip() == '"image_id": 1,'
        )
        + 1
        if field != "image_id"
        else None
    )
    assert error.line == (opening or error.line) and error.line > 20


@pytest.mark.parametrize(
    "value, says",
    [
        ("NaN", "width NaN is not a positive number"),
        ("0", "width 0 is not a positive number"),
        ("-640", "width -640 is not a positive number"),
        ("true", "width true is not a positive number"),
        ('"640"', 'width "640" is not a positive number'),
        ("null", "width null is not a positive number"),
        ("1" + "0" * 400, "width 1" + "0" * 56 + "... is not a positive number a float can hold"),
    ],
)
def test_image_sizes_that_are_not_positive_numbers_are_refused(tmp_path, value, says):
    text = json.dumps(BASE, indent=1).replace('"width": 640', f'"width": {value}', 1)
    error = refused(tmp_path, text)
    assert says in error.reason and error.line == 3  # the image's line


def test_sizes_are_read_as_given(tmp_path):
    gt = ground_truth_from_coco(BASE)
    assert np.array_equal(gt.image_sizes, [[640, 512], [640, 512], [640, 512]])
