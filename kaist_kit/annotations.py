"""A ground truth of any benchmark written back as COCO JSON, and detections of any class on it."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable

import numpy as np

from .data.groundtruth import GroundTruth
from .detections import BoxDetections, ReadOptions, box_detections_from_records
from .detections import load_box_detections as read_box_detections
from .errors import InputError
from .files import json_line


def annotations_to_coco(annotations: GroundTruth) -> dict:
    """The COCO ground truth of ``annotations`` (ids and class ids as read; names the benchmark's)."""
    images = []
    codes = {name: code for code, name in (annotations.benchmark.scene_codes if annotations.benchmark else {}).items()}
    ids = annotations.image_ids.tolist()
    for k, image_id in enumerate(ids):
        record = {"id": image_id, "file_name": annotations.image_names[k]}
        width, height = annotations.image_sizes[k]
        if not (math.isnan(width) or math.isnan(height)):
            record.update(width=int(width), height=int(height))
        scene = annotations.image_scenes[k]
        if scene in ("day", "night") or (scene and scene not in codes):
            record["period"] = scene  # read back as the image's split, as `scene` codes are
        elif scene:
            record["scene"] = codes[scene]  # the benchmark's code, as its conversions write it
        images.append(record)
    anns = []
    for k in range(len(annotations.ann_ids)):
        x, y, w, h = (_plain(v) for v in annotations.boxes[k])
        anns.append(
            {
                "id": int(annotations.ann_ids[k]),
                "image_id": ids[annotations.ann_image[k]],
                "category_id": annotations.classes[annotations.ann_class[k]].id,
                "bbox": [x, y, w, h],
                "area": _plain(annotations.areas[k]),
                "iscrowd": int(annotations.iscrowd[k]),
                "ignore": int(annotations.ignore[k]),
                "label": annotations.labels[k],
            }
        )
    categories = [{"id": c.id, "name": c.name} for c in annotations.classes]
    return {"images": images, "annotations": anns, "categories": categories}


# ------------------------------------------------------------------------------------------------
# Detections


def load_box_detections(
    path: str | os.PathLike, annotations: GroundTruth, options: ReadOptions | None = None
) -> BoxDetections:
    """A result file of any class on ``annotations``' images (`kaist_kit.detections.load_box_detections`)."""
    return read_box_detections(path, annotations, options)


def box_detections_from_coco(
    records: object, annotations: GroundTruth, path: str | os.PathLike | None = None, text: str | None = None
) -> BoxDetections:
    """COCO results ``[{image_id, category_id, bbox: [x, y, w, h], score}]`` as `json.loads` gives them
    (`kaist_kit.detections.box_detections_from_records`): the image id must be one of the ground
    truth's, written as it writes it (COCO's evaluator stops on any other); a class the ground truth
    does not list is kept and scores nothing, as in COCO's evaluator."""
    if not isinstance(records, list):
        raise InputError("not a COCO result file: expected a list of detections", path)
    where = "" if path is None else str(path)
    return box_detections_from_records(
        records, annotations, where, lambda k: json_line(text, k) if text is not None else None
    )


# ------------------------------------------------------------------------------------------------
# One class for the KAIST evaluator


def as_detections(detections: BoxDetections, annotations: GroundTruth, classes: Iterable[str | int] = ("person",)):
    """A `kaist_kit.detections.Detections` of the detections of ``classes``, on `as_ground_truth`'s images."""
    from .detections import Detections

    ids = {annotations.classes[annotations.class_index(name)].id for name in classes}
    keep = np.isin(detections.category, list(ids))
    return Detections(
        detections.image[keep], detections.boxes[keep], detections.scores[keep], detections.source, "coco"
    )


# ------------------------------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def _is_id(value: object) -> bool:
    return _is_int(value) or isinstance(value, str)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _size(value: object) -> float:
    return float(value) if _is_number(value) and float(value) > 0 else float("nan")


def _plain(value: float) -> int | float:
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value
