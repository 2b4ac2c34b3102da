"""The ground truth of any benchmark: one model, one COCO reader.

`GroundTruth` holds a benchmark's images, sorted by id, and their boxes of every class, grouped by
image (in file order within an image), with the per-box columns a benchmark declares: KAIST's
annotated height and occlusion, COCO's area and crowd flag. KAIST is a one-class benchmark with extra
columns; every verb, evaluator and check reads this one model.

`ground_truth_from_coco` reads a COCO ground truth by the rules of its benchmark (`TruthRules`: the
conventions of the leaderboard's file and of the other benchmarks' conversions). Every field used is
checked for its type and never coerced: ids and occlusion are integers, a bbox is a list of four finite
numbers (not an object, not text), widths and heights are non-negative, ignore and iscrowd flags are 0,
1, true or false, names and labels are text; a boolean is never a number. Anything else is an
`InputError` naming the file and the line. Each benchmark's native files are read into the same model
by its adapter.

Part of the scoring core that runs on the challenge platforms' workers: Python 3.7 and numpy.
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Union

import numpy as np

from ..datasets.kaist import KAIST
from ..datasets.registry import get_benchmark
from ..datasets.spec import Benchmark
from ..errors import InputError, quantity
from ..io.read import read_bytes
from ..io.text import decode_text, json_line, parse_json
from ..metrics.idrules import coco_loaded, id_notes

ImageId = Union[int, str]
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class ClassInfo:
    """A class of a ground truth: the id its files use, and its name (the benchmark's, where known)."""

    id: int
    name: str
    written: str = ""  # the name the file wrote, where the kit reads it as another ('bike')


@dataclass
class GroundTruth:
    """Images sorted by id, and their boxes of every class grouped by image, in file order."""

    image_ids: np.ndarray  # (I,) int64 ascending, or (I,) object: strings, ascending
    image_names: list[str]  # frame names; '' where unknown
    image_sizes: np.ndarray  # (I, 2) float64 width, height; nan where unknown
    # The split an image belongs to besides those its frame name gives: a period ('day', 'night') or a
    # scene of the benchmark ('overcast', ...); '' where none.
    image_scenes: list[str]
    classes: list[ClassInfo]  # sorted by id
    ann_image: np.ndarray  # (N,) index into the images, non-decreasing
    ann_class: np.ndarray  # (N,) index into classes
    ann_ids: np.ndarray  # (N,) int64
    boxes: np.ndarray  # (N, 4) float64 x, y, w, h
    heights: np.ndarray  # (N,) float64: the annotated height (KAIST's column), else the box's
    occlusion: np.ndarray  # (N,) int64 0 none, 1 partial, 2 heavy (KAIST's column), else 0
    areas: np.ndarray  # (N,) float64: the file's area (COCO's column), else w x h
    iscrowd: np.ndarray  # (N,) bool: a crowd region (COCO matches it as one)
    ignore: np.ndarray  # (N,) bool: an ignore region for the miss rate (flagged ignore, or a crowd region)
    labels: list[str]  # the label as written
    benchmark: Benchmark = KAIST
    path: str | None = None
    md5: str | None = None
    notes: list[str] = field(default_factory=list)  # what the reader dropped, renamed or assumed, said once
    box_origin: str = ""  # CVC-14: whether a line's x, y was read as the box's 'centre' or its 'corner'
    # Where annotation ids repeat: the box pycocotools evaluates in place of each, -1 for one it never
    # finds (`kaist_kit.metrics.idrules.coco_loaded`); None: each box is itself.
    coco_loads: np.ndarray | None = None
    # The class views made of it (`class_view`), by what they were asked for: every protocol and finding of
    # every result file scored in one command reads the same view. A view is not changed after it is made.
    _class_views: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.index_of_id = {_plain_id(i): k for k, i in enumerate(self.image_ids.tolist())}
        self.index_of_name = {name: k for k, name in enumerate(self.image_names) if name}
        self.ann_start = np.searchsorted(self.ann_image, np.arange(len(self.image_ids) + 1))

    @property
    def n_images(self) -> int:
        return len(self.image_ids)

    @property
    def string_ids(self) -> bool:
        return self.image_ids.dtype == object

    @property
    def image_periods(self) -> list[str]:
        """'day', 'night' or '' for each image."""
        return [scene if scene in ("day", "night") else "" for scene in self.image_scenes]

    @property
    def is_pinned_file(self) -> bool:
        """Whether this is the benchmark's pinned public ground truth (KAIST's: the leaderboard's)."""
        pinned = self.benchmark.ground_truth
        return pinned is not None and self.md5 == pinned.md5

    @property
    def is_leaderboard_file(self) -> bool:
        return self.benchmark.quiet and self.is_pinned_file

    def describe(self) -> str:
        name = Path(self.path).name if self.path else "ground truth"
        if self.benchmark.quiet:
            tag = f" ({self.benchmark.ground_truth.tag})" if self.is_pinned_file else ""
        else:
            tag = f" ({self.benchmark.title})"
        return f"{name}{tag}: {quantity(self.n_images, 'image')}, {quantity(len(self.ann_ids), 'box', 'boxes')}"

    # --- images -----------------------------------------------------------------------------------

    def split_mask(self, split: str | Sequence | np.ndarray = "all") -> np.ndarray:
        """(I,) bool: a named split, a list of image ids or names, or a mask itself.

        Named splits are the benchmark's: 'all'; a period or scene its images are tagged with ('day',
        'night', 'overcast', ...); and those its frame names give (KAIST: scenes, 'campus-night', sets)."""
        if isinstance(split, np.ndarray) and split.dtype == bool:
            if split.shape != (self.n_images,):
                raise ValueError(f"an image mask must have {self.n_images} entries, not {split.shape}")
            return split
        if isinstance(split, str):
            if self.benchmark.select is not None:
                try:
                    return self.benchmark.select(split, self.image_names, self.image_periods)
                except LookupError as exc:
                    raise InputError(str(exc.args[0]), self.path) from None
            return self._scene_mask(split)
        mask = np.zeros(self.n_images, bool)
        for item in split:
            mask[self.image_index(item)] = True
        return mask

    def _scene_mask(self, split: str) -> np.ndarray:
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

    def find_image(self, item: ImageId) -> int | None:
        """The index of an image given by its id (as written, or a whole number written as text) or its
        frame name; None when it is not here."""
        if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
            return self.index_of_id.get(int(item))
        text = str(item).strip()
        if text in self.index_of_id:
            return self.index_of_id[text]
        if text.lstrip("-").isdigit() and int(text) in self.index_of_id:
            return self.index_of_id[int(text)]
        name = self.benchmark.frame(text) or text
        return self.index_of_name.get(name)

    def image_index(self, item: ImageId) -> int:
        found = self.find_image(item)
        if found is None:
            what = f"image id {item}" if isinstance(item, (int, np.integer)) else f"image {item!r}"
            raise InputError(f"{what} is not in the ground truth", self.path)
        return found

    # --- classes ----------------------------------------------------------------------------------

    def class_index(self, name_or_id: str | int) -> int:
        """The index of a class given by its id or name (the benchmark's aliases included)."""
        for k, info in enumerate(self.classes):
            if isinstance(name_or_id, int) and not isinstance(name_or_id, bool):
                if info.id == name_or_id:
                    return k
            elif str(name_or_id).lower() in (info.name.lower(), info.written.lower()):
                return k
        if not isinstance(name_or_id, int):
            try:
                return self.class_index(self.benchmark.category(name_or_id).name)
            except KeyError:
                pass
        raise ValueError(
            f"no class {name_or_id!r} in the ground truth; it has {', '.join(c.name for c in self.classes)}"
        )

    def counts(self) -> dict[str, int]:
        """Boxes per class name."""
        return {info.name: int(np.sum(self.ann_class == k)) for k, info in enumerate(self.classes)}

    # --- views ------------------------------------------------------------------------------------

    def boxes_where(self, keep: np.ndarray, **columns) -> GroundTruth:
        """The same images with the boxes of ``keep`` (a mask or indices) alone, their columns replaced
        by any given (each an array over the kept boxes)."""
        keep = np.flatnonzero(keep) if keep.dtype == bool else keep
        taken = {
            name: getattr(self, name)[keep]
            for name in ("ann_image", "ann_class", "ann_ids", "boxes", "heights", "occlusion", "areas", "iscrowd")
        }
        taken.update(ignore=self.ignore[keep], labels=[self.labels[k] for k in keep])
        if self.coco_loads is not None:  # a box loaded in place of another keeps doing so, if it is kept
            new_box = np.full(len(self.ann_ids), -1, np.int64)
            new_box[keep] = np.arange(len(keep))
            loads = self.coco_loads[keep]
            taken["coco_loads"] = np.where(loads >= 0, new_box[np.maximum(loads, 0)], -1)
        taken.update(columns)
        return replace(self, **taken, notes=list(self.notes))

    def class_view(
        self, klass: str | int = "person", frame_size: tuple[int, int] | None = None, ignore_labels=None
    ) -> GroundTruth:
        """The boxes of one class, as the miss rate reads them: a box is an ignore region when the file
        says so, it is a crowd region, or its label is one of ``ignore_labels`` (default: the
        benchmark's). The border rule applies to ``frame_size`` when given, else to each image's size
        (else the benchmark's frame)."""
        index = self.class_index(klass)
        labels = frozenset(self.benchmark.ignore_labels if ignore_labels is None else ignore_labels)
        key = (index, None if frame_size is None else tuple(frame_size), labels)
        if key not in self._class_views:
            self._class_views[key] = self._class_view(index, frame_size, labels)
        return self._class_views[key]

    def _class_view(self, index: int, frame_size: tuple[int, int] | None, labels: frozenset) -> GroundTruth:
        keep = np.flatnonzero(self.ann_class == index)
        ignore = self.ignore[keep] | np.array([self.labels[k] in labels for k in keep], bool)
        sizes = self.image_sizes.copy()
        if frame_size is not None:
            sizes[:] = frame_size
        elif self.benchmark.image_size is not None:
            sizes[np.isnan(sizes).any(axis=1)] = self.benchmark.image_size
        if np.isnan(sizes).any():
            raise InputError("some images have no size, which the border rule of the miss rate needs", self.path)
        view = self.boxes_where(keep, ignore=ignore)
        view.image_sizes = sizes
        return view

    def subset(self, images: np.ndarray) -> GroundTruth:
        """The images of a mask, with their boxes (for a split read as a ground truth of its own)."""
        keep = np.flatnonzero(images)
        new_index = np.full(self.n_images, -1, np.int64)
        new_index[keep] = np.arange(len(keep))
        boxes = np.flatnonzero(images[self.ann_image])
        view = self.boxes_where(boxes, ann_image=new_index[self.ann_image[boxes]])
        view.image_ids = self.image_ids[keep]
        view.image_names = [self.image_names[k] for k in keep]
        view.image_sizes = self.image_sizes[keep]
        view.image_scenes = [self.image_scenes[k] for k in keep]
        view.__post_init__()
        return view


def _plain_id(value) -> ImageId:
    return value if isinstance(value, str) else int(value)


# --- building the model ----------------------------------------------------------------------------


@dataclass
class Box:
    """One box as a reader finds it, before the ground truth is assembled."""

    image: int  # index into the images as read
    klass: int  # index into the classes
    box: tuple[float, float, float, float]
    id: int
    label: str
    ignore: bool = False
    iscrowd: bool = False
    height: float | None = None  # None: the box's
    occlusion: int = 0
    area: float | None = None  # None: w x h


def assemble(
    benchmark: Benchmark,
    image_ids: Sequence[ImageId],
    image_names: Sequence[str],
    image_sizes,
    image_scenes: Sequence[str],
    classes: Sequence[ClassInfo],
    boxes: Sequence[Box],
    path: str | os.PathLike | None = None,
    notes: Sequence[str] = (),
    coco_loads: np.ndarray | None = None,
) -> GroundTruth:
    """The ground truth of images and boxes in the order a reader found them: images sorted by id, boxes
    grouped by image in that order (both stable); ``coco_loads``: indices into ``boxes`` as given."""
    n = len(image_ids)
    strings = n > 0 and isinstance(image_ids[0], str)
    ids = np.array(image_ids, object) if strings else np.array(image_ids, np.int64).reshape(-1)
    order = np.array(sorted(range(n), key=ids.__getitem__), np.int64)
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    image = np.array([b.image for b in boxes], np.int64)
    by_image = np.argsort(rank[image], kind="stable") if len(boxes) else np.zeros(0, np.int64)
    chosen = [boxes[k] for k in by_image]
    array = np.array([b.box for b in chosen], np.float64).reshape(-1, 4)
    return GroundTruth(
        image_ids=ids[order],
        image_names=[image_names[k] for k in order],
        image_sizes=np.array(image_sizes, np.float64).reshape(-1, 2)[order],
        image_scenes=[image_scenes[k] for k in order],
        classes=list(classes),
        ann_image=rank[image[by_image]],
        ann_class=np.array([b.klass for b in chosen], np.int64),
        ann_ids=np.array([b.id for b in chosen], np.int64),
        boxes=array,
        heights=np.array([array[k, 3] if b.height is None else b.height for k, b in enumerate(chosen)], np.float64),
        occlusion=np.array([b.occlusion for b in chosen], np.int64),
        areas=np.array(
            [array[k, 2] * array[k, 3] if b.area is None else b.area for k, b in enumerate(chosen)], np.float64
        ),
        iscrowd=np.array([b.iscrowd for b in chosen], bool),
        ignore=np.array([b.ignore or b.iscrowd for b in chosen], bool),
        labels=[b.label for b in chosen],
        benchmark=benchmark,
        path=None if path is None else str(path),
        notes=list(notes),
        coco_loads=None if coco_loads is None else _moved(coco_loads, by_image),
    )


def _moved(loads: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Indices into boxes (-1: none), once the boxes are taken in ``order``."""
    position = np.empty(len(order), np.int64)
    position[order] = np.arange(len(order))
    loads = loads[order]
    return np.where(loads >= 0, position[np.maximum(loads, 0)], -1)


# --- writing it as COCO JSON -----------------------------------------------------------------------


def ground_truth_to_coco(annotations: GroundTruth) -> dict:
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


def _plain(value: float) -> int | float:
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


# --- reading a COCO ground truth -------------------------------------------------------------------


def read_ground_truth(path: str | os.PathLike, benchmark: Benchmark | str | None = None) -> GroundTruth:
    """The COCO ground truth in ``path``, read by the benchmark's rules (default KAIST's)."""
    return ground_truth_from_bytes(read_bytes(path), path, benchmark=benchmark)


def ground_truth_from_bytes(
    raw: bytes,
    path: str | os.PathLike,
    data: object = None,
    text: str | None = None,
    md5: str | None = None,
    *,
    benchmark: Benchmark | str | None = None,
) -> GroundTruth:
    """The ground truth of a file's bytes; ``data`` and ``text``: the file already parsed, not parsed
    again; ``md5``: the bytes' MD5, already computed."""
    if data is None:
        text = decode_text(raw, path)
        data = parse_json(text, path)
    gt = ground_truth_from_coco(data, path, text, benchmark=benchmark)
    gt.md5 = md5 or hashlib.md5(raw).hexdigest()
    return gt


def ground_truth_from_coco(
    data: object,
    path: str | os.PathLike | None = None,
    text: str | None = None,
    *,
    benchmark: Benchmark | str | None = None,
) -> GroundTruth:
    """Parsed COCO ground truth, read by the benchmark's `TruthRules` (see the module's docstring).

    An image's name is its ``im_name`` or ``file_name`` (the benchmark's frame name found in it), its
    split tag its ``period``, or its ``scene`` code (the benchmark's). A box's class is its
    ``category_id`` (read as the benchmark's class: 'bike' is FLIR's bicycle, said in a note)."""
    bench = get_benchmark(benchmark) if benchmark is not None else KAIST
    rules = bench.truth_rules

    def fail(message: str, *keys: str | int) -> InputError:
        return InputError(message, path, json_line(text, *keys) if text is not None else None)

    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise fail("not a COCO ground-truth file: expected an object with an 'images' list")
    annotations = data.get("annotations", [])
    if not isinstance(annotations, list):
        raise fail("'annotations' must be a list", "annotations")
    notes: list[str] = []
    classes, class_of_id, written_names = _classes(data, bench, fail, notes)
    ids, names, sizes, scenes = _images(data["images"], bench, fail)
    index_of_id = {image_id: k for k, image_id in enumerate(ids)}

    boxes, unlisted, computed_area, assigned_id = [], 0, 0, 0
    id_keys: list = []  # each box's id as pycocotools indexes it (a box without one: a key of its own)
    kept = np.ones(len(annotations), bool)
    for k, ann in enumerate(annotations):
        problem = _annotation_problem(ann, index_of_id, rules)
        if problem is not None:
            raise fail(problem, "annotations", k)
        id_keys.append(ann["id"] if "id" in ann else object())
        if rules.one_class:
            klass = 0
        elif ann["category_id"] not in class_of_id:
            unlisted += 1  # COCO's evaluator leaves boxes of unlisted classes out; so does the kit
            kept[k] = False
            continue
        else:
            klass = class_of_id[ann["category_id"]]
        x, y, w, h = (float(v) for v in ann["bbox"])
        flags = bool(ann.get("ignore", 0)), bool(ann.get("iscrowd", 0))
        if "area" in rules.columns and "area" not in ann:
            computed_area += 1
            if not math.isfinite(w * h):
                raise fail(f"annotation whose width x height ({w:g} x {h:g}) is beyond any number", "annotations", k)
        if "id" not in ann:
            assigned_id += 1
        boxes.append(
            Box(
                image=index_of_id[ann["image_id"]],
                klass=klass,
                box=(x, y, w, h),
                id=ann.get("id", k + rules.first_id),
                label=_label(ann, classes[klass].name, written_names, rules, any(flags)),
                ignore=flags[0],
                iscrowd=flags[1],
                height=ann.get("height") if "height" in rules.columns else None,
                occlusion=ann.get("occlusion", 0) if "occlusion" in rules.columns else 0,
                area=float(ann["area"]) if "area" in rules.columns and "area" in ann else None,
            )
        )
    if rules.notes:
        notes += _reader_notes(unlisted, computed_area, assigned_id, sum(b.iscrowd for b in boxes))
    # What pycocotools makes of the ids: the leaderboard's evaluator (KAIST's rules) keeps its rules,
    # which the kit's miss rate says rather than follows; the kit's COCO AP follows them.
    notes += id_notes(id_keys, leaderboard=rules.one_class)
    loads = None if rules.one_class else coco_loaded(id_keys, kept)
    return assemble(bench, ids, names, sizes, scenes, classes, boxes, path, notes, loads)


def _classes(data: dict, bench: Benchmark, fail, notes: list[str]) -> tuple[list[ClassInfo], dict[int, int], dict]:
    """The classes the file lists, sorted by id, and the index of each id among them (by KAIST's rules,
    the benchmark's one class), and the name the file gives each category id."""
    rules = bench.truth_rules
    categories = data.get("categories", [])
    if rules.one_class and not isinstance(categories, list):
        raise fail("'categories' must be a list", "categories")
    if not rules.one_class and (not isinstance(categories, list) or not categories):
        raise fail("a COCO ground truth needs a non-empty 'categories' list (the classes it scores)")
    names = {}
    for k, category in enumerate(categories):
        if not isinstance(category, dict) or not _is_int(category.get("id")):
            raise fail("category without an integer 'id'", "categories", k)
        name = category.get("name", "")
        if not isinstance(name, str):
            raise fail(f"category name {_shown(name)} is not text", "categories", k)
        if category["id"] in names and not rules.one_class:
            raise fail("a category id appears twice", "categories", k)
        names[category["id"]] = name
    if rules.one_class:
        # KAIST's one class; the file's categories only name the labels of boxes written without one.
        only = bench.categories[0]
        return [ClassInfo(only.id, only.name)], {}, names
    classes = []
    for category_id, name in names.items():
        try:
            known = bench.category(name).name
        except KeyError:
            known = name
        if known != name:
            notes.append(f"class {name!r} (id {category_id}) read as {bench.title}'s {known!r}")
        classes.append(ClassInfo(category_id, known, name if known != name else ""))
    classes.sort(key=lambda c: c.id)
    return classes, {info.id: k for k, info in enumerate(classes)}, names


def _images(images: list, bench: Benchmark, fail) -> tuple[list, list[str], list, list[str]]:
    """Each image's id, frame name, size and split tag, checked; ids unique, names unique."""
    rules = bench.truth_rules
    ids, names, sizes, scenes = [], [], [], []
    for k, img in enumerate(images):
        if not isinstance(img, dict) or not (_is_int(img.get("id")) or _is_id_text(img.get("id"), rules)):
            wanted = "an integer 'id'" if rules.integer_ids else "an 'id' (an integer or a string)"
            raise fail(f"image without {wanted}", "images", k)
        if _is_int(img["id"]) and not _INT64_MIN <= img["id"] <= _INT64_MAX:
            raise fail(f"image id {img['id']} is beyond the 64-bit integers", "images", k)
        for key in ("im_name", "file_name", "period"):
            if img.get(key) is not None and not isinstance(img[key], str):
                raise fail(f"image '{key}' {_shown(img[key])} is not text", "images", k)
        written = img.get("im_name") or img.get("file_name") or ""
        name = bench.frame(written) or written
        ids.append(img["id"])
        names.append(name)
        sizes.append(_size(img, bench, fail, k))
        scenes.append(_scene(img, name, bench, fail, k))
    if len({type(i) for i in ids}) > 1:
        raise fail("image ids mix integers and strings; COCO's evaluator would then match nothing")
    if len(set(ids)) != len(ids):
        seen: set = set()
        dup = next(i for i in ids if i in seen or seen.add(i))
        raise fail(f"image id {dup!r} appears twice", "images", ids.index(dup))
    named = [name for name in names if name]
    if len(set(named)) != len(named):  # a frame named twice: which one a name means cannot be told
        seen = set()
        k = next(k for k, name in enumerate(names) if name and (name in seen or seen.add(name)))
        raise fail(f"image {names[k]!r} appears twice (ids {ids[names.index(names[k])]} and {ids[k]})", "images", k)
    return ids, names, sizes, scenes


def _size(img: dict, bench: Benchmark, fail, k: int) -> tuple[float, float]:
    """(width, height): the image's, else the benchmark's frame (else unknown, nan)."""
    default = bench.image_size or (math.nan, math.nan)
    size = []
    for key, fallback in zip(("width", "height"), default):
        value = img.get(key, fallback)
        if _is_number(value) and 0 < value <= sys.float_info.max:  # an integer beyond it is no float
            size.append(float(value))
        elif bench.truth_rules.sizes_checked:
            beyond = " a float can hold" if _is_number(value) and value > 0 else ""
            raise fail(f"image {key} {_shown(value)} is not a positive number{beyond}", "images", k)
        else:
            size.append(math.nan)
    return size[0], size[1]


def _scene(img: dict, name: str, bench: Benchmark, fail, k: int) -> str:
    """The split an image is tagged with: its ``period``, else its ``scene`` code (the benchmark's),
    else the period its frame name gives; '' where none."""
    period = img.get("period") or ""
    if bench.truth_rules.one_class:
        period = period or bench.period_of(name)
        if period not in ("day", "night", ""):
            raise fail(f"image period {period!r} is neither 'day' nor 'night'", "images", k)
        return period
    if period:
        return period
    code = img.get("scene")
    if code is None:
        return ""
    if not _is_int(code):
        raise fail(f"image with scene {_shown(code)}, not an integer code", "images", k)
    return bench.scene_codes.get(code, "") if bench.scene_codes else f"scene-{code}"


def _annotation_problem(ann: object, index_of_id: dict, rules) -> str | None:
    """What makes an annotation unusable, or None."""
    if not isinstance(ann, dict):
        return f"annotation {_shown(ann)} is not an object"
    for key in ("image_id", "bbox") if rules.one_class else ("image_id", "category_id", "bbox"):
        if key not in ann:
            return f"annotation without '{key}'"
    image_id, bbox = ann["image_id"], ann["bbox"]
    if not (_is_int(image_id) or _is_id_text(image_id, rules)):
        return f"annotation image_id {_shown(image_id)} is not an integer"
    if image_id not in index_of_id:
        return f"annotation for image_id {_shown(image_id)}, which is not among the images"
    if not isinstance(bbox, list) or len(bbox) != 4 or not all(map(_is_number, bbox)):
        return f"annotation bbox {_shown(bbox)} is not a list of four numbers [x, y, w, h]"
    if not all(map(math.isfinite, bbox)):
        return f"annotation bbox {_shown(bbox)} holds a non-finite number"
    if bbox[2] < 0 or bbox[3] < 0:
        return f"annotation with a negative size (w={bbox[2]:g}, h={bbox[3]:g})"
    for key in rules.columns:
        if key in ann:
            problem = _column_problem(key, ann[key])
            if problem:
                return f"annotation {key} {_shown(ann[key])}{problem}"
    for key in ("ignore", "iscrowd"):
        flag = ann.get(key, 0)
        if not (isinstance(flag, bool) or (_is_int(flag) and flag in (0, 1))):
            return f"annotation {key} flag {_shown(flag)} is not 0, 1, true or false"
    for key in ("id", "category_id"):
        if key in ann and not _is_int(ann[key]):
            return f"annotation {key} {_shown(ann[key])} is not an integer"
    if not _INT64_MIN <= ann.get("id", 0) <= _INT64_MAX:
        return f"annotation id {ann['id']} is beyond the 64-bit integers"
    if ann.get("label") is not None and not isinstance(ann["label"], str):
        return f"annotation label {_shown(ann['label'])} is not text"
    return None


def _column_problem(key: str, value: object) -> str:
    """What is wrong with a per-box column's value ('' when nothing is)."""
    if key == "occlusion":
        return "" if _is_int(value) and value in (0, 1, 2) else "; expected 0, 1 or 2"
    return "" if _is_number(value) and math.isfinite(value) else " is not a finite number"


def _label(ann: dict, class_name: str, written_names: dict, rules, ignored: bool) -> str:
    """The label as written; files without one give the class's name (by KAIST's rules, the name the
    file gives the box's category, and "ignore" for an ignored box filed under the one class, whose real
    label was lost)."""
    if ann.get("label"):
        return str(ann["label"])
    if not rules.one_class:
        return class_name
    name = str(written_names.get(ann.get("category_id"), class_name))
    return "ignore" if rules.ignore_label and ignored and name == class_name else name


def _reader_notes(unlisted: int, computed_area: int, assigned_id: int, crowd: int) -> list[str]:
    notes = []
    if unlisted:
        notes.append(
            f"{quantity(unlisted, 'box', 'boxes')} of classes not in 'categories' left out, as COCO's "
            "evaluator leaves them out"
        )
    if computed_area:
        notes.append(f"{quantity(computed_area, 'box', 'boxes')} without an 'area': width x height taken")
    if assigned_id:
        notes.append(f"{quantity(assigned_id, 'box', 'boxes')} without an 'id': numbered by position")
    if crowd:
        notes.append(
            f"{quantity(crowd, 'crowd box', 'crowd boxes')} (iscrowd 1): matched as COCO matches crowd regions"
        )
    return notes


def _shown(value: object) -> str:
    """A value as JSON writes it, cut short for a message."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_id_text(value: object, rules) -> bool:
    return isinstance(value, str) and not rules.integer_ids


def _is_int(value: object) -> bool:
    """An integer, and not a boolean (JSON's true is no 1). JSON's own types are told first: the
    check through the abstract classes (numpy's integers) takes a microsecond."""
    kind = type(value)
    return kind is int or (
        kind is not bool
        and kind is not float
        and kind is not str
        and isinstance(value, numbers.Integral)
        and not isinstance(value, np.bool_)
    )


def _is_number(value: object) -> bool:
    """A number, and not a boolean."""
    kind = type(value)
    return (
        kind is int
        or kind is float
        or (
            kind is not bool and kind is not str and isinstance(value, numbers.Real) and not isinstance(value, np.bool_)
        )
    )


# CVC-14 writes a box's x, y as its centre or its corner; its readers take either (`box_origin`).
ORIGINS = ("centre", "corner")


def switch_origin(annotations: GroundTruth) -> GroundTruth:
    """The same CVC-14 annotations read with the other origin (centre <-> top-left corner)."""
    origin = annotations.box_origin
    if origin not in ORIGINS:
        raise ValueError("these annotations were not read from CVC-14 files")
    boxes = annotations.boxes.copy()
    boxes[:, :2] += annotations.boxes[:, 2:] / 2 * (1 if origin == "centre" else -1)
    other = annotations.boxes_where(np.arange(len(boxes)), boxes=boxes)
    other.box_origin = ORIGINS[1 - ORIGINS.index(origin)]
    other.notes = [f"x, y read as the box's {other.box_origin}"] + [
        n for n in annotations.notes if not n.startswith("x, y read as")
    ]
    return other
