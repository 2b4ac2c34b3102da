"""The annotation formats `kaist-kit convert` reads: one `SourceFormat` spec each.

A spec says where the format keeps its files (its `Layout`), which parser reads them, what a file
is named, which problems a conversion can report, and how to recognise its files: what their text
reads as and which KAIST sets their frames come from. The engine, the CLI's choices and its help read
the specs, so that a new format is one new spec here.

Files that sit where annotation files do but are something else (`LOOK_ALIKES`) are described the
same way, so that a source given as the wrong format can be named for what it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from kaist_kit.datasets import KAIST, KAIST_IMAGE, KAIST_SET, KAIST_SETS, KAIST_TEST_SETS, KAIST_VIDEO, Benchmark
from kaist_kit.io.text import is_number, text_lines

from . import bbgt, kaist_xml, paired
from .problems import LOCATING


@dataclass(frozen=True)
class Layout:
    """Where a format keeps the frame setXX/VYYY/IZZZZZ (another benchmark's frames: see ``frame``)."""

    # What the folder holding a file must end with, its groups giving the set and the video (and the
    # modality); None: files may sit in any folder, their name gives the whole frame.
    folder: re.Pattern[str] | None
    name: re.Pattern[str]  # what a file must be named; its groups give the frame (or its last part)
    per_modality: bool = False  # one file per modality, in visible/ and lwir/ folders
    # Another benchmark's frame name, from the named groups of the folder's and the file's matches
    # ('{period}/{stem}'); None: KAIST's setXX/VYYY/IZZZZZ from the groups in order.
    frame: str | None = None
    # Whether files named as the format names them may also lie in the source's own folder (a source
    # given as the annotation folder itself), whatever its name; other files there are not noted.
    flat_root: bool = False

    def frame_of(self, folder: re.Match | None, name: re.Match) -> str:
        """The frame a file names, by ``frame`` (another benchmark's layout)."""
        return self.frame.format(**(folder.groupdict() if folder else {}), **name.groupdict())


@dataclass(frozen=True)
class Sets:
    """The KAIST sets a kind of file covers."""

    name: str
    numbers: frozenset[int]


EVERY_SET = Sets("every set", KAIST_SETS)
TRAINING_SETS = Sets("the training sets, set00-05", KAIST_SETS - KAIST_TEST_SETS)
TEST_SETS = Sets("the test sets, set06-11", KAIST_TEST_SETS)

# Parses one chunk of frames: (frames, {path: bytes}, path -> its name in messages, problems,
# options) -> (the frames kept, their objects); see bbgt.parse_bbgt_files.
Parser = Callable[..., tuple]
# Whether a file's text reads as a kind of file; None when it cannot tell (an empty file).
Reader = Callable[[str], "bool | None"]


@dataclass(frozen=True)
class SourceFormat:
    """One annotation format."""

    name: str
    help: str  # what a source of this format holds, one line for --help
    layout: Layout | None  # None: one file, read whole by `parse(path, benchmark, split, problems)`
    parse: Parser
    example: str  # a file of the format, as it is named
    problems: frozenset[str]  # the kinds of problem a conversion can report
    reads: Reader  # whether a file's text reads as this format's
    sets: Sets = EVERY_SET  # the sets whose frames files of this format describe
    benchmark: Benchmark = KAIST  # the dataset whose annotations these are
    # Another benchmark's frames of a split: (source, {frame: file}, split or None, problems) ->
    # (the list's name, the frames in order, the source's list files read); None: KAIST's image sets.
    choose: Callable[..., tuple] | None = None
    # Where the files of a split lie, when the split is a folder of its own (CVC-14's Train, NewTest).
    split_layout: Callable[[str | None], Layout] | None = None
    # What the output's info says of how the files were read (a box convention), from the options.
    conventions: Callable[..., dict] | None = None

    @property
    def what(self) -> str:
        sets = f" (frames of {self.sets.name})" if self.sets is not EVERY_SET else ""
        return f"{self.benchmark.owner}{self.name} annotations{sets}"

    @property
    def advice(self) -> str:
        return f"convert them with `kaist-kit convert {self.name}{self.benchmark.option}`"

    def for_split(self, split: str | None) -> SourceFormat:
        """The format with the layout of ``split``'s files (itself where a split is no folder)."""
        return replace(self, layout=self.split_layout(split)) if self.split_layout else self


@dataclass(frozen=True)
class LookAlike:
    """Files that sit where annotation files do but are something else."""

    what: str
    advice: str  # what to do with them instead
    layout: Layout
    reads: Reader
    sets: Sets = EVERY_SET


# The KAIST spec's frame-name parts: a video's folder setXX/VYYY, a frame's file IZZZZZ, flat names.
_TREE = re.compile(rf"(?:^|/)({KAIST_SET})/({KAIST_VIDEO})$")
_FLAT = re.compile(KAIST.flat_pattern.pattern + r"\.txt")
_FLAT_LAYOUT = Layout(None, _FLAT)

SOURCE_FORMATS = {
    spec.name: spec
    for spec in (
        SourceFormat(
            "original",
            "the bbGt text tree annotations/setXX/VYYY/IZZZZZ.txt",
            Layout(_TREE, re.compile(rf"({KAIST_IMAGE})\.txt")),
            bbgt.parse_bbgt_files,
            "set06/V000/I00019.txt",
            bbgt.PROBLEMS | LOCATING,
            bbgt.reads_as_bbgt,
        ),
        SourceFormat(
            "xml",
            "the official XML tree annotations-xml-new/setXX/VYYY/IZZZZZ.xml",
            Layout(_TREE, re.compile(rf"({KAIST_IMAGE})\.xml")),
            kaist_xml.parse_xml_files,
            "set06/V000/I00019.xml",
            kaist_xml.PROBLEMS | LOCATING,
            kaist_xml.reads_as_xml,
        ),
        SourceFormat(
            "sanitized",
            "flat setXX_VYYY_IZZZZZ.txt bbGt files of training frames (Li et al.)",
            _FLAT_LAYOUT,
            bbgt.parse_bbgt_files,
            "set00_V000_I00001.txt",
            bbgt.PROBLEMS | LOCATING,
            bbgt.reads_as_bbgt,
            TRAINING_SETS,
        ),
        SourceFormat(
            "paired",
            "setXX/VYYY/visible/IZZZZZ.txt and setXX/VYYY/lwir/IZZZZZ.txt (Zhang et al.)",
            Layout(
                re.compile(rf"(?:^|/)({KAIST_SET})/({KAIST_VIDEO})/(visible|lwir)$"),
                re.compile(rf"({KAIST_IMAGE})\.txt"),
                per_modality=True,
            ),
            paired.parse_paired_files,
            "set00/V000/visible/I00001.txt and set00/V000/lwir/I00001.txt",
            paired.PROBLEMS | LOCATING,
            bbgt.reads_as_bbgt,
        ),
        SourceFormat(
            "improved",
            "flat setXX_VYYY_IZZZZZ.txt bbGt files of test frames (Liu et al.)",
            _FLAT_LAYOUT,
            bbgt.parse_bbgt_files,
            "set06_V000_I00019.txt",
            bbgt.PROBLEMS | LOCATING,
            bbgt.reads_as_bbgt,
            TEST_SETS,
        ),
    )
}
FORMATS = tuple(SOURCE_FORMATS)


def _reads_as_detections(text: str) -> bool | None:
    rows = [line.split() for line in text_lines(text) if line.split()]
    if not rows:
        return None
    return all(len(row) == 6 and all(map(is_number, row[1:])) for row in rows)


LOOK_ALIKES = (
    LookAlike(
        "per-image detection results (label x1 y1 x2 y2 score)",
        "score them with `kaist-kit eval`",
        _FLAT_LAYOUT,
        _reads_as_detections,
    ),
)


def resembles(kind: SourceFormat | LookAlike, frames: list[str], texts: list[str]) -> bool:
    """Whether files (a sample: their frames, setXX/VYYY/IZZZZZ, and their texts) look like ``kind``:
    most of those that are not empty read as it, and most of their frames are of its sets."""
    votes = [vote for vote in map(kind.reads, texts) if vote is not None]
    in_sets = len(frames) if kind.sets is EVERY_SET else sum(set_number(frame) in kind.sets.numbers for frame in frames)
    return sum(votes) * 2 > len(votes) > 0 and in_sets * 2 > len(frames)


def set_number(frame: str) -> int:
    """The set of a frame setXX/VYYY/IZZZZZ."""
    return int(frame[3:5])
