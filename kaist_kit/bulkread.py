"""The fast path of the result readers: files of the usual layout parsed in bulk.

`txt_rows`, `labelled_rows` and `coco_columns` take a result's bytes and return what the careful
readers of `kaist_kit.detections` would read from them, or None when the file is not of the usual layout (then
the careful reader reads it, and says what is wrong where). They never decide anything else:

- the whole layout is checked before a value is used: every line of a txt file holds the same
  number of fields, and every record of a COCO JSON file is laid out as the first one, numbers
  aside, the same keys in the same order;
- every number is parsed by what the careful readers use: txt fields by CPython's correctly
  rounded `PyOS_string_to_double`, which both `float()` and numpy's `loadtxt` call, and JSON
  numbers by `json` itself (ints as ints, floats as floats, the grammar of JSON numbers included).

Files of millions of detections are read so in a few seconds, without a Python object per value
(see "Millions of detections" in docs/benchmarks.md).
"""

from __future__ import annotations

import io
import json
import re

import numpy as np

# What a well-formed txt file is made of: numbers, and commas, spaces and line breaks between them.
_TXT_BYTES = b"0123456789.+-eE, \t\r\n"
# Digits, signs and points become '#'; a number is a run of them, and of exponent marks ('e', 'E')
# that follow one. Written with one '#' each, the records of a file read as one fixed string.
_MASKED = bytes(ord("#") if b in b"0123456789.+-" else b for b in range(256))
_SPACE = rb"[ \t\n\r]*"
_RECORD_KEYS = ({"image_id": 0, "category_id": 0, "bbox": [0, 0, 0, 0], "score": 0},
                {"image_id": 0, "bbox": [0, 0, 0, 0], "score": 0})
# Records are checked and parsed this many bytes at a time, so that no array of the whole file's
# size is made beside its bytes.
_CHUNK = 1 << 20


def txt_rows(raw: bytes, ncols: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The rows and 1-based line numbers `detections._parse_rows` reads from a text whose every line
    holds ``ncols`` numbers (separated by commas, or by spaces alone), or None for any other text."""
    if not raw.strip() or raw.translate(None, _TXT_BYTES) or raw.count(b"\r") != raw.count(b"\r\n"):
        return None
    lines = raw.count(b"\n") + (not raw.endswith(b"\n"))
    try:
        rows = np.loadtxt(io.BytesIO(raw), np.float64, delimiter="," if b"," in raw else None, comments=None,
                          ndmin=2)
    except ValueError:  # a field that is not one number, or a line of another length
        return None
    if rows.shape != (lines, ncols):  # blank lines, which loadtxt passes over
        return None
    return rows, np.arange(1, lines + 1)


def labelled_rows(texts: list[bytes], label: bytes, ncols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The rows `detections._parse_rows` reads from texts whose every line is ``label``, a space and
    ``ncols`` numbers (the devkit's per-image files), with the text and the 1-based line within it
    each row comes from; or None for any other texts."""
    lines = np.array([text.count(b"\n") + (bool(text) and not text.endswith(b"\n")) for text in texts], np.int64)
    joined = b"".join(text if text.endswith(b"\n") or not text else text + b"\n" for text in texts)
    total = int(lines.sum())
    if not total or joined.count(label) != total or (b"\n" + joined).count(b"\n" + label + b" ") != total:
        return None  # a line without the label at its start, or with it elsewhere too
    found = txt_rows(joined.replace(label + b" ", b""), ncols)
    if found is None:
        return None
    first_row = np.cumsum(lines) - lines
    return found[0], np.repeat(np.arange(len(texts)), lines), np.arange(1, total + 1) - np.repeat(first_row, lines)


def coco_columns(raw: bytes) -> dict[str, np.ndarray] | None:
    """The image_id, category_id (1 where absent), bbox and score of every record of a COCO result
    list as `json.loads` reads them, as float64 arrays; or None unless every record is laid out as
    the first, which holds exactly those keys with numbers (a bbox of four)."""
    if not raw.isascii() or b"#" in raw:  # '#' stands for a number below
        return None
    first = raw.find(b"{")
    close = raw.find(b"}", first)
    last = raw.rfind(b"}")
    head, tail = raw[:max(first, 0)], raw[last + 1:]
    if first < 0 or not re.fullmatch(_SPACE + rb"\[" + _SPACE, head) \
            or not re.fullmatch(_SPACE + rb"\]" + _SPACE, tail):
        return None
    template = _layout(raw[first:close + 1])[0]
    keys = _template_keys(template)
    if keys is None:
        return None
    following = raw.find(b"{", close)
    between = raw[close + 1:following] if following >= 0 else b""
    if following >= 0 and not re.fullmatch(_SPACE + b"," + _SPACE, between):
        return None
    width = template.count(b"#")
    records = raw.count(b"}")
    columns = {"image_id": np.empty(records), "category_id": np.ones(records), "bbox": np.empty((records, 4)),
               "score": np.empty(records)}
    slots, slot = {}, 0
    for key in keys:
        slots[key] = slice(slot, slot + 4) if key == "bbox" else slot
        slot += 4 if key == "bbox" else 1
    row, start = 0, 0
    while start <= last:
        stop = raw.find(b"}", start + _CHUNK)
        stop = last + 1 if stop < 0 or stop > last else stop + 1
        chunk = raw[start:stop]
        count = chunk.count(b"}")
        layout = (head + template + (between + template) * (count - 1)) if start == 0 else \
            (between + template) * count
        numbers = _numbers(chunk, layout)
        if numbers is None or len(numbers) != count * width:
            return None
        try:
            values = np.array(numbers, np.float64).reshape(count, width)
        except OverflowError:  # an integer beyond any float: the careful reader says what it makes of it
            return None
        for key, where in slots.items():
            columns[key][row:row + count] = values[:, where]
        row, start = row + count, stop
    return columns


def _template_keys(template: bytes) -> list[str] | None:
    """The keys, in order, of a record's layout with each number written '#', if it is one of the
    usual records: each key once, and a number (four in a list for bbox) for each."""
    probe = template.replace(b"#", b"0")
    try:
        record = json.loads(probe)
    except ValueError:
        return None
    if record not in _RECORD_KEYS or template.count(b'"') != 2 * len(record):  # a key written twice
        return None
    return list(record)


def _layout(data: bytes) -> tuple[bytes, np.ndarray]:
    """``data`` with each number written '#', and where its numbers' bytes are."""
    masked = np.frombuffer(data.translate(_MASKED), np.uint8)
    digit = masked == ord("#")
    number = digit.copy()
    number[1:] |= digit[:-1] & ((masked[1:] == ord("e")) | (masked[1:] == ord("E")))
    first = number.copy()
    first[1:] &= ~number[:-1]
    return masked[~number | first].tobytes(), number


def _numbers(chunk: bytes, layout: bytes) -> list | None:
    """The numbers of whole records, parsed by `json`, if ``chunk`` reads as ``layout`` with each
    number written '#'; else None."""
    written, number = _layout(chunk)
    if written != layout:
        return None
    ends = ~number
    ends[1:] &= number[:-1]
    ends[0] = False
    # Each number followed by one comma: a JSON list of them.
    listed = np.where(number, np.frombuffer(chunk, np.uint8), ord(","))[number | ends].tobytes()
    try:
        return json.loads(b"[" + listed[:-1] + b"]")
    except ValueError:  # a run of number bytes that is no JSON number
        return None
