"""The official ``annotations-xml-new`` files: one VOC-like XML file per frame.

95,324 small files must be parsed in a fraction of the time it takes to read them, so the fixed
layout of these files is read by C-level loops over all files of a chunk at once: one ``findall``
for the objects and one for the image sizes over the files joined by a NUL byte, checked against
per-file counts of ``<object>`` and ``<width>``. A file that does not fit that layout exactly
(another element order, a missing field, a truncated file, an entity or character reference) is
parsed again by ElementTree, which says what is wrong with it. So a file reads the same either way:
internal entities (``<!ENTITY w "640">`` ... ``&w;``) are expanded as XML defines, while external ones
are never fetched (an undefined entity, reported) and expat's limit on entity expansion stops
"billion laughs" files (reported as invalid XML).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import compress, repeat
from operator import and_, eq, itemgetter

import numpy as np

from kaist_kit.files import is_number

from .bbgt import KNOWN_LABELS, check_object, number
from .problems import Problems
from .records import AnnotatedObject, FrameColumns, ObjectColumns, ParseOptions

# Matches cannot run from one file into the next: every field stops at '<', and files are
# joined by a NUL byte that no tag contains.
_OBJECT = re.compile(
    rb"<object>\s*<name>([^<]*)</name>\s*<bndbox>\s*<x>([^<]*)</x>\s*<y>([^<]*)</y>\s*"
    rb"<w>([^<]*)</w>\s*<h>([^<]*)</h>\s*</bndbox>\s*(?:<pose>[^<]*</pose>\s*)?"
    rb"(?:<truncated>[^<]*</truncated>\s*)?(?:<difficult>[^<]*</difficult>\s*)?"
    rb"<occlusion>([^<]*)</occlusion>\s*</object>")
# A size of 0 does not fit: ElementTree's reading reports it.
_SIZE = re.compile(rb"<width>\s*([1-9]\d*)\s*</width>\s*<height>\s*([1-9]\d*)\s*</height>")
_END = b"</annotation>"
_OBJECT_FIELDS = ("x", "y", "w", "h", "occlusion")
PROBLEMS = frozenset({"malformed file", "zero-size box", "negative-size box", "unknown label"})


def reads_as_xml(text: str) -> bool | None:
    """Whether a file's text reads as a KAIST XML annotation; None for a file with nothing in it."""
    return "<annotation" in text if text.strip() else None


def parse_xml_files(frames: list[tuple[int, str, str]], contents: dict[str, bytes], display, problems: Problems,
                    options: ParseOptions) -> tuple[FrameColumns, ObjectColumns]:
    """The frames kept and their objects, of frames with one XML file each, given as (image id, frame
    name, path)."""
    image_ids = [image_id for image_id, _, _ in frames]
    rels = [rel for _, _, rel in frames]
    widths, heights, objects = _read_files([contents[rel] for rel in rels], image_ids, lambda k: display(rels[k]),
                                           problems, options.image_size)
    if None in widths:  # files left out
        kept = [width is not None for width in widths]
        frames, widths, heights = (list(compress(column, kept)) for column in (frames, widths, heights))
    return FrameColumns([image_id for image_id, _, _ in frames], [name for _, name, _ in frames], widths,
                        heights), objects


def _read_files(contents: list[bytes], ids: list[int], path_of, problems: Problems,
                default_size: tuple[int, int]) -> tuple[list, list, ObjectColumns]:
    """The width and the height of each file (None for a file left out), and the objects of all
    files, ordered by image id. ``path_of(k)`` names file k in messages."""
    n = len(contents)
    objects_per_file = list(map(bytes.count, contents, repeat(b"<object>")))
    fits = list(map(and_, map(eq, map(bytes.count, contents, repeat(b"<width>")), repeat(1)),
                    map(bytes.endswith, contents, repeat(_END + b"\n"))))
    for k in [k for k, ok in enumerate(fits) if not ok]:  # another line ending, or a broken file
        fits[k] = contents[k].count(b"<width>") == 1 and contents[k].rstrip().endswith(_END)
    found, sizes_found, references = _scan(contents, fits)
    if (references or len(found) != sum(c for c, ok in zip(objects_per_file, fits) if ok)
            or len(sizes_found) != sum(fits)):
        # Some file breaks the layout, or holds an entity or character reference (&w;, &amp;, &#49;)
        # that ElementTree expands and the scan would read as it is written: find which, file by
        # file (rare, so simplicity wins here).
        for k in range(n):
            if fits[k] and (b"&" in contents[k] or len(_OBJECT.findall(contents[k])) != objects_per_file[k]
                            or len(_SIZE.findall(contents[k])) != 1):
                fits[k] = False
        found, sizes_found, _ = _scan(contents, fits)

    fit_index = list(compress(range(n), fits))
    widths: list = [None] * n
    heights: list = [None] * n
    if sizes_found:
        found_widths, found_heights = zip(*sizes_found)
        if len(fit_index) == n:
            widths, heights = list(map(int, found_widths)), list(map(int, found_heights))
        else:
            for k, width, height in zip(fit_index, map(int, found_widths), map(int, found_heights)):
                widths[k], heights[k] = width, height
    owner = np.repeat(np.array(fit_index, np.int64), list(compress(objects_per_file, fits)))
    columns, bad = _object_columns(found, owner, np.asarray(ids, np.int64)[owner].tolist(), path_of, problems)
    for k in bad:
        widths[k] = heights[k] = None
    slow = []
    for k in range(n):
        if not fits[k]:
            parsed = _parse_with_elementtree(contents[k], path_of(k), problems, default_size)
            if parsed is not None:
                objects, (widths[k], heights[k]) = parsed
                slow.extend((ids[k], obj) for obj in objects)
    if slow:
        rows = sorted([*columns.rows(), *slow], key=itemgetter(0))  # stable: file order in a frame
        columns = ObjectColumns.of(rows)
    return widths, heights, columns


def _scan(contents: list[bytes], fits: list[bool]) -> tuple[list[tuple], list[tuple], bool]:
    """The objects and the sizes of the files that fit, and whether they hold a reference ('&')."""
    blob = b"\x00".join(compress(contents, fits))
    return _OBJECT.findall(blob), _SIZE.findall(blob), b"&" in blob


def _object_columns(found: list[tuple[bytes, ...]], owner: np.ndarray, image_ids: list[int], path_of,
                    problems: Problems) -> tuple[ObjectColumns, set[int]]:
    """Columns of the objects found, and the files (indices) holding a value that makes them unusable."""
    if not found:
        return ObjectColumns.empty(), set()
    names, *columns = zip(*found)
    labels = list(map(bytes.decode, map(bytes.strip, names), repeat("utf-8"), repeat("replace")))
    try:
        x, y, w, h, occ = (list(map(int, column)) for column in columns)  # int() reads bytes
        usual = set(labels) <= KNOWN_LABELS and set(occ) <= {0, 1, 2} and min(w) > 0 and min(h) > 0
    except ValueError:  # a value that is not an integer: look at every object
        usual = False
    if usual:
        n = len(labels)
        return ObjectColumns(image_ids, labels, x, y, w, h, occ, visible=[None] * n, ign=[0] * n,
                             paired=[None] * n), set()
    rows, bad, bad_ids = [], set(), set()
    for file, image_id, label, *texts in zip(owner.tolist(), image_ids, labels, *columns):
        values = _object_values(label, [t.decode("utf-8", "replace") for t in texts], path_of(file), problems)
        result = False if values is None else check_object(label, *values, path_of(file), problems)
        if result is False:
            bad.add(file)
            bad_ids.add(image_id)
        elif result is not None:
            rows.append((image_id, result))
    return ObjectColumns.of([(image_id, obj) for image_id, obj in rows if image_id not in bad_ids]), bad


def _object_values(label: str, texts: list[str], path: str, problems: Problems) -> list | None:
    """The numbers in an object's fields x, y, w, h and occlusion, as written; None (reported) when
    one is not a number."""
    values = []
    for field, text in zip(_OBJECT_FIELDS, texts):
        try:
            values.append(number(text.strip()))
        except ValueError:
            problems.add("malformed file", f"{field} {text.strip()!r} of object {label!r} is not a number", path)
            return None
    return values


def _image_size(texts: tuple[str, str], path: str, problems: Problems) -> tuple[int, int] | None:
    """The image's width and height, positive integers; None (reported) otherwise."""
    size = []
    for field, text in zip(("width", "height"), texts):
        try:
            value = int(text)
        except ValueError:
            what = "an integer" if is_number(text) else "a number"
            problems.add("malformed file", f"the image {field} {text.strip()!r} is not {what}", path)
            return None
        if value <= 0:
            problems.add("malformed file", f"the image {field} {value} is not positive", path)
            return None
        size.append(value)
    return size[0], size[1]


def _parse_with_elementtree(data: bytes, path: str, problems: Problems,
                            default_size: tuple[int, int]) -> tuple[list[AnnotatedObject], tuple[int, int]] | None:
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        problems.add("malformed file", f"invalid XML: {exc}", path, exc.position[0])
        return None
    if root.tag != "annotation":
        problems.add("malformed file", f"root element <{root.tag}>, expected <annotation>", path)
        return None
    size = default_size
    width, height = root.findtext("size/width"), root.findtext("size/height")
    if width is not None and height is not None:
        size = _image_size((width, height), path, problems)
        if size is None:
            return None
    objects = []
    for k, obj in enumerate(root.iter("object"), 1):
        label = (obj.findtext("name") or "").strip()
        texts = [obj.findtext(f"bndbox/{c}") for c in ("x", "y", "w", "h")] + [obj.findtext("occlusion") or "0"]
        if not label or any(t is None for t in texts):
            problems.add("malformed file", f"object {k} lacks a name or a bndbox x, y, w, h", path)
            return None
        values = _object_values(label, texts, path, problems)
        result = False if values is None else check_object(label, *values, path, problems)
        if result is False:
            return None
        if result is not None:
            objects.append(result)
    return objects, size
