"""Ground truth for evaluation: the leaderboard's COCO-style JSON or the kit's converter output."""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .benchmarks import KAIST
from .download import DownloadFailed, Progress, download_verified
from .errors import InputError
from .files import decode_text, json_line, parse_json, read_bytes, write_bytes_atomic
from .frames import find_frame, period_of, scene_of, set_of
from .idrules import id_notes
from .settings import KAIST_FRAME_SIZE, parse_split

# The leaderboard's test-all-20 ground truth, identified by content as the leaderboard does: the
# KAIST spec's pinned file (published with the evaluation script of the MLPD repository, at a fixed
# commit). A mirror named by $KAIST_KIT_GT_URL must serve the same bytes: the checksum stays the pinned one.
_PINNED = KAIST.ground_truth
LEADERBOARD_GT_MD5 = _PINNED.md5
LEADERBOARD_GT_BYTES = _PINNED.size
GT_ENV = _PINNED.env
GT_FILENAME = _PINNED.filename
GT_URL = _PINNED.url
GT_URL_ENV = _PINNED.url_env
GT_ATTRIBUTION = _PINNED.attribution

Echo = Callable[[str], None]


class GroundTruthUnavailable(InputError):
    """The leaderboard's ground truth is not on this machine and cannot be had: offline, downloads
    forbidden, a source that does not serve the pinned file, or a cache that cannot be written.
    ``why`` says which; the message adds the other ways the verbs that score take the file."""

    def __init__(self, why: str):
        self.why = why
        super().__init__(f"{why}; pass --gt FILE, set {GT_ENV}=FILE, or place the file at {default_gt_path()}")

    def for_fetch(self, target: str | os.PathLike) -> InputError:
        """The same failure as `fetch` says it, which has no --gt: the ways to have the file there."""
        return InputError(
            f"{self.why}; try again with the network, set {GT_URL_ENV}=URL to a mirror serving the "
            f"same file, or copy the file to {target}"
        )


def default_gt_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "kaist-kit" / GT_FILENAME


def gt_url() -> str:
    return os.environ.get(GT_URL_ENV) or GT_URL


def find_gt(
    path: str | os.PathLike | None = None, *, echo: Echo | None = None, progress: Progress | None = None
) -> Path:
    """The ground-truth file to use: the given path, else `default_ground_truth`."""
    if path:
        return Path(path)
    return default_ground_truth(echo=echo, progress=progress)


def default_ground_truth(*, echo: Echo | None = None, progress: Progress | None = None) -> Path:
    """$KAIST_KIT_GT, else the leaderboard's ground truth in the cache, downloaded there on first use.

    A download is announced by one line to ``echo`` (what, from where, under which licence) and
    followed by ``progress(done, total)`` in bytes; see `fetch_gt`.
    """
    if os.environ.get(GT_ENV):
        return Path(os.environ[GT_ENV])
    cached = default_gt_path()
    if cached.is_file():
        return cached
    return fetch_gt(echo=echo, progress=progress)


def fetch_gt(
    to: str | os.PathLike | None = None, *, echo: Echo | None = None, progress: Progress | None = None
) -> Path:
    """Download the leaderboard's ground truth into the folder ``to`` (default: the cache of
    `default_gt_path`) unless the pinned file is there already, and return its path.

    The file is kept only once its size and MD5 are the pinned ones, and written atomically; on any
    failure nothing is written and `GroundTruthUnavailable` says why and how else to provide it.
    """
    target = default_gt_path() if to is None else Path(to) / GT_FILENAME
    if target.is_file():
        if _md5_of(target) == LEADERBOARD_GT_MD5:
            return target
        if echo is not None:
            echo(f"{target} is not the leaderboard's ground truth: replacing it")
    url = gt_url()

    def announce_then_report(done: int, total: int) -> None:
        # Announced once the source answers, so that without network the error is the only line.
        if done == 0 and echo is not None:
            echo(
                f"downloading the leaderboard's ground truth ({total / 1e6:.1f} MB) from {url} to {target}: "
                f"{GT_ATTRIBUTION}"
            )
        if progress is not None:
            progress(done, total)

    try:
        data = download_verified(url, LEADERBOARD_GT_BYTES, LEADERBOARD_GT_MD5, announce_then_report)
    except DownloadFailed as exc:
        raise GroundTruthUnavailable(f"cannot download the leaderboard's ground truth ({exc})") from None
    try:
        write_bytes_atomic(target, data)
    except InputError as exc:  # the writer's: the cache cannot be written
        raise GroundTruthUnavailable(f"cannot save the leaderboard's ground truth to {target} ({exc.reason})") from None
    return target


def _md5_of(path: Path) -> str | None:
    try:
        # Not an input of the command: fetch replaces it.
        return hashlib.md5(read_bytes(path, note=False)).hexdigest()
    except InputError:
        return None


def is_cached_gt(path: str | os.PathLike) -> bool:
    """Whether ``path`` is the cache of the leaderboard's ground truth (`default_gt_path`)."""
    return os.path.realpath(path) == os.path.realpath(default_gt_path())


def check_cached_gt(path: str | os.PathLike, data: bytes) -> None:
    """The cache must hold the pinned file, on every use: a changed or damaged cache is an
    `InputError` naming it and `kaist-kit fetch`, which downloads it again."""
    if len(data) == LEADERBOARD_GT_BYTES and hashlib.md5(data).hexdigest() == LEADERBOARD_GT_MD5:
        return
    md5 = hashlib.md5(data).hexdigest()
    raise InputError(
        f"the cached ground truth is not the leaderboard's ({len(data)} bytes, MD5 {md5}; expected "
        f"{LEADERBOARD_GT_BYTES} bytes, MD5 {LEADERBOARD_GT_MD5}): it was changed or damaged; run "
        "`kaist-kit fetch` to download it again",
        path,
    )


@dataclass
class GroundTruth:
    """Images sorted by id, and their annotations grouped by image in file order."""

    image_ids: np.ndarray  # (I,) int64, ascending
    image_names: list[str]
    image_periods: list[str]  # 'day', 'night' or ''
    image_sizes: np.ndarray  # (I, 2) width, height
    ann_image: np.ndarray  # (N,) index into images, non-decreasing
    ann_ids: np.ndarray  # (N,) int64
    boxes: np.ndarray  # (N, 4) float64 x, y, w, h
    heights: np.ndarray  # (N,) float64
    occlusion: np.ndarray  # (N,) int64
    ignore: np.ndarray  # (N,) bool: the annotation's own flag (a non-person label)
    labels: list[str]
    path: str | None = None
    md5: str | None = None
    index_of_id: dict[int, int] = field(default_factory=dict)
    index_of_name: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what the reader found: ids pycocotools mis-reads

    def __post_init__(self) -> None:
        self.index_of_id = {int(i): k for k, i in enumerate(self.image_ids)}
        self.index_of_name = {name: k for k, name in enumerate(self.image_names) if name}
        self.ann_start = np.searchsorted(self.ann_image, np.arange(len(self.image_ids) + 1))

    @property
    def n_images(self) -> int:
        return len(self.image_ids)

    @property
    def is_leaderboard_file(self) -> bool:
        return self.md5 == LEADERBOARD_GT_MD5

    def describe(self) -> str:
        name = Path(self.path).name if self.path else "ground truth"
        tag = " (the leaderboard's test-all-20)" if self.is_leaderboard_file else ""
        return f"{name}{tag}: {self.n_images} images, {len(self.ann_ids)} boxes"

    def split_mask(self, split: str | list | tuple | np.ndarray) -> np.ndarray:
        """Boolean mask over images for a named split, a list of image names or ids, or a mask itself.

        Named splits: 'all', 'day', 'night'; a scene ('campus', 'road', 'downtown'), alone or with a
        period ('campus-day'); a set ('set06'). Scenes and sets are read from the image names.
        """
        if isinstance(split, np.ndarray) and split.dtype == bool:
            if split.shape != (self.n_images,):
                raise ValueError(f"an image mask must have {self.n_images} entries, not {split.shape}")
            return split
        if isinstance(split, str):
            scene, period, set_number = parse_split(split)
            if not scene and set_number is None:
                return self._period_mask(period) if period else np.ones(self.n_images, bool)
            return self._scene_or_set_mask(split, scene, period, set_number)
        mask = np.zeros(self.n_images, bool)
        for item in split:
            mask[self.image_index(item)] = True
        return mask

    def _period_mask(self, split: str) -> np.ndarray:
        periods = np.array(self.image_periods)
        if not np.all(np.isin(periods, ["day", "night"])):
            raise InputError(
                f"cannot form the {split} split: some images are neither day nor night "
                "(no set number in im_name and no 'period' field)",
                self.path,
            )
        return periods == split

    def _scene_or_set_mask(self, split: str, scene: str, period: str, set_number: int | None) -> np.ndarray:
        sets = np.array([-1 if (n := set_of(name)) is None else n for name in self.image_names])
        if np.any(sets < 0):
            raise InputError(
                f"cannot form the {split} split: some images have no set number in their name (setXX/VYYY/IZZZZZ)",
                self.path,
            )
        if set_number is not None:
            mask = sets == set_number
        else:
            mask = np.array([scene_of(n) == scene for n in sets], bool)
            if period:
                mask &= self._period_mask(period)
        if not mask.any():
            raise InputError(f"the {split} split holds no image of this ground truth", self.path)
        return mask

    def image_index(self, item: int | str) -> int:
        if isinstance(item, (int, np.integer)):
            if int(item) not in self.index_of_id:
                raise InputError(f"image id {item} is not in the ground truth", self.path)
            return self.index_of_id[int(item)]
        key = str(item).strip().replace("_", "/")
        if key.isdigit() and int(key) in self.index_of_id:
            return self.index_of_id[int(key)]
        if key not in self.index_of_name:
            raise InputError(f"image {item!r} is not in the ground truth", self.path)
        return self.index_of_name[key]


def load_ground_truth(
    path: str | os.PathLike | None = None, *, echo: Echo | None = None, progress: Progress | None = None
) -> GroundTruth:
    """The ground truth in ``path``; without one, the default (`default_ground_truth`: $KAIST_KIT_GT,
    else the leaderboard's, downloaded on first use, which ``echo`` and ``progress`` report)."""
    if path is None:
        path = default_ground_truth(echo=echo, progress=progress)
    return ground_truth_from_bytes(read_bytes(path), path)


def ground_truth_from_bytes(
    raw: bytes, path: str | os.PathLike, data: object = None, text: str | None = None, md5: str | None = None
) -> GroundTruth:
    """The ground truth of a file's bytes (the cache checked against the pinned file); ``data`` and
    ``text``: the file already parsed, not parsed again; ``md5``: the bytes' MD5, already computed."""
    if is_cached_gt(path):
        check_cached_gt(path, raw)
    if data is None:
        text = decode_text(raw, path)
        data = parse_json(text, path)
    gt = ground_truth_from_coco(data, path, text)
    gt.md5 = md5 or hashlib.md5(raw).hexdigest()
    return gt


def ground_truth_from_coco(data: object, path: str | os.PathLike | None = None, text: str | None = None) -> GroundTruth:
    """Build a `GroundTruth` from parsed COCO-style data.

    Every field used is checked for its type and never coerced: ids and occlusion are integers, a
    bbox is a list of four finite numbers (not an object, not text), widths and heights are positive
    numbers, ignore and iscrowd flags are 0, 1, true or false, names and labels are text; a boolean is
    never a number. Anything else is an `InputError` naming the file and the line (given ``text``)."""

    def fail(message: str, *keys: str | int) -> InputError:
        line = json_line(text, *keys) if text is not None else None
        return InputError(message, path, line)

    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise fail("not a COCO ground-truth file: expected an object with an 'images' list")
    annotations = data.get("annotations", [])
    if not isinstance(annotations, list):
        raise fail("'annotations' must be a list", "annotations")
    categories = _categories(data.get("categories", []), fail)

    ids, names, periods, sizes = [], [], [], []
    for k, img in enumerate(data["images"]):
        if not isinstance(img, dict) or not _is_int(img.get("id")):
            raise fail("image without an integer 'id'", "images", k)
        if not _INT64_MIN <= img["id"] <= _INT64_MAX:
            raise fail(f"image id {img['id']} is beyond the 64-bit integers", "images", k)
        for key in ("im_name", "file_name", "period"):
            if img.get(key) is not None and not isinstance(img[key], str):
                raise fail(f"image '{key}' {_shown(img[key])} is not text", "images", k)
        name = img.get("im_name") or img.get("file_name") or ""
        name = find_frame(name) or name
        period = img.get("period") or period_of(name)
        if period not in ("day", "night", ""):
            raise fail(f"image period {period!r} is neither 'day' nor 'night'", "images", k)
        size = []
        for key, default in zip(("width", "height"), KAIST_FRAME_SIZE):
            value = img.get(key, default)
            if not _is_number(value) or not 0 < value < math.inf:
                raise fail(f"image {key} {_shown(value)} is not a positive number", "images", k)
            size.append(float(value))
        ids.append(img["id"])
        names.append(name)
        periods.append(period)
        sizes.append(size)
    id_array = np.array(ids, dtype=np.int64)
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise fail(f"image id {dup} appears twice", "images", ids.index(dup))
    named = [name for name in names if name]
    if len(set(named)) != len(named):  # a frame named twice: which one a name means cannot be told
        seen: set[str] = set()
        k = next(k for k, name in enumerate(names) if name and (name in seen or seen.add(name)))
        raise fail(f"image {names[k]!r} appears twice (ids {ids[names.index(names[k])]} and {ids[k]})", "images", k)
    order = np.argsort(id_array, kind="stable")
    index_of_id = {ids[k]: rank for rank, k in enumerate(order)}

    n = len(annotations)
    ann_image = np.empty(n, np.int64)
    ann_ids = np.empty(n, np.int64)
    boxes = np.empty((n, 4), np.float64)
    heights = np.empty(n, np.float64)
    occlusion = np.empty(n, np.int64)
    ignore = np.empty(n, bool)
    labels = []
    for k, ann in enumerate(annotations):
        problem = _annotation_problem(ann, index_of_id)
        if problem is not None:
            raise fail(problem, "annotations", k)
        bbox = ann["bbox"]
        ann_image[k] = index_of_id[ann["image_id"]]
        ann_ids[k] = ann.get("id", k)
        boxes[k] = bbox
        heights[k] = ann.get("height", bbox[3])
        occlusion[k] = ann.get("occlusion", 0)
        flag = bool(ann.get("ignore", 0)) or bool(ann.get("iscrowd", 0))
        ignore[k] = flag
        labels.append(_label(ann, categories, flag))

    by_image = np.argsort(ann_image, kind="stable")
    return GroundTruth(
        image_ids=id_array[order],
        image_names=[names[k] for k in order],
        image_periods=[periods[k] for k in order],
        image_sizes=np.array(sizes, np.float64).reshape(-1, 2)[order],
        ann_image=ann_image[by_image],
        ann_ids=ann_ids[by_image],
        boxes=boxes[by_image],
        heights=heights[by_image],
        occlusion=occlusion[by_image],
        ignore=ignore[by_image],
        labels=[labels[k] for k in by_image],
        path=None if path is None else str(path),
        notes=id_notes([ann["id"] for ann in annotations if "id" in ann], leaderboard=True),
    )


def _annotation_problem(ann: object, index_of_id: dict[int, int]) -> str | None:
    """What makes an annotation unusable, or None."""
    if not isinstance(ann, dict):
        return f"annotation {_shown(ann)} is not an object"
    for key in ("image_id", "bbox"):
        if key not in ann:
            return f"annotation without '{key}'"
    image_id, bbox = ann["image_id"], ann["bbox"]
    if not _is_int(image_id):
        return f"annotation image_id {_shown(image_id)} is not an integer"
    if image_id not in index_of_id:
        return f"annotation for image_id {image_id}, which is not among the images"
    if not isinstance(bbox, list) or len(bbox) != 4 or not all(map(_is_number, bbox)):
        return f"annotation bbox {_shown(bbox)} is not a list of four numbers [x, y, w, h]"
    if not all(map(math.isfinite, bbox)):
        return f"annotation bbox {_shown(bbox)} holds a non-finite number"
    if bbox[2] < 0 or bbox[3] < 0:
        return f"annotation with a negative size (w={bbox[2]:g}, h={bbox[3]:g})"
    if "height" in ann and not (_is_number(ann["height"]) and math.isfinite(ann["height"])):
        return f"annotation height {_shown(ann['height'])} is not a finite number"
    if "occlusion" in ann and not (_is_int(ann["occlusion"]) and ann["occlusion"] in (0, 1, 2)):
        return f"annotation occlusion {_shown(ann['occlusion'])}; expected 0, 1 or 2"
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


def _categories(categories: object, fail) -> dict[int, str]:
    if not isinstance(categories, list):
        raise fail("'categories' must be a list", "categories")
    found = {}
    for k, category in enumerate(categories):
        if not isinstance(category, dict) or not _is_int(category.get("id")):
            raise fail("category without an integer 'id'", "categories", k)
        name = category.get("name", "")
        if not isinstance(name, str):
            raise fail(f"category name {_shown(name)} is not text", "categories", k)
        found[category["id"]] = name
    return found


def _shown(value: object) -> str:
    """A value as JSON writes it, cut short for a message."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _label(ann: dict, categories: dict, ignored: bool) -> str:
    """The original label; files without one (the leaderboard's) give the category name, and
    "ignore" for an ignored box filed under person, whose real label was lost."""
    if ann.get("label"):
        return str(ann["label"])
    name = str(categories.get(ann.get("category_id"), "person"))
    return "ignore" if ignored and name == "person" else name


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


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
