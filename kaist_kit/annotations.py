"""Multi-class ground truth and detections for the other benchmarks, in COCO's terms.

`Annotations` holds a benchmark's images (ids as their files write them: integers or strings) and
their boxes of every class; `BoxDetections` a method's detections mapped onto those images and
classes. Both are read from COCO JSON here (the conversions in circulation included: string image
ids, a ``scene`` field, "bike" for bicycle) and from each benchmark's native files in
`kaist_kit.benchmark_readers`. `as_ground_truth` hands a class to the KAIST evaluator (its matching
and log-average miss rate) with the benchmark's frame size and ignore rules.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .benchmarks import Benchmark, get_benchmark
from .detections import BoxDetections, ReadOptions, box_detections_from_records
from .detections import load_box_detections as read_box_detections
from .errors import InputError, quantity
from .files import decode_text, json_line, parse_json, read_bytes
from .idrules import coco_loaded, id_notes

ImageId = int | str


@dataclass(frozen=True)
class ClassInfo:
    """A class of a ground truth: the id its files use, and its name (the benchmark's, where known)."""

    id: int
    name: str
    written: str = ""  # the name the file wrote, where the kit reads it as another ('bike')


@dataclass
class Annotations:
    """Images (in the file's order) and their boxes of every class (in the file's order)."""

    image_ids: list[ImageId]
    image_names: list[str]  # frame names, '' where unknown
    image_sizes: np.ndarray  # (I, 2) width, height; nan where unknown
    image_scenes: list[str]  # the split an image belongs to besides its own ('day', 'overcast', ...), or ''
    classes: list[ClassInfo]  # sorted by id
    ann_image: np.ndarray  # (N,) index into the images
    ann_class: np.ndarray  # (N,) index into classes
    ann_ids: np.ndarray  # (N,) int64
    boxes: np.ndarray  # (N, 4) float64 x, y, w, h
    areas: np.ndarray  # (N,) float64: the file's area, else w x h
    iscrowd: np.ndarray  # (N,) bool
    ignore: np.ndarray  # (N,) bool: an ignore region (the file's flag or an ignore label)
    labels: list[str]  # the label as written
    benchmark: Benchmark | None = None
    path: str | None = None
    notes: list[str] = field(default_factory=list)  # what the reader dropped or renamed, said once
    box_origin: str = ""  # CVC-14: whether a line's x, y was read as the box's 'centre' or its 'corner'
    # Where ids repeat: the box pycocotools evaluates in place of each (`kaist_kit.idrules.coco_loaded`).
    coco_loads: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.index_of_id = {image_id: k for k, image_id in enumerate(self.image_ids)}

    @property
    def n_images(self) -> int:
        return len(self.image_ids)

    def class_index(self, name_or_id: str | int) -> int:
        """The index of a class given by its id or name (the benchmark's aliases included)."""
        for k, info in enumerate(self.classes):
            if isinstance(name_or_id, int) and not isinstance(name_or_id, bool):
                if info.id == name_or_id:
                    return k
            elif str(name_or_id).lower() in (info.name.lower(), info.written.lower()):
                return k
        if self.benchmark is not None and not isinstance(name_or_id, int):
            try:
                return self.class_index(self.benchmark.category(name_or_id).name)
            except KeyError:
                pass
        raise ValueError(
            f"no class {name_or_id!r} in the ground truth; it has {', '.join(c.name for c in self.classes)}"
        )

    def split_mask(self, split: str | Sequence | np.ndarray = "all") -> np.ndarray:
        """(I,) bool: 'all', a scene or period of the images ('day', 'night', 'overcast', ...), a list of
        image ids or names, or a mask."""
        if isinstance(split, np.ndarray) and split.dtype == bool:
            if split.shape != (self.n_images,):
                raise ValueError(f"an image mask must have {self.n_images} entries, not {split.shape}")
            return split
        if isinstance(split, str):
            if split in ("all", "test", ""):
                return np.ones(self.n_images, bool)
            mask = np.array([scene == split for scene in self.image_scenes], bool)
            if not mask.any():
                known = sorted({s for s in self.image_scenes if s})
                raise InputError(
                    f"no image of the ground truth is in the split {split!r}"
                    + (f"; its splits are all, {', '.join(known)}" if known else "; it names none"),
                    self.path,
                )
            return mask
        by_name = {name: k for k, name in enumerate(self.image_names) if name}
        mask = np.zeros(self.n_images, bool)
        for item in split:
            k = self.index_of_id.get(item, by_name.get(str(item)))
            if k is None:
                raise InputError(f"image {item!r} is not in the ground truth", self.path)
            mask[k] = True
        return mask

    def subset(self, images: np.ndarray) -> Annotations:
        """The images of a mask, with their boxes (for a split read as a ground truth of its own)."""
        keep = np.flatnonzero(images)
        new_index = np.full(self.n_images, -1, np.int64)
        new_index[keep] = np.arange(len(keep))
        boxes = np.flatnonzero(images[self.ann_image])
        loads = None
        if self.coco_loads is not None:  # a box loaded in place of another keeps doing so, if it is kept
            new_box = np.full(len(self.ann_ids), -1, np.int64)
            new_box[boxes] = np.arange(len(boxes))
            loads = np.where(self.coco_loads[boxes] >= 0, new_box[self.coco_loads[boxes]], -1)
        return Annotations(
            [self.image_ids[k] for k in keep],
            [self.image_names[k] for k in keep],
            self.image_sizes[keep],
            [self.image_scenes[k] for k in keep],
            list(self.classes),
            new_index[self.ann_image[boxes]],
            self.ann_class[boxes],
            self.ann_ids[boxes],
            self.boxes[boxes],
            self.areas[boxes],
            self.iscrowd[boxes],
            self.ignore[boxes],
            [self.labels[k] for k in boxes],
            self.benchmark,
            self.path,
            list(self.notes),
            self.box_origin,
            loads,
        )

    def counts(self) -> dict[str, int]:
        """Boxes per class name."""
        return {info.name: int(np.sum(self.ann_class == k)) for k, info in enumerate(self.classes)}

    def describe(self) -> str:
        name = os.path.basename(self.path) if self.path else "ground truth"
        what = f" ({self.benchmark.title})" if self.benchmark else ""
        return f"{name}{what}: {quantity(self.n_images, 'image')}, {quantity(len(self.ann_ids), 'box', 'boxes')}"


# ------------------------------------------------------------------------------------------------
# COCO ground truth


def load_annotations(path: str | os.PathLike, benchmark: Benchmark | str | None = None) -> Annotations:
    """A COCO ground-truth file (see `annotations_from_coco`)."""
    raw = read_bytes(path)
    text = decode_text(raw, path)
    return annotations_from_coco(parse_json(text, path), benchmark, path, text)


def annotations_from_coco(
    data: object,
    benchmark: Benchmark | str | None = None,
    path: str | os.PathLike | None = None,
    text: str | None = None,
) -> Annotations:
    """Parsed COCO ground truth, every field it uses checked.

    Image ids may be integers or strings (not both); each image may carry a ``scene`` (the
    benchmark's code, e.g. 1 day and 2 night for FLIR-aligned) or a ``period``. Class names are read
    as the benchmark's ('bike' as bicycle, said in a note). A box's ``area`` is the file's (COCO's
    evaluator reads it for the area ranges), else width x height; ``iscrowd`` marks a crowd region;
    ``ignore`` is kept for the miss rate (COCO's evaluator disregards it, and so does `coco_evaluate`).
    """
    bench = get_benchmark(benchmark) if benchmark is not None else None

    def fail(message: str, *keys: str | int) -> InputError:
        return InputError(message, path, json_line(text, *keys) if text is not None else None)

    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise fail("not a COCO ground-truth file: expected an object with an 'images' list")
    if not isinstance(data.get("annotations", []), list):
        raise fail("'annotations' must be a list", "annotations")
    if not isinstance(data.get("categories"), list) or not data["categories"]:
        raise fail("a COCO ground truth needs a non-empty 'categories' list (the classes it scores)")
    notes: list[str] = []
    classes = _classes(data["categories"], bench, fail, notes)
    class_of_id = {info.id: k for k, info in enumerate(classes)}

    ids, names, sizes, scenes = [], [], [], []
    for k, image in enumerate(data["images"]):
        if not isinstance(image, dict) or not _is_id(image.get("id")):
            raise fail("image without an 'id' (an integer or a string)", "images", k)
        ids.append(image["id"])
        written = str(image.get("file_name") or image.get("im_name") or image["id"])
        names.append((bench.frame(written) if bench else None) or written)
        sizes.append((_size(image.get("width")), _size(image.get("height"))))
        scenes.append(_scene(image, bench, k, fail))
    kinds = {type(i) for i in ids}
    if len(kinds) > 1:
        raise fail("image ids mix integers and strings; COCO's evaluator would then match nothing")
    if len(set(ids)) != len(ids):
        seen = set()
        dup = next(i for i in ids if i in seen or seen.add(i))
        raise fail(f"image id {dup!r} appears twice", "images", ids.index(dup))
    index_of_id = {image_id: k for k, image_id in enumerate(ids)}

    anns = data.get("annotations", [])
    n = len(anns)
    ann_image = np.empty(n, np.int64)
    ann_class = np.empty(n, np.int64)
    ann_ids = np.empty(n, np.int64)
    boxes = np.empty((n, 4))
    areas = np.empty(n)
    crowd = np.empty(n, bool)
    ignore = np.empty(n, bool)
    labels = []
    keep = np.ones(n, bool)
    unlisted, computed_area, assigned_id = 0, 0, 0
    id_keys: list = []  # each box's id as pycocotools indexes it (a box without one: a key of its own)
    for k, ann in enumerate(anns):
        if not isinstance(ann, dict):
            raise fail("annotation is not an object", "annotations", k)
        id_keys.append(ann["id"] if isinstance(ann.get("id"), (int, float, str)) else object())
        if ann.get("image_id") not in index_of_id or not _is_id(ann.get("image_id")):
            raise fail(
                f"annotation for image_id {ann.get('image_id')!r}, which is not among the images", "annotations", k
            )
        category = ann.get("category_id")
        if not _is_int(category):
            raise fail(f"annotation with category_id {category!r}, not an integer", "annotations", k)
        if category not in class_of_id:
            keep[k] = False  # COCO's evaluator leaves boxes of unlisted classes out; so does the kit
            unlisted += 1
            continue
        box = ann.get("bbox")
        if not isinstance(box, list) or len(box) != 4 or not all(_is_number(v) for v in box):
            raise fail("annotation without a bbox of four numbers", "annotations", k)
        x, y, w, h = (float(v) for v in box)
        if not all(math.isfinite(v) for v in (x, y, w, h)):
            raise fail("annotation with a non-finite number", "annotations", k)
        if w < 0 or h < 0:
            raise fail(f"annotation with a negative size (w={w:g}, h={h:g})", "annotations", k)
        area = ann.get("area")
        if area is None:
            area, computed_area = w * h, computed_area + 1
            if not math.isfinite(area):
                raise fail(f"annotation whose width x height ({w:g} x {h:g}) is beyond any number", "annotations", k)
        elif not _is_number(area) or not math.isfinite(float(area)):
            raise fail(f"annotation with area {area!r}, not a finite number", "annotations", k)
        flags = [ann.get("iscrowd", 0), ann.get("ignore", 0)]
        if not all(f in (0, 1) and not isinstance(f, float) for f in flags):
            raise fail("annotation with iscrowd or ignore other than 0 or 1", "annotations", k)
        ann_id = ann.get("id")
        if ann_id is None:
            ann_id, assigned_id = k + 1, assigned_id + 1
        elif not _is_int(ann_id):
            raise fail(f"annotation with id {ann_id!r}, not an integer", "annotations", k)
        ann_image[k], ann_class[k], ann_ids[k] = index_of_id[ann["image_id"]], class_of_id[category], ann_id
        boxes[k], areas[k], crowd[k], ignore[k] = (x, y, w, h), float(area), bool(flags[0]), bool(flags[1])
        labels.append(str(ann.get("label") or classes[class_of_id[category]].name))
    if unlisted:
        notes.append(
            f"{quantity(unlisted, 'box', 'boxes')} of classes not in 'categories' left out, as COCO's "
            "evaluator leaves them out"
        )
    if computed_area:
        notes.append(f"{quantity(computed_area, 'box', 'boxes')} without an 'area': width x height taken")
    if assigned_id:
        notes.append(f"{quantity(assigned_id, 'box', 'boxes')} without an 'id': numbered by position")
    if crowd[keep].any() and bench is not None and bench.name != "kaist":
        notes.append(
            f"{quantity(int(crowd[keep].sum()), 'crowd box', 'crowd boxes')} (iscrowd 1): matched as "
            "COCO matches crowd regions"
        )
    notes += id_notes(id_keys)
    return Annotations(
        ids,
        names,
        np.array(sizes, np.float64).reshape(-1, 2),
        scenes,
        classes,
        ann_image[keep],
        ann_class[keep],
        ann_ids[keep],
        boxes[keep],
        areas[keep],
        crowd[keep],
        ignore[keep],
        labels,
        bench,
        None if path is None else str(path),
        notes,
        coco_loads=coco_loaded(id_keys, keep),
    )


def _classes(categories: list, bench: Benchmark | None, fail, notes: list[str]) -> list[ClassInfo]:
    classes = []
    for k, category in enumerate(categories):
        if not isinstance(category, dict) or not _is_int(category.get("id")):
            raise fail("category without an integer 'id'", "categories", k)
        written = str(category.get("name", ""))
        name = written
        if bench is not None:
            try:
                name = bench.category(written).name
            except KeyError:
                pass
        if name != written:
            notes.append(f"class {written!r} (id {category['id']}) read as {bench.title}'s {name!r}")
        classes.append(ClassInfo(int(category["id"]), name, written if name != written else ""))
    ids = [c.id for c in classes]
    if len(set(ids)) != len(ids):
        raise fail("a category id appears twice", "categories")
    return sorted(classes, key=lambda c: c.id)


def _scene(image: dict, bench: Benchmark | None, k: int, fail) -> str:
    """The split named by an image's ``scene`` code (the benchmark's) or ``period``, else ''."""
    period = image.get("period")
    if isinstance(period, str) and period:
        return period
    code = image.get("scene")
    if code is None:
        return ""
    if not _is_int(code):
        raise fail(f"image with scene {code!r}, not an integer code", "images", k)
    if bench is not None and bench.scene_codes:
        return bench.scene_codes.get(code, "")
    return f"scene-{code}"


def annotations_to_coco(annotations: Annotations) -> dict:
    """The COCO ground truth of ``annotations`` (ids and class ids as read; names the benchmark's)."""
    images = []
    codes = {name: code for code, name in (annotations.benchmark.scene_codes if annotations.benchmark else {}).items()}
    for k, image_id in enumerate(annotations.image_ids):
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
                "image_id": annotations.image_ids[annotations.ann_image[k]],
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
    path: str | os.PathLike, annotations: Annotations, options: ReadOptions | None = None
) -> BoxDetections:
    """A result file of any class on ``annotations``' images (`kaist_kit.detections.load_box_detections`)."""
    return read_box_detections(path, annotations, options)


def box_detections_from_coco(
    records: object, annotations: Annotations, path: str | os.PathLike | None = None, text: str | None = None
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


def as_ground_truth(
    annotations: Annotations,
    classes: Iterable[str | int] = ("person",),
    frame_size: tuple[int, int] | None = None,
    ignore_labels: Iterable[str] = (),
):
    """A `kaist_kit.groundtruth.GroundTruth` of the boxes of ``classes`` (other classes' boxes left out),
    for the log-average miss rate: image ids are positions (0, 1, ...) in the images' order, periods
    'day' / 'night' where the images say, heights the boxes', occlusion none. A box is an ignore region
    when the file says so, it is a crowd region, or its label is one of ``ignore_labels``. The border
    rule applies to ``frame_size`` when given, else to each image's size (else the benchmark's)."""
    from .groundtruth import GroundTruth

    wanted = np.zeros(len(annotations.classes), bool)
    for name in classes:
        wanted[annotations.class_index(name)] = True
    keep = np.flatnonzero(wanted[annotations.ann_class])
    sizes = annotations.image_sizes.copy()
    default = frame_size or (annotations.benchmark.image_size if annotations.benchmark else None)
    if frame_size is not None:
        sizes[:] = frame_size
    elif default is not None:
        unknown = np.isnan(sizes).any(axis=1)
        sizes[unknown] = default
    if np.isnan(sizes).any():
        raise InputError("some images have no size, which the border rule of the miss rate needs", annotations.path)
    ignored_labels = set(ignore_labels)
    ignore = (
        annotations.ignore[keep]
        | annotations.iscrowd[keep]
        | np.array([annotations.labels[k] in ignored_labels for k in keep], bool)
    )
    periods = [scene if scene in ("day", "night") else "" for scene in annotations.image_scenes]
    return GroundTruth(
        image_ids=np.arange(annotations.n_images, dtype=np.int64),
        image_names=[name or str(image_id) for name, image_id in zip(annotations.image_names, annotations.image_ids)],
        image_periods=periods,
        image_sizes=sizes,
        ann_image=annotations.ann_image[keep],
        ann_ids=annotations.ann_ids[keep],
        boxes=annotations.boxes[keep],
        heights=annotations.boxes[keep, 3].copy(),
        occlusion=np.zeros(len(keep), np.int64),
        ignore=ignore,
        labels=[annotations.labels[k] for k in keep],
        path=annotations.path,
    )


def as_detections(detections: BoxDetections, annotations: Annotations, classes: Iterable[str | int] = ("person",)):
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
