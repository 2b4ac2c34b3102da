"""Writing detections as COCO result JSON, the file `kaist-kit eval` and the leaderboard read.

One writer serves the simulated detectors, the detectors' metric and the submission packager:
compact JSON, one record per detection in the order given, each number written as the shortest
text that reads back as exactly that number.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from .files import atomic_path

# The category of a pedestrian in the leaderboard's results; the 2024 challenge's ground truth gives
# pedestrians category 0 instead, and its evaluator scores that category alone (kaist_kit.challenge).
PERSON_CATEGORY = 1
CHALLENGE2024_CATEGORY = 0


def number_text(value: float) -> str:
    """The shortest text that reads back as exactly this number (an integral value without '.0')."""
    if value.is_integer() and abs(value) < 2 ** 53:
        return str(int(value))
    return repr(value)


def coco_results_text(image_ids: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                      category_id: int = PERSON_CATEGORY) -> bytes:
    """``[{"image_id", "category_id", "bbox": [x, y, w, h], "score"}, ...]`` as UTF-8 bytes."""
    return b"".join(coco_results_chunks(image_ids, boxes, scores, category_id))


def coco_results_chunks(image_ids: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                        category_id: int = PERSON_CATEGORY, records: int = 50_000) -> Iterator[bytes]:
    """`coco_results_text` in pieces of ``records`` detections, which make it joined: no more than a
    piece of the text is held as Python strings."""
    image_ids = np.asarray(image_ids)
    values = np.column_stack([np.asarray(boxes, np.float64).reshape(-1, 4), np.asarray(scores, np.float64)])
    head = f',"category_id":{int(category_id)},"bbox":['
    for start in range(0, max(len(values), 1), records):
        texts = iter(_number_texts(values[start:start + records].ravel()))
        parts = [f'{{"image_id":{i}{head}{x},{y},{w},{h}],"score":{s}}}'
                 for i, x, y, w, h, s in zip(image_ids[start:start + records].tolist(), *[texts] * 5)]
        yield (("[" if start == 0 else ",") + ",".join(parts) + ("]" if start + records >= len(values) else "")
               ).encode()


def _number_texts(values: np.ndarray) -> list[str]:
    """`number_text` of each value."""
    integral = (values == np.floor(values)) & (np.abs(values) < 2 ** 53)
    texts = np.empty(len(values), object)
    texts[integral] = list(map(str, values[integral].astype(np.int64).tolist()))
    texts[~integral] = list(map(repr, values[~integral].tolist()))
    return texts.tolist()


def write_coco_results(path: str | os.PathLike, image_ids: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                       category_id: int = PERSON_CATEGORY) -> bytes:
    """Write the detections to ``path`` atomically; returns the text written."""
    text = coco_results_text(image_ids, boxes, scores, category_id)
    with atomic_path(path) as tmp:
        tmp.write_bytes(text)
    return text
