"""The named training sets: one `TrainingSet` spec each.

A spec says how many frames the set has, who published it, where its list of frames comes from, and
which annotation sources can give its boxes. The builder, `kaist-kit trainset --list` and the docs read
the specs, so that a new set is one new spec here (and its list in `lists` when the kit knows it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .lists import VAL_02_VIDEOS

# Kinds of annotation source (the converters' formats, and MBNet's cache).
MBNET_CACHE = "mbnet-cache"
SOURCE_KINDS = {
    "xml": "the official XML tree annotations-xml-new/ (or its archive)",
    "original": "the original bbGt text tree annotations/setXX/VYYY/IZZZZZ.txt",
    "sanitized": "the sanitized download (Li et al.): flat setXX_VYYY_IZZZZZ.txt files",
    "paired": "the KAIST-Paired download (Zhang et al.): setXX/VYYY/{visible,lwir}/IZZZZZ.txt",
    MBNET_CACHE: "MBNet's training cache kaist_train_data.npy (Zhou et al.)",
}
ORIGINAL_LABELS = ("xml", "original", "sanitized", "paired")


@dataclass(frozen=True)
class TrainingSet:
    """A published (or the kit's own) set of training or validation frames."""

    name: str
    frames: int  # distinct frames
    citation: str
    list_from: str  # where the list of frames comes from
    sources: tuple[str, ...]  # SOURCE_KINDS it accepts, the first the usual one
    boxes: str  # what its boxes are
    entries: int | None = None  # entries of its list, where frames repeat
    pinned: bool = True  # the kit knows its list (lists.named_list); else it comes from the source
    notes: dict[str, str] = field(default_factory=dict)  # said when built from that source kind

    @property
    def size(self) -> str:
        if self.entries and self.entries != self.frames:
            return f"{self.entries:,} entries, {self.frames:,} distinct frames"
        return f"{self.frames:,} frames"


_HELD_OUT = ", ".join(VAL_02_VIDEOS)
_OFFICIAL = "Hwang et al., CVPR 2015 (the official image-set list)"
_OFFICIAL_BOXES = "the labels of the source given: original (XML or bbGt tree), sanitized or paired"

SETS = {
    spec.name: spec
    for spec in (
        TrainingSet(
            "train-all-02",
            25_086,
            _OFFICIAL,
            "every second frame of the training videos (set00-05), by the official rule",
            ORIGINAL_LABELS,
            _OFFICIAL_BOXES,
        ),
        TrainingSet(
            "train-all-04",
            12_538,
            _OFFICIAL,
            "every fourth frame of the training videos, by the official rule",
            ORIGINAL_LABELS,
            _OFFICIAL_BOXES,
        ),
        TrainingSet(
            "train-all-20",
            2_500,
            _OFFICIAL,
            "every twentieth frame of the training videos, by the official rule",
            ORIGINAL_LABELS,
            _OFFICIAL_BOXES,
        ),
        TrainingSet(
            "train-02",
            22_554,
            "this kit: train-all-02 without the videos of val-02",
            f"train-all-02 less the frames of {_HELD_OUT}",
            ORIGINAL_LABELS,
            _OFFICIAL_BOXES,
        ),
        TrainingSet(
            "val-02",
            2_532,
            "this kit: whole training videos held out for validation",
            f"the train-all-02 frames of {_HELD_OUT}",
            ORIGINAL_LABELS,
            _OFFICIAL_BOXES,
        ),
        TrainingSet(
            "paired-8892",
            8_892,
            "Zhang et al., ICCV 2019 (AR-CNN, KAIST-Paired)",
            "AR-CNN's splits/trainval.txt (Apache-2.0), shipped with the kit",
            ("paired", "xml", "original"),
            "the paired labels, both boxes of each object kept (the lwir box as bbox)",
            notes={
                "xml": "these are the original labels, not the paired ones: for the paired labels give "
                "the KAIST-Paired download",
                "original": "these are the original labels, not the paired ones: for the paired labels "
                "give the KAIST-Paired download",
            },
        ),
        TrainingSet(
            "mbnet-8963",
            8_961,
            "Zhou et al., ECCV 2020 (MBNet)",
            "MBNet's training cache, in its order",
            (MBNET_CACHE,),
            "the cache's own: the mean of the paired visible and lwir boxes, and its ignore areas",
            entries=8_963,
            pinned=False,
        ),
        TrainingSet(
            "sanitized-7601",
            7_601,
            "Li et al., BMVC 2018 (MSDS-RCNN, sanitized training annotations)",
            "the frames of the sanitized download, checked against the count",
            ("sanitized",),
            "the sanitized labels",
            pinned=False,
        ),
    )
}
NAMES = tuple(SETS)

# MBNet's cache as its authors published it (CalayZhou/MBNet, commit 18674e3,
# data/cache/kaist_train_data.npy): the file itself, the frames of its entries in the cache's order
# (lists.list_sha256), and its distinct frames in name order.
MBNET_CACHE_SHA256 = "236ac8e3a7339e8e408d6a79089c423526dd6994239b0ab60802c1ab70f67b34"
MBNET_ENTRIES_SHA256 = "e09d3d75052b08e92afc103a36ae1f1f6d54a14e53658152f0e45d9b6b079a04"
MBNET_FRAMES_SHA256 = "e6d2b277f7ecb8d9b5184d6891f3ea6ca245ebbe06336b04cac39835fefa21e2"


def get_set(name: str) -> TrainingSet:
    from ..errors import InputError

    try:
        return SETS[name]
    except KeyError:
        raise InputError(
            f"no training set named {name!r}; the sets: {', '.join(NAMES)} (kaist-kit trainset --list)"
        ) from None
