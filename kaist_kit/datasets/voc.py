"""VOC XML annotation files (FLIR-aligned, LLVIP, M3FD): exactly what ElementTree reads, or a refusal.

A file is parsed by the standard library's ElementTree, whole, with one change: a document type
declaration is refused before anything in it is read, so that no entity is ever declared, expanded
or fetched (a "billion laughs" file, an external entity). The predefined entities (``&amp;``) and
character references (``&#49;``) read as ElementTree reads them. What the kit takes from the tree:

- the root must be ``<annotation>``; ``filename`` and ``size/width``, ``size/height`` (positive
  integers; a file without a size says so with ``size = None``);
- every ``object`` child of the root: ``name`` (stripped), ``bndbox/xmin``, ``ymin``, ``xmax``,
  ``ymax`` (numbers as ``float()`` reads them, finite, ``xmax >= xmin`` and ``ymax >= ymin``, and an
  area that is a finite number; whether
  ``int()`` reads them too, which the 'as-written' convention asks), and ``difficult``, ``truncated``
  (integers, 0 when absent) and ``pose``;
- each of these elements at most once where it is looked for: two ``<bndbox>`` in an object, or two
  ``<width>`` in ``<size>``, are ambiguous (converters differ in which they take) and refused.

Anything else is an `InputError` naming the file and, where ElementTree gives one, the line.
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from ..errors import InputError
from ..io.read import read_bytes


@dataclass(frozen=True)
class VocObject:
    name: str
    xmin: float
    ymin: float
    xmax: float
    ymax: float
    difficult: int = 0
    truncated: int = 0
    pose: str = ""
    not_integer: str = ""  # the first coordinate that int() does not read ("bndbox/xmin '10.5'"), if any

    def box(self, convention: str) -> tuple[float, float, float, float]:
        """x, y, w, h by a benchmark's pixel convention (`Benchmark.voc_boxes`), as the conversions it
        cites compute them. 'pascal' reads xmin and ymin as 1-based inclusive pixels, each coordinate
        cut to an integer first (``int(float(text))``, towards zero): x = int(xmin) - 1,
        w = int(xmax) - x. 'as-written' takes integers as they are (x = xmin, w = xmax - xmin); its
        converters read them with ``int(text)``, so a coordinate that is no integer (10.5, 1e3) is a
        `ValueError` naming it."""
        if convention == "pascal":
            x, y = int(self.xmin) - 1, int(self.ymin) - 1
            return x, y, int(self.xmax) - x, int(self.ymax) - y
        if convention == "as-written":
            if self.not_integer:
                raise ValueError(
                    f"{self.not_integer} of the {self.name} box is not an integer, which the benchmark's "
                    "converters read with int() and refuse"
                )
            return self.xmin, self.ymin, self.xmax - self.xmin, self.ymax - self.ymin
        raise ValueError(f"unknown VOC box convention {convention!r}; use pascal or as-written")


@dataclass
class VocFile:
    filename: str
    size: tuple[int, int] | None  # width, height
    objects: list[VocObject] = field(default_factory=list)


class _NoDoctype(ET.TreeBuilder):
    """ElementTree's tree builder, refusing a document type declaration (where entities are declared)."""

    def doctype(self, name, pubid, system):  # called by the parser at "<!DOCTYPE", before its contents
        raise _Refused(f"a document type declaration (<!DOCTYPE {name} ...>), which may declare entities")


class _Refused(Exception):
    pass


def parse_voc_tree(data: bytes, path: str | os.PathLike = "") -> ET.Element:
    """The XML tree of ``data``, as ``ElementTree.fromstring`` builds it; a DTD is refused."""
    parser = ET.XMLParser(target=_NoDoctype())
    try:
        parser.feed(data)
        return parser.close()
    except _Refused as exc:
        raise InputError(f"refused: {exc}", path) from None
    except ET.ParseError as exc:
        raise InputError(f"invalid XML: {exc}", path, exc.position[0]) from None


def parse_voc(data: bytes, path: str | os.PathLike = "") -> VocFile:
    """One VOC annotation file (see the module's docstring)."""
    root = parse_voc_tree(data, path)
    if root.tag != "annotation":
        raise InputError(f"root element <{root.tag}>, expected <annotation> (a VOC annotation file)", path)
    size = None
    size_element = _only(root, "size", "the annotation", path)
    width = _text(size_element, "width", "<size>", path)
    height = _text(size_element, "height", "<size>", path)
    if width is not None or height is not None:
        size = (_positive_int(width, "size/width", path), _positive_int(height, "size/height", path))
    objects = []
    for k, obj in enumerate(root.findall("object"), 1):
        where = f"object {k}"
        name = (_text(obj, "name", where, path) or "").strip()
        if not name:
            raise InputError(f"{where} has no name", path)
        where = f"object {k} ({name})"
        box = _only(obj, "bndbox", where, path)
        texts = [_text(box, c, where, path) for c in ("xmin", "ymin", "xmax", "ymax")]
        corners = [_coordinate(text, c, where, path) for text, c in zip(texts, ("xmin", "ymin", "xmax", "ymax"))]
        xmin, ymin, xmax, ymax = corners
        not_integer = next(
            (f"bndbox/{c} {t.strip()!r}" for t, c in zip(texts, ("xmin", "ymin", "xmax", "ymax")) if not _is_int(t)),
            "",
        )
        if xmax < xmin or ymax < ymin:
            raise InputError(f"{where} has xmax < xmin or ymax < ymin ({xmin:g}, {ymin:g}, {xmax:g}, {ymax:g})", path)
        if not math.isfinite((xmax - xmin + 1) * (ymax - ymin + 1)):  # its area would be infinite
            corners = f"{xmin:g}, {ymin:g}, {xmax:g}, {ymax:g}"
            raise InputError(f"{where} is too large: its area is beyond any number ({corners})", path)
        objects.append(
            VocObject(
                name,
                xmin,
                ymin,
                xmax,
                ymax,
                _flag(obj, "difficult", where, path),
                _flag(obj, "truncated", where, path),
                (_text(obj, "pose", where, path) or "").strip(),
                not_integer,
            )
        )
    return VocFile((_text(root, "filename", "the annotation", path) or "").strip(), size, objects)


def read_voc(path: str | os.PathLike) -> VocFile:
    return parse_voc(read_bytes(path), path)


def _only(parent: ET.Element | None, tag: str, where: str, path) -> ET.Element | None:
    """The one child ``tag`` of ``parent`` (None when there is none); two are ambiguous, and refused."""
    if parent is None:
        return None
    found = parent.findall(tag)
    if len(found) > 1:
        raise InputError(f"{where} has {len(found)} <{tag}> elements; a VOC file has one", path)
    return found[0] if found else None


def _text(parent: ET.Element | None, tag: str, where: str, path) -> str | None:
    element = _only(parent, tag, where, path)
    return None if element is None else (element.text or "")


def _positive_int(text: str | None, what: str, path) -> int:
    try:
        value = int((text or "").strip())
    except ValueError:
        raise InputError(f"{what} {text!r} is not an integer", path) from None
    if value <= 0:
        raise InputError(f"{what} {value} is not positive", path)
    return value


def _coordinate(text: str | None, what: str, where: str, path) -> float:
    if text is None:
        raise InputError(f"{where} has no bndbox/{what}", path)
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"bndbox/{what} {text.strip()!r} of {where} is not a number", path) from None
    if not math.isfinite(value):
        raise InputError(f"bndbox/{what} {text.strip()!r} of {where} is not finite", path)
    return value


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _flag(obj: ET.Element, what: str, where: str, path) -> int:
    text = _text(obj, what, where, path)
    if text is None or not text.strip():
        return 0
    try:
        return int(text.strip())
    except ValueError:
        raise InputError(f"{what} {text.strip()!r} of {where} is not an integer", path) from None
