"""KAIST Multispectral Pedestrian (Hwang et al., CVPR 2015): its spec, frame names, sets, scenes and splits."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ..metrics.spec import LAMR
from .spec import (
    KAIST_RULES,
    Benchmark,
    Citation,
    DataChecks,
    Deferred,
    FrameNames,
    PinnedFile,
    PinnedRules,
    Split,
    cameras,
)

# Each KAIST set was recorded in one scene, in this order by day and again by night: set00/03/06/09
# campus, set01/04/07/10 road, set02/05/08/11 downtown; set00-02 and set06-08 are day.
KAIST_SCENES = ("campus", "road", "downtown")
KAIST_NIGHT_SETS = frozenset({3, 4, 5, 9, 10, 11})
KAIST_TEST_SETS = frozenset(range(6, 12))
KAIST_SETS = frozenset(range(12))
# The parts of a KAIST frame name, setXX/VYYY/IZZZZZ. Its layouts spell them apart (the trees
# setXX/VYYY/IZZZZZ.xml and setXX/VYYY/visible/IZZZZZ.txt, the flat setXX_VYYY_IZZZZZ.txt), so the
# converters and readers build their patterns from these.
KAIST_SET, KAIST_VIDEO, KAIST_IMAGE = r"set\d\d", r"V\d\d\d", r"I\d{5}"
# The labels of the original (bbGt) annotations, in the order of the kit's COCO category ids, and
# those the paired annotations (Zhang et al.) add.
KAIST_LABELS = ("person", "cyclist", "people", "person?")
KAIST_PAIRED_LABELS = ("person?a", "unpaired")
_KAIST_NUMBERS = re.compile(r"set(\d\d)/V(\d\d\d)/I(\d{5})")
_KAIST_SET_NUMBER = re.compile(r"set(\d\d)")


def kaist_period(set_number: int) -> str:
    return "night" if set_number in KAIST_NIGHT_SETS else "day"


def kaist_scene(set_number: int) -> str:
    return KAIST_SCENES[set_number % len(KAIST_SCENES)]


def kaist_set_number(name: str) -> int | None:
    """The set number a KAIST frame name holds ('set06/V000/I00019' -> 6), None when it holds none."""
    match = _KAIST_SET_NUMBER.search(name)
    return int(match.group(1)) if match else None


def kaist_numbers(frame: str) -> tuple[int, int, int] | None:
    """The set, video and image numbers of exactly a frame name setXX/VYYY/IZZZZZ, else None."""
    match = _KAIST_NUMBERS.fullmatch(frame)
    return tuple(map(int, match.groups())) if match else None


def kaist_frame_period(frame: str) -> str:
    """'day' or 'night' from a KAIST frame name, '' when the name has no set number."""
    number = kaist_set_number(frame)
    return "" if number is None else kaist_period(number)


def kaist_parse_split(name: str) -> tuple[str, str, int | None]:
    """(scene, period, set number) a named KAIST split selects, '' / None where it does not restrict:
    'all', 'day', 'night', a scene ('campus', 'road-night') or a set ('set06')."""
    if name == "all":
        return "", "", None
    if name in ("day", "night"):
        return "", name, None
    if re.fullmatch(KAIST_SET, name):
        return "", "", kaist_set_number(name)
    scene, _, period = name.partition("-")
    if scene in KAIST_SCENES and period in ("", "day", "night"):
        return scene, period, None
    raise ValueError(
        f"unknown split {name!r}; use all, day, night, a scene ({', '.join(KAIST_SCENES)}, alone or as "
        "campus-day, campus-night, ...), a set (set06 ... set11) or a list of images"
    )


def kaist_select(split: str, names: Sequence[str], periods: Sequence[str]) -> np.ndarray:
    """The images of a named KAIST split (`kaist_parse_split`), from the frames' names and periods; a
    split the images cannot form is a LookupError saying why."""
    try:
        scene, period, set_number = kaist_parse_split(split)
    except ValueError as exc:
        raise LookupError(str(exc)) from None
    if not scene and set_number is None:
        return _period_mask(split, periods) if period else np.ones(len(names), bool)
    numbers = [kaist_set_number(name) for name in names]
    sets = np.array([-1 if n is None else n for n in numbers], np.int64)
    if np.any(sets < 0):
        raise LookupError(
            f"cannot form the {split} split: some images have no set number in their name (setXX/VYYY/IZZZZZ)"
        )
    if set_number is not None:
        mask = sets == set_number
    else:
        mask = np.array([kaist_scene(n) == scene for n in sets], bool)
        if period:
            mask &= _period_mask(period, periods)
    if not mask.any():
        raise LookupError(f"the {split} split holds no image of this ground truth")
    return mask


def _period_mask(split: str, periods: Sequence[str]) -> np.ndarray:
    array = np.array(list(periods))
    if not np.all(np.isin(array, ["day", "night"])):
        raise LookupError(
            f"cannot form the {split} split: some images are neither day nor night "
            "(no set number in im_name and no 'period' field)"
        )
    return array == split


KAIST = Benchmark(
    name="kaist",
    title="KAIST Multispectral Pedestrian",
    frames=FrameNames(
        re.compile(
            rf"(?P<set>{KAIST_SET})[/_](?P<video>{KAIST_VIDEO})[/_](?:(?:visible|lwir)/)?"
            rf"(?P<image>{KAIST_IMAGE})"
        ),
        "{set}/{video}/{image}",
    ),
    # Every frame, visible and lwir, is 640 x 512 (the often quoted 640 x 480 is wrong).
    modalities=cameras(
        (640, 512), visible="images/{set}/{video}/visible/{image}.jpg", lwir="images/{set}/{video}/lwir/{image}.jpg"
    ),
    annotation_format="kaist",
    annotation_path="annotations-xml-new/{set}/{video}/{image}.xml",
    truth_rules=KAIST_RULES,
    mmengine_metric="KaistMetric",
    # Its adapter: the modules that hold it read KAIST's files by default, so they are imported when called.
    pinned_rules=PinnedRules(
        find=Deferred("kaist_kit.datasets.kaist_truth:default_ground_truth"),
        read=Deferred("kaist_kit.datasets.kaist_truth:load_ground_truth"),
        fetch=Deferred("kaist_kit.datasets.kaist_truth:fetch_lines"),
    ),
    own_synth=Deferred("kaist_kit.tools.synth:generate_from"),
    own_checks=DataChecks(
        annotations=Deferred("kaist_kit.tools.datacheck:check_kaist_annotations"),
        roles=Deferred("kaist_kit.tools.datacheck:check_kaist_roles"),
    ),
    own_drawing=Deferred("kaist_kit.output.show:show_frames"),
    pictures_folder="images/",
    quiet=True,
    layout="splits",
    period_of_frame=kaist_frame_period,
    select=kaist_select,
    splits=(
        Split("test", "test-all-20: every 20th frame of set06-11", 2252, 4254),
        Split("day", "test frames of set06-08", 1455),
        Split("night", "test frames of set09-11", 797),
        Split("train", "training frames of set00-05 (named lists: kaist-kit trainset)"),
    ),
    metrics=(LAMR.name,),
    protocols=("leaderboard", "matlab"),
    citation=Citation(
        "S. Hwang, J. Park, N. Kim, Y. Choi, I. S. Kweon",
        "Multispectral pedestrian detection: benchmark dataset and baseline",
        "CVPR",
        2015,
        "hwang2015multispectral",
    ),
    download="https://github.com/SoonminHwang/rgbt-ped-detection (data/README.md)",
    licence="CC BY-NC-SA 4.0",
    ignore_labels=frozenset({"people", "person?", "cyclist"}),
    labels=KAIST_LABELS + KAIST_PAIRED_LABELS,
    flat_pattern=re.compile(rf"(?P<set>{KAIST_SET})_(?P<video>{KAIST_VIDEO})_(?P<image>{KAIST_IMAGE})"),
    lamr_settings=(
        "reasonable",
        "reasonable-small",
        "reasonable-heavy",
        "all-pedestrians",
        "near",
        "medium",
        "far",
        "occ-none",
        "occ-partial",
        "occ-heavy",
    ),
    ground_truth=PinnedFile(
        "test-all-20.leaderboard.json",
        "https://raw.githubusercontent.com/sejong-rcv/MLPD-Multi-Label-Pedestrian-Detection/"
        "a0ebdc62717f52b05b75407683d51cd43a119749/evaluation_script/KAIST_annotation.json",
        1_595_993,
        "6cc457f0beeea4fff5392078354e0a51",
        "annotations of the KAIST Multispectral Pedestrian Detection Benchmark (Hwang et al., CVPR 2015), "
        "CC BY-NC-SA 4.0, https://creativecommons.org/licenses/by-nc-sa/4.0/",
        env="KAIST_KIT_GT",
        url_env="KAIST_KIT_GT_URL",
        tag="the leaderboard's test-all-20",
    ),
)
