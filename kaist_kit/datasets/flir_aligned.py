"""FLIR-aligned (Zhang et al., ICIP 2020): its spec, its native reader (the VOC files of its lists) and its
synthetic layout."""

from __future__ import annotations

import os

from ..metrics.spec import AP, AP50, AP75
from .spec import Benchmark, Category, Citation, PinnedFile, Split, SynthLayout, cameras, numbered


def read_flir_aligned(root: str | os.PathLike, split: str = "test", voc_boxes: str | None = None):
    """FLIR-aligned: the frames of ``align/align_train.txt`` ('train') or ``align/align_validation.txt``
    ('test', the split every paper reports)."""
    from ..io.read import read_text
    from .readers import folder_of, frames_of_list, read_voc_files

    root = folder_of(root)
    align = root / "align" if (root / "align").is_dir() else root
    lists = FLIR_ALIGNED.split_lists
    if split not in lists:
        raise ValueError(f"unknown FLIR-aligned split {split!r}; choose train or test")
    frames = frames_of_list(FLIR_ALIGNED, read_text(align / lists[split]), align / lists[split])
    files = [align / "Annotations" / f"{frame}_PreviewData.xml" for frame in frames]
    return read_voc_files(FLIR_ALIGNED, frames, files, voc_boxes, str(align / lists[split]))


def _synthetic_name(split: str, period: str, k: int, n: int) -> str:
    return f"FLIR_{(1 if split == 'train' else 9001) + k:05d}"


def _write_synthetic(root, bench, frames) -> dict:
    from .synth import write_file, write_voc_set

    boxes = write_voc_set(root, bench, frames, lambda f: f"{f.name}.jpeg")
    for split in ("train", "test"):
        write_file(
            root / "align" / bench.split_lists[split],
            "".join(f"{f.name}_PreviewData\n" for f in frames if f.split == split),
        )
    return boxes


FLIR_ALIGNED = Benchmark(
    split_lists={"train": "align_train.txt", "test": "align_validation.txt", "validation": "align_validation.txt"},
    synth=SynthLayout(
        frame_name=_synthetic_name,
        writer=_write_synthetic,
        cyclist="rider and bicycle",
        vehicles={"car": "car"},
    ),
    read_native=read_flir_aligned,
    name="flir-aligned",
    aliases=("flir",),
    title="FLIR-aligned",
    frames=numbered(5, prefix="FLIR_"),
    modalities=cameras(
        (640, 512),
        visible="align/JPEGImages/FLIR_{number}_RGB.jpg",
        thermal="align/JPEGImages/FLIR_{number}_PreviewData.jpeg",
    ),
    annotation_format="voc",
    annotation_path="align/Annotations/FLIR_{number}_PreviewData.xml",
    # The ids of the public COCO conversion (ganlumomo/voc2coco), which writes 'bicycle' as 'bike'.
    categories=(Category(1, "person"), Category(2, "bicycle", ("bike",)), Category(3, "car")),
    splits=(
        Split("train", "align/align_train.txt", 4129),
        Split("test", "align/align_validation.txt (the set's test split in every paper)", 1013, 8591),
        Split("day", "test frames listed as day by the public conversion", 702),
        Split("night", "test frames listed as night by the public conversion", 311),
    ),
    metrics=(AP.name, AP50.name, AP75.name),
    protocols=("coco",),
    citation=Citation(
        "H. Zhang, E. Fromont, S. Lefèvre, B. Avignon",
        "Multispectral fusion for object detection with cyclic fuse-and-refine blocks",
        "ICIP",
        2020,
        "zhang2020multispectral",
    ),
    download="the FLIR ADAS v1 pictures (Teledyne FLIR, free for research) registered by Zhang et al.: "
    "the 'FLIR-aligned' archive linked from their paper's page",
    licence="Teledyne FLIR's terms (free for research use)",
    dropped_labels={"dog": "the few dog boxes, which no paper scores (the public conversion drops them too)"},
    voc_boxes="pascal",
    scene_codes={1: "day", 2: "night"},
    ground_truth=PinnedFile(
        "flir-aligned-test.coco.json",
        "https://raw.githubusercontent.com/ganlumomo/voc2coco/20239ca2581e87750a83bc7e9a088e1a1c4cb8de/"
        "outputs/rgb-test-flir.json",
        1_450_612,
        "f194bddb8d6bad67650812465160064c",
        "the FLIR-aligned test annotations as converted by ganlumomo/voc2coco (MIT); FLIR ADAS labels by "
        "Teledyne FLIR, free for research use",
        env="KAIST_KIT_FLIR_ALIGNED_GT",
        url_env="KAIST_KIT_FLIR_ALIGNED_GT_URL",
    ),
    notes=("Another public conversion of the same 1,013 frames counts 8,604 boxes: conversions differ.",),
)
