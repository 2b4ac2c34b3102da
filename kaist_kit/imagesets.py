"""Image-set lists: one frame name (``setXX/VYYY/IZZZZZ``) or image id per line, any line ending."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import InputError
from .files import read_text


def read_image_list(path: str | os.PathLike) -> list[str]:
    """The non-empty lines of a list file, stripped (CRLF lists are common)."""
    items = [line.strip() for line in read_text(path).splitlines()]
    items = [item for item in items if item and not item.startswith("#")]
    if not items:
        raise InputError("the image list is empty", path)
    return items


def list_name(path: str | os.PathLike) -> str:
    return Path(path).stem
