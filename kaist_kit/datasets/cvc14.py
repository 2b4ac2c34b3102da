"""CVC-14 (González et al., Sensors 2016): its spec."""

from __future__ import annotations

import re

from ..metrics.spec import LAMR
from .spec import Benchmark, Category, Citation, Modality, Split

CVC14 = Benchmark(
    name="cvc-14",
    aliases=("cvc14",),
    title="CVC-14",
    frame_pattern=re.compile(
        r"(?i:(?P<period>day|night))[/_](?:(?:Visible|FIR)/(?:Train|NewTest)/"
        r"(?:Annotations|FramesPos)/)?(?P<stem>\d{4}(?:_\d\d){5}_\d+)"
    ),
    frame_format="{period}/{stem}",
    modalities=(
        Modality("visible", "{period}/Visible/{split}/FramesPos/{stem}.tif", (640, 471)),
        Modality("fir", "{period}/FIR/{split}/FramesPos/{stem}.tif", None),
    ),
    image_size=(640, 471),
    annotation_format="cvc-14",
    annotation_path="{period}/Visible/{split}/Annotations/{stem}.txt",
    categories=(Category(1, "person"),),
    splits=(
        Split("train", "{Day,Night}/{Visible,FIR}/Train"),
        Split("test", "{Day,Night}/{Visible,FIR}/NewTest, frames annotated in both modalities"),
        Split("day", "test frames under Day/"),
        Split("night", "test frames under Night/"),
    ),
    default_split="test",
    metrics=(LAMR.name,),
    protocols=("ms-detr", "matlab"),  # MS-DETR's evaluation of CVC-14, and the devkit's own sum
    citation=Citation(
        "A. González, Z. Fang, Y. Socarras, J. Serrat, D. Vázquez, J. Xu, A. M. López",
        "Pedestrian detection at day/night time with visible and FIR cameras: a comparison",
        "Sensors 16(6):820",
        2016,
        "gonzalez2016pedestrian",
    ),
    download="http://adas.cvc.uab.es/elektra/enigma-portfolio/cvc-14-visible-fir-day-night-pedestrian-sequence-"
    "dataset/ (on request from the Computer Vision Center, UAB)",
    licence="the Computer Vision Center's terms (research use)",
    # MS-DETR reads x, y as the centre, some converters as the corner.
    box_origins=("centre", "corner"),
    ignore_labels=frozenset({"person?"}),  # the kit's label of a box whose 'mandatory' field is 0
    split_folders={"train": "Train", "test": "NewTest", "day": "NewTest", "night": "NewTest"},
    lamr_settings=("reasonable",),
    notes=(
        "Lines are 'x y w h mandatory 0 0 0 0 track_id 0'; tools disagree whether x, y is the box's centre "
        "or its top-left corner (the kit reads the centre by default, as MS-DETR does, and says so when the "
        "other reading matches the detections far better).",
    ),
)
