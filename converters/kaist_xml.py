"""The official ``annotations-xml-new`` files: one VOC-like XML file per frame.

Every file reads as ElementTree reads it (the reference, `parse_with_elementtree`), with one refusal:
a DTD (``<!DOCTYPE``, and with it every entity declaration) makes the file malformed, so that no
entity is ever expanded or fetched. 95,324 small files must be parsed in a fraction of the time it
takes to read them, so the usual layout is read by C-level loops over all the files of a chunk at
once: a file is read this way only when the whole of it fits a grammar (`_FILE`) on which the two
readings provably agree: printable ASCII (so that any declared encoding the grammar admits decodes
it alike), the official files' elements in their order, element names without attributes, no
comment, CDATA section, processing instruction, entity or character reference (no '<' or '&' in any
text), integers where numbers go and a label without surrounding whitespace. Any other file (an
attribute, a comment, another element order or encoding...) is handed to the reference, whole.
tests/test_xml_differential.py compares both ways on mutations of the real files.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import compress, repeat
from operator import and_, itemgetter

import numpy as np

from kaist_kit.io.text import is_number

from .bbgt import KNOWN_LABELS, check_object, number
from .problems import Problems
from .records import AnnotatedObject, FrameColumns, ObjectColumns, ParseOptions

# Plain greedy repeats, not possessive ones (*+ is Python 3.11's): what follows each run cannot be a
# byte of it, so giving bytes back never makes a match, and a label's run gives back only its trailing
# white space, which the element's _WS then reads (the label as strip() leaves it).
_WS = rb"[ \t\r\n]*"
_TEXT = rb"[^<&\x00]*"
_INT = rb"-?[0-9]{1,9}"  # what int() and number() read alike, far from int()'s digit limit
# A label as strip() leaves it: no carriage return inside (XML reads it as a line feed).
_LABEL = rb"[^\s<&\x00](?:[^\r<&\x00]*(?<![ \t\n]))?"


def _element(name: bytes, content: bytes = _TEXT) -> bytes:
    return b"<" + name + b">" + content + b"</" + name + b">" + _WS


def _number(name: bytes) -> bytes:
    return _element(name, _WS + b"(" + _INT + b")" + _WS)


_DECLARATION = rb"(?:<\?xml version=\"1\.0\"(?: encoding=\"(?i:utf-8|us-ascii|iso-8859-1)\")?\?>)?"
_HEAD = (
    _DECLARATION
    + _WS
    + b"<annotation>"
    + _WS
    + b"(?:"
    + _element(b"folder")
    + b")?(?:"
    + _element(b"filename")
    + b")?(?:<source>"
    + _WS
    + b"(?:"
    + b"|".join(_element(n) for n in (b"database", b"annotation", b"image", b"url"))
    + b")*</source>"
    + _WS
    + b")?"
    + b"<size>"
    + _WS
    + _element(b"width", _WS + rb"[1-9][0-9]{0,8}" + _WS)
    + _element(b"height", _WS + rb"[1-9][0-9]{0,8}" + _WS)
    + b"(?:"
    + _element(b"depth")
    + b")?</size>"
    + _WS
    + b"(?:"
    + _element(b"segmented")
    + b")?"
)
_OBJECT_BODY = (
    b"<object>"
    + _WS
    + _element(b"name", _WS + b"(" + _LABEL + b")" + _WS)
    + b"<bndbox>"
    + _WS
    + _number(b"x")
    + _number(b"y")
    + _number(b"w")
    + _number(b"h")
    + b"</bndbox>"
    + _WS
    + b"(?:"
    + _element(b"pose")
    + b")?(?:"
    + _element(b"truncated")
    + b")?(?:"
    + _element(b"difficult")
    + b")?"
    + _number(b"occlusion")
    + b"</object>"
    + _WS
)
# One file of the usual layout, whole (groups left out: only whether it fits).
_FILE = re.compile(_HEAD + b"(?:" + re.sub(rb"\((?!\?)", b"(?:", _OBJECT_BODY) + b")*</annotation>" + _WS)
# The bytes a file of the usual layout is made of: printable ASCII but '&', tab, CR and LF (and the
# NUL bytes that join the files of a chunk); it also never holds "]]>", which XML forbids in text.
_USUAL_BYTES = bytes([0, 9, 10, 13, *(b for b in range(0x20, 0x7F) if b != ord("&"))])
# Each object whole, then its fields, and the size, found in files that fit (where nothing else can
# match: no other '<object>' or '<size>' is there).
_OBJECT = re.compile(b"(" + _OBJECT_BODY + b")")
_HEAD_RE = re.compile(_HEAD)
_CLOSE = b"</annotation>"
_SPACE = b" \t\r\n"
# Heads that fit `_HEAD`, cut at the text of their <filename>: (before it, after it up to the first
# object). Any text without '<', '&' or NUL in its place keeps them fitting.
_TEMPLATES: dict[tuple[bytes, bytes], tuple[int, int]] = {}  # -> the image size they give
_MAX_TEMPLATES = 16
_SIZE = re.compile(
    rb"<size>"
    + _WS
    + b"<width>"
    + _WS
    + rb"([1-9][0-9]{0,8})"
    + _WS
    + b"</width>"
    + _WS
    + b"<height>"
    + _WS
    + rb"([1-9][0-9]{0,8})"
)
_OBJECT_FIELDS = ("x", "y", "w", "h", "occlusion")
PROBLEMS = frozenset({"malformed file", "zero-size box", "negative-size box", "unknown label"})


def reads_as_xml(text: str) -> bool | None:
    """Whether a file's text reads as a KAIST XML annotation; None for a file with nothing in it."""
    return "<annotation" in text if text.strip() else None


def parse_xml_files(
    frames: list[tuple[int, str, str]], contents: dict[str, bytes], display, problems: Problems, options: ParseOptions
) -> tuple[FrameColumns, ObjectColumns]:
    """The frames kept and their objects, of frames with one XML file each, given as (image id, frame
    name, path)."""
    image_ids = [image_id for image_id, _, _ in frames]
    rels = [rel for _, _, rel in frames]
    widths, heights, objects = _read_files(
        [contents[rel] for rel in rels], image_ids, lambda k: display(rels[k]), problems, options.image_size
    )
    if None in widths:  # files left out
        kept = [width is not None for width in widths]
        frames, widths, heights = (list(compress(column, kept)) for column in (frames, widths, heights))
    return FrameColumns(
        [image_id for image_id, _, _ in frames], [name for _, name, _ in frames], widths, heights
    ), objects


def _read_files(
    contents: list[bytes], ids: list[int], path_of, problems: Problems, default_size: tuple[int, int]
) -> tuple[list, list, ObjectColumns]:
    """The width and the height of each file (None for a file left out), and the objects of all
    files, ordered by image id; problems are reported in file order. ``path_of(k)`` names file k."""
    n = len(contents)
    fits, found, widths, heights = _scan(contents)
    fit_index = list(compress(range(n), fits))
    per_file = list(map(bytes.count, compress(contents, fits), repeat(b"<object>")))
    owner = np.repeat(np.array(fit_index, np.int64), per_file)
    reported: dict[int, Problems] = {}  # file -> its problems

    def problems_of(k: int) -> Problems:
        return reported.setdefault(k, Problems())

    columns, bad = _object_columns(found, owner, np.asarray(ids, np.int64)[owner].tolist(), path_of, problems_of)
    for k in bad:
        widths[k] = heights[k] = None
    slow = []
    for k in range(n):
        if not fits[k]:
            parsed = parse_with_elementtree(contents[k], path_of(k), problems_of(k), default_size)
            if parsed is not None:
                objects, (widths[k], heights[k]) = parsed
                slow.extend((ids[k], obj) for obj in objects)
    if slow:
        rows = sorted([*columns.rows(), *slow], key=itemgetter(0))  # stable: file order in a frame
        columns = ObjectColumns.of(rows)
    for k in sorted(reported):
        problems.extend(reported[k].records)
    return widths, heights, columns


def fits_usual_layout(data: bytes) -> bool:
    """Whether a file fits the usual layout (`_FILE`): the definition that `_scan` decides faster."""
    return _FILE.fullmatch(data) is not None and _usual_bytes(data)


def _usual_bytes(data: bytes) -> bool:
    return not data.translate(None, _USUAL_BYTES) and b"\x00" not in data and b"]]>" not in data


def _scan(contents: list[bytes]) -> tuple[list[bool], list[tuple], list, list]:
    """Which files fit the usual layout (`fits_usual_layout`); the objects (each whole, then its
    fields) of those that do, in file order; the width and the height of each file that does (else
    None).

    The common case costs about what finding the objects costs: a file fits when its bytes are all
    usual, its head is one that fits but for the text of its <filename> (see `_heads`), it ends with
    </annotation> and blank space, and its objects, as `_OBJECT` finds them, fill all that lies
    between. Found objects never overlap, never reach into a head (which holds no '<object>') nor into
    an end (no object holds '</annotation>'), so that each file's objects fill at most the length
    between, and filling the total length of all files is filling each file's. Where anything does not
    add up, `fits_usual_layout` decides file by file."""
    n = len(contents)
    heads, widths, heights = _heads(contents)
    lengths = np.fromiter(map(len, contents), np.int64, n)
    usual_end = np.fromiter(map(bytes.endswith, contents, repeat(_CLOSE + b"\n")), bool, n)
    closes = np.where(usual_end, lengths - len(_CLOSE) - 1, -1)
    for k in np.flatnonzero(~usual_end & (heads >= 0)).tolist():  # another ending
        close = contents[k].rfind(_CLOSE)
        if close >= 0 and close + len(_CLOSE) == len(contents[k].rstrip(_SPACE)):
            closes[k] = close
    fitting = (heads >= 0) & (heads <= closes)
    fits = fitting.tolist()
    blob = b"\x00".join(compress(contents, fits))
    if blob.translate(None, _USUAL_BYTES) or b"]]>" in blob or blob.count(b"\x00") != max(int(fitting.sum()) - 1, 0):
        fits = [ok and _usual_bytes(data) for ok, data in zip(fits, contents)]
        fitting = np.array(fits, bool)
        blob = b"\x00".join(compress(contents, fits))
    found = _OBJECT.findall(blob)
    if sum(map(len, map(itemgetter(0), found))) != int((closes - heads)[fitting].sum()):
        fits = [ok and fits_usual_layout(data) for ok, data in zip(fits, contents)]
        fitting = np.array(fits, bool)
        found = _OBJECT.findall(b"\x00".join(compress(contents, fits)))
    if fitting.all():
        return fits, found, widths.tolist(), heights.tolist()
    return fits, found, *(np.where(fitting, column, None).tolist() for column in (widths, heights))


def _heads(contents: list[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the head of each file (`_HEAD`) ends, and the image width and height it gives (-1, 0 and 0
    for a file whose head does not fit). Most heads are one of the known templates but for the text of
    their <filename>; the others are matched by the regular expression, and each adds a template."""
    n = len(contents)
    heads = np.full(n, -1, np.int64)
    widths, heights = np.zeros(n, np.int64), np.zeros(n, np.int64)
    todo = np.arange(n)
    tried = 0
    while len(todo):
        for (before, after), (width, height) in list(_TEMPLATES.items())[tried:]:
            chosen = contents if len(todo) == n else [contents[k] for k in todo.tolist()]
            # The head, its file name's text up to the first '<' (which must close it), the rest of the
            # head and all the blank space after it.
            brackets = list(map(bytes.find, chosen, repeat(b"<"), repeat(len(before))))
            fit = np.fromiter(
                map(
                    and_,
                    map(bytes.startswith, chosen, repeat(before)),
                    map(bytes.startswith, chosen, repeat(after + b"<"), brackets),
                ),
                bool,
                len(todo),
            )
            fit &= np.asarray(brackets) >= 0
            heads[todo[fit]] = np.asarray(brackets)[fit] + len(after)
            widths[todo[fit]], heights[todo[fit]] = width, height
            todo = todo[~fit]
        tried = len(_TEMPLATES)
        while len(todo) and len(_TEMPLATES) == tried:
            k, todo = int(todo[0]), todo[1:]
            heads[k], (widths[k], heights[k]) = _head(contents[k])
    return heads, widths, heights


def _head(data: bytes) -> tuple[int, tuple[int, int]]:
    """Where the head of ``data`` ends and its image size, by `_HEAD` (-1, (0, 0): it does not fit);
    a head that fits becomes a template, where there is room."""
    match = _HEAD_RE.match(data)
    if match is None:
        return -1, (0, 0)
    head = match.end()
    size = tuple(map(int, _SIZE.search(data, 0, head).groups()))
    start, end = data.find(b"<filename>"), data.find(b"</filename>")
    if 0 <= start < end < head and len(_TEMPLATES) < _MAX_TEMPLATES:
        before, after = data[: start + len(b"<filename>")], data[end:head]
        if _HEAD_RE.fullmatch(before + b"x" + after):
            _TEMPLATES.setdefault((before, after), size)
    return head, size


def _object_columns(
    found: list[tuple[bytes, ...]], owner: np.ndarray, image_ids: list[int], path_of, problems_of
) -> tuple[ObjectColumns, set[int]]:
    """Columns of the objects found, and the files (indices) holding a value that makes them unusable.
    A file's objects are looked at in order up to the first that makes it unusable, as the reference
    reader does."""
    if not found:
        return ObjectColumns.empty(), set()
    _, names, *columns = zip(*found)
    labels = list(map(bytes.decode, names, repeat("ascii")))
    x, y, w, h, occ = (list(map(int, column)) for column in columns)  # int() reads bytes; all are integers
    if set(labels) <= KNOWN_LABELS and set(occ) <= {0, 1, 2} and min(w) > 0 and min(h) > 0:
        n = len(labels)
        return ObjectColumns(
            image_ids, labels, x, y, w, h, occ, visible=[None] * n, ign=[0] * n, paired=[None] * n
        ), set()
    rows, bad = [], set()
    for file, image_id, label, *values in zip(owner.tolist(), image_ids, labels, x, y, w, h, occ):
        if file in bad:
            continue
        result = check_object(label, *values, path_of(file), problems_of(file))
        if result is False:
            bad.add(file)
        elif result is not None:
            rows.append((file, image_id, result))
    return ObjectColumns.of([(image_id, obj) for file, image_id, obj in rows if file not in bad]), bad


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


class _RefusedDTD(Exception):
    """A file with a document type declaration, whose entities are never expanded."""


class _TreeWithoutDTD(ET.TreeBuilder):
    def doctype(self, name, pubid, system):  # called where the declaration starts, before any entity
        raise _RefusedDTD


def parse_with_elementtree(
    data: bytes, path: str, problems: Problems, default_size: tuple[int, int]
) -> tuple[list[AnnotatedObject], tuple[int, int]] | None:
    """The reference reading of one file: its objects and image size as ElementTree reads them, or None
    (the problem reported) for a file that is left out. A DTD is refused: no entity is expanded."""
    parser = ET.XMLParser(target=_TreeWithoutDTD())
    try:
        parser.feed(data)
        root = parser.close()
    except ET.ParseError as exc:
        problems.add("malformed file", f"invalid XML: {exc}", path, exc.position[0])
        return None
    except _RefusedDTD:
        where = data.find(b"<!DOCTYPE")
        problems.add(
            "malformed file",
            "a document type declaration (<!DOCTYPE ...>), whose entities the reader refuses to expand",
            path,
            data[:where].count(b"\n") + 1 if where >= 0 else None,
        )
        return None
    if root.tag != "annotation":
        problems.add("malformed file", f"root element <{root.tag}>, expected <annotation>", path)
        return None
    try:
        size = default_size
        size_element = _only(root, "size", "the annotation")
        width, height = (_text(size_element, tag, "<size>") for tag in ("width", "height"))
        if width is not None and height is not None:
            size = _image_size((width, height), path, problems)
            if size is None:
                return None
        objects = []
        for k, obj in enumerate(root.iter("object"), 1):
            where = f"object {k}"
            label = (_text(obj, "name", where) or "").strip()
            box = _only(obj, "bndbox", where)
            texts = [_text(box, c, f"the <bndbox> of {where}") for c in ("x", "y", "w", "h")]
            texts.append(_text(obj, "occlusion", where) or "0")
            result = _object(k, label, texts, path, problems)
            if result is False:
                return None
            if result is not None:
                objects.append(result)
    except _Ambiguous as exc:
        problems.add("malformed file", str(exc), path)
        return None
    return objects, size


class _Ambiguous(Exception):
    """An element the reader takes appears more than once where it looks for one."""


def _only(parent: ET.Element | None, tag: str, where: str) -> ET.Element | None:
    """The one child ``tag`` of ``parent`` (None when there is none, or no parent); two are ambiguous:
    converters differ in which they take (ElementTree's find takes the first, others the last or
    both), so the file is refused whatever --strict says."""
    if parent is None:
        return None
    found = parent.findall(tag)
    if len(found) > 1:
        raise _Ambiguous(f"{where} has {len(found)} <{tag}> elements, where one is read: which is meant cannot be told")
    return found[0] if found else None


def _text(parent: ET.Element | None, tag: str, where: str) -> str | None:
    element = _only(parent, tag, where)
    return None if element is None else (element.text or "")


def _object(k: int, label: str, texts: list, path: str, problems: Problems) -> AnnotatedObject | None | bool:
    """An object of the reference reading, as `check_object` says (False: the file is left out)."""
    if not label or any(t is None for t in texts):
        problems.add("malformed file", f"object {k} lacks a name or a bndbox x, y, w, h", path)
        return False
    values = _object_values(label, texts, path, problems)
    return False if values is None else check_object(label, *values, path, problems)
