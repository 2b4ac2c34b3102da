"""M3FD (Liu et al., CVPR 2022): its spec."""

from __future__ import annotations

import re

from ..metrics.spec import AP, AP50
from .spec import Benchmark, Category, Citation, Modality, PinnedFile, Split

M3FD = Benchmark(
    name="m3fd",
    title="M3FD",
    frame_pattern=re.compile(r"(?<![0-9])(?P<number>\d{5})(?![0-9])"),
    frame_format="{number}",
    modalities=(Modality("visible", "Vis/{number}.png", None), Modality("infrared", "Ir/{number}.png", None)),
    image_size=None,  # mostly 1024 x 768; some sequences are smaller (480 x 360 ... 880 x 520)
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
    default_split="test",
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
