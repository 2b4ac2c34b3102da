"""How a result argument names a zoo entry: ``zoo:NAME``. Light, so that the readers can ask it of every
path they are given without importing the zoo."""

from __future__ import annotations

import os

PREFIX = "zoo:"


def zoo_name(result: str | os.PathLike) -> str | None:
    """The entry's name when ``result`` is ``zoo:NAME``, else None."""
    text = os.fspath(result)
    return text[len(PREFIX) :] if text.startswith(PREFIX) else None
