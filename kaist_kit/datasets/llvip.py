"""LLVIP (Jia et al., ICCVW 2021): its spec and its two annotation releases."""

from __future__ import annotations

import re

from ..metrics.spec import AP, AP50, AP75, LAMR
from .spec import Benchmark, Category, Citation, Modality, Split

LLVIP = Benchmark(
    name="llvip",
    title="LLVIP",
    frame_pattern=re.compile(r"(?<![0-9])(?P<number>\d{6})(?![0-9])"),
    frame_format="{number}",
    modalities=(
        Modality("visible", "visible/{split}/{number}.jpg", (1280, 1024)),
        Modality("infrared", "infrared/{split}/{number}.jpg", (1280, 1024)),
    ),
    image_size=(1280, 1024),
    annotation_format="voc",
    annotation_path="Annotations/{number}.xml",
    categories=(Category(1, "person"),),
    splits=(
        Split("train", "visible/train and infrared/train", 12025, 33648),
        Split("test", "visible/test and infrared/test", 3463, 7931),
    ),
    default_split="test",
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
    notes=(
        "Two annotation releases exist: the first (2021, 41,579 boxes: 33,648 train, 7,931 test) and the "
        "2023-02-21 revision (missing pedestrians added, imprecise boxes tightened on a small part of the "
        "images); the box counts above are the first release's.",
    ),
)
