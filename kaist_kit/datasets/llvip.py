"""LLVIP (Jia et al., ICCVW 2021): its spec, its native reader, its synthetic layout and its two
annotation releases (which one a ground truth is, said when it is read)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import quantity
from ..metrics.spec import AP, AP50, AP75, LAMR
from .spec import Benchmark, Citation, Split, SynthLayout, cameras, numbered


@dataclass(frozen=True)
class Release:
    name: str  # '2021', '2023' or 'unknown'
    reason: str


# The first release's box counts per split, from the README shipped with it (and quoted by its mirrors);
# the 2023-02-21 revision added missing pedestrians and tightened boxes on a small part of the images.
LLVIP_2021_BOXES = {"train": (12025, 33648), "test": (3463, 7931)}


def llvip_release(annotations, split: str) -> Release:
    """Which LLVIP annotation release a full split is: the 2021 one when its box count is that release's,
    the 2023 revision (or a file edited since) when the images are all there and the count differs."""
    images, boxes = LLVIP_2021_BOXES.get(split, (None, None))
    n = len(annotations.ann_ids)
    if images is None or annotations.n_images != images:
        return Release("unknown", f"{quantity(annotations.n_images, 'image')}, not the full {split} split's {images}")
    if n == boxes:
        return Release("2021", f"{n} boxes in the {images} {split} images, as the first release has")
    return Release(
        "2023",
        f"{n} boxes in the {images} {split} images where the 2021 release has {boxes}: the "
        "2023-02-21 revision, or a copy edited since",
    )


def release_notes(annotations) -> list[str]:
    """What the kit says of an LLVIP ground truth: which annotation release it is, where a split is whole."""
    for split in ("test", "train"):
        release = llvip_release(annotations, split)
        if release.name != "unknown":
            return [f"annotation release: {release.name} ({release.reason})"]
    return []


def read_llvip(root: str | os.PathLike, split: str = "test", voc_boxes: str | None = None):
    """LLVIP: the frames whose pictures are in ``visible/<split>`` ('train' or 'test'), annotated in
    ``Annotations/``. The note says which annotation release the files are (`llvip_release`)."""
    from ..errors import InputError
    from .readers import folder_of, read_voc_files

    root = folder_of(root)
    if split not in ("train", "test"):
        raise ValueError(f"unknown LLVIP split {split!r}; choose train or test")
    pictures = root / "visible" / split
    if not pictures.is_dir():
        raise InputError(
            f"no folder visible/{split} (LLVIP's layout: Annotations/, visible/{{train,test}}/, "
            "infrared/{train,test}/)",
            root,
        )
    frames = sorted({LLVIP.frame(path.stem) for path in pictures.iterdir() if path.is_file()} - {None})
    if not frames:
        raise InputError(f"no LLVIP picture (NNNNNN.jpg) in visible/{split}", root)
    files = [root / "Annotations" / f"{frame}.xml" for frame in frames]
    annotations = read_voc_files(LLVIP, frames, files, voc_boxes, str(root))
    release = llvip_release(annotations, split)
    annotations.notes.append(f"annotation release: {release.name} ({release.reason})")
    return annotations


def _synthetic_name(split: str, period: str, k: int, n: int) -> str:
    return f"{(10001 if split == 'train' else 190001) + k:06d}"


def _write_synthetic(root, bench, frames) -> dict:
    from .synth import write_voc_set

    return write_voc_set(root, bench, frames, lambda f: f"{f.name}.jpg")


LLVIP = Benchmark(
    synth=SynthLayout(frame_name=_synthetic_name, writer=_write_synthetic),
    read_native=read_llvip,
    name="llvip",
    title="LLVIP",
    frames=numbered(6),
    modalities=cameras((1280, 1024), visible="visible/{split}/{number}.jpg", infrared="infrared/{split}/{number}.jpg"),
    annotation_format="voc",
    annotation_path="Annotations/{number}.xml",
    splits=(
        Split("train", "visible/train and infrared/train", 12025, 33648),
        Split("test", "visible/test and infrared/test", 3463, 7931),
    ),
    metrics=(AP50.name, AP75.name, AP.name, LAMR.name),
    protocols=("coco", "yolov5", "leaderboard"),
    citation=Citation(
        "X. Jia, C. Zhu, M. Li, W. Tang, W. Zhou",
        "LLVIP: a visible-infrared paired dataset for low-light vision",
        "ICCV workshops",
        2021,
        "jia2021llvip",
    ),
    download="https://bupt-ai-cz.github.io/LLVIP/ (download_dataset.md of github.com/bupt-ai-cz/LLVIP)",
    licence="non-commercial research use, no redistribution (LLVIP's Term of Use and License)",
    lamr_settings=("reasonable", "all-pedestrians"),
    voc_boxes="as-written",
    truth_notes=release_notes,
    notes=(
        "Two annotation releases exist: the first (2021, 41,579 boxes: 33,648 train, 7,931 test) and the "
        "2023-02-21 revision (missing pedestrians added, imprecise boxes tightened on a small part of the "
        "images); the box counts above are the first release's.",
    ),
)
