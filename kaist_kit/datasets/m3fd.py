"""M3FD (Liu et al., CVPR 2022): its spec, its native reader (every frame, or those of a list: it has no
official split) and its synthetic layout (frames of mixed sizes)."""

from __future__ import annotations

import os

from ..metrics.spec import AP, AP50
from .spec import Benchmark, Category, Citation, PinnedFile, Split, SynthLayout, cameras, numbered


def read_m3fd(root: str | os.PathLike, split: str | os.PathLike | None = None, voc_boxes: str | None = None):
    """M3FD: every frame of ``Annotation/``, or those of a list file (one frame name per line; M3FD has no
    official split: the public conversion's lists give its train / val / test)."""
    from ..errors import InputError
    from ..io.read import read_text
    from .readers import folder_of, frames_of_list, read_voc_files

    root = folder_of(root)
    folder = root / "Annotation"
    if not folder.is_dir():
        raise InputError("no folder Annotation/ (M3FD's layout: Annotation/, Vis/, Ir/)", root)
    if split in (None, "all"):
        frames = sorted({M3FD.frame(path.stem) for path in folder.iterdir() if path.suffix == ".xml"} - {None})
        where = str(folder)
    else:
        if split in M3FD.split_lists:
            split = root / M3FD.split_lists[split]
            if not split.is_file():
                raise InputError(
                    f"no list {split.name} in meta/: M3FD has no official split; pass the list of the "
                    "split's frames (the public conversion's meta/train.txt, val.txt, test.txt)",
                    root,
                )
        frames = frames_of_list(M3FD, read_text(split), split)
        where = str(split)
    return read_voc_files(M3FD, frames, [folder / f"{frame}.xml" for frame in frames], voc_boxes, where)


# M3FD's sizes vary: every fourth frame is one of its smaller sequences'.
M3FD_SMALL = (880, 520)


def _synthetic_name(split: str, period: str, k: int, n: int) -> str:
    return f"{n:05d}"


def _write_synthetic(root, bench, frames) -> dict:
    from .synth import write_file, write_voc_set

    boxes = write_voc_set(root, bench, frames, lambda f: f"{f.name}.png")
    for split in ("train", "test"):
        write_file(root / bench.split_lists[split], "".join(f"{f.name}\n" for f in frames if f.split == split))
    return boxes


M3FD = Benchmark(
    split_lists={split: f"meta/{split}.txt" for split in ("train", "val", "test")},
    synth=SynthLayout(
        frame_name=_synthetic_name,
        writer=_write_synthetic,
        person="People",
        cyclist="Motorcycle",
        vehicles={"car": "Car", "bus": "Bus", "truck": "Truck", "motorcycle": "Motorcycle"},
        vehicle_kinds=True,
        lamps=True,
        small_size=M3FD_SMALL,
    ),
    read_native=read_m3fd,
    name="m3fd",
    title="M3FD",
    frames=numbered(5),
    # Sizes vary: mostly 1024 x 768; some sequences are smaller (480 x 360 ... 880 x 520).
    modalities=cameras(None, visible="Vis/{number}.png", infrared="Ir/{number}.png"),
    annotation_format="voc",
    annotation_path="Annotation/{number}.xml",
    # The ids of the public COCO conversion (ganlumomo/voc2coco).
    categories=(
        Category(1, "People"),
        Category(2, "Car"),
        Category(3, "Motorcycle"),
        Category(4, "Bus"),
        Category(5, "Truck"),
        Category(6, "Lamp"),
    ),
    splits=(
        Split("train", "the public conversion's train list (no official split exists)", 2727),
        Split("val", "the public conversion's val list", 633),
        Split("test", "the public conversion's test list", 840, 7062),
        Split("daytime", "test frames of scene 1", 320),
        Split("night", "test frames of scene 2", 140),
        Split("overcast", "test frames of scene 3", 205),
        Split("challenge", "test frames of scene 4", 148),
    ),
    metrics=(AP50.name, AP.name),
    protocols=("yolov5", "coco"),
    citation=Citation(
        "J. Liu, X. Fan, Z. Huang, G. Wu, R. Liu, W. Zhong, Z. Luo",
        "Target-aware dual adversarial learning and a multi-scenario multi-modality benchmark to "
        "fuse infrared and visible for object detection",
        "CVPR",
        2022,
        "liu2022target",
    ),
    download="https://github.com/JinyuanLiu-CV/TarDAL (links to the M3FD download)",
    licence="the TarDAL authors' terms (research use)",
    dropped_labels={"dog": "no M3FD class (the public conversion skips it)"},
    voc_boxes="pascal",
    scene_codes={1: "daytime", 2: "night", 3: "overcast", 4: "challenge"},
    ground_truth=PinnedFile(
        "m3fd-test.coco.json",
        "https://raw.githubusercontent.com/ganlumomo/voc2coco/20239ca2581e87750a83bc7e9a088e1a1c4cb8de/"
        "outputs/m3fd-test.json",
        1_073_215,
        "9331573b290992996c4155ea1aea56f9",
        "the M3FD test annotations of the public split of ganlumomo/voc2coco (MIT); M3FD by Liu et al.",
        env="KAIST_KIT_M3FD_GT",
        url_env="KAIST_KIT_M3FD_GT_URL",
    ),
    notes=(
        "M3FD has no official split; the kit's named split is the public COCO conversion's "
        "(2,727 / 633 / 840 frames), with its scene subsets.",
    ),
)
