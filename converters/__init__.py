"""Converters from every KAIST annotation format to COCO JSON (`kaist-kit convert`).

The formats are specs in `formats` (one `SourceFormat` each) and the conversion is `engine.convert`;
this package only exports them. The output schema is documented in docs/datasets.md.
"""

from .formats import FORMATS, SOURCE_FORMATS, SourceFormat
from .paired import MODALITIES

__all__ = ["COMPAT", "FORMATS", "MODALITIES", "SOURCE_FORMATS", "Conversion", "SourceFormat", "convert"]


def __getattr__(name: str):
    # The engine (worker processes, output) is imported on first use, so that the commands that
    # convert nothing start without it.
    if name in ("COMPAT", "Conversion", "convert"):
        from . import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
