"""The fast path of the result readers: files of the usual layout parsed in bulk.

`txt_rows`, `labelled_rows` and `coco_columns` take a result's bytes and return what the careful
readers of `kaist_kit.data.results` would read from them, or None when the file is not of the usual layout (then
the careful reader reads it, and says what is wrong where). They never decide anything else:

- txt fields are parsed by CPython's correctly rounded `PyOS_string_to_double`, which both `float()`
  and numpy's `loadtxt` call, after the whole layout is checked: every line of a txt file holds
  the same number of fields. A file whose every line is exactly that many JSON numbers between
  commas is decoded by msgspec instead, as one list of numbers, faster: JSON's number grammar is a
  subset of `float()`'s and msgspec rounds as it does; the one spelling they read apart, minus zero
  written as an integer (`float("-0")` is -0.0), is left to `loadtxt`;
- COCO JSON is decoded by msgspec into records of exactly the usual keys (image_id, bbox of four,
  score, category_id), each a JSON number: anything else (a string, a boolean, an object for a bbox,
  another key, NaN, an escape in a key, a number beyond the float range) makes msgspec refuse, and
  the careful reader, `json.loads` and its checks, reads the file. msgspec reads what `json.loads`
  reads: integers as integers, floats correctly rounded, the last of a key written twice
  (tests/test_bulkread.py checks it, bit for bit, on generated files and number spellings).

Files of millions of detections are read so in a few seconds (see "Millions of detections" in
docs/speed.md).
"""

from __future__ import annotations

import functools
import io
import itertools
import re
import sys
from operator import attrgetter

import numpy as np

# What a well-formed txt file is made of: numbers, and commas, spaces and line breaks between them.
_TXT_BYTES = b"0123456789.+-eE, \t\r\n"
# What a txt file is left with when its numbers and spaces are taken out: the commas and line breaks.
_NUMBER_BYTES = b"0123456789.+-eE \t\r"
# A number "-0" (minus zero written as an integer: no fraction, no exponent), which msgspec reads as 0.0
# and float() as -0.0 (also found as an exponent's "-0" before a separator, "1e-0,": such a file is
# left to loadtxt too).
_MINUS_ZERO = re.compile(rb"-0(?![.eE0-9])")
_SPACE = b" \t\n\r"
_SPACES = re.compile(rb"[ \t\n\r]*")
# The end of a COCO file is looked for within its last this many bytes.
_EDGE = 1 << 12
# txt files of at least this many bytes are decoded by msgspec when they can be (`_comma_rows`): a
# third faster than loadtxt, which pays for importing msgspec (10 ms) from about this size on. Once it
# is imported (a command reading several files), any file of `_BULK_TXT_LOADED` bytes or more is.
_BULK_TXT = 1 << 21
_BULK_TXT_LOADED = 1 << 16
# Records are decoded this many bytes at a time, so that no Python object is made for every
# detection of a large file at once.
_CHUNK = 1 << 20


@functools.lru_cache(maxsize=None)  # noqa: UP033 - functools.cache is 3.9's; a platform's worker runs 3.7
def _msgspec():
    """msgspec and its decoders, imported when a file is first decoded with them (a command that reads
    only small txt files needs none); None without msgspec (the numpy-only copy of the core that a
    challenge's evaluation worker runs) or before Python 3.10 (a platform's worker reads on the careful
    path; the records' types are 3.10's)."""
    if sys.version_info >= (3, 10):  # noqa: UP036 - the records' types are 3.10's
        try:
            import msgspec
        except ImportError:
            return None

        class Record(msgspec.Struct, forbid_unknown_fields=True, gc=False):
            """A COCO result record of the usual keys, each number as json.loads reads it (an int or a float)."""

            image_id: int | float
            bbox: tuple[int | float, int | float, int | float, int | float]
            score: int | float
            category_id: int | float = 1

        class ClassRecord(msgspec.Struct, forbid_unknown_fields=True, gc=False):
            """A result record of any class: its category_id is required (COCO's evaluator reads it)."""

            image_id: int | float
            bbox: tuple[int | float, int | float, int | float, int | float]
            score: int | float
            category_id: int | float

        class NamedRecord(msgspec.Struct, forbid_unknown_fields=True, gc=False):
            """A result record of any class on images whose ids are strings (the COCO conversions in
            circulation: 'FLIR_09266.jpeg_RGB', '00002')."""

            image_id: str
            bbox: tuple[int | float, int | float, int | float, int | float]
            score: int | float
            category_id: int | float

        decoders = {
            (False, False): msgspec.json.Decoder(list[Record]),
            (True, False): msgspec.json.Decoder(list[ClassRecord]),
            (True, True): msgspec.json.Decoder(list[NamedRecord]),
        }
        return msgspec.DecodeError, msgspec.json.Decoder(list[float]), decoders
    return None


_FIELDS = tuple(map(attrgetter, ("image_id", "category_id", "score", "bbox")))


def txt_rows(raw: bytes, ncols: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The rows and 1-based line numbers `detections._parse_rows` reads from a text whose every line
    holds ``ncols`` numbers (separated by commas, or by spaces alone), or None for any other text."""
    # Each test reads the text once and copies none of it (a strip or a count of every byte kind
    # cost a tenth of a second each on a file of millions of lines).
    if b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n"):
        return None
    found = _comma_rows(raw, ncols) if _worth_decoding(raw) and b"," in raw else None
    if found is not None:
        return found
    if raw.translate(None, _TXT_BYTES) or _SPACES.fullmatch(raw):
        return None
    lines = _occurrences(raw, b"\n") + (not raw.endswith(b"\n"))
    try:
        rows = np.loadtxt(io.BytesIO(raw), np.float64, delimiter="," if b"," in raw else None, comments=None, ndmin=2)
    except ValueError:  # a field that is not one number, or a line of another length
        return None
    if rows.shape != (lines, ncols):  # blank lines, which loadtxt passes over
        return None
    return rows, np.arange(1, lines + 1)


def _worth_decoding(raw: bytes) -> bool:
    """Whether a txt file is large enough for msgspec to read faster than loadtxt, its import included."""
    loaded = _msgspec.cache_info().currsize > 0 and _msgspec() is not None
    return len(raw) >= _BULK_TXT or (loaded and len(raw) >= _BULK_TXT_LOADED)


def _comma_rows(raw: bytes, ncols: int) -> tuple[np.ndarray, np.ndarray] | None:
    """`txt_rows` of a text whose every line is ``ncols`` JSON numbers separated by commas (and JSON's
    spaces), decoded by msgspec a piece at a time; None for any other text (a lone carriage return is
    refused before)."""
    skeleton = raw.translate(None, _NUMBER_BYTES)
    ended = raw.endswith(b"\n")
    lines = skeleton.count(b"\n") + (not ended)
    pattern = b"," * (ncols - 1) + b"\n"
    if skeleton != (pattern * lines)[: None if ended else -1] or _MINUS_ZERO.search(raw):
        return None
    bulk = _msgspec()
    if bulk is None:
        return None
    decode_error, numbers_decoder, _ = bulk
    values = np.empty(lines * ncols)
    count, start, end = 0, 0, len(raw)
    while start < end:
        stop = raw.find(b"\n", start + _CHUNK)
        stop = end if stop < 0 else stop + 1
        piece = raw[start : stop - 1 if raw[stop - 1 : stop] == b"\n" else stop]
        try:
            numbers = numbers_decoder.decode(b"[" + piece.replace(b"\n", b",") + b"]")
        except decode_error:  # a field that is not a JSON number, or beyond the float range
            return None
        if count + len(numbers) > len(values):
            return None
        values[count : count + len(numbers)] = np.fromiter(numbers, np.float64, len(numbers))
        count, start = count + len(numbers), stop
    if count != len(values):
        return None
    return values.reshape(lines, ncols), np.arange(1, lines + 1)


def _occurrences(raw: bytes, byte: bytes, start: int = 0, stop: int | None = None) -> int:
    """``raw.count(byte, start, stop)`` for one byte, counted by numpy a piece at a time: twice as fast."""
    codes = np.frombuffer(raw, np.uint8)[start:stop]
    value = byte[0]
    return sum(int(np.count_nonzero(codes[k : k + _CHUNK] == value)) for k in range(0, len(codes), _CHUNK))


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


def coco_columns(raw: bytes, *, classes: bool = False, string_ids: bool = False) -> dict[str, np.ndarray] | None:
    """The image_id, category_id (1 where absent), bbox and score of every record of a COCO result
    list as `json.loads` reads them, as float64 arrays; or None unless every record holds exactly
    those keys (category_id may be absent) with JSON numbers, a bbox of four, in ASCII without
    escapes. Without msgspec (a numpy-only copy of the kit), always None.

    ``classes``: the records are of any class, and each must hold its category_id. ``string_ids``
    (with ``classes``): every image_id is a JSON string, given as an object array of str."""
    bulk = _msgspec()
    if bulk is None or not raw.isascii() or b"\\" in raw:  # keys spelled with escapes are left to json.loads
        return None
    decode_error, _, decoders = bulk
    if string_ids and not classes:
        raise ValueError("string image ids are read with classes=True")
    decoder = decoders[classes, string_ids]
    first = _SPACES.match(raw, 0).end()
    tail = raw[-_EDGE:].rstrip(_SPACE)
    end = len(raw) - min(len(raw), _EDGE) + len(tail) - 1  # the last byte that is not white space
    if not tail or first >= end or raw[first : first + 1] != b"[" or raw[end : end + 1] != b"]":
        return None
    # Every '}' closes a record: a decoded record holds numbers and a list of numbers, and keys
    # without braces (a piece cut at a brace within another key fails to decode).
    n = _occurrences(raw, b"}", first, end)
    if not n:
        return None
    columns = {
        "image_id": np.empty(n, object if string_ids else np.float64),
        "category_id": np.empty(n),
        "score": np.empty(n),
        "bbox": np.empty((n, 4)),
    }
    row, start = 0, first + 1
    while start < end:
        stop = raw.find(b"}", start + _CHUNK, end)
        stop = end if stop < 0 else stop + 1
        try:
            records = decoder.decode(b"[" + raw[start:stop] + b"]")
        except decode_error:
            return None
        count = len(records)
        if not count or row + count > n:
            return None
        try:
            for name, get in zip(("image_id", "category_id", "score"), _FIELDS):
                if name == "image_id" and string_ids:
                    columns[name][row : row + count] = list(map(get, records))
                else:
                    columns[name][row : row + count] = np.fromiter(map(get, records), np.float64, count)
            columns["bbox"][row : row + count] = np.fromiter(
                itertools.chain.from_iterable(map(_FIELDS[3], records)), np.float64, 4 * count
            ).reshape(count, 4)
        except OverflowError:  # an integer beyond the float range: the careful reader says what it makes of it
            return None
        row, start = row + count, _SPACES.match(raw, stop, end).end()
        if start < end:  # the next piece begins after the comma between two records
            if raw[start : start + 1] != b",":
                return None
            start += 1
    return columns if row == n else None
