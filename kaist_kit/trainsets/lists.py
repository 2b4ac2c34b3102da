"""The frame lists of the named sets, each pinned by a checksum.

The official image-set lists follow a rule (`kaist_kit.data.imagesets`): the frames of the training or
test videos whose number is NN - 1 modulo NN. With the number of frames of each video, which is all
the rule needs to know of the dataset, the kit builds them without the list files; the validation
split and the training set without it follow from them and from the held-out videos. AR-CNN's list
(Apache-2.0) is shipped as its authors released it. Every list is checked against its pinned sha256
when it is built, so that no list can change unnoticed.

A list's checksum is the sha256 of its frame names, one a line, each ending in a line feed: the same
for a list file with CRLF or LF line endings, and the sha256 of the file itself for an LF file.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path

from ..data.frames import set_of
from ..data.imagesets import standard_list
from ..datasets import KAIST
from ..io.read import read_text

# Frames of every video of KAIST (all 95,328 pairs, numbered from 0; the official XML tree holds a file
# for each frame of set00-05, and the official lists are built from these).
VIDEO_FRAMES = {
    "set00/V000": 2245,
    "set00/V001": 2799,
    "set00/V002": 2510,
    "set00/V003": 1634,
    "set00/V004": 2080,
    "set00/V005": 1534,
    "set00/V006": 1097,
    "set00/V007": 1599,
    "set00/V008": 2000,
    "set01/V000": 2254,
    "set01/V001": 1159,
    "set01/V002": 1405,
    "set01/V003": 1265,
    "set01/V004": 1651,
    "set01/V005": 301,
    "set02/V000": 1902,
    "set02/V001": 1861,
    "set02/V002": 1400,
    "set02/V003": 1000,
    "set02/V004": 1703,
    "set03/V000": 4400,
    "set03/V001": 2268,
    "set04/V000": 3997,
    "set04/V001": 3200,
    "set05/V000": 2920,
    "set06/V000": 1523,
    "set06/V001": 2691,
    "set06/V002": 1688,
    "set06/V003": 4285,
    "set06/V004": 2800,
    "set07/V000": 2544,
    "set07/V001": 4000,
    "set07/V002": 1597,
    "set08/V000": 2578,
    "set08/V001": 2972,
    "set08/V002": 2500,
    "set09/V000": 3500,
    "set10/V000": 4708,
    "set10/V001": 4194,
    "set11/V000": 2020,
    "set11/V001": 1540,
}
TEST_SETS = frozenset(range(6, 12))

# The training videos held out for validation (val-02), chosen by the rule of
# `kaist_kit.trainsets.validation.choose_validation_videos` on the official annotations: by day one
# video of each scene (campus, road, downtown), by night one video, as many reasonable pedestrians in
# each period as test-all-20 has, and of those choices the one that takes the fewest frames from
# training.
VAL_02_VIDEOS = ("set00/V006", "set01/V005", "set02/V002", "set03/V001")

# Installed with the package (package data), read through the opener as any list.
ARCNN_LIST = Path(__file__).with_name("data") / "arcnn-paired-trainval.txt"

PINNED_SHA256 = {
    "train-all-02": "eca0bc92b6275927c07d2387f8f2abc7aac951223d5fa85918335b2d2158d4d4",
    "train-all-04": "5f931dc75f8710d40522be056f252503a6ec3ae804e1fbc9ecfefde0cb841652",
    "train-all-20": "070af4f8aa28c7aba871e6ee42a554972d1a03f195c7e01dce4746e2953fc4f4",
    "test-all-20": "37dae20bcadccc246ef1cc0f77460c96a1ec64bc5a3a9edda236cf0156b3dc27",
    "train-02": "00e7dab5d0150734cf046236343cf40f9223db63633eca0c5a738b4815387d9b",
    "val-02": "29ed1f40aaf56d0f5d63a015acacf0d28ce5078e868deaad814ef6bdde61f727",
    # luzhang16/AR-CNN at commit dd1d8d5, splits/trainval.txt, as released (LF).
    "paired-8892": "5330b2dbeb3d3fcc0414124686effa731eb2517f2e48d476c463892a0397c950",
}


# Their lengths, so that a list is built only when a file could hold it.
PINNED_LENGTHS = {
    "train-all-02": 25_086,
    "train-all-04": 12_538,
    "train-all-20": 2_500,
    "test-all-20": KAIST.test_images,
    "train-02": 22_554,
    "val-02": 2_532,
    "paired-8892": 8_892,
}


class PinnedListChanged(RuntimeError):
    """A list the kit builds or ships no longer has its pinned checksum: a defect of the kit."""


def list_sha256(frames: Iterable[str]) -> str:
    """The checksum of a frame list: sha256 of its names, one a line, each ending in a line feed."""
    digest = hashlib.sha256()
    for frame in frames:
        digest.update(frame.encode() + b"\n")
    return digest.hexdigest()


def all_frames() -> list[str]:
    """Every frame of KAIST, setXX/VYYY/IZZZZZ, in name order."""
    return [f"{video}/I{n:05d}" for video, count in VIDEO_FRAMES.items() for n in range(count)]


def video_of(frame: str) -> str:
    return frame[:10]


@functools.cache
def named_list(name: str) -> tuple[str, ...]:
    """The frames of a named list the kit knows in full, checked against its pinned checksum."""
    if name in ("train-02", "val-02"):
        held_out = set(VAL_02_VIDEOS)
        frames = [f for f in named_list("train-all-02") if (video_of(f) in held_out) == (name == "val-02")]
    elif name == "paired-8892":
        frames = read_text(ARCNN_LIST).splitlines()
    elif name in ("train-all-02", "train-all-04", "train-all-20", "test-all-20"):
        frames = standard_list(name, all_frames())
    else:
        raise KeyError(f"no list is pinned for {name!r}")
    found = list_sha256(frames)
    if found != PINNED_SHA256[name] or len(frames) != PINNED_LENGTHS[name]:
        raise PinnedListChanged(f"the list {name} built here has sha256 {found}, not the pinned {PINNED_SHA256[name]}")
    return tuple(frames)


def known_list_names() -> tuple[str, ...]:
    return tuple(PINNED_SHA256)


def frames_of_test_sets(frames: Iterable[str]) -> list[str]:
    """The frames of the test sets (set06-11) among ``frames``."""
    return [f for f in frames if set_of(f) in TEST_SETS]
