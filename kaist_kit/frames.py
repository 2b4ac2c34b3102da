"""KAIST frame names, ``setXX/VYYY/IZZZZZ``: finding one in a name or a path, and what its set says."""

from __future__ import annotations

import os
import re

# A frame in an im_name (set06/V000/I00019), a flat file name (set06_V000_I00019.txt) or a picture's
# path in KAIST's tree (images/set06/V000/visible/I00019.jpg).
FRAME_IN_TEXT = re.compile(r"(set\d\d)[/_](V\d\d\d)[/_](?:(?:visible|lwir)/)?(I\d{5})")
_SET = re.compile(r"set(\d\d)")
# KAIST sets: set00-02 and set06-08 are day, set03-05 and set09-11 night.
NIGHT_SETS = frozenset({3, 4, 5, 9, 10, 11})


def find_frame(text: str | os.PathLike) -> str | None:
    """'setXX/VYYY/IZZZZZ' when ``text`` names a KAIST frame, else None."""
    match = FRAME_IN_TEXT.search(str(text).replace(os.sep, "/"))
    return "/".join(match.groups()) if match else None


def period_of(name: str) -> str:
    """'day' or 'night' from a KAIST frame name, '' when the name has no set number."""
    match = _SET.search(name)
    if not match:
        return ""
    return "night" if int(match.group(1)) in NIGHT_SETS else "day"
