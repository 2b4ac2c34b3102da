"""KAIST frame names, ``setXX/VYYY/IZZZZZ``: finding one in a name or a path, and what its set says.

The names, the sets' periods and scenes are the KAIST spec's (`kaist_kit.datasets.KAIST`).
"""

from __future__ import annotations

import os

from ..datasets import KAIST, KAIST_NIGHT_SETS, KAIST_SCENES, kaist_period, kaist_scene, kaist_set_number

# A frame in an im_name (set06/V000/I00019), a flat file name (set06_V000_I00019.txt) or a picture's
# path in KAIST's tree (images/set06/V000/visible/I00019.jpg).
FRAME_IN_TEXT = KAIST.frames.pattern
NIGHT_SETS = KAIST_NIGHT_SETS
SCENES = KAIST_SCENES


def find_frame(text: str | os.PathLike) -> str | None:
    """'setXX/VYYY/IZZZZZ' when ``text`` names a KAIST frame, else None."""
    match = FRAME_IN_TEXT.search(str(text).replace(os.sep, "/"))
    return "/".join(match.groups()) if match else None


def set_of(name: str) -> int | None:
    """The set number of a KAIST frame name, None when the name has none."""
    return kaist_set_number(name)


def period_of(name: str) -> str:
    """'day' or 'night' from a KAIST frame name, '' when the name has no set number."""
    number = set_of(name)
    return "" if number is None else kaist_period(number)


def scene_of(set_number: int) -> str:
    """'campus', 'road' or 'downtown': where a set was recorded."""
    return kaist_scene(set_number)
