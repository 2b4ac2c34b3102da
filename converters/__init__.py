"""Converters from every KAIST annotation format to COCO JSON (`kaist-kit convert`).

The formats are specs in `formats` (one `SourceFormat` each) and the conversion is `engine.convert`;
this package only exports them. The output schema is documented in docs/datasets.md.
"""

from .engine import COMPAT, MODALITIES, Conversion, convert
from .formats import FORMATS, SOURCE_FORMATS, SourceFormat

__all__ = ["COMPAT", "FORMATS", "MODALITIES", "SOURCE_FORMATS", "Conversion", "SourceFormat", "convert"]
