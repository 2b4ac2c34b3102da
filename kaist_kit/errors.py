"""Errors and warnings about user input.

Every problem with a user's file is reported as one line that names the file (and the line when
there is one). The CLI prints an `InputError` and exits with code 2; a `KitWarning` is printed as a
single `warning:` line. Library callers get ordinary exceptions and `warnings`.
"""

from __future__ import annotations

import os
import warnings


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


class KitWarning(UserWarning):
    """Something in the input costs the user accuracy or would be treated differently elsewhere."""


def warn(message: str, path: str | os.PathLike | None = None, line: int | None = None,
         category: type[KitWarning] = KitWarning) -> None:
    prefix = where(path, line)
    warnings.warn(f"{prefix}: {message}" if prefix else message, category, stacklevel=2)


def quantity(n: int, noun: str, plural: str | None = None) -> str:
    """'1 image', '3 images', '2 zero-size boxes': counts in messages read as English."""
    if n == 1:
        return f"{n} {noun}"
    return f"{n} {plural or noun + ('es' if noun.endswith(('s', 'x', 'ch', 'sh')) else 's')}"
