"""A picture's size and completeness from the bytes of its header and its end, without decoding it.

`kaist-kit check-data` looks at every picture of a KAIST tree (95,000 pairs) in seconds: a JPEG's size
is in its start-of-frame segment, a PNG's in its IHDR chunk, a few hundred bytes from the start; a
JPEG that was cut short lacks its end-of-image marker, a PNG its IEND chunk. Only a sample is decoded.
"""

from __future__ import annotations

import os
import stat
import struct
from dataclasses import dataclass

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
        # Without blocking: a named pipe where a picture should be would wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return Header(problem="missing")
    except OSError as exc:
        return Header(problem=f"cannot read: {exc.strerror}")
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            return Header(problem="not a regular file")
        head = os.read(fd, _HEAD)
        size = status.st_size
        if head.startswith(PNG_SIGNATURE):
            return _png(fd, head, size)
        if head.startswith(JPEG_START):
            return _jpeg(fd, head, size)
        return Header(problem="empty file" if not head else "neither a JPEG nor a PNG picture")
    except OSError as exc:
        return Header(problem=f"cannot read: {exc.strerror}")
    finally:
        os.close(fd)


def _png(fd: int, head: bytes, size: int) -> Header:
    if len(head) < 24 or head[12:16] != b"IHDR":
        return Header("png", problem="a PNG picture without its IHDR header (cut short?)")
    width, height = struct.unpack(">II", head[16:24])
    if size < 8 + 25 + len(PNG_END) or os.pread(fd, len(PNG_END), size - len(PNG_END)) != PNG_END:
        return Header("png", width, height, "a PNG picture without its end (IEND): cut short")
    return Header("png", width, height)


def _jpeg(fd: int, head: bytes, size: int) -> Header:
    """Walk the JPEG's segments (each says its length, so where the next one starts) to its frame
    header; the file is read on only when a segment starts beyond what was read."""
    data, start = head, 0  # data holds the file's bytes from offset `start`

    def window(pos: int, n: int) -> bytes:
        nonlocal data, start
        if not (start <= pos and pos + n <= start + len(data)):
            data, start = os.pread(fd, max(_HEAD, n), pos), pos
        return data[pos - start:pos - start + n]

    pos = 2
    while True:
        segment = window(pos, 9)
        if len(segment) < 4:
            return Header("jpeg", problem="a JPEG picture that ends before its frame header: cut short")
        if segment[0] != 0xFF:
            return Header("jpeg", problem=f"a JPEG picture whose segments are broken at byte {pos}")
        marker = segment[1]
        if marker == 0xFF:  # a fill byte
            pos += 1
        elif marker in _STANDALONE:
            pos += 2
        elif marker in (0xD9, 0xDA):  # the end of the image, or its data, before any frame header
            return Header("jpeg", problem="a JPEG picture without a frame header")
        elif marker in _SOF:
            if len(segment) < 9:
                return Header("jpeg", problem="a JPEG picture that ends in its frame header: cut short")
            height, width = struct.unpack(">HH", segment[5:9])
            break
        else:
            length = struct.unpack(">H", segment[2:4])[0]
            if length < 2:
                return Header("jpeg", problem=f"a JPEG picture whose segments are broken at byte {pos}")
            pos += 2 + length
    tail = os.pread(fd, _TAIL, max(0, size - _TAIL))
    if JPEG_END not in tail:
        return Header("jpeg", width, height, "a JPEG picture without its end-of-image marker: cut short")
    return Header("jpeg", width, height)


def decode_problem(path: str | os.PathLike, size: tuple[int, int]) -> str | None:
    """Decode the picture (Pillow, which matplotlib brings); None when it decodes whole at ``size``
    (width, height), else what is wrong, in one line."""
    import io

    from PIL import Image

    from .files import read_bytes

    try:
        with Image.open(io.BytesIO(read_bytes(path))) as picture:
            picture.load()
            found = picture.size
    except Exception as exc:  # Pillow raises many kinds of error for a broken file
        return f"cannot decode: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    if found != tuple(size):
        return f"decodes to {found[0]} x {found[1]}, not {size[0]} x {size[1]}"
    return None
