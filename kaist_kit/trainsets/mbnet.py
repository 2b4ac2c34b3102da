"""MBNet's training cache, ``kaist_train_data.npy``, read without running any code it could hold.

The cache is a numpy object array of dicts pickled by Python 2. ``np.load(path, allow_pickle=True,
encoding='latin1')``, as MBNet reads it, would run whatever the pickle names: a file that calls
``os.system`` runs the command. Here the pickle is read by an unpickler that gives it only what numpy
needs to rebuild its arrays, and checks each use:

- ``numpy.core.multiarray._reconstruct`` (``numpy._core`` since numpy 2), called only as numpy calls it,
  ``_reconstruct(ndarray, (0,), b'b')``, for an empty array that the pickle then fills;
- ``numpy.ndarray``, only as that argument (it is not callable here);
- ``numpy.dtype``, called only for plain numbers, booleans and Python objects (``'f8'``, ``'i4'``,
  ``'O8'``...).

Every other global, Python 2 or 3, is refused before anything is called, and what the pickle builds
must then be dicts, lists, tuples, strings, numbers and arrays of numbers, within declared bounds
(depth, count, string length) and holding nothing that holds itself; anything else is refused (exit
code 2). The pickle's own opcodes can build nothing but those (and sets, which are refused). Each entry
is then read against the cache's schema: its two paths, its boxes as arrays of four finite numbers
whose sizes and areas are finite too.
"""

from __future__ import annotations

import functools
import io
import os
import pickle
import re
from dataclasses import dataclass

import numpy as np

from ..datasets import KAIST_IMAGE, KAIST_SET, KAIST_VIDEO
from ..errors import InputError
from ..io.read import read_bytes

_RECONSTRUCT = np.zeros(0).__reduce__()[0]  # numpy's own, wherever this numpy keeps it
_PLAIN_DTYPE = re.compile(r"[?bBhHiIlLqQefdgFDG]|[biufc]\d{1,2}|b1|O\d?")
_NUMERIC_KINDS = "biufc"


class _Refused(Exception):
    """What the pickle asks for is not admitted."""


class _NdarrayArgument:
    """Stands for numpy.ndarray in the pickle: only `_reconstruct` may receive it."""

    def __repr__(self) -> str:
        return "numpy.ndarray"


_NDARRAY = _NdarrayArgument()


def _reconstruct(subtype, shape, typecode):
    if subtype is not _NDARRAY or shape != (0,) or typecode not in ("b", b"b"):
        raise _Refused(
            f"numpy's array rebuild called as _reconstruct({subtype!r}, {shape!r}, {typecode!r}), not as numpy calls it"
        )
    return _RECONSTRUCT(np.ndarray, shape, typecode)


def _dtype(spec, align=False, copy=True):
    if not isinstance(spec, str) or not _PLAIN_DTYPE.fullmatch(spec):
        raise _Refused(f"numpy.dtype({spec!r}): only numbers, booleans and objects are read")
    return np.dtype(spec, bool(align), bool(copy))


_ADMITTED = {
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy", "ndarray"): _NDARRAY,
    ("numpy", "dtype"): _dtype,
}


class _RestrictedUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        try:
            return _ADMITTED[(module, name)]
        except KeyError:
            raise _Refused(f"the pickle asks for {module}.{name}") from None

    def persistent_load(self, pid):
        raise _Refused("the pickle refers to a persistent object")


def restricted_loads(data: bytes):
    """Unpickle ``data`` (Python 2 strings read as Latin-1) admitting only what numpy needs to rebuild
    arrays; raises `_Refused` or pickle's own errors."""
    return _RestrictedUnpickler(io.BytesIO(data), encoding="latin1").load()


# What a training cache may hold at most: MBNet's has 8,963 entries of 7 values, 4 levels deep.
MAX_DEPTH = 16
MAX_VALUES = 5_000_000
MAX_TEXT = 4096  # characters in a string (a path)
_EXIT = object()


def _check_plain(value, where: str) -> None:
    """Refuse anything but dicts, lists, tuples, strings, numbers, None and numeric arrays (object
    arrays of those), nested at most `MAX_DEPTH` deep, `MAX_VALUES` values in all, strings of at most
    `MAX_TEXT` characters, and nothing that holds itself. The walk is a loop, not a recursion, and each
    object shared by several others is looked at once: a pickle's references make a small file into a
    deep, a cyclic or an exponentially wide tree, none of which may hang or crash the check."""
    stack = [(value, where, 0)]
    on_path, done = set(), set()
    count = 0
    while stack:
        item = stack.pop()
        if item[0] is _EXIT:
            on_path.discard(item[1])
            done.add(item[1])
            continue
        value, where, depth = item
        if value is None or isinstance(value, (bool, int, float)):
            continue
        if isinstance(value, (str, bytes)):
            if len(value) > MAX_TEXT:
                raise _Refused(f"{where} is a string of {len(value):,} characters (at most {MAX_TEXT:,})")
            continue
        key = id(value)
        if key in on_path:
            raise _Refused(f"{where} holds itself")
        if key in done:
            continue
        if depth >= MAX_DEPTH:
            raise _Refused(f"{where} is nested more than {MAX_DEPTH} deep")
        children = _children(value, where)
        count += 1 + len(children)
        if count > MAX_VALUES:
            raise _Refused(f"the cache holds more than {MAX_VALUES:,} values")
        on_path.add(key)
        stack.append((_EXIT, key))
        stack.extend((child, at, depth + 1) for child, at in reversed(children))


def _children(value, where: str) -> list:
    """The values inside a container, each with where it is; an array of numbers has none."""
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            out.append((key, f"{where} (a key)"))
            out.append((item, f"{where}[{_shown(key)}]"))
        return out
    if isinstance(value, (list, tuple)):
        return [(item, f"{where}[{k}]") for k, item in enumerate(value)]
    if type(value) is np.ndarray:
        if value.dtype.kind == "O":
            return [(item, f"{where}[{k}]") for k, item in enumerate(value.ravel())]
        if value.dtype.kind not in _NUMERIC_KINDS or value.dtype.fields is not None:
            raise _Refused(f"{where} is an array of {value.dtype}, not of numbers")
        return []
    raise _Refused(f"{where} is a {type(value).__name__}")


def _shown(value) -> str:
    """A value in a message: its repr on one line, cut short (paths, keys)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 80 else text[:77] + "..."


def read_npy_pickle(path: str | os.PathLike):
    """The object array pickled in a ``.npy`` file, read with `restricted_loads`; anything else is an
    `InputError` naming the file."""
    raw = read_bytes(path)
    stream = io.BytesIO(raw)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"npy format version {version[0]}.{version[1]}")
    except ValueError as exc:
        raise InputError(f"not a numpy .npy file ({str(exc).splitlines()[0]})", path) from None
    if dtype.kind != "O":
        raise InputError(f"a numpy array of {dtype}, not of pickled Python objects as MBNet's cache is", path)
    try:
        array = restricted_loads(raw[stream.tell() :])
        _check_plain(array, "the cache")
    except _Refused as exc:
        raise InputError(
            f"refused: {exc}; a training cache holds only arrays, dicts, lists, strings and "
            "numbers, and nothing of this file was run",
            path,
        ) from None
    except (
        pickle.UnpicklingError,
        EOFError,
        ValueError,
        TypeError,
        AttributeError,
        IndexError,
        KeyError,
        UnicodeDecodeError,
        MemoryError,
        RecursionError,
        OverflowError,
    ) as exc:
        raise InputError(
            f"not a readable pickle: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}", path
        ) from None
    if type(array) is not np.ndarray or array.shape != tuple(shape):
        raise InputError(
            f"the pickle holds {type(array).__name__} {getattr(array, 'shape', '')}, not the "
            f"array of shape {tuple(shape)} its header announces",
            path,
        )
    return array


@dataclass(frozen=True)
class CacheEntry:
    """One entry of MBNet's cache: a frame, its boxes (x1, y1, x2, y2) and its ignore areas."""

    index: int  # position in the cache
    frame: str  # setXX/VYYY/IZZZZZ
    boxes: np.ndarray  # (N, 4) float64
    ignore_areas: np.ndarray  # (M, 4) float64


# A picture's path in KAIST's tree (the spec's frame-name parts): setXX/VYYY/visible/IZZZZZ.jpg.
_FRAME = re.compile(rf"({KAIST_SET})/({KAIST_VIDEO})/(visible|lwir)/({KAIST_IMAGE})\.\w+")


def read_mbnet_cache(path: str | os.PathLike) -> list[CacheEntry]:
    """The entries of MBNet's training cache, in its order, checked: each a dict whose ``filepath`` and
    ``filepath_lwir`` name the same KAIST frame (visible and lwir) and whose ``bboxes`` and
    ``ignoreareas`` are arrays of finite boxes, four numbers each (or empty)."""
    array = read_npy_pickle(path)
    if array.ndim != 1:
        raise InputError(f"an array of shape {array.shape}; MBNet's cache is one list of frames", path)
    entries = []
    for index, item in enumerate(array):
        bad = functools.partial(_bad_entry, path, index)
        if not isinstance(item, dict):
            raise bad(f"is a {type(item).__name__}")
        names = []
        for key, modality in (("filepath", "visible"), ("filepath_lwir", "lwir")):
            value = item.get(key)
            match = _FRAME.search(value) if isinstance(value, str) else None
            if match is None or match[3] != modality:
                raise bad(f"has {key} {_shown(value)}, not a path .../setXX/VYYY/{modality}/IZZZZZ.png")
            names.append(f"{match[1]}/{match[2]}/{match[4]}")
        if names[0] != names[1]:
            raise bad(f"pairs the visible picture of {names[0]} with the lwir picture of {names[1]}")
        boxes = [
            _boxes(item.get(key), functools.partial(_bad_entry, path, index, prefix=f"has {key} "))
            for key in ("bboxes", "ignoreareas")
        ]
        entries.append(CacheEntry(index, names[0], *boxes))
    return entries


def _bad_entry(path, index: int, what: str, prefix: str = "") -> InputError:
    return InputError(
        f"entry {index} {prefix}{what}; MBNet's cache entries are dicts with filepath, filepath_lwir, "
        "bboxes and ignoreareas",
        path,
    )


def _boxes(value, bad) -> np.ndarray:
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "iuf":
        raise bad(f"of type {type(value).__name__}, not an array of numbers")
    if value.size == 0:
        return np.zeros((0, 4))
    if value.ndim != 2 or value.shape[1] != 4:
        raise bad(f"of shape {value.shape}, not N x 4 (x1, y1, x2, y2)")
    boxes = value.astype(np.float64)
    if not np.isfinite(boxes).all():
        raise bad("with a number that is not finite")
    with np.errstate(over="ignore", invalid="ignore"):
        sizes = boxes[:, 2:] - boxes[:, :2]
        area = sizes[:, 0] * sizes[:, 1]
    if not (np.isfinite(sizes).all() and np.isfinite(area).all()):
        raise bad("with a box whose width, height or area is beyond any number")
    return boxes
