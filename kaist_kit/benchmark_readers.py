"""Each benchmark's native annotation files, read into the one ground-truth model
(`kaist_kit.data.groundtruth.GroundTruth`).

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
`kaist_kit.files`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .data.groundtruth import ORIGINS, Box, ClassInfo, GroundTruth, assemble
from .datasets import CVC14, FLIR_ALIGNED, LLVIP, M3FD, Benchmark, get_benchmark
from .datasets.llvip import llvip_release
from .errors import InputError, quantity
from .files import read_bytes, read_text
from .voc import VocFile, parse_voc


@dataclass
class _Box:
    image: int
    label: str
    box: tuple[float, float, float, float]
    ignore: bool = False


def read_benchmark(benchmark: Benchmark | str, root: str | os.PathLike, split: str = "test", **options) -> GroundTruth:
    """The annotations of ``split`` of a benchmark's dataset under ``root``, in its native layout."""
    bench = get_benchmark(benchmark)
    readers = {"flir-aligned": read_flir_aligned, "llvip": read_llvip, "cvc-14": read_cvc14, "m3fd": read_m3fd}
    if bench.name not in readers:
        raise ValueError(f"{bench.title} is read by `kaist-kit convert` (converters/), not here")
    return readers[bench.name](root, split, **options)


# ------------------------------------------------------------------------------------------------
# VOC datasets


def read_flir_aligned(root: str | os.PathLike, split: str = "test", voc_boxes: str | None = None) -> GroundTruth:
    """FLIR-aligned: the frames of ``align/align_train.txt`` ('train') or ``align/align_validation.txt``
    ('test', the split every paper reports)."""
    root = _folder(root)
    align = root / "align" if (root / "align").is_dir() else root
    lists = {"train": "align_train.txt", "test": "align_validation.txt", "validation": "align_validation.txt"}
    if split not in lists:
        raise ValueError(f"unknown FLIR-aligned split {split!r}; choose train or test")
    frames = frames_of_list(FLIR_ALIGNED, read_text(align / lists[split]), align / lists[split])
    files = [align / "Annotations" / f"{frame}_PreviewData.xml" for frame in frames]
    return _read_voc_files(FLIR_ALIGNED, frames, files, voc_boxes, str(align / lists[split]))


def read_llvip(root: str | os.PathLike, split: str = "test", voc_boxes: str | None = None) -> GroundTruth:
    """LLVIP: the frames whose pictures are in ``visible/<split>`` ('train' or 'test'), annotated in
    ``Annotations/``. The note says which annotation release the files are (`llvip_release`)."""
    root = _folder(root)
    if split not in ("train", "test"):
        raise ValueError(f"unknown LLVIP split {split!r}; choose train or test")
    pictures = root / "visible" / split
    if not pictures.is_dir():
        raise InputError(
            f"no folder visible/{split} (LLVIP's layout: Annotations/, visible/{{train,test}}/, "
            "infrared/{train,test}/)",
            root,
        )
    frames = sorted(
        {frame for path in pictures.iterdir() if path.is_file() if (frame := LLVIP.frame(path.stem)) is not None}
    )
    if not frames:
        raise InputError(f"no LLVIP picture (NNNNNN.jpg) in visible/{split}", root)
    files = [root / "Annotations" / f"{frame}.xml" for frame in frames]
    annotations = _read_voc_files(LLVIP, frames, files, voc_boxes, str(root))
    release = llvip_release(annotations, split)
    annotations.notes.append(f"annotation release: {release.name} ({release.reason})")
    return annotations


def read_m3fd(
    root: str | os.PathLike, split: str | os.PathLike | None = None, voc_boxes: str | None = None
) -> GroundTruth:
    """M3FD: every frame of ``Annotation/``, or those of a list file (one frame name per line; M3FD has no
    official split: the public conversion's lists give its train / val / test)."""
    root = _folder(root)
    folder = root / "Annotation"
    if not folder.is_dir():
        raise InputError("no folder Annotation/ (M3FD's layout: Annotation/, Vis/, Ir/)", root)
    if split in (None, "all"):
        frames = sorted(
            {
                frame
                for path in folder.iterdir()
                if path.suffix == ".xml"
                if (frame := M3FD.frame(path.stem)) is not None
            }
        )
        where = str(folder)
    else:
        if split in ("train", "val", "test"):
            split = root / "meta" / f"{split}.txt"
            if not split.is_file():
                raise InputError(
                    f"no list {split.name} in meta/: M3FD has no official split; pass the list of the "
                    "split's frames (the public conversion's meta/train.txt, val.txt, test.txt)",
                    root,
                )
        frames = frames_of_list(M3FD, read_text(split), split)
        where = str(split)
    return _read_voc_files(M3FD, frames, [folder / f"{frame}.xml" for frame in frames], voc_boxes, where)


def _read_voc_files(
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
                boxes.append(_Box(k, obj.name, obj.box(convention)))
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
    return _annotations(bench, frames, sizes, [""] * len(frames), boxes, where, notes)


# ------------------------------------------------------------------------------------------------
# CVC-14

CVC14_FIELDS = 11  # x y w h mandatory 0 0 0 0 track_id 0


def read_cvc14(root: str | os.PathLike, split: str = "test", origin: str = "centre") -> GroundTruth:
    """CVC-14's visible ground truth of ``split`` ('train' or 'test'; 'day' and 'night' are test frames by
    period): the frames annotated in both modalities, as MS-DETR's evaluation takes them. ``origin``
    says whether a line's x, y is the box's 'centre' (MS-DETR, and the devkit ports) or its top-left
    'corner' (some converters)."""
    if origin not in ORIGINS:
        raise ValueError(f"unknown CVC-14 box origin {origin!r}; use centre or corner")
    root = _folder(root)
    periods = {"train": ("Day", "Night"), "test": ("Day", "Night"), "day": ("Day",), "night": ("Night",)}.get(split)
    folder = CVC14.split_folders.get(split)
    if periods is None:
        raise ValueError(f"unknown CVC-14 split {split!r}; choose train, test, day or night")
    frames, scenes, files, only_visible = [], [], [], 0
    for period in periods:
        visible = root / period / "Visible" / folder / "Annotations"
        fir = root / period / "FIR" / folder / "Annotations"
        if not visible.is_dir():
            raise InputError(f"no folder {period}/Visible/{folder}/Annotations (CVC-14's layout)", root)
        for path in sorted(p for p in visible.iterdir() if p.suffix == ".txt"):
            if not (fir / path.name).is_file():
                only_visible += 1
                continue
            frames.append(f"{period}/{path.stem}")
            scenes.append(period.lower())
            files.append(path)
    boxes = []
    for k, path in enumerate(files):
        for line_number, fields in cvc14_lines(read_text(path), path):
            x, y, w, h = fields[:4]
            if w < 0 or h < 0:
                raise InputError(f"negative size (w={w:g}, h={h:g})", path, line_number)
            if origin == "centre":
                x, y = x - w / 2, y - h / 2
            mandatory = fields[4] == 1
            boxes.append(_Box(k, "person" if mandatory else "person?", (x, y, w, h), not mandatory))
    notes = [f"x, y read as the box's {origin}"]
    if only_visible:
        notes.append(f"{quantity(only_visible, 'frame')} annotated in the visible modality only left out")
    annotations = _annotations(CVC14, frames, [CVC14.image_size] * len(frames), scenes, boxes, str(root), notes)
    annotations.box_origin = origin
    return annotations


def cvc14_lines(text: str, path: str | os.PathLike) -> list[tuple[int, list[float]]]:
    """(line number, numbers) of the non-blank lines of a CVC-14 annotation file's text, read with
    ``str.split``; anything else is an `InputError` naming ``path`` and the line."""
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != CVC14_FIELDS:
            raise InputError(
                f"{len(parts)} fields, expected {CVC14_FIELDS} (x y w h mandatory 0 0 0 0 track_id 0)", path, number
            )
        try:
            values = [float(p) for p in parts]
        except ValueError:
            raise InputError(f"a field that is not a number in {line.strip()!r}", path, number) from None
        if not all(np.isfinite(values)):
            raise InputError("a non-finite number", path, number)
        if values[4] not in (0, 1):
            raise InputError(f"mandatory {parts[4]!r} is neither 0 nor 1", path, number)
        rows.append((number, values))
    return rows


# ------------------------------------------------------------------------------------------------


def _annotations(
    bench: Benchmark, frames: list[str], sizes: list, scenes: list[str], boxes: list[_Box], where: str, notes: list[str]
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


def _folder(root: str | os.PathLike) -> Path:
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
            example = bench.frame_format.format(**{k: "N" * 5 for k in bench.frame_pattern.groupindex})
            raise InputError(f"{item!r} is not a {bench.title} frame name ({example})", path, number)
        frames.append(frame)
    if not frames:
        raise InputError("the list is empty", path)
    return frames
