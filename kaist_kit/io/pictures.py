"""A picture's size and completeness from the bytes of its header and its end, without decoding it.

`kaist-kit check-data` looks at every picture of a KAIST tree (95,000 pairs) in seconds: a JPEG's size
is in its start-of-frame segment, a PNG's in its IHDR chunk, a few hundred bytes from the start; a
JPEG that was cut short lacks its end-of-image marker, a PNG its IEND chunk. Only a sample is decoded.
Both ends come through the opener (`kaist_kit.io.read.read_ends`: 2 KiB from the start, 64 bytes from the
end, nothing more unless a JPEG's frame header lies further in, or its end-of-image marker is not among
its last bytes: a whole picture followed by other data is then told from one cut short by looking
through its scan data). Runs of fill bytes are skipped a window at a time and the segments walked are
bounded, so that no file makes the check slow.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass

from ..errors import InputError
from .read import FileEnds, open_input, read_bytes, read_ends

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
            return _png(path, ends)
        if ends.head.startswith(JPEG_START):
            return _jpeg(path, ends)
        return Header(problem="empty file" if not ends.head else "neither a JPEG nor a PNG picture")
    except InputError as exc:
        if not os.path.exists(path):
            return Header(problem="missing")
        return Header(problem="not a regular file" if not os.path.isfile(path) else exc.reason)


def _png(path: str | os.PathLike, ends: FileEnds) -> Header:
    head = ends.head
    if len(head) < 24 or head[12:16] != b"IHDR":
        return Header("png", problem="a PNG picture without its IHDR header (cut short?)")
    width, height = struct.unpack(">II", head[16:24])
    if ends.size >= 8 + 25 + len(PNG_END) and ends.tail.endswith(PNG_END):
        return Header("png", width, height)
    # No IEND chunk at the very end: cut short, or other data follows it. Its chunks are walked.
    with open_input(path) as handle:
        problem = _png_end(handle.fileno())
    return Header("png", width, height, problem)


def _png_end(fd: int) -> str | None:
    """None if a PNG's chunks lead to its IEND chunk, whole; else what is wrong (each chunk says its
    length, so where the next one starts; at most `_MAX_SEGMENTS` chunks are walked)."""
    pos = len(PNG_SIGNATURE)
    for _ in range(_MAX_SEGMENTS):
        chunk = os.pread(fd, 12, pos)
        if len(chunk) < 12:
            return "a PNG picture without its end (IEND): cut short"
        length, kind = struct.unpack(">I4s", chunk[:8])
        if kind == b"IEND":
            return None
        pos += 12 + length
    return f"a PNG picture with more than {_MAX_SEGMENTS:,} chunks: not read further"


class _Further(Exception):
    """The walk goes beyond the bytes read first."""


_MAX_SEGMENTS = 10_000  # segments before the frame header and the scan: a camera's JPEG has a few dozen
_FILL_RUN = 1 << 16  # fill bytes skipped at a time
_MAX_FILL = 1 << 20  # fill bytes in all: an encoder writes a few, if any
_CHUNK = 1 << 20  # bytes of scan data looked through at a time for the end-of-image marker
_MAX_SCAN = 64 << 20  # bytes of scan data looked through at most (a KAIST picture has 50 KiB)


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
    width, height, after = found
    if JPEG_END in ends.tail:
        return Header("jpeg", width, height)
    # No end-of-image marker among the last bytes: the picture was cut short, or other data follows
    # its end (padding, an appended file). Its scan data is looked through for the marker.
    with open_input(path) as handle:
        whole = _ends_after_scan(handle.fileno(), after)
    if isinstance(whole, str):
        return Header("jpeg", width, height, whole)
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


def _frame_size(window) -> tuple[int, int, int] | str:
    """(width, height, where the segment after the frame header starts) from a JPEG's frame header, or
    what is wrong: the segments are walked (each says its length, so where the next one starts),
    ``window(pos, n)`` giving the file's bytes. Runs of fill bytes are skipped a window at a time, and
    at most `_MAX_SEGMENTS` segments are walked: a file of 200 MiB of fill bytes costs a few reads."""
    pos, fill = 2, 0
    for _ in range(_MAX_SEGMENTS):
        segment = window(pos, 9)
        if len(segment) < 4:
            return "a JPEG picture that ends before its frame header: cut short"
        if segment[0] != 0xFF:
            return f"a JPEG picture whose segments are broken at byte {pos}"
        marker = segment[1]
        if marker == 0xFF:  # fill bytes: skip the run
            run = window(pos + 1, _FILL_RUN)  # from the next byte: at least one more 0xFF
            skipped = len(run) - len(run.lstrip(b"\xff"))
            pos, fill = pos + skipped, fill + skipped  # to the last 0xFF, which starts the marker
            if fill > _MAX_FILL:
                return f"a JPEG picture with more than {_MAX_FILL >> 20} MiB of fill bytes: not read further"
        elif marker in _STANDALONE:
            pos += 2
        elif marker in (0xD9, 0xDA):  # the end of the image, or its data, before any frame header
            return "a JPEG picture without a frame header"
        elif marker in _SOF:
            if len(segment) < 9:
                return "a JPEG picture that ends in its frame header: cut short"
            height, width = struct.unpack(">HH", segment[5:9])
            return width, height, pos + 2 + struct.unpack(">H", segment[2:4])[0]
        else:
            length = struct.unpack(">H", segment[2:4])[0]
            if length < 2:
                return f"a JPEG picture whose segments are broken at byte {pos}"
            pos += 2 + length
    return f"a JPEG picture with more than {_MAX_SEGMENTS:,} segments before its frame header: not read further"


def _ends_after_scan(fd: int, pos: int) -> int | str:
    """Where the end-of-image marker lies, found after the first scan's start (from ``pos``, the segment
    after the frame header); or what is wrong. Inside scan data a 0xFF byte is followed by 0x00 or a
    restart marker, and between scans come other segments: the first FF D9 after the first scan starts
    is the image's end (an EXIF thumbnail's own end lies before it)."""
    window = _windows(fd)
    for _ in range(_MAX_SEGMENTS):  # to the first scan
        segment = window(pos, 4)
        if len(segment) < 4 or segment[0] != 0xFF:
            return "a JPEG picture cut short before its image data"
        if segment[1] == 0xDA:
            break
        if segment[1] == 0xFF or segment[1] in _STANDALONE:
            pos += 1 if segment[1] == 0xFF else 2
            continue
        pos += 2 + struct.unpack(">H", segment[2:4])[0]
    else:
        return f"a JPEG picture with more than {_MAX_SEGMENTS:,} segments before its image data: not read further"
    previous, start = b"", pos
    while chunk := os.pread(fd, _CHUNK, pos):
        found = (previous + chunk).find(JPEG_END)
        if found >= 0:
            return pos - len(previous) + found
        previous, pos = chunk[-1:], pos + len(chunk)
        if pos - start >= _MAX_SCAN:
            return f"a JPEG picture without its end-of-image marker in its first {_MAX_SCAN >> 20} MiB of image data"
    return "a JPEG picture without its end-of-image marker: cut short"


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
