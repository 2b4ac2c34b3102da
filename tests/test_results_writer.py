"""The COCO result writer against a plain one: the same bytes, for numbers written in bulk (decimals
of a txt file), one by one (a detector's float32 numbers) and mixed, and every number read back
exactly."""

import json

import numpy as np
import pytest

from kaist_kit.data import writers
from kaist_kit.data.writers import coco_results_chunks, coco_results_text, number_text


def plain_writer(image_ids, boxes, scores, category_id=1) -> bytes:
    records = [
        f'{{"image_id":{int(i)},"category_id":{category_id},"bbox":[{",".join(map(number_text, box))}],'
        f'"score":{number_text(score)}}}'
        for i, box, score in zip(
            np.asarray(image_ids).tolist(), np.asarray(boxes, float).tolist(), np.asarray(scores, float).tolist()
        )
    ]
    return ("[" + ",".join(records) + "]").encode()


def kinds(rng, n):
    return {
        "txt boxes": np.round(rng.random(n) * 640, 4),
        "txt scores": np.round(rng.random(n) ** 3, 8),  # a tenth of them below 1e-4, written as 1e-05
        "float32": (rng.random(n) * 640).astype(np.float32).astype(float),
        "any magnitude": rng.standard_normal(n) * 10.0 ** rng.integers(-12, 18, n),
        "integers": rng.integers(-(10**6), 10**6, n).astype(float),
        "negative decimals": -np.round(rng.random(n) * 50, rng.integers(1, 10)),
    }


@pytest.mark.parametrize("seed", range(4))
def test_the_writer_writes_what_a_plain_writer_writes(seed):
    rng = np.random.default_rng(seed)
    n = 30_000
    columns = kinds(rng, n)
    names = list(columns)
    for box_kind in names:
        score_kind = names[rng.integers(len(names))]
        ids = rng.integers(0, 3000, n)
        boxes = np.column_stack(
            [
                columns[box_kind],
                rng.permutation(columns[box_kind]),
                columns[names[rng.integers(len(names))]],
                np.abs(columns[box_kind]),
            ]
        )
        scores = columns[score_kind]
        got = b"".join(coco_results_chunks(ids, boxes, scores, records=7_000))
        assert got == plain_writer(ids, boxes, scores), (box_kind, score_kind)


def test_bulk_and_one_by_one_are_both_taken_and_agree(monkeypatch):
    taken = []
    bulk, one_by_one = writers._records_in_bulk, writers._records_one_by_one
    monkeypatch.setattr(writers, "_records_in_bulk", lambda *a: taken.append("bulk") or bulk(*a))
    monkeypatch.setattr(writers, "_records_one_by_one", lambda *a: taken.append("one") or one_by_one(*a))
    rng = np.random.default_rng(7)
    columns = kinds(rng, 1000)
    ids = np.arange(1000)
    for box_kind, score_kind in (("txt boxes", "txt scores"), ("float32", "float32")):
        boxes = np.repeat(columns[box_kind][:, None], 4, axis=1)
        assert coco_results_text(ids, boxes, columns[score_kind]) == plain_writer(ids, boxes, columns[score_kind])
    assert taken == ["bulk", "one"]


def test_edge_values_and_ids():
    edge = np.array(
        [
            0.0,
            -0.0,
            1e-4,
            -1e-4,
            9.99e-5,
            0.5,
            -0.5,
            4503599.627370495,
            4503599.6273704955,
            1e16,
            2.0**52,
            2.0**53 + 2,
            -123.456,
            1e-9,
            0.1,
            0.2,
            0.3,
            5e-324,
            1.7976931348623157e308,
            9999999.5,
            1e7,
            123456.000000001,
        ]
    )
    boxes = np.repeat(edge[:, None], 4, axis=1)
    for ids in (np.arange(len(edge)), np.arange(len(edge)) + 2**60):  # ids beyond a float's integers
        assert coco_results_text(ids, boxes, edge) == plain_writer(ids, boxes, edge)
    assert coco_results_text(np.zeros(0, int), np.zeros((0, 4)), np.zeros(0)) == b"[]"


def test_every_number_reads_back_exactly():
    rng = np.random.default_rng(3)
    columns = kinds(rng, 5000)
    boxes = np.column_stack(
        [columns["txt boxes"], columns["float32"], columns["any magnitude"], columns["negative decimals"]]
    )
    records = json.loads(coco_results_text(np.arange(5000), boxes, columns["txt scores"], category_id=0))
    assert np.array_equal(np.array([r["bbox"] for r in records]), boxes)
    assert np.array_equal(np.array([r["score"] for r in records]), columns["txt scores"])
    assert {r["category_id"] for r in records} == {0}
