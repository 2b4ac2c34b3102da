"""The KAIST dataset for mmdetection, and the transforms that load and augment a frame pair."""

from __future__ import annotations

import os
from collections.abc import Sequence

import cv2
import mmcv
import numpy as np
from mmcv.transforms import BaseTransform
from mmdet.datasets import BaseDetDataset
from mmdet.datasets.transforms import Pad
from mmdet.registry import DATASETS, TRANSFORMS
from mmengine import fileio

from ..data.frames import find_frame, period_of
from ..datasets import KAIST, get_benchmark
from ..errors import InputError, quantity
from ..io.read import load_json
from ..metrics.settings import KAIST_FRAME_SIZE
from ..tools.datacheck import missing_annotations_message, picture_names

MODALITIES = ("visible", "lwir")
# Where each modality sits in the six-channel image that `LoadKaistPair` builds.
CHANNELS = {"visible": slice(0, 3), "lwir": slice(3, 6)}


def join_channels(pictures: Sequence[np.ndarray]) -> np.ndarray:
    """``np.concatenate(pictures, axis=2)``, several times faster: numpy copies a channel axis in
    steps of a few bytes, OpenCV's merge in vectors."""
    return cv2.merge(list(pictures))


def frame_name(path: str | os.PathLike) -> str:
    """'setXX/VYYY/IZZZZZ' when a picture's path names a KAIST frame, else the file name."""
    return find_frame(path) or os.path.basename(str(path))


@DATASETS.register_module()
class KaistDataset(BaseDetDataset):
    """Frame pairs and their boxes from the converter's COCO JSON or the leaderboard's ground truth, of
    KAIST or of another benchmark (``benchmark``, a name of `kaist_kit.datasets`).

    KAIST: one class, person. Another benchmark: its classes in its order (FLIR-aligned's person,
    bicycle, car), a box's class by its ``category_id``. An annotation with ``ignore`` (or ``iscrowd``)
    set, which the converter writes for every label but person (another benchmark's: for its ignore
    labels and labels of no class), becomes an ignore instance. Pictures are looked up under
    ``data_root/data_prefix['img']`` (default: KAIST's ``images/``, another benchmark's root), as the
    file names them or where the benchmark keeps them; ``check_files`` stops at once when pictures are
    missing rather than hours into training. ``filter_cfg=dict(filter_empty_gt=True)`` leaves out
    training frames without a box to learn from. ``make_with`` is the command that writes the
    annotation file (``{data_root}`` and ``{ann_file}`` filled in), said when it is missing.

    The resolved annotation file and the benchmark are added to the metainfo, so that `KaistMetric`
    and `BenchmarkMetric` score against the dataset they evaluate without being told again. Another
    benchmark's image ids may be strings: a frame's ``img_id`` is then its position in the file.
    """

    METAINFO = dict(classes=("person",), palette=[(220, 20, 60)])

    def __init__(
        self,
        *args,
        benchmark: str = KAIST.name,
        data_prefix: dict | None = None,
        check_files: bool = True,
        make_with: str | None = None,
        **kwargs,
    ):
        self.benchmark = get_benchmark(benchmark)
        self.check_files = check_files
        self.make_with = make_with
        if not self.benchmark.kaist_model:
            kwargs["metainfo"] = dict(classes=self.benchmark.class_names, **(kwargs.get("metainfo") or {}))
        prefix = dict(img=self.benchmark.pictures_folder)
        super().__init__(*args, data_prefix=data_prefix or prefix, **kwargs)
        self._metainfo["ann_file"] = self.ann_file
        self._metainfo["benchmark"] = self.benchmark.name

    def load_data_list(self) -> list[dict]:
        if not os.path.isfile(self.ann_file):
            root = self.data_root.rstrip("/") + "/" if self.data_root else ""
            how = self.make_with.format(data_root=root, ann_file=self.ann_file) if self.make_with else None
            raise InputError(missing_annotations_message(self.ann_file, how))
        data = load_json(self.ann_file)
        if not isinstance(data, dict) or not isinstance(data.get("images"), list):
            raise InputError("not a COCO annotation file: expected an object with an 'images' list", self.ann_file)
        root = self.data_prefix.get("img", "")
        bench = self.benchmark
        infos, by_id = [], {}
        # A box's class: KAIST's pedestrians are class 0, another benchmark's classes are by category id.
        label_of = {c.id: k for k, c in enumerate(bench.categories)}
        width, height = bench.image_size or KAIST_FRAME_SIZE
        for position, image in enumerate(data["images"]):
            try:
                visible, lwir = picture_names(image, bench)
            except ValueError as exc:
                raise InputError(str(exc), self.ann_file) from None
            name = str(image.get("im_name") or visible)
            image_id = image["id"] if bench.kaist_model else position
            info = dict(
                img_id=int(image_id),
                img_path=os.path.join(root, visible),
                lwir_path=os.path.join(root, lwir),
                height=int(image.get("height", height)),
                width=int(image.get("width", width)),
                im_name=name,
                period=image.get("period") or (period_of(name) if bench.kaist_model else ""),
                instances=[],
            )
            infos.append(info)
            by_id[image["id"]] = info
        for ann in data.get("annotations", []):
            x, y, w, h = (float(v) for v in ann["bbox"])
            if w < 1 or h < 1:
                continue  # a degenerate box teaches nothing and breaks IoU
            info = by_id.get(ann["image_id"])
            if info is None:
                raise InputError(
                    f"annotation for image_id {ann['image_id']!r}, which is not among the images", self.ann_file
                )
            label = 0 if bench.kaist_model else label_of.get(ann.get("category_id"))
            ignored = bool(ann.get("ignore", 0) or ann.get("iscrowd", 0)) or label is None
            info["instances"].append(dict(bbox=[x, y, x + w, y + h], bbox_label=label or 0, ignore_flag=int(ignored)))
        if self.check_files and self.backend_args is None:
            self._check_pictures(infos)
        return infos

    def _check_pictures(self, infos: list[dict]) -> None:
        missing = [p for info in infos for p in (info["img_path"], info["lwir_path"]) if not os.path.isfile(p)]
        if missing:
            raise InputError(
                f"{quantity(len(missing), 'picture')} of the {len(infos)} frames are missing "
                f"(first: {missing[0]}); is data_root right?",
                self.ann_file,
            )

    def filter_data(self) -> list[dict]:
        if self.test_mode or not (self.filter_cfg or {}).get("filter_empty_gt", False):
            return self.data_list
        return [info for info in self.data_list if any(not i["ignore_flag"] for i in info["instances"])]


def read_picture(path: str, backend_args: dict | None = None) -> np.ndarray:
    """A picture as H x W x 3 BGR uint8 (a grey thermal picture is repeated over the channels)."""
    try:
        data = fileio.get(path, backend_args=backend_args)
    except FileNotFoundError:
        raise InputError("no such picture", path) from None
    except OSError as exc:
        raise InputError(f"cannot read the picture: {exc.strerror or exc}", path) from None
    # Ignoring EXIF orientation skips reading the metadata and gives KAIST's pictures, which carry
    # none, the same pixels (speed/loader_speed.py); a camera pair is read as its sensors
    # recorded it.
    image = mmcv.imfrombytes(data, flag="color_ignore_orientation")
    if image is None:
        raise InputError("cannot decode the picture (not a JPEG or PNG?)", path)
    return image


@TRANSFORMS.register_module()
class LoadKaistPair(BaseTransform):
    """Read ``img_path`` (visible) and ``lwir_path`` into one image of six channels.

    ``results['img']`` is H x W x 6: visible BGR in channels 0-2, lwir in 3-5. mmdet's geometric
    transforms (Resize, RandomResize, RandomFlip, RandomCrop; `PadPair` for padding) then act on
    both modalities at once.
    """

    def __init__(self, backend_args: dict | None = None):
        self.backend_args = backend_args

    def transform(self, results: dict) -> dict:
        visible = read_picture(results["img_path"], self.backend_args)
        lwir = read_picture(results["lwir_path"], self.backend_args)
        if visible.shape != lwir.shape:
            raise InputError(
                f"the lwir picture is {lwir.shape[1]}x{lwir.shape[0]} but the visible one "
                f"{visible.shape[1]}x{visible.shape[0]}",
                results["lwir_path"],
            )
        results["img"] = join_channels([visible, lwir])
        results["img_shape"] = results["ori_shape"] = visible.shape[:2]
        return results

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(backend_args={self.backend_args})"


def shift_picture(image: np.ndarray, dx: int, dy: int, fill) -> np.ndarray:
    """``image`` moved ``dx`` pixels right and ``dy`` down (left and up when negative); the
    uncovered border takes ``fill`` (one value, or one per channel)."""
    height, width = image.shape[:2]
    shifted = np.empty_like(image)
    shifted[...] = fill
    if abs(dx) < width and abs(dy) < height:
        shifted[max(dy, 0) : height + min(dy, 0), max(dx, 0) : width + min(dx, 0)] = image[
            max(-dy, 0) : height - max(dy, 0), max(-dx, 0) : width - max(dx, 0)
        ]
    return shifted


@TRANSFORMS.register_module()
class ShiftLwir(BaseTransform):
    """Move the thermal picture ``shift=(dx, dy)`` pixels against the visible one, filling the
    uncovered border with the thermal picture's mean (per channel).

    The position-shift test of Zhang et al.'s AR-CNN (ICCV 2019): how a fusion detector copes
    with the visible/thermal misalignment KAIST is known for. Put it right after
    `LoadKaistPair`, so that the shift is in the pictures' own pixels; the boxes stay where
    they are. `kaist-kit test --shift-lwir DX,DY` inserts it into the test pipeline.
    """

    def __init__(self, shift: Sequence[int] = (0, 0)):
        self.dx, self.dy = (int(v) for v in shift)

    def transform(self, results: dict) -> dict:
        image = results["img"]
        lwir = image[..., CHANNELS["lwir"]]
        fill = np.rint(lwir.mean(axis=(0, 1))).astype(image.dtype)
        image = image.copy()
        image[..., CHANNELS["lwir"]] = shift_picture(lwir, self.dx, self.dy, fill)
        results["img"] = image
        return results

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(shift=({self.dx}, {self.dy}))"


@TRANSFORMS.register_module()
class PadPair(Pad):
    """mmdet's ``Pad`` for the six-channel pair.

    mmcv turns an integer pad value into one value per channel, which OpenCV refuses beyond four
    channels; a single number pads all six alike.
    """

    def __init__(self, *args, pad_val: dict | float = 0, **kwargs):
        pad_val = dict(img=pad_val, seg=255) if isinstance(pad_val, (int, float)) else dict(pad_val)
        pad_val["img"] = float(pad_val.get("img", 0))
        super().__init__(*args, pad_val=pad_val, **kwargs)


@TRANSFORMS.register_module()
class PerModality(BaseTransform):
    """Photometric transforms for each modality on its own, e.g.
    ``visible=[dict(type='PhotoMetricDistortion')]``, ``lwir=[...]``.

    Each modality gets its own random draws: brightness in colour and in thermal have unrelated
    causes. Only put transforms here that change pixel values, never geometry.
    """

    def __init__(self, visible: Sequence[dict] = (), lwir: Sequence[dict] = ()):
        self.transforms = {
            "visible": [TRANSFORMS.build(t) for t in visible],
            "lwir": [TRANSFORMS.build(t) for t in lwir],
        }

    def transform(self, results: dict) -> dict | None:
        channels = cv2.split(results["img"])
        parts = []
        for modality in MODALITIES:
            part: dict | None = dict(img=join_channels(channels[CHANNELS[modality]]))
            for step in self.transforms[modality]:
                part = step(part)
                if part is None:
                    return None
            parts.append(part["img"])
        if parts[0].dtype != parts[1].dtype:
            parts = [p.astype(np.float32) for p in parts]
        results["img"] = join_channels(parts)
        return results

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(visible={self.transforms['visible']}, lwir={self.transforms['lwir']})"
