"""The records that pass between the engine, the readers and the writer."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ParseOptions:
    """What a reader needs beyond the files."""

    image_size: tuple[int, int]  # (width, height) of frames whose files do not record it
    reference: str = "lwir"  # paired files: the modality whose box is the annotation's bbox
