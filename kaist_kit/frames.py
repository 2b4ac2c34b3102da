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
# Each set was recorded in one scene, in this order by day and again by night (Hwang et al., CVPR
# 2015): set00/03/06/09 campus, set01/04/07/10 road, set02/05/08/11 downtown.
SCENES = ("campus", "road", "downtown")


def find_frame(text: str | os.PathLike) -> str | None:
    """'setXX/VYYY/IZZZZZ' when ``text`` names a KAIST frame, else None."""
    match = FRAME_IN_TEXT.search(str(text).replace(os.sep, "/"))
    return "/".join(match.groups()) if match else None


def set_of(name: str) -> int | None:
    """The set number of a KAIST frame name, None when the name has none."""
    match = _SET.search(name)
    return int(match.group(1)) if match else None


def period_of(name: str) -> str:
    """'day' or 'night' from a KAIST frame name, '' when the name has no set number."""
    number = set_of(name)
    if number is None:
        return ""
    return "night" if number in NIGHT_SETS else "day"


def scene_of(set_number: int) -> str:
    """'campus', 'road' or 'downtown': where a set was recorded."""
    return SCENES[set_number % len(SCENES)]
