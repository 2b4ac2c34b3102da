"""Image-set lists: one frame name (``setXX/VYYY/IZZZZZ``) or image id per line, any line ending.

The official lists follow one rule, checked against every official list on the full frame tree:
``{train,test}-{all,day,night}-NN`` holds the frames of the train sets (set00-05) or test sets
(set06-11), day (set00-02, set06-08) or night (set03-05, set09-11), whose frame number is
``NN - 1`` modulo ``NN``, in name order. So the kit can select a named list from the frames it
finds, without the list files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from ..datasets import KAIST_NIGHT_SETS, KAIST_SETS, KAIST_TEST_SETS, kaist_numbers
from ..errors import InputError
from ..io.read import read_text
from ..io.text import accepts, text_lines
from .frames import find_frame
from .groundtruth import GroundTruth

_STANDARD = re.compile(r"^(train|test)-(all|day|night)-(01|02|04|20)$")
_PARTS = {"train": KAIST_SETS - KAIST_TEST_SETS, "test": KAIST_TEST_SETS}
_PERIODS = {"all": KAIST_SETS, "day": KAIST_SETS - KAIST_NIGHT_SETS, "night": KAIST_NIGHT_SETS}


def read_image_list(path: str | os.PathLike) -> list[str]:
    """The non-empty lines of a list file, stripped (CRLF lists are common)."""
    return [item for _, item in _numbered_items(path)]


def _numbered_items(path: str | os.PathLike) -> list[tuple[int, str]]:
    items = [(number, line.strip()) for number, line in enumerate(text_lines(read_text(path)), 1)]
    items = [(number, item) for number, item in items if item and not item.startswith("#")]
    if not items:
        raise InputError("the image list is empty", path)
    return items


def select_images(path: str | os.PathLike, gt: GroundTruth) -> list:
    """The ids (as the ground truth writes them) of the images a list file names, in order: frame names
    or image ids; an entry the ground truth lacks stops with the list file and its line."""
    ids = gt.image_ids.tolist()
    chosen = []
    for number, item in _numbered_items(path):
        found = gt.find_image(item)
        if found is None:
            raise InputError(f"{item[:80]!r} is not an image of the ground truth ({gt.describe()})", path, number)
        chosen.append(ids[found])
    return chosen


def list_name(path: str | os.PathLike) -> str:
    return Path(path).stem


def list_split_names(paths: Iterable[str | os.PathLike], taken: Iterable[str] = ()) -> list[str]:
    """A split name for each list file, unique and never one a built-in split has (all, day, night, a
    scene, a set) nor one of ``taken`` (the splits asked for by name): the file's stem when it is free,
    else its name, then its folder and name, then its path, numbered if even that repeats."""
    used = set(taken)
    names = []
    for path in map(Path, paths):
        candidates = [
            path.stem,
            path.name,
            f"{path.parent.name}/{path.name}" if path.parent.name else path.name,
            str(path),
        ]
        name = next((c for c in candidates if c not in used and not _is_builtin_split(c)), None)
        k = 2
        while name is None or name in used:
            name = f"{str(path)} ({k})"
            k += 1
        used.add(name)
        names.append(name)
    return names


def _is_builtin_split(name: str) -> bool:
    from ..datasets import kaist_parse_split as parse_split

    return accepts(parse_split, name)


def is_standard_list(name: str) -> bool:
    return bool(_STANDARD.match(name))


def standard_list(name: str, frames: Iterable[str]) -> list[str]:
    """The frames of a named official list among ``frames`` (names ``setXX/VYYY/IZZZZZ``)."""
    match = _STANDARD.match(name)
    if not match:
        raise ValueError(f"{name!r} is not a standard list name such as train-all-02 or test-all-20")
    part, period, step = match.group(1), match.group(2), int(match.group(3))
    sets = _PARTS[part] & _PERIODS[period]
    chosen = []
    for frame in frames:
        numbers = kaist_numbers(frame)
        if numbers and numbers[0] in sets and numbers[2] % step == step - 1:
            chosen.append(frame)
    return sorted(chosen)


def resolve_image_set(spec: str, frames: Iterable[str], search: Iterable[Path] = ()) -> tuple[str, list[str]]:
    """(name, frames) of an image set given as a list file, or a list name.

    A name is looked up as ``imageSets/NAME.txt`` in the ``search`` folders, then built from the
    official rule for the standard names.
    """
    path = Path(spec)
    if path.suffix == ".txt" or path.is_file():
        return list_name(path), _frames_of(path)
    for folder in search:
        candidate = Path(folder) / "imageSets" / f"{spec}.txt"
        if candidate.is_file():
            return spec, _frames_of(candidate)
    if is_standard_list(spec):
        return spec, standard_list(spec, frames)
    raise InputError(
        f"image set {spec!r} is neither a list file nor a known list name (train|test)-(all|day|night)-(01|02|04|20)"
    )


def _frames_of(path: Path) -> list[str]:
    out = []
    for number, item in _numbered_items(path):
        frame = find_frame(item)
        if frame is None:
            raise InputError(f"{item!r} is not a frame name setXX/VYYY/IZZZZZ", path, number)
        out.append(frame)
    return out
