"""Paired annotations (Zhang et al.): one bbGt file per modality for each frame."""

from __future__ import annotations

from .bbgt import PROBLEMS as BBGT_PROBLEMS
from .bbgt import BadFile, collect_frames, parse_bbgt
from .problems import Problems
from .records import AnnotatedObject, FrameColumns, ObjectColumns, ParseOptions
from .sources import text_of

MODALITIES = ("visible", "lwir")
PROBLEMS = BBGT_PROBLEMS | {"unpaired file", "pair count mismatch"}


def parse_paired_files(
    frames: list[tuple[int, str, dict[str, str]]],
    contents: dict[str, bytes],
    display,
    problems: Problems,
    options: ParseOptions,
) -> tuple[FrameColumns, ObjectColumns]:
    """Frames given as (image id, frame name, {modality: path}); see bbgt.collect_frames. A frame whose
    files disagree is left out."""
    return collect_frames(
        frames, lambda entry: _paired_objects(entry, contents, display, problems, options.reference), options
    )


def _paired_objects(
    entry: dict[str, str], contents: dict[str, bytes], display, problems: Problems, reference: str
) -> list[AnnotatedObject]:
    """Both boxes of every object; the reference modality's box is the annotation's bbox."""
    for modality in MODALITIES:
        if modality not in entry:
            present = next(iter(entry.values()))
            problems.add("unpaired file", f"no {modality} file beside it; frame left out", display(present))
            raise BadFile
    parsed = {}
    for modality in MODALITIES:
        rel = entry[modality]
        # Keep empty boxes here: an object missing from one modality may be written with a zero
        # box, and dropping it would pair every later object with the wrong partner.
        parsed[modality] = parse_bbgt(text_of(contents[rel]), display(rel), problems, keep_empty=True)
    if len(parsed["visible"]) != len(parsed["lwir"]):
        problems.add(
            "pair count mismatch",
            f"{len(parsed['visible'])} objects in the visible file, "
            f"{len(parsed['lwir'])} in the lwir file; frame left out",
            display(entry["lwir"]),
        )
        raise BadFile
    objects = []
    for vis, lwir in zip(parsed["visible"], parsed["lwir"]):
        ref = lwir if reference == "lwir" else vis
        if ref.w <= 0 or ref.h <= 0:
            ref = vis if ref is lwir else lwir  # seen in the other modality only: placed by that box
        if ref.w <= 0 or ref.h <= 0:
            problems.add(
                "zero-size box",
                f"object {ref.label!r} has no box in either modality, skipped",
                display(entry[reference]),
                ref.line,
            )
            continue
        paired = {"bbox_visible": vis.box, "bbox_lwir": lwir.box, "label_visible": vis.label, "label_lwir": lwir.label}
        # A pedestrian only if both modalities say person: unpaired objects are ignore regions.
        ign = int(bool(vis.ign or lwir.ign) or vis.label != "person" or lwir.label != "person")
        objects.append(ref._replace(ign=ign, paired=paired))
    return objects
