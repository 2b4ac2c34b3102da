"""The annotation formats `kaist-kit convert` reads: one `SourceFormat` spec each.

A spec says where the format keeps its files (its `Layout`), which parser reads them, what a file
is named, and which problems a conversion can report. The engine, the CLI's choices and its help
read the specs, so that a new format is one new spec here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from . import bbgt, kaist_xml, paired
from .problems import LOCATING


@dataclass(frozen=True)
class Layout:
    """Where a format keeps the frame setXX/VYYY/IZZZZZ."""

    # What the folder holding a file must end with, its groups giving the set and the video (and the
    # modality); None: files may sit in any folder, their name gives the whole frame.
    folder: re.Pattern[str] | None
    name: re.Pattern[str]  # what a file must be named; its groups give the frame (or its last part)
    per_modality: bool = False  # one file per modality, in visible/ and lwir/ folders


# Parses one chunk of frames: (frames, {path: bytes}, path -> its name in messages, problems,
# options) -> (the frames kept, their objects as columns); see bbgt.parse_bbgt_files.
Parser = Callable[..., tuple]


@dataclass(frozen=True)
class SourceFormat:
    """One annotation format."""

    name: str
    help: str  # what a source of this format holds, one line for --help
    layout: Layout
    parse: Parser
    example: str  # a file of the format, as it is named
    problems: frozenset[str]  # the kinds of problem a conversion can report


_TREE = re.compile(r"(?:^|/)(set\d\d)/(V\d\d\d)$")
_FLAT = re.compile(r"(set\d\d)_(V\d\d\d)_(I\d{5})\.txt")

SOURCE_FORMATS = {spec.name: spec for spec in (
    SourceFormat("original", "the bbGt text tree annotations/setXX/VYYY/IZZZZZ.txt",
                 Layout(_TREE, re.compile(r"(I\d{5})\.txt")), bbgt.parse_bbgt_files,
                 "set06/V000/I00019.txt", bbgt.PROBLEMS | LOCATING),
    SourceFormat("xml", "the official XML tree annotations-xml-new/setXX/VYYY/IZZZZZ.xml",
                 Layout(_TREE, re.compile(r"(I\d{5})\.xml")), kaist_xml.parse_xml_files,
                 "set06/V000/I00019.xml", kaist_xml.PROBLEMS | LOCATING),
    SourceFormat("sanitized", "flat setXX_VYYY_IZZZZZ.txt bbGt files of training frames (Li et al.)",
                 Layout(None, _FLAT), bbgt.parse_bbgt_files, "set00_V000_I00001.txt", bbgt.PROBLEMS | LOCATING),
    SourceFormat("paired", "setXX/VYYY/visible/IZZZZZ.txt and setXX/VYYY/lwir/IZZZZZ.txt (Zhang et al.)",
                 Layout(re.compile(r"(?:^|/)(set\d\d)/(V\d\d\d)/(visible|lwir)$"), re.compile(r"(I\d{5})\.txt"),
                        per_modality=True), paired.parse_paired_files,
                 "set00/V000/visible/I00001.txt and set00/V000/lwir/I00001.txt", paired.PROBLEMS | LOCATING),
    SourceFormat("improved", "flat setXX_VYYY_IZZZZZ.txt bbGt files of test frames (Liu et al.)",
                 Layout(None, _FLAT), bbgt.parse_bbgt_files, "set06_V000_I00019.txt", bbgt.PROBLEMS | LOCATING),
)}
FORMATS = tuple(SOURCE_FORMATS)
