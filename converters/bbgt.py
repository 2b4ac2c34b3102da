"""Piotr Dollár's bbGt text format, versions 0 to 3, as KAIST's annotation files use it.

    % bbGt version=3
    person 505 212 20 50 0 0 0 0 0 0 0

One object a line: ``label x y w h`` then, by version, ``occ vx vy vw vh`` (1+), ``ign`` (2+) and
``ang`` (3). Boxes are copied verbatim (no +1, no clipping), as every evaluator does.

A file reads as a plain reader reads it, or is refused: lines end at a line feed, a carriage return
or both (nothing else: a form feed or U+2028 is blank space within a line, as for str.split), the
fields of a line are what str.split() gives, numbers what float() reads, and the header is the first
line with a field, read with its blank space made single spaces. tests/test_bbgt_differential.py
compares the reader with such a reader on mutations of the real files.
"""

from __future__ import annotations

import math
import re

from kaist_kit.datasets import KAIST
from kaist_kit.io.text import is_number, text_lines

from .problems import Problems
from .records import AnnotatedObject, FrameColumns, ObjectColumns, ParseOptions
from .sources import text_of

# The header, once its blank space is made single spaces (see `header_version`).
HEADER = re.compile(r"% ?bbGt version ?= ?([0-9]{1,9})")
NUMBERS_PER_VERSION = {0: 4, 1: 9, 2: 10, 3: 11}
KNOWN_LABELS = set(KAIST.labels)
PROBLEMS = frozenset(
    {
        "empty file",
        "malformed file",
        "missing header",
        "malformed line",
        "zero-size box",
        "negative-size box",
        "unknown label",
    }
)


def reads_as_bbgt(text: str) -> bool | None:
    """Whether a file's text reads as bbGt (its header, or objects with the numbers of some version);
    None for a file with nothing in it."""
    lines = [line for line in text_lines(text) if line.split()]
    if not lines:
        return None
    if header_version(lines[0]) is not None:
        return True
    rows = [line.split() for line in lines if not line.startswith("%")]
    return all(len(row) - 1 in NUMBERS_PER_VERSION.values() and all(map(is_number, row[1:])) for row in rows)


def header_version(line: str) -> int | None:
    """The version a '% bbGt version=N' header line gives; None for any other line."""
    match = HEADER.fullmatch(" ".join(line.split()))
    return None if match is None else int(match[1])


class BadFile(Exception):
    """The file cannot be read as a whole; the frame is left out."""


def number(token: str) -> int | float:
    """An int for an integer token (so output keeps 505, not 505.0), else a float."""
    try:
        return int(token)
    except ValueError:
        return float(token)


def parse_bbgt_files(
    frames: list[tuple[int, str, str]], contents: dict[str, bytes], display, problems: Problems, options: ParseOptions
) -> tuple[FrameColumns, ObjectColumns]:
    """Frames with one bbGt file each, given as (image id, frame name, path), read from ``contents``
    ({path: bytes}); ``display(path)`` names a file in messages. See `collect_frames`."""
    return collect_frames(frames, lambda rel: parse_bbgt(text_of(contents[rel]), display(rel), problems), options)


def collect_frames(frames: list[tuple], objects_of, options: ParseOptions) -> tuple[FrameColumns, ObjectColumns]:
    """The frames kept and their objects. ``objects_of(files)`` gives the objects of a frame's files,
    or raises `BadFile` to leave the frame out."""
    kept: list[tuple[int, str, int, int]] = []
    rows: list[tuple[int, AnnotatedObject]] = []
    for image_id, name, files in frames:
        try:
            objects = objects_of(files)
        except BadFile:
            continue
        kept.append((image_id, name, *options.image_size))
        rows.extend(zip([image_id] * len(objects), objects))
    return FrameColumns.of(kept), ObjectColumns.of(rows)


def parse_bbgt(text: str, path: str, problems: Problems, keep_empty: bool = False) -> list[AnnotatedObject]:
    """The objects of one bbGt file, with their visible box (where given), ignore flag and line.

    Boxes of zero or negative size are reported and skipped, unless ``keep_empty`` (paired files,
    where position in the file pairs objects across modalities).

    Raises `BadFile` (after reporting it) when a line cannot be read: a frame with an unreadable
    line would teach a detector that a pedestrian is background, so it is better left out.
    """
    lines = text_lines(text)
    start = next((k for k, line in enumerate(lines) if line.split()), len(lines))
    if start == len(lines):
        # A frame without objects still has its header; an empty file may have lost its content.
        problems.add("empty file", "nothing in it, not even the '% bbGt version=N' header; frame left out", path)
        raise BadFile
    version = 3
    header = header_version(lines[start])
    if header is not None:
        version = header
        if version not in NUMBERS_PER_VERSION:
            problems.add("malformed file", f"unsupported bbGt version {version}", path, start + 1)
            raise BadFile
        start += 1
    else:
        problems.add("missing header", "no '% bbGt version=N' header; read as version 3", path, start + 1)
    expected = NUMBERS_PER_VERSION[version]

    objects = []
    for number_, line in enumerate(lines[start:], start + 1):
        parts = line.split()
        if not parts or parts[0].startswith("%"):
            continue
        label, tokens = parts[0], parts[1:]
        if len(tokens) != expected:
            problems.add(
                "malformed line",
                f"expected a label and {expected} numbers (bbGt version {version}), found {len(tokens)}",
                path,
                number_,
            )
            raise BadFile
        try:
            values = [number(t) for t in tokens]
        except ValueError:
            bad = next(t for t in tokens if not is_number(t))
            problems.add("malformed line", f"{bad!r} is not a number", path, number_)
            raise BadFile from None
        if not all(math.isfinite(v) for v in values[5:]):  # the rest is check_object's
            problems.add("malformed line", "non-finite number", path, number_)
            raise BadFile
        occ = values[4] if version >= 1 else 0
        checked = check_object(label, *values[:4], occ, path, problems, number_, "malformed line", keep_empty)
        if checked is False:
            raise BadFile
        if checked is None:
            continue
        visible = tuple(values[5:9]) if version >= 1 and values[7] > 0 and values[8] > 0 else None
        ign = values[9] if version >= 2 else 0
        objects.append(checked._replace(visible=visible, ign=int(bool(ign)), line=number_))
    return objects


def check_object(
    label,
    x,
    y,
    w,
    h,
    occ,
    path,
    problems: Problems,
    line: int | None = None,
    malformed: str = "malformed file",
    keep_empty: bool = False,
) -> AnnotatedObject | None | bool:
    """The object, if it passes; None to skip its box (a zero or
    negative size, reported, unless ``keep_empty``); False when its file is unusable (reported as
    ``malformed``). An unknown label is reported and kept as an ignore region."""
    if not all(math.isfinite(v) for v in (x, y, w, h, occ)):
        problems.add(malformed, f"non-finite number in object {label!r}", path, line)
        return False
    if not math.isfinite(w * h):  # its area, which the output holds, would be no JSON number
        problems.add(malformed, f"object {label!r} is too large: its area is beyond any number", path, line)
        return False
    if occ not in (0, 1, 2):
        problems.add(malformed, f"occlusion {occ} is not 0, 1 or 2", path, line)
        return False
    if (w <= 0 or h <= 0) and not keep_empty:
        kind = "zero-size box" if w == 0 or h == 0 else "negative-size box"
        problems.add(kind, f"{kind} {label} {x} {y} {w} {h} skipped", path, line)
        return None
    if label not in KNOWN_LABELS:
        problems.add("unknown label", f"label {label!r} kept as an ignore region", path, line)
    return AnnotatedObject(label, x, y, w, h, int(occ))
