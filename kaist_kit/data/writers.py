"""Writing detections as COCO result JSON, the file `kaist-kit eval` and the leaderboard read, and
as the leaderboard's txt.

One writer serves the simulated detectors, the detectors' metric and the submission packager:
compact JSON, one record per detection in the order given, each number written as the shortest
text that reads back as exactly that number; `txt_results_chunks` writes the same numbers as the
leaderboard's txt lines.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from ..io.write import write_bytes_atomic

# The category of a pedestrian in the leaderboard's results; the 2024 challenge's ground truth gives
# pedestrians category 0 instead, and its evaluator scores that category alone (kaist_kit.metrics.challenge).
PERSON_CATEGORY = 1
CHALLENGE2024_CATEGORY = 0


def number_text(value: float) -> str:
    """The shortest text that reads back as exactly this number (an integral value without '.0')."""
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def coco_results_text(
    image_ids: np.ndarray, boxes: np.ndarray, scores: np.ndarray, category_id: int = PERSON_CATEGORY
) -> bytes:
    """``[{"image_id", "category_id", "bbox": [x, y, w, h], "score"}, ...]`` as UTF-8 bytes."""
    return b"".join(coco_results_chunks(image_ids, boxes, scores, category_id))


def coco_results_chunks(
    image_ids: np.ndarray,
    boxes: np.ndarray,
    scores: np.ndarray,
    category_id: int = PERSON_CATEGORY,
    records: int = 50_000,
) -> Iterator[bytes]:
    """`coco_results_text` in pieces of ``records`` detections, which make it joined: no more than a
    piece of the text is held at a time."""
    image_ids = np.asarray(image_ids)
    values = np.column_stack([np.asarray(boxes, np.float64).reshape(-1, 4), np.asarray(scores, np.float64)])
    fields = ('{"image_id":', f',"category_id":{int(category_id)},"bbox":[', ",", ",", ",", '],"score":', "},")
    for start in range(0, max(len(values), 1), records):
        ids = image_ids[start : start + records]
        part = np.column_stack([ids.astype(np.float64), values[start : start + records]])
        whole, exact = _decimals(part)
        # A detector's float32 numbers take 17 digits: written one by one, as fast as by a matrix.
        if len(part) and exact.mean() >= 0.75 and exact[:, 0].all():
            text = _records_in_bulk(part, whole, exact, fields)
        else:
            text = _records_one_by_one(ids, part[:, 1:], int(category_id))
        yield (b"[" if start == 0 else b",") + text + (b"]" if start + records >= len(values) else b"")


def _records_one_by_one(image_ids: np.ndarray, values: np.ndarray, category_id: int) -> bytes:
    texts = iter(_number_texts(values.ravel()))
    head = f',"category_id":{category_id},"bbox":['
    return ",".join(
        [
            f'{{"image_id":{i}{head}{x},{y},{w},{h}],"score":{s}}}'
            for i, x, y, w, h, s in zip(image_ids.tolist(), *[texts] * 5)
        ]
    ).encode()


def _records_in_bulk(values: np.ndarray, whole: np.ndarray, exact: np.ndarray, fields: tuple[str, ...]) -> bytes:
    """The records of ``values`` (image id, x, y, w, h, score), written as a matrix of bytes in which
    NUL bytes pad each number."""
    count = len(values)
    pieces = []
    for column, field in enumerate(fields):
        pieces.append(np.broadcast_to(np.frombuffer(field.encode(), np.uint8), (count, len(field))))
        if column < values.shape[1]:
            pieces.append(_number_bytes(values[:, column], whole[:, column], exact[:, column]))
    matrix = np.concatenate(pieces, axis=1).ravel()
    return matrix[matrix != 0].tobytes()[:-1]  # the last record has no comma after it


# A value is written in bulk as a decimal of at most _INTEGER digits, a point and _DECIMALS
# decimals, and only where that decimal is the one that reads back as the value and the only one of
# so many decimals that does (|value| * 10**_DECIMALS < 2**52): then its text, with the trailing
# zeros off, is the one `repr` and `number_text` write (shortest and positional for
# 1e-4 <= |value| < 1e16).
_DECIMALS = 9
_INTEGER = 7
_FOUR_DIGITS = np.arange(10_000)
_DIGIT_TABLE = (
    (np.stack([_FOUR_DIGITS // 10**k % 10 for k in (3, 2, 1, 0)], axis=1) + ord("0"))
    .astype(np.uint8)
    .view("<u4")
    .ravel()
)  # each number below 10,000 as four ASCII digits
_TRAILING_ZEROS = np.where(_FOUR_DIGITS == 0, 4, sum(_FOUR_DIGITS % 10**k == 0 for k in (1, 2, 3)))
# Which of the _INTEGER digits, the point and the _DECIMALS decimals a number with so many integer
# digits and decimals keeps.
_KEPT = np.array(
    [
        [
            [i >= _INTEGER - digits for i in range(_INTEGER)]
            + [decimals > 0]
            + [i < decimals for i in range(_DECIMALS)]
            for decimals in range(_DECIMALS + 1)
        ]
        for digits in range(_INTEGER + 1)
    ],
    np.uint8,
)


def _decimals(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each value times 10**_DECIMALS as an integer, and whether it may be written from it."""
    with np.errstate(over="ignore", invalid="ignore"):
        whole = np.rint(values * 10.0**_DECIMALS)
        exact = (np.abs(whole) < 2**52) & ((values == 0) | (np.abs(values) >= 1e-4))
    whole = np.where(exact, whole, 0.0)
    exact &= whole / 10.0**_DECIMALS == values  # the decimal reads back as the value
    return whole, exact


def _number_bytes(values: np.ndarray, whole: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """`number_text` of each value as a row of ASCII bytes padded with NUL bytes."""
    # Four digits at a time from a table: 16 digits, the last _DECIMALS of them after the point.
    magnitude = np.abs(whole).astype(np.int64)
    limbs = np.stack([magnitude // 10 ** (4 * i) % 10_000 for i in (3, 2, 1, 0)], axis=1)
    digits = _DIGIT_TABLE[limbs].view(np.uint8).reshape(len(values), 16)
    # Leading zeros off (a units digit stays), and the trailing zeros of the decimals.
    integer_digits = 1 + sum((magnitude >= 10 ** (_DECIMALS + k)).view(np.int8) for k in range(1, _INTEGER))
    zeros = np.where(
        limbs[:, 3] > 0,
        _TRAILING_ZEROS[limbs[:, 3]],
        np.where(limbs[:, 2] > 0, 4 + _TRAILING_ZEROS[limbs[:, 2]], 8 + (limbs[:, 1] % 10 == 0)),
    )
    out = np.zeros((len(values), 2 + 16), np.uint8)
    out[:, 0] = np.where(values < 0, ord("-"), 0)
    out[:, 1:] = (
        np.concatenate(
            [digits[:, :_INTEGER], np.full((len(values), 1), ord("."), np.uint8), digits[:, _INTEGER:]], axis=1
        )
        * _KEPT[integer_digits, _DECIMALS - zeros]
    )
    others = np.nonzero(~exact)[0]
    if len(others):
        texts = np.array(_number_texts(values[others]), np.bytes_)
        length = texts.dtype.itemsize
        if length > out.shape[1]:
            out = np.pad(out, ((0, 0), (0, length - out.shape[1])))
        out[others] = 0
        out[others, :length] = texts.reshape(-1, 1).view(np.uint8)
    return out


def _number_texts(values: np.ndarray) -> list[str]:
    """`number_text` of each value."""
    integral = (values == np.floor(values)) & (np.abs(values) < 2**53)
    texts = np.empty(len(values), object)
    texts[integral] = list(map(str, values[integral].astype(np.int64).tolist()))
    texts[~integral] = list(map(repr, values[~integral].tolist()))
    return texts.tolist()


def txt_results_chunks(
    image_ids: np.ndarray, boxes: np.ndarray, scores: np.ndarray, records: int = 50_000
) -> Iterator[bytes]:
    """The leaderboard's txt, ``image_id,x,y,w,h,score`` a line, in pieces of ``records`` lines: the ids
    as given (the leaderboard's are 1-based positions), each number the shortest text that reads back
    exactly (Python's float() reads it as the leaderboard's loader does), every line ended by one
    newline and no blank line at the end, which that loader would stop on."""
    image_ids = np.asarray(image_ids)
    values = np.column_stack([np.asarray(boxes, np.float64).reshape(-1, 4), np.asarray(scores, np.float64)])
    for start in range(0, len(values), records):
        texts = iter(_number_texts(values[start : start + records].ravel()))
        ids = image_ids[start : start + records].tolist()
        yield "".join([f"{i},{x},{y},{w},{h},{s}\n" for i, x, y, w, h, s in zip(ids, *[texts] * 5)]).encode()


def write_coco_results(
    path: str | os.PathLike,
    image_ids: np.ndarray,
    boxes: np.ndarray,
    scores: np.ndarray,
    category_id: int = PERSON_CATEGORY,
) -> bytes:
    """Write the detections to ``path`` atomically; returns the text written."""
    text = coco_results_text(image_ids, boxes, scores, category_id)
    write_bytes_atomic(path, text)
    return text
