"""Writing detections as COCO result JSON, the file `kaist-kit eval` and the leaderboard read.

One writer serves the simulated detectors, the detectors' metric and the submission packager:
compact JSON, one record per detection in the order given, each number written as the shortest
text that reads back as exactly that number.
"""

from __future__ import annotations

import os

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
    num = number_text
    head = f',"category_id":{int(category_id)},"bbox":['
    parts = [f'{{"image_id":{i}{head}{num(x)},{num(y)},{num(w)},{num(h)}],"score":{num(s)}}}'
             for i, (x, y, w, h), s in zip(np.asarray(image_ids).tolist(), np.asarray(boxes, np.float64).tolist(),
                                           np.asarray(scores, np.float64).tolist())]
    return ("[" + ",".join(parts) + "]").encode()


def write_coco_results(path: str | os.PathLike, image_ids: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                       category_id: int = PERSON_CATEGORY) -> bytes:
    """Write the detections to ``path`` atomically; returns the text written."""
    text = coco_results_text(image_ids, boxes, scores, category_id)
    with atomic_path(path) as tmp:
        tmp.write_bytes(text)
    return text
