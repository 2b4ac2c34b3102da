"""The records that pass between the engine, the readers and the writer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from kaist_kit.datasets import KAIST, Benchmark


@dataclass(frozen=True)
class ParseOptions:
    """What a reader needs beyond the files."""

    image_size: tuple[int, int]  # (width, height) of frames whose files do not record it; (0, 0): unknown
    reference: str = "lwir"  # paired files: the modality whose box is the annotation's bbox
    benchmark: Benchmark = KAIST  # whose classes, labels and box conventions the files follow
    origin: str = "centre"  # CVC-14: whether a line's x, y is the box's 'centre' or its 'corner'


class AnnotatedObject(NamedTuple):
    """One annotated object as a reader found it."""

    label: str
    x: int | float
    y: int | float
    w: int | float
    h: int | float
    occlusion: int = 0  # 0 none, 1 partial, 2 heavy
    visible: tuple | None = None  # the visible part's box (bbGt vx vy vw vh), where the file gives one
    ign: int = 0  # the file's ignore flag
    paired: dict | None = None  # paired files: both modalities' boxes and labels
    line: int | None = None  # where the object was read, for messages

    @property
    def box(self) -> tuple:
        return self.x, self.y, self.w, self.h


class ObjectColumns(NamedTuple):
    """Objects of many frames, one list per field, in output order: the writer formats them with
    C-level loops over whole columns, which keeps the 110k objects of the XML tree cheap."""

    image_id: list[int]
    label: list[str]
    x: list
    y: list
    w: list
    h: list
    occlusion: list[int]
    visible: list
    ign: list[int]
    paired: list

    @classmethod
    def empty(cls) -> ObjectColumns:
        return cls([], [], [], [], [], [], [], [], [], [])

    @classmethod
    def of(cls, rows: list[tuple[int, AnnotatedObject]]) -> ObjectColumns:
        """The columns of (image id, object) pairs."""
        if not rows:
            return cls.empty()
        image_ids, objects = zip(*rows)
        label, x, y, w, h, occlusion, visible, ign, paired, _ = map(list, zip(*objects))
        return cls(list(image_ids), label, x, y, w, h, occlusion, visible, ign, paired)

    def rows(self) -> list[tuple[int, AnnotatedObject]]:
        """(image id, object) pairs, in order."""
        image_ids, *fields = self
        return list(zip(image_ids, map(AnnotatedObject, *fields)))


class FrameColumns(NamedTuple):
    """Frames, one list per field, in name order."""

    image_id: list[int]
    name: list[str]  # setXX/VYYY/IZZZZZ
    width: list[int]
    height: list[int]

    @classmethod
    def of(cls, rows: list[tuple[int, str, int, int]]) -> FrameColumns:
        """The columns of (image id, name, width, height) rows."""
        return cls(*map(list, zip(*rows))) if rows else cls([], [], [], [])
