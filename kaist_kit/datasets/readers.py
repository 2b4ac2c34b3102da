"""What the benchmarks' native readers share: a dataset's folder, its list files and its VOC files read
into the one ground-truth model (`kaist_kit.data.groundtruth.GroundTruth`). Each dataset's reader is its
module's (`Benchmark.read_native`); `read_benchmark` reads any benchmark's folder by it.

- FLIR-aligned: ``align/Annotations/FLIR_XXXXX_PreviewData.xml`` (VOC) for the frames of
  ``align/align_train.txt`` or ``align/align_validation.txt``; classes person, bicycle, car; the few
  dog boxes are dropped, with a note.
- LLVIP: ``Annotations/NNNNNN.xml`` for the frames in ``visible/{train,test}``; which annotation
  release the files are is said (`llvip_release`).
- CVC-14: ``{Day,Night}/Visible/{Train,NewTest}/Annotations/*.txt``, lines
  ``x y w h mandatory 0 0 0 0 track_id 0`` read with ``str.split``; the test frames are those annotated
  in both modalities (a file under ``FIR/.../Annotations`` too); x, y read as the box's centre or its
  top-left corner (``origin``), a box whose ``mandatory`` is 0 an ignore region.
- M3FD: ``Annotation/NNNNN.xml`` (VOC) for all frames or those of a list.

VOC boxes are read with the benchmark's pixel convention (`Benchmark.voc_boxes`): FLIR-aligned and
M3FD as the COCO conversions in circulation read them (x = xmin - 1, w = xmax - xmin + 1), LLVIP as
its authors' own converters do (x = xmin, w = xmax - xmin). Every file is read through
the opener, `kaist_kit.io.read`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..data.groundtruth import Box, ClassInfo, GroundTruth, assemble
from ..errors import InputError, quantity
from ..io.read import read_bytes
from .registry import get_benchmark
from .spec import Benchmark
from .voc import VocFile, parse_voc


@dataclass
class NativeBox:
    image: int
    label: str
    box: tuple[float, float, float, float]
    ignore: bool = False


def read_benchmark(benchmark: Benchmark | str, root: str | os.PathLike, split: str = "test", **options) -> GroundTruth:
    """The annotations of ``split`` of a benchmark's dataset under ``root``, in its native layout."""
    bench = get_benchmark(benchmark)
    if bench.read_native is None:
        raise ValueError(f"{bench.title} is read by `kaist-kit convert` (converters/), not here")
    return bench.read_native(root, split, **options)


# ------------------------------------------------------------------------------------------------
# VOC datasets


def read_voc_files(
    bench: Benchmark, frames: list[str], files: list[Path], voc_boxes: str | None, where: str
) -> GroundTruth:
    convention = voc_boxes or bench.voc_boxes
    if convention not in ("pascal", "as-written"):
        raise ValueError(f"unknown VOC box convention {convention!r}; use pascal or as-written")
    if len(set(frames)) != len(frames):
        dup = next(f for f in frames if frames.count(f) > 1)
        raise InputError(f"frame {dup} is listed twice", where)
    parsed: list[VocFile] = [parse_voc(read_bytes(path), path) for path in files]
    sizes, boxes, dropped, unknown = [], [], {}, {}
    for k, voc in enumerate(parsed):
        sizes.append(voc.size or bench.image_size or (float("nan"), float("nan")))
        for obj in voc.objects:
            if obj.name in bench.dropped_labels:
                dropped[obj.name] = dropped.get(obj.name, 0) + 1
                continue
            try:
                bench.category(obj.name)
            except KeyError:
                unknown.setdefault(obj.name, str(files[k]))
                continue
            try:
                boxes.append(NativeBox(k, obj.name, obj.box(convention)))
            except ValueError as exc:  # a coordinate the convention's converters refuse
                raise InputError(str(exc), files[k]) from None
    if unknown:
        name, path = next(iter(unknown.items()))
        raise InputError(f"label {name!r} is none of {bench.title}'s classes ({', '.join(bench.class_names)})", path)
    notes = [
        f"{quantity(count, f'{label} box', f'{label} boxes')} dropped: {bench.dropped_labels[label]}"
        for label, count in dropped.items()
    ]
    notes.append(
        "VOC boxes read "
        + (
            "as 1-based inclusive pixels (x = xmin - 1, w = xmax - xmin + 1)"
            if convention == "pascal"
            else "as written (x = xmin, w = xmax - xmin)"
        )
    )
    return annotations_of(bench, frames, sizes, [""] * len(frames), boxes, where, notes)


# ------------------------------------------------------------------------------------------------


def annotations_of(
    bench: Benchmark,
    frames: list[str],
    sizes: list,
    scenes: list[str],
    boxes: list[NativeBox],
    where: str,
    notes: list[str],
) -> GroundTruth:
    classes = [ClassInfo(c.id, c.name) for c in bench.categories]
    index = {c.name: k for k, c in enumerate(bench.categories)}
    found = [
        Box(
            image=b.image,
            klass=index[bench.category(b.label).name] if not b.ignore else index["person"],
            box=b.box,
            id=k + 1,
            label=b.label,
            ignore=b.ignore,
        )
        for k, b in enumerate(boxes)
    ]
    return assemble(bench, frames, frames, sizes, scenes, classes, found, where, notes)


def folder_of(root: str | os.PathLike) -> Path:
    path = Path(root)
    if not path.is_dir():
        raise InputError("no such folder" if not path.exists() else "is not a folder", path)
    return path


def frames_of_list(bench: Benchmark, text: str, path: str | os.PathLike) -> list[str]:
    """The frames of a list file's text (one a line, as the benchmark names them: FLIR-aligned's
    ``FLIR_NNNNN_PreviewData``, M3FD's ``NNNNN``); a line that names none, or an empty list, is an
    `InputError` naming ``path`` (and the line)."""
    frames = []
    for number, line in enumerate(text.splitlines(), 1):
        item = line.strip()
        if not item:
            continue
        frame = bench.frame(item)
        if frame is None:
            example = bench.frames.format.format(**{k: "N" * 5 for k in bench.frames.pattern.groupindex})
            raise InputError(f"{item!r} is not a {bench.title} frame name ({example})", path, number)
        frames.append(frame)
    if not frames:
        raise InputError("the list is empty", path)
    return frames
