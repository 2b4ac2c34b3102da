"""The `Benchmark` spec: what the kit knows of one RGB-T dataset (each dataset's is in its own module).

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Category:
    """A class: its id in the benchmark's COCO files, its name, and the names other files use for it."""

    id: int
    name: str
    aliases: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class FrameNames:
    """How a benchmark names its frames: a pattern that finds a frame's name in any text (a file name, a
    path, an image id), whose named groups give its parts, and the format that joins them into the kit's
    frame name."""

    pattern: re.Pattern[str]
    format: str


def numbered(digits: int, prefix: str = "") -> FrameNames:
    """Frames named by a number of ``digits`` digits after ``prefix`` (FLIR_01234, 012345), found wherever
    no letter or digit stands before the name (no digit, where the name starts with one) and no digit after it."""
    before = "[A-Za-z0-9]" if prefix else "[0-9]"
    return FrameNames(
        re.compile(rf"(?<!{before}){re.escape(prefix)}(?P<number>\d{{{digits}}})(?![0-9])"), prefix + "{number}"
    )


@dataclass(frozen=True)
class Modality:
    """One camera: its name in the kit, where its pictures lie (relative to the dataset's root, with
    the frame's named parts, ``{split}`` and ``{frame}`` as placeholders) and its frame size."""

    name: str
    picture: str
    size: tuple[int, int] | None  # width, height; None where sizes vary


def cameras(size: tuple[int, int] | None, **pictures: str) -> tuple[Modality, ...]:
    """The modalities of cameras that share a frame size (None where sizes vary), in the order given:
    each camera's name and where its pictures lie."""
    return tuple(Modality(name, picture, size) for name, picture in pictures.items())


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
class SynthLayout:
    """How a benchmark's synthetic set (`kaist_kit.datasets.synth`) differs from the others: its frame names,
    sizes, classes and files."""

    frame_name: Callable[[str, str, int, int], str]  # (split, period, index in the split, index overall)
    writer: Callable[..., dict]  # (root, benchmark, frames): writes the annotation files; boxes per label
    person: str = "person"  # a pedestrian's label
    cyclist: str = "person"  # a cyclist's label, or "rider and bicycle": two boxes
    uncertain_people: bool = False  # people the annotators were unsure of, kept as not mandatory
    vehicles: dict = field(default_factory=dict)  # vehicle kind -> its label; none drawn where empty
    vehicle_kinds: bool = False  # buses, trucks and motorcycles drawn as such, else every vehicle a car
    lamps: bool = False  # street lamps (else the odd dog, which the benchmark's readers drop)
    small_size: tuple[int, int] | None = None  # every fourth frame's size, where the dataset mixes sizes


@dataclass(frozen=True)
class Deferred:
    """A function named by its module and name ('package.module:function'), imported when first called.

    A dataset's adapter functions are held by its spec, but the modules that hold them may import the spec's
    own module (KAIST's readers, which take KAIST as their default benchmark): importing them when the
    spec is declared would be an import cycle."""

    target: str

    def __call__(self, *args, **kwargs):
        from importlib import import_module

        module, _, name = self.target.partition(":")
        return getattr(import_module(module), name)(*args, **kwargs)


@dataclass(frozen=True)
class PinnedRules:
    """How a pinned ground truth is found, read and fetched where its dataset keeps rules of its own
    (KAIST's leaderboard file, `kaist_kit.datasets.kaist_truth`: named by its variable or in the cache, a
    changed cache refused rather than replaced, its own messages). Elsewhere `kaist_kit.datasets.pinned`'s
    rules hold: a cached file that is not the pinned one is downloaded again."""

    find: Callable[..., Any]  # (echo, progress) -> the path of the ground truth the verbs use by default
    read: Callable[..., Any]  # (path) -> its GroundTruth, a changed cache refused
    fetch: Callable[..., Any]  # (folder or None, echo, progress) -> the lines `kaist-kit fetch` says


@dataclass(frozen=True)
class DataChecks:
    """A dataset's own checks of a data root (`kaist-kit check-data`), where it has more to check than its
    boxes and pictures (KAIST's, `kaist_kit.tools.datacheck`: its named training sets, the frames of its
    test sets, videos shared by training and validation)."""

    # (annotation check, its parsed file, the data check, the pictures wanted): one file read and judged.
    annotations: Callable[..., Any]
    # (data check, its training and validation annotation checks): what they share that they should not.
    roles: Callable[..., Any]


@dataclass(frozen=True)
class Benchmark:
    """Everything the kit knows about one dataset (see the module's docstring)."""

    name: str  # the name of --benchmark
    title: str
    frames: FrameNames
    modalities: tuple[Modality, ...]
    annotation_format: str  # 'kaist', 'voc', 'cvc-14' or 'coco'
    annotation_path: str  # where a frame's annotation file lies, relative to the root
    splits: tuple[Split, ...]
    metrics: tuple[str, ...]  # what its papers report, in the order they do
    protocols: tuple[str, ...]  # how; the first is the kit's default
    citation: Citation
    download: str  # where a user downloads the dataset
    licence: str
    categories: tuple[Category, ...] = (Category(1, "person"),)  # a pedestrian benchmark's one class unless said
    default_split: str = "test"  # the split a paper's table reports
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
    # How its numbers are reported (`kaist_kit.scoring.run.LAYOUTS`): "classes", a table per protocol
    # and split with a row per class; "splits", KAIST's miss-rate tables with splits as columns, curves,
    # bootstrap intervals and the full diagnosis.
    layout: str = "classes"
    aliases: tuple[str, ...] = ()  # other names --benchmark accepts ('flir' for 'flir-aligned')
    # The mmengine metric that scores it in training and `kaist-kit test` (`kaist_kit.models.metric`).
    mmengine_metric: str = "BenchmarkMetric"
    # Its pinned ground truth's own rules, where the dataset keeps some (KAIST's leaderboard file), else
    # those of `kaist_kit.datasets.pinned`.
    pinned_rules: PinnedRules | None = None
    # The folder under a data root that holds its pictures in the kit's layout (KAIST's images/).
    pictures_folder: str = ""
    # Where its annotation files say a box's x, y may lie ('centre', 'corner'; CVC-14's files are read
    # either way, --origin): the first is the default. Empty where a box's corner is all it can be.
    box_origins: tuple[str, ...] = ()
    # What the kit says of a ground truth of it it reads (LLVIP's annotation release): (ground truth) ->
    # notes, where the dataset has such a quirk.
    truth_notes: Callable[..., list[str]] | None = None
    # Its native annotation files' reader, where the kit reads its dataset's folder (`--gt FOLDER`):
    # (root, split, **options) -> GroundTruth.
    read_native: Callable[..., Any] | None = None
    # The list file of each named split that is a list of frames, as the dataset keeps it (FLIR-aligned's
    # in its align/ folder, M3FD's public lists under meta/): its reader, its conversion and its synthetic
    # set read and write these.
    split_lists: Mapping[str, str] = field(default_factory=dict)
    # How `kaist-kit synth --benchmark` draws and writes a synthetic set of it, where it can.
    synth: SynthLayout | None = None
    # A synthetic set drawn by a generator of the dataset's own instead (KAIST's, `kaist_kit.tools.synth`:
    # every annotation format, the image-set lists, and on request the real files' defects): (out,
    # `kaist_kit.datasets.synth.BenchmarkSynthConfig`, quirks, progress) -> a summary whose `counts` are
    # its boxes per label.
    own_synth: Callable[..., Any] | None = None
    # Its own checks of a data root, where the dataset has more to check than its boxes and pictures.
    own_checks: DataChecks | None = None
    # Its own drawing of frames, where it draws them as its community does (KAIST's labels, its picture
    # tree and flat files; `kaist_kit.output.show.show_frames`): as `show_benchmark_frames`.
    own_drawing: Callable[..., Any] | None = None

    @property
    def owner(self) -> str:
        """How the kit's messages name whose a file is: the title and a space, '' for the default benchmark."""
        return "" if self.quiet else f"{self.title} "

    @property
    def option(self) -> str:
        """The --benchmark option that names it on a command line, '' for the default benchmark."""
        return "" if self.quiet else f" --benchmark {self.name}"

    def frame(self, text: str) -> str | None:
        """The benchmark's name of the frame that ``text`` names (a path, a file name, an image id)."""
        match = self.frames.pattern.search(str(text).replace("\\", "/"))
        return self.frames.format.format(**_parts(match)) if match else None

    def frame_parts(self, frame: str) -> dict[str, str]:
        match = self.frames.pattern.fullmatch(frame) or self.frames.pattern.search(frame)
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
    def image_size(self) -> tuple[int, int] | None:
        """The frame size of every picture: the size its modalities give (a modality whose sizes vary
        aside); None where none gives one, or they differ."""
        sizes = {m.size for m in self.modalities if m.size is not None}
        return sizes.pop() if len(sizes) == 1 else None

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


# A COCO ground truth of no benchmark the kit knows, read by COCO's rules with its classes, names and
# scene codes as written (the library's reading of any COCO file; not a --benchmark).
UNNAMED = Benchmark(
    name="unnamed",
    title="a COCO file",
    frames=FrameNames(re.compile(r"(?!)"), ""),
    modalities=(),
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
