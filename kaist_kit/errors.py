"""Errors about user input.

Every problem with a user's file is reported as one line that names the file (and the line when
there is one). The CLI prints an `InputError` and exits with code 2. What a result holds that is
probably a mistake is not an error but a finding (`kaist_kit.scoring.findings`), which the library returns
and the CLI prints.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping


def where(path: str | os.PathLike | None, line: int | None = None) -> str:
    if not path:
        return f"line {line}" if line is not None else ""
    return f"{path}:{line}" if line is not None else str(path)


class InputError(Exception):
    """A user's input cannot be used. The message is one line and names the file and line."""

    def __init__(self, message: str, path: str | os.PathLike | None = None, line: int | None = None):
        self.path = str(path) if path else None
        self.line = line
        self.reason = message
        prefix = where(path, line)
        super().__init__(f"{prefix}: {message}" if prefix else message)


def by_name(name, kind: type, table: Mapping, what: str):
    """A spec (a format, a metric, a protocol) given as itself or by its name in ``table``; an unknown name is
    a ValueError that lists the names."""
    if isinstance(name, kind):
        return name
    try:
        return table[name]
    except KeyError:
        raise ValueError(f"unknown {what} {name!r}; choose from {', '.join(table)}") from None


class KitWarning(UserWarning):
    """A warning of the kit's own, printed by the CLI as one line (the kit's hazards are findings)."""


def quantity(n: int, noun: str, plural: str | None = None) -> str:
    """'1 image', '3 images', '2 zero-size boxes': counts in messages read as English."""
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {plural or noun + ('es' if noun.endswith(('s', 'x', 'ch', 'sh')) else 's')}"


def percent(value: float | None) -> str:
    """A fraction as a percentage with two decimals, as tables and messages print it; "-" for none."""
    return "-" if value is None or math.isnan(value) else f"{100 * value:.2f}"
