"""A picture's size and completeness from the bytes of its header and its end, without decoding it.

`kaist-kit check-data` looks at every picture of a KAIST tree (95,000 pairs) in seconds: a JPEG's size
is in its start-of-frame segment, a PNG's in its IHDR chunk, a few hundred bytes from the start; a
JPEG that was cut short lacks its end-of-image marker, a PNG its IEND chunk. Only a sample is decoded.
Both ends come through the opener (`kaist_kit.files.read_ends`: 2 KiB from the start, 64 bytes from the
end, nothing more unless a JPEG's frame header lies further in).
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass

from .errors import InputError
from .files import FileEnds, open_input, read_bytes, read_ends

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"
JPEG_START = b"\xff\xd8"
JPEG_END = b"\xff\xd9"
# Start-of-frame markers (baseline, progressive, lossless...); C4, C8 and CC are other segments.
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
# Markers without a length: TEM and the restart markers.
_STANDALONE = frozenset({0x01, *range(0xD0, 0xD8)})
_HEAD = 2048  # bytes read first: a KAIST JPEG's frame header lies within its first few hundred
# A JPEG may carry a few bytes after its end-of-image marker (padding); look for it this far back.
_TAIL = 64


@dataclass(frozen=True)
class Header:
    """What a picture's header says: its kind ('jpeg' or 'png') and size, or what is wrong with it."""

    kind: str | None = None
    width: int = 0
    height: int = 0
    problem: str | None = None  # one line, None when the picture looks whole


def read_header(path: str | os.PathLike) -> Header:
    """The kind and size of a JPEG or PNG picture, read from its header, and whether its end is there."""
    try:
        ends = read_ends(path, _HEAD, _TAIL)  # without blocking: a named pipe would wait for a writer
        if ends.head.startswith(PNG_SIGNATURE):
            return _png(ends)
        if ends.head.startswith(JPEG_START):
            return _jpeg(path, ends)
        return Header(problem="empty file" if not ends.head else "neither a JPEG nor a PNG picture")
    except InputError as exc:
        if not os.path.exists(path):
            return Header(problem="missing")
        return Header(problem="not a regular file" if not os.path.isfile(path) else exc.reason)


def _png(ends: FileEnds) -> Header:
    head = ends.head
    if len(head) < 24 or head[12:16] != b"IHDR":
        return Header("png", problem="a PNG picture without its IHDR header (cut short?)")
    width, height = struct.unpack(">II", head[16:24])
    if ends.size < 8 + 25 + len(PNG_END) or not ends.tail.endswith(PNG_END):
        return Header("png", width, height, "a PNG picture without its end (IEND): cut short")
    return Header("png", width, height)


class _Further(Exception):
    """The walk goes beyond the bytes read first."""


def _jpeg(path: str | os.PathLike, ends: FileEnds) -> Header:
    head = ends.head

    def in_head(pos: int, n: int) -> bytes:
        if pos + n > len(head) and len(head) < ends.size:
            raise _Further
        return head[pos : pos + n]

    try:
        found = _frame_size(in_head)
    except _Further:  # segments before the frame header longer than the head (a large EXIF block)
        with open_input(path) as handle:
            found = _frame_size(_windows(handle.fileno()))
    if isinstance(found, str):
        return Header("jpeg", problem=found)
    width, height = found
    if JPEG_END not in ends.tail:
        return Header("jpeg", width, height, "a JPEG picture without its end-of-image marker: cut short")
    return Header("jpeg", width, height)


def _windows(fd: int):
    """``window(pos, n)``: the file's bytes from ``pos``, read _HEAD at a time."""
    data, start = b"", 0  # data holds the file's bytes from offset `start`

    def window(pos: int, n: int) -> bytes:
        nonlocal data, start
        if not (start <= pos and pos + n <= start + len(data)):
            data, start = os.pread(fd, max(_HEAD, n), pos), pos
        return data[pos - start : pos - start + n]

    return window


def _frame_size(window) -> tuple[int, int] | str:
    """(width, height) from a JPEG's frame header, or what is wrong: the segments are walked (each says
    its length, so where the next one starts), ``window(pos, n)`` giving the file's bytes."""
    pos = 2
    while True:
        segment = window(pos, 9)
        if len(segment) < 4:
            return "a JPEG picture that ends before its frame header: cut short"
        if segment[0] != 0xFF:
            return f"a JPEG picture whose segments are broken at byte {pos}"
        marker = segment[1]
        if marker == 0xFF:  # a fill byte
            pos += 1
        elif marker in _STANDALONE:
            pos += 2
        elif marker in (0xD9, 0xDA):  # the end of the image, or its data, before any frame header
            return "a JPEG picture without a frame header"
        elif marker in _SOF:
            if len(segment) < 9:
                return "a JPEG picture that ends in its frame header: cut short"
            height, width = struct.unpack(">HH", segment[5:9])
            return width, height
        else:
            length = struct.unpack(">H", segment[2:4])[0]
            if length < 2:
                return f"a JPEG picture whose segments are broken at byte {pos}"
            pos += 2 + length


def decode_problem(path: str | os.PathLike, size: tuple[int, int]) -> str | None:
    """Decode the picture (Pillow, which matplotlib brings); None when it decodes whole at ``size``
    (width, height), else what is wrong, in one line."""
    import io

    from PIL import Image

    try:
        with Image.open(io.BytesIO(read_bytes(path))) as picture:
            picture.load()
            found = picture.size
    except Exception as exc:  # Pillow raises many kinds of error for a broken file
        return f"cannot decode: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    if found != tuple(size):
        return f"decodes to {found[0]} x {found[1]}, not {size[0]} x {size[1]}"
    return None
