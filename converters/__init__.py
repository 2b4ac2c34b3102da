"""Converters from every KAIST annotation format to COCO JSON (`kaist-kit convert`).

The conversion itself is `engine.convert`; this package only exports it and its choices.
"""

from .engine import COMPAT, FORMATS, MODALITIES, Conversion, convert

__all__ = ["COMPAT", "FORMATS", "MODALITIES", "Conversion", "convert"]
