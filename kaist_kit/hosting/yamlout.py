"""YAML for the platforms' configuration files, written without a YAML library.

The configurations need block mappings and lists of str, int, float, bool and None; that subset is
written here in a form every YAML 1.1 and 1.2 reader (PyYAML, which EvalAI and Codabench use) reads
back as the same data: strings always double-quoted with JSON-style escapes, floats always with a
dot, and keys plain only when they are plain words. `tests/test_hosting.py` reads random documents
back with PyYAML.
"""

from __future__ import annotations

import math
import re

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# YAML 1.1 reads these plain words as booleans or null; such keys are quoted.
_RESERVED = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}
# Characters a YAML reader accepts in a quoted scalar as they are; the rest are escaped. Line
# separators (U+0085, U+2028, U+2029) are escaped too: inside quotes they would be folded.
_PRINTABLE = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def dump(data: dict) -> str:
    """A YAML document of ``data``, a mapping; raises TypeError for a value it does not write."""
    if not isinstance(data, dict):
        raise TypeError("a YAML document here is a mapping")
    return "\n".join(_block(data, 0)) + "\n"


def scalar(value: object) -> str:
    """One scalar as YAML: str, bool, int, float or None."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)
        mantissa, e, exponent = text.partition("e")
        if "." not in mantissa:  # YAML 1.1 reads "1e-05" as a string
            mantissa += ".0"
        return mantissa + e + exponent
    if isinstance(value, str):
        return quoted(value)
    raise TypeError(f"cannot write a {type(value).__name__} as YAML")


def quoted(text: str) -> str:
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif _PRINTABLE.match(char):
            out.append(char)
        elif ord(char) <= 0xFF:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def _key(key: object) -> str:
    if not isinstance(key, str):
        raise TypeError("mapping keys are strings here")
    return key if _PLAIN_KEY.match(key) and key.lower() not in _RESERVED else quoted(key)


def _block(value: object, indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{_key(key)}:")
                lines += _block(item, indent + 2)
            else:
                lines.append(f"{pad}{_key(key)}: {_inline(item)}")
        return lines
    for item in value:  # a list
        if isinstance(item, (dict, list)) and item:
            nested = _block(item, indent + 2)
            lines.append(f"{pad}- {nested[0][indent + 2 :]}")
            lines += nested[1:]
        else:
            lines.append(f"{pad}- {_inline(item)}")
    return lines


def _inline(value: object) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return scalar(value)
