"""The RGB-T benchmarks the kit knows: one `Benchmark` spec each, all in one place.

A spec says everything about a dataset that the verbs need and that is otherwise scattered: how its
frames are named and where their files lie, the frame size, the classes and their ids, the named
splits (periods, scenes, train / test lists), which boxes are ignore regions and how close to the
border a box may lie, the metrics and protocols its papers report, the ground truth the kit can
fetch (pinned by size and MD5), and how to cite it. Every rule cites its source; the sources are
listed in docs/benchmarks-other.md.

The module is plain data and imports nothing of the kit, so that any module can read it (the frame
names, the settings, the submission checks, the dataset of the configs).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from .metrics.spec import AP, AP50, AP75, LAMR


@dataclass(frozen=True)
class Category:
    """A class: its id in the benchmark's COCO files, its name, and the names other files use for it."""

    id: int
    name: str
    aliases: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class Modality:
    """One camera: its name in the kit, where its pictures lie (relative to the dataset's root, with
    the frame's named parts, ``{split}`` and ``{frame}`` as placeholders) and its frame size."""

    name: str
    picture: str
    size: tuple[int, int] | None  # width, height; None where sizes vary


@dataclass(frozen=True)
class Split:
    """A named subset of the images: a split (train / test) or a part of one (day, a scene)."""

    name: str
    description: str
    images: int | None = None  # how many images it holds in the full dataset, where fixed
    boxes: int | None = None  # how many boxes, where the dataset's authors say


@dataclass(frozen=True)
class PinnedFile:
    """A public ground-truth file the kit may download: only these exact bytes are kept."""

    filename: str  # its name in the kit's cache
    url: str
    size: int
    md5: str
    attribution: str  # what it is, whose, under which licence: said when it is downloaded
    env: str = ""  # a variable naming a local copy instead
    url_env: str = ""  # a variable naming a mirror (which must serve the same bytes)
    tag: str = ""  # how a ground truth that is this file is described, where the kit says so


@dataclass(frozen=True)
class Citation:
    authors: str
    title: str
    venue: str
    year: int
    bibtex_key: str

    def text(self) -> str:
        return f'{self.authors}, "{self.title}", {self.venue}, {self.year}'


@dataclass(frozen=True)
class TruthRules:
    """How a COCO ground truth of a benchmark is read: the conventions of the files its community uses.

    KAIST's (the leaderboard's file and the kit's conversions) and COCO's (the other benchmarks'
    conversions) differ in a few rules, each a field here; the one reader
    (`kaist_kit.data.groundtruth`) reads every benchmark's files by its rules."""

    integer_ids: bool  # image ids are integers (else integers or strings, not both)
    # Every box is of the benchmark's one class, a pedestrian unless flagged ignore: the file's
    # categories only name its labels, and may be absent (else the file lists the classes it scores,
    # and a box of an unlisted class is left out, as COCO's evaluator leaves it).
    one_class: bool
    columns: tuple[str, ...]  # the per-box columns read besides the box: 'height', 'occlusion', 'area'
    # An image's width or height that is not a positive number is refused (else read as unknown).
    sizes_checked: bool
    first_id: int  # the id a box without one is given: its position counted from this
    # A box without a label, flagged ignore and of the one class, is labelled 'ignore' (its real label
    # was lost, as in the leaderboard's file).
    ignore_label: bool
    # What the reader says about what it assumed or dropped (boxes without area or id, crowd regions).
    notes: bool


KAIST_RULES = TruthRules(
    integer_ids=True,
    one_class=True,
    columns=("height", "occlusion"),
    sizes_checked=True,
    first_id=0,
    ignore_label=True,
    notes=False,
)
COCO_RULES = TruthRules(
    integer_ids=False,
    one_class=False,
    columns=("area",),
    sizes_checked=False,
    first_id=1,
    ignore_label=False,
    notes=True,
)


@dataclass(frozen=True)
class Benchmark:
    """Everything the kit knows about one dataset (see the module's docstring)."""

    name: str  # the name of --benchmark
    title: str
    # A frame's name found in any text (a file name, a path, an image id): named groups give its parts,
    # `frame_format` joins them into the kit's frame name.
    frame_pattern: re.Pattern[str]
    frame_format: str
    modalities: tuple[Modality, ...]
    image_size: tuple[int, int] | None  # the frame size of every picture; None where sizes vary
    annotation_format: str  # 'kaist', 'voc', 'cvc-14' or 'coco'
    annotation_path: str  # where a frame's annotation file lies, relative to the root
    categories: tuple[Category, ...]
    splits: tuple[Split, ...]
    default_split: str  # the split a paper's table reports
    metrics: tuple[str, ...]  # what its papers report, in the order they do
    protocols: tuple[str, ...]  # how; the first is the kit's default
    citation: Citation
    download: str  # where a user downloads the dataset
    licence: str
    # Labels of boxes that are ignore regions (counted neither as hits nor as misses), and labels
    # that are left out, each with the reason given when they are dropped.
    ignore_labels: frozenset[str] = frozenset()
    dropped_labels: Mapping[str, str] = field(default_factory=dict)
    border: float = 5.0  # LAMR: a box closer than this to the frame's border is ignored
    lamr_settings: tuple[str, ...] = ()  # the LAMR settings its papers report
    # VOC boxes: 'pascal' reads xmin, ymin as 1-based inclusive pixels (x = xmin - 1, w = xmax - xmin + 1),
    # as the COCO conversions in circulation do; 'as-written' reads x = xmin, w = xmax - xmin.
    voc_boxes: str = "as-written"
    # The `scene` codes of the COCO conversions in circulation, and the splits they name.
    scene_codes: Mapping[int, str] = field(default_factory=dict)
    # The folder names of the splits where they are not the split's name (CVC-14's NewTest).
    split_folders: Mapping[str, str] = field(default_factory=dict)
    ground_truth: PinnedFile | None = None
    notes: tuple[str, ...] = ()
    # A frame's name as flat files spell it, where the dataset has such files (KAIST's per-image
    # results and sanitized annotations: setXX_VYYY_IZZZZZ.txt).
    flat_pattern: re.Pattern[str] | None = None
    # Every label its annotation files write (KAIST's: bbGt's, then those of the paired annotations).
    labels: tuple[str, ...] = ()
    truth_rules: TruthRules = COCO_RULES  # how its COCO ground truths are read
    # The period ('day', 'night' or '') a frame's name gives, where its names say (KAIST's sets).
    period_of_frame: Callable[[str], str] | None = None
    # How a named split selects images, where the benchmark's names say more than the images' tags
    # (KAIST: scenes and sets from the frame names): (split, image names, image periods) -> (I,) bool
    # mask; raises ValueError for a name it does not know, LookupError for a split it cannot form.
    select: Callable[..., Any] | None = None
    # The kit's default benchmark: its output names no benchmark (KAIST's, as it always was).
    quiet: bool = False
    # How its numbers are reported (`kaist_kit.benchmark_scoring.LAYOUTS`): "classes", a table per protocol
    # and split with a row per class; "splits", KAIST's miss-rate tables with splits as columns, curves,
    # bootstrap intervals and the full diagnosis.
    layout: str = "classes"

    def frame(self, text: str) -> str | None:
        """The benchmark's name of the frame that ``text`` names (a path, a file name, an image id)."""
        match = self.frame_pattern.search(str(text).replace("\\", "/"))
        return self.frame_format.format(**_parts(match)) if match else None

    def frame_parts(self, frame: str) -> dict[str, str]:
        match = self.frame_pattern.fullmatch(frame) or self.frame_pattern.search(frame)
        if match is None:
            raise ValueError(f"{frame!r} is not a {self.title} frame name")
        return _parts(match)

    def picture_path(self, modality: str, frame: str, split: str = "") -> str:
        """Where ``frame``'s picture of ``modality`` lies, relative to the dataset's root."""
        template = self.modality(modality).picture
        return template.format(frame=frame, split=self.split_folders.get(split, split), **self.frame_parts(frame))

    def annotation_file(self, frame: str, split: str = "") -> str:
        return self.annotation_path.format(
            frame=frame, split=self.split_folders.get(split, split), **self.frame_parts(frame)
        )

    def period_of(self, frame: str) -> str:
        """'day', 'night' or '': the period a frame's name gives."""
        return self.period_of_frame(frame) if self.period_of_frame is not None and frame else ""

    def modality(self, name: str) -> Modality:
        for modality in self.modalities:
            if modality.name == name:
                return modality
        raise ValueError(f"{self.title} has no modality {name!r}; it has {', '.join(m.name for m in self.modalities)}")

    def category(self, name_or_id: str | int) -> Category:
        """The class of an id or a name (an alias included, any case)."""
        for category in self.categories:
            if isinstance(name_or_id, int) and not isinstance(name_or_id, bool):
                if category.id == name_or_id:
                    return category
            elif str(name_or_id).lower() in (n.lower() for n in category.names()):
                return category
        raise KeyError(name_or_id)

    def split(self, name: str) -> Split:
        for split in self.splits:
            if split.name == name:
                return split
        raise ValueError(f"unknown {self.title} split {name!r}; choose from {', '.join(s.name for s in self.splits)}")

    @property
    def class_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.categories)

    @property
    def test_images(self) -> int | None:
        """The number of images of the split its papers report."""
        return self.split(self.default_split).images


def _parts(match: re.Match) -> dict[str, str]:
    """A frame's named parts; a period is written as the dataset's folders write it ('Day', 'Night')."""
    parts = match.groupdict()
    if "period" in parts:
        parts["period"] = parts["period"].capitalize()
    return parts


# ------------------------------------------------------------------------------------------------
# KAIST (Hwang et al., CVPR 2015)

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
    frame_pattern=re.compile(
        rf"(?P<set>{KAIST_SET})[/_](?P<video>{KAIST_VIDEO})[/_](?:(?:visible|lwir)/)?"
        rf"(?P<image>{KAIST_IMAGE})"
    ),
    frame_format="{set}/{video}/{image}",
    modalities=(
        Modality("visible", "images/{set}/{video}/visible/{image}.jpg", (640, 512)),
        Modality("lwir", "images/{set}/{video}/lwir/{image}.jpg", (640, 512)),
    ),
    # Every frame, visible and lwir, is 640 x 512 (the often quoted 640 x 480 is wrong).
    image_size=(640, 512),
    annotation_format="kaist",
    annotation_path="annotations-xml-new/{set}/{video}/{image}.xml",
    categories=(Category(1, "person"),),
    truth_rules=KAIST_RULES,
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
    default_split="test",
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


# ------------------------------------------------------------------------------------------------
# FLIR-aligned (Zhang et al., ICIP 2020): the FLIR ADAS v1 frames whose colour and thermal pictures
# Zhang et al. registered, with the thermal frames' VOC annotations.

FLIR_ALIGNED = Benchmark(
    name="flir-aligned",
    title="FLIR-aligned",
    frame_pattern=re.compile(r"(?<![A-Za-z0-9])FLIR_(?P<number>\d{5})(?!\d)"),
    frame_format="FLIR_{number}",
    modalities=(
        Modality("visible", "align/JPEGImages/FLIR_{number}_RGB.jpg", (640, 512)),
        Modality("thermal", "align/JPEGImages/FLIR_{number}_PreviewData.jpeg", (640, 512)),
    ),
    image_size=(640, 512),
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
    default_split="test",
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


# ------------------------------------------------------------------------------------------------
# LLVIP (Jia et al., ICCVW 2021)

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


# ------------------------------------------------------------------------------------------------
# CVC-14 (González et al., Sensors 2016)

CVC14 = Benchmark(
    name="cvc-14",
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
    ignore_labels=frozenset({"person?"}),  # the kit's label of a box whose 'mandatory' field is 0
    split_folders={"train": "Train", "test": "NewTest", "day": "NewTest", "night": "NewTest"},
    lamr_settings=("reasonable",),
    notes=(
        "Lines are 'x y w h mandatory 0 0 0 0 track_id 0'; tools disagree whether x, y is the box's centre "
        "or its top-left corner (the kit reads the centre by default, as MS-DETR does, and says so when the "
        "other reading matches the detections far better).",
    ),
)


# ------------------------------------------------------------------------------------------------
# M3FD (Liu et al., CVPR 2022)

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


# A COCO ground truth of no benchmark the kit knows, read by COCO's rules with its classes, names and
# scene codes as written (the library's reading of any COCO file; not a --benchmark).
UNNAMED = Benchmark(
    name="unnamed",
    title="a COCO file",
    frame_pattern=re.compile(r"(?!)"),
    frame_format="",
    modalities=(),
    image_size=None,
    annotation_format="coco",
    annotation_path="",
    categories=(),
    splits=(),
    default_split="all",
    metrics=(),
    protocols=("coco",),
    citation=Citation("", "", "", 0, ""),
    download="",
    licence="",
    quiet=True,
)

BENCHMARKS: Mapping[str, Benchmark] = MappingProxyType({b.name: b for b in (KAIST, FLIR_ALIGNED, LLVIP, CVC14, M3FD)})
DEFAULT_BENCHMARK = KAIST


def get_benchmark(name: str | Benchmark) -> Benchmark:
    """A benchmark by name ('flir' and 'cvc14' are read as 'flir-aligned' and 'cvc-14')."""
    if isinstance(name, Benchmark):
        return name
    key = {"flir": "flir-aligned", "cvc14": "cvc-14"}.get(name.lower(), name.lower())
    try:
        return BENCHMARKS[key]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}; choose from {', '.join(BENCHMARKS)}") from None


@dataclass(frozen=True)
class Recognition:
    """Which benchmark a ground truth is, and why the kit thinks so (said in the output)."""

    benchmark: Benchmark
    reason: str


def recognise(
    image_names: Iterable[str], category_names: Iterable[str] = (), md5: str | None = None
) -> Recognition | None:
    """The benchmark a ground truth belongs to, from its MD5 (a pinned file), else from what its
    images are called (most must be frame names of one benchmark) and its classes; None when unsure."""
    if md5:
        for benchmark in BENCHMARKS.values():
            if benchmark.ground_truth is not None and benchmark.ground_truth.md5 == md5:
                return Recognition(benchmark, f"the pinned file {benchmark.ground_truth.filename}")
    names = [str(n) for n in image_names]
    if not names:
        return None
    classes = {str(c).lower() for c in category_names}
    # KAIST, FLIR-aligned and CVC-14 names are distinctive, and tried first: a KAIST name also holds
    # five digits. LLVIP's six-digit names and M3FD's five-digit ones exclude each other.
    for benchmark in (KAIST, FLIR_ALIGNED, CVC14, LLVIP, M3FD):
        named = sum(benchmark.frame(n) is not None for n in names)
        known = {n.lower() for c in benchmark.categories for n in c.names()} | set(benchmark.ignore_labels)
        if named * 10 >= len(names) * 9 and classes <= known | {"__ignore__", "ignore"}:
            return Recognition(benchmark, f"its image names are {benchmark.title} frame names")
    return None
