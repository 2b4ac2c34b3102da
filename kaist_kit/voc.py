"""VOC XML annotation files (FLIR-aligned, LLVIP, M3FD): exactly what ElementTree reads, or a refusal.

A file is parsed by the standard library's ElementTree, whole, with one change: a document type
declaration is refused before anything in it is read, so that no entity is ever declared, expanded
or fetched (a "billion laughs" file, an external entity). The predefined entities (``&amp;``) and
character references (``&#49;``) read as ElementTree reads them. What the kit takes from the tree:

- the root must be ``<annotation>``; ``filename`` and ``size/width``, ``size/height`` (positive
  integers; a file without a size says so with ``size = None``);
- every ``object`` child of the root: ``name`` (stripped), ``bndbox/xmin``, ``ymin``, ``xmax``,
  ``ymax`` (numbers as ``float()`` reads them, finite, ``xmax >= xmin`` and ``ymax >= ymin``), and
  ``difficult``, ``truncated`` (integers, 0 when absent) and ``pose``.

Anything else is an `InputError` naming the file and, where ElementTree gives one, the line.
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from .errors import InputError
from .files import read_bytes


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
    width, height = root.findtext("size/width"), root.findtext("size/height")
    if width is not None or height is not None:
        size = (_positive_int(width, "size/width", path), _positive_int(height, "size/height", path))
    objects = []
    for k, obj in enumerate(root.findall("object"), 1):
        name = (obj.findtext("name") or "").strip()
        if not name:
            raise InputError(f"object {k} has no name", path)
        corners = [_coordinate(obj.findtext(f"bndbox/{c}"), c, k, name, path) for c in ("xmin", "ymin", "xmax", "ymax")]
        xmin, ymin, xmax, ymax = corners
        if xmax < xmin or ymax < ymin:
            raise InputError(f"object {k} ({name}) has xmax < xmin or ymax < ymin "
                             f"({xmin:g}, {ymin:g}, {xmax:g}, {ymax:g})", path)
        objects.append(VocObject(name, xmin, ymin, xmax, ymax, _flag(obj, "difficult", k, path),
                                 _flag(obj, "truncated", k, path), (obj.findtext("pose") or "").strip()))
    return VocFile((root.findtext("filename") or "").strip(), size, objects)


def read_voc(path: str | os.PathLike) -> VocFile:
    return parse_voc(read_bytes(path), path)


def _positive_int(text: str | None, what: str, path) -> int:
    try:
        value = int((text or "").strip())
    except ValueError:
        raise InputError(f"{what} {text!r} is not an integer", path) from None
    if value <= 0:
        raise InputError(f"{what} {value} is not positive", path)
    return value


def _coordinate(text: str | None, what: str, k: int, name: str, path) -> float:
    if text is None:
        raise InputError(f"object {k} ({name}) has no bndbox/{what}", path)
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"bndbox/{what} {text.strip()!r} of object {k} ({name}) is not a number", path) from None
    if not math.isfinite(value):
        raise InputError(f"bndbox/{what} {text.strip()!r} of object {k} ({name}) is not finite", path)
    return value


def _flag(obj: ET.Element, what: str, k: int, path) -> int:
    text = obj.findtext(what)
    if text is None or not text.strip():
        return 0
    try:
        return int(text.strip())
    except ValueError:
        raise InputError(f"{what} {text.strip()!r} of object {k} is not an integer", path) from None
