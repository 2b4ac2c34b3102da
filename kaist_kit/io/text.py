"""Text as the readers take it, with the line an error is at: bytes decoded as UTF-8 (`decode_text`),
lines ended as a plain reader ends them (`text_lines`), fields read as numbers as float() reads them
(`is_number`), JSON as json reads it (`parse_json`, whose errors name the line, and `json_line`, the line of
a value). Nothing here opens a file: `read.read_text` and `read.load_json` read one through the opener.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from ..errors import InputError


def decode_text(data: bytes, path: str | os.PathLike) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError("not UTF-8 text (is this a binary file?)", path, line) from None


def text_lines(text: str) -> list[str]:
    """The lines of a text: ended by a line feed, a carriage return or both, and by nothing else (a form
    feed or U+2028, which str.splitlines also ends lines at, is blank space within a line)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def is_number(token: str) -> bool:
    """Whether a field of a text file reads as a number (what float() accepts)."""
    return accepts(float, token)


def accepts(parse, text: str) -> bool:
    """Whether ``parse`` reads ``text`` (raises no ValueError)."""
    try:
        parse(text)
    except ValueError:
        return False
    return True


def parse_json(text: str, path: str | os.PathLike) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        # An error in the text's last, unfinished token (a number or a word cut short, or a string
        # still open) means the document stopped early: say so, it is the usual cause. Not any error
        # on the last line: a detector's results are often one line.
        stopped = bool(re.fullmatch(r"[\w.+-]*", text[exc.pos :].rstrip())) or exc.msg.startswith("Unterminated string")
        what = "truncated JSON" if stopped else f"invalid JSON: {exc.msg}"
        raise InputError(what, path, exc.lineno) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", path) from None


_WS = " \t\n\r"


def json_line(text: str, *keys: str | int) -> int | None:
    """1-based line where the value at ``keys`` (object keys and array indices) starts.

    Used only to point an error at the right line, so it re-scans the text and does not need to be
    fast. Returns None when the path does not exist.
    """
    decoder = json.JSONDecoder()
    pos = 0
    for key in keys:
        pos = _skip_ws(text, pos)
        if pos >= len(text):
            return None
        if isinstance(key, int):
            if text[pos] != "[":
                return None
            pos = _nth_array_element(text, pos, key, decoder)
        else:
            if text[pos] != "{":
                return None
            pos = _object_value(text, pos, key, decoder)
        if pos is None:
            return None
    return text.count("\n", 0, _skip_ws(text, pos)) + 1


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def _nth_array_element(text: str, pos: int, n: int, decoder: json.JSONDecoder) -> int | None:
    pos = _skip_ws(text, pos + 1)
    for _ in range(n):
        if pos >= len(text) or text[pos] == "]":
            return None
        _, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if pos >= len(text) or text[pos] != ",":
            return None
        pos = _skip_ws(text, pos + 1)
    return pos if pos < len(text) and text[pos] != "]" else None


def _object_value(text: str, pos: int, wanted: str, decoder: json.JSONDecoder) -> int | None:
    pos = _skip_ws(text, pos + 1)
    while pos < len(text) and text[pos] != "}":
        key, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if pos >= len(text) or text[pos] != ":":
            return None
        pos = _skip_ws(text, pos + 1)
        if key == wanted:
            return pos
        _, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
    return None
