"""The other benchmarks' annotation formats (`kaist-kit convert FORMAT SOURCE --benchmark NAME`): one
`SourceFormat` each, read by the conversion engine as KAIST's are.

- ``voc``: FLIR-aligned's ``align/Annotations/FLIR_NNNNN_PreviewData.xml`` (its splits: the frames of
  ``align_train.txt`` and ``align_validation.txt``), LLVIP's ``Annotations/NNNNNN.xml`` (its splits:
  the pictures in ``visible/train`` and ``visible/test``) and M3FD's ``Annotation/NNNNN.xml`` (its
  splits: the public conversion's ``meta/{train,val,test}.txt``, or any list);
- ``cvc-14``: CVC-14's ``{Day,Night}/Visible/{Train,NewTest}/Annotations/STAMP.txt``, the frames with a
  FIR file of the same name (as MS-DETR's evaluation takes them);
- ``coco``: the COCO conversions in circulation (FLIR-aligned's and M3FD's pinned test files among
  them), one JSON file, read by `kaist_kit.datasets.readers`.

Each file is read by the reader `kaist_kit.datasets.readers` reads it with (`kaist_kit.datasets.voc.parse_voc`:
exactly what ElementTree reads, or a refusal; `cvc14_lines`: ``str.split`` and ``float``), and the
benchmark's rules (box conventions, dropped and ignore labels) are its spec's. What the readers refuse
leaves the frame out here, reported with its file and line, as the KAIST formats' problems are.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from types import MappingProxyType

from kaist_kit.data.groundtruth import GroundTruth, ground_truth_from_coco, ground_truth_to_coco
from kaist_kit.datasets import BENCHMARKS, CVC14, FLIR_ALIGNED, LLVIP, M3FD, Benchmark
from kaist_kit.datasets.cvc14 import cvc14_lines
from kaist_kit.datasets.readers import frames_of_list
from kaist_kit.datasets.voc import parse_voc
from kaist_kit.errors import InputError, quantity
from kaist_kit.io.text import decode_text, is_number, parse_json, text_lines

from .coco import FIRST_ANNOTATION_ID, category_id
from .formats import Layout, SourceFormat
from .kaist_xml import reads_as_xml
from .problems import LOCATING, Problems
from .records import AnnotatedObject, FrameColumns, ObjectColumns, ParseOptions

VOC_PROBLEMS = LOCATING | {"malformed file", "dropped label", "unknown label", "zero-size box", "negative-size box"}
CVC14_PROBLEMS = LOCATING | {"malformed line", "zero-size box", "negative-size box", "one modality only"}


# ------------------------------------------------------------------------------------------------
# Readers: (image id, frame, file) of a chunk -> the frames kept and their objects


def parse_voc_files(
    frames: list[tuple[int, str, str]], contents: dict[str, bytes], display, problems: Problems, options: ParseOptions
) -> tuple[FrameColumns, ObjectColumns]:
    """VOC files, one per frame, with the benchmark's box convention; its dropped labels are noted and
    left out, a label that is none of its classes kept as an ignore region."""
    bench = options.benchmark
    kept, rows = [], []
    for image_id, name, rel in frames:
        path = display(rel)
        try:
            voc = parse_voc(contents[rel], path)
        except InputError as exc:
            problems.add("malformed file", f"{exc.reason}; frame left out", path, exc.line)
            continue
        size = voc.size or (options.image_size if min(options.image_size) > 0 else None)
        if size is None:
            problems.add(
                "malformed file",
                f"no image size (<size>), and {bench.title}'s frames vary in size; frame left out",
                path,
            )
            continue
        objects = []
        try:
            for obj in voc.objects:
                if obj.name in bench.dropped_labels:
                    problems.add("dropped label", f"a {obj.name} box dropped: {bench.dropped_labels[obj.name]}", path)
                    continue
                checked = _checked(bench, obj.name, obj.box(bench.voc_boxes), path, problems)
                if checked is not None:
                    objects.append(checked)
        except ValueError as exc:  # a coordinate the convention's converters refuse
            problems.add("malformed file", f"{exc}; frame left out", path)
            continue
        kept.append((image_id, name, *size))
        rows.extend((image_id, obj) for obj in objects)
    return FrameColumns.of(kept), ObjectColumns.of(rows)


def parse_cvc14_files(
    frames: list[tuple[int, str, str]], contents: dict[str, bytes], display, problems: Problems, options: ParseOptions
) -> tuple[FrameColumns, ObjectColumns]:
    """CVC-14's visible annotation files: lines ``x y w h mandatory 0 0 0 0 track_id 0``, x, y the box's
    centre or corner (``options.origin``); a box whose ``mandatory`` is 0 is an ignore region
    (``person?``). The frame size is the benchmark's (the files do not record it)."""
    bench = options.benchmark
    kept, rows = [], []
    for image_id, name, rel in frames:
        path = display(rel)
        try:
            lines = cvc14_lines(decode_text(contents[rel], path), path)
        except InputError as exc:
            problems.add("malformed line", f"{exc.reason}; frame left out", path, exc.line)
            continue
        objects = []
        try:
            for number, fields in lines:
                x, y, w, h = fields[:4]
                if options.origin == "centre":
                    x, y = x - w / 2, y - h / 2
                mandatory = fields[4] == 1
                label = "person" if mandatory else "person?"
                checked = _checked(bench, label, (x, y, w, h), path, problems, number, ignore=not mandatory)
                if checked is not None:
                    objects.append(checked)
        except ValueError as exc:
            problems.add("malformed line", f"{exc}; frame left out", path, number)
            continue
        kept.append((image_id, name, *options.image_size))
        rows.extend((image_id, obj) for obj in objects)
    return FrameColumns.of(kept), ObjectColumns.of(rows)


def _checked(
    bench: Benchmark,
    label: str,
    box: tuple,
    path: str,
    problems: Problems,
    line: int | None = None,
    ignore: bool = False,
) -> AnnotatedObject | None:
    """The object, or None for a box of zero or negative size (reported and skipped, as every format's);
    a label the benchmark does not know is reported and kept as an ignore region. A box whose area is no
    finite number is a `ValueError` (its frame is left out)."""
    x, y, w, h = (_plain(v) for v in box)
    if not math.isfinite(float(w) * float(h)):  # the reader refuses what it parses; its area may still overflow
        raise ValueError(f"the {label} box {x:g} {y:g} {w:g} {h:g} is too large: its area is beyond any number")
    if w <= 0 or h <= 0:
        kind = "zero-size box" if w == 0 or h == 0 else "negative-size box"
        problems.add(kind, f"{kind} {label} {x} {y} {w} {h} skipped", path, line)
        return None
    if category_id(bench, label) == 0:
        problems.add(
            "unknown label",
            f"label {label!r} is none of {bench.title}'s classes "
            f"({', '.join(bench.class_names)}); kept as an ignore region",
            path,
            line,
        )
        ignore = True
    return AnnotatedObject(label, x, y, w, h, ign=int(ignore), line=line)


def _plain(value: float) -> int | float:
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


# ------------------------------------------------------------------------------------------------
# Splits: the frames of one, in order


def _listed_frames(
    bench: Benchmark, src, located: dict, split: str | None, problems: Problems
) -> tuple[str | None, list[str], list[str]]:
    """A split of FLIR-aligned or M3FD: the frames of its list file (`Benchmark.split_lists`: split -> the
    file as the dataset keeps it, found in the source or beside it), or of a list file given as the split;
    without a split, every frame found."""
    lists = bench.split_lists
    from kaist_kit.io.read import read_text

    from .sources import text_of

    if split is None:
        return None, sorted(located), []
    if split in lists:
        wanted = lists[split]
        name = wanted.rsplit("/", 1)[-1]
        inside = next((rel for rel in src.files if rel in (wanted, name) or rel.endswith(f"/{wanted}")), None)
        if inside is not None:
            return split, _once(frames_of_list(bench, text_of(src.read(inside)), src.display(inside)), inside), [inside]
        beside = [folder / listed for folder in src.search_dirs for listed in (wanted, name)]
        path = next((candidate for candidate in beside if candidate.is_file()), None)
        if path is None:
            raise InputError(
                f"no list {wanted} in or beside the source: {bench.title}'s {split} split is the frames it lists",
                src.root,
            )
        return split, _once(frames_of_list(bench, read_text(path), path), path), []
    if split.endswith(".txt") or Path(split).is_file():
        return Path(split).stem, _once(frames_of_list(bench, read_text(split), split), split), []
    raise InputError(
        f"unknown {bench.title} split {split!r}: choose {', '.join(lists)}, or give a list file (one frame a line)"
    )


def _once(frames: list[str], where) -> list[str]:
    """A list's frames, each listed once (a frame listed twice would be two images of one frame)."""
    if len(set(frames)) != len(frames):
        seen: set[str] = set()
        twice = next(f for f in frames if f in seen or seen.add(f))
        raise InputError(f"frame {twice} is listed twice", where)
    return frames


def _llvip_frames(src, located: dict, split: str | None, problems: Problems) -> tuple[str, list[str], list[str]]:
    """An LLVIP split: the frames whose visible pictures lie in ``visible/<split>``, in the source or
    beside it (LLVIP's layout: Annotations/, visible/{train,test}/, infrared/{train,test}/)."""
    if split not in ("train", "test"):
        raise InputError(
            "LLVIP's frames of a split are the pictures in visible/train or visible/test: give "
            "--split train or --split test"
        )
    names = next(
        (
            names
            for folder, names in src.folders
            if folder == f"visible/{split}" or folder.endswith(f"/visible/{split}")
        ),
        None,
    )
    if names is None:
        folder = next(
            (base / "visible" / split for base in src.search_dirs if (base / "visible" / split).is_dir()), None
        )
        if folder is None:
            raise InputError(
                f"no folder visible/{split} in or beside the source (LLVIP's layout: Annotations/, "
                "visible/{train,test}/, infrared/{train,test}/)",
                src.root,
            )
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries if entry.is_file()]
    frames = sorted({frame for name in names if (frame := LLVIP.frame(Path(name).stem)) is not None})
    if not frames:
        raise InputError(f"no LLVIP picture (NNNNNN.jpg) in visible/{split}", src.root)
    return split, frames, []


def _cvc14_frames(src, located: dict, split: str | None, problems: Problems) -> tuple[str, list[str], list[str]]:
    """A CVC-14 split: the frames of its visible annotation folders that have a FIR annotation file of
    the same name (the others are noted and left out, as MS-DETR's evaluation leaves them out)."""
    files = set(src.files)
    period = {"day": "Day/", "night": "Night/"}.get(split or "", "")
    frames, visible_only = [], []
    for frame in sorted(located):
        if not frame.startswith(period):
            continue
        head, _, tail = located[frame].rpartition("/Visible/") if "/Visible/" in f"/{located[frame]}" else ("", "", "")
        fir = f"{head}/FIR/{tail}" if head else located[frame].replace("Visible/", "FIR/", 1)
        (frames if fir in files else visible_only).append(frame)
    if visible_only:
        problems.add(
            "one modality only",
            f"{quantity(len(visible_only), 'frame')} annotated in the visible modality "
            f"only left out, as MS-DETR's evaluation leaves them out (first: {visible_only[0]})",
            str(src.root),
        )
    return split or "", frames, []


def _cvc14_layout(split: str | None) -> Layout:
    folder = CVC14.split_folders.get(split or "")
    if folder is None:
        raise InputError(
            "CVC-14's splits are folders: give --split train, test, day or night (test, day and night "
            "are the NewTest frames)"
        )
    return Layout(
        re.compile(rf"(?:^|/)(?P<period>Day|Night)/Visible/{folder}/Annotations$"),
        re.compile(r"(?P<stem>\d{4}(?:_\d\d){5}_\d+)\.txt"),
        frame="{period}/{stem}",
    )


def reads_as_cvc14(text: str) -> bool | None:
    """Whether a file's text reads as CVC-14 annotation lines (eleven numbers each); None when empty."""
    rows = [line.split() for line in text_lines(text) if line.split()]
    if not rows:
        return None
    return all(len(row) == 11 and all(map(is_number, row)) for row in rows)


# ------------------------------------------------------------------------------------------------
# The COCO conversions in circulation: one file


def read_coco_file(
    path: str | os.PathLike, bench: Benchmark, split: str | None, problems: Problems, text: str
) -> GroundTruth:
    """A COCO ground truth of ``bench`` (string ids, ``scene`` codes, 'bike': see
    `kaist_kit.data.groundtruth.ground_truth_from_coco`) from its ``text``; the reader's notes (a class read
    under another name, boxes of unlisted classes left out) are reported as notes."""
    annotations = ground_truth_from_coco(parse_json(text, path), path, text, benchmark=bench)
    for note in annotations.notes:
        problems.add("reader note", note, str(path))
    unnamed = [str(i) for i, name in zip(annotations.image_ids, annotations.image_names) if bench.frame(name) is None]
    if unnamed:
        problems.add(
            "unnamed frame",
            f"{quantity(len(unnamed), 'image')} whose names are no {bench.title} frame "
            f"names (first: {unnamed[0]}): the paths of their pictures are not known",
            str(path),
        )
    return annotations


def annotations_to_kit(annotations: GroundTruth, bench: Benchmark, split: str | None) -> dict:
    """The kit's COCO of another benchmark's ground truth: `ground_truth_to_coco` (ids, classes and boxes as
    read) with each image's pictures where the benchmark keeps them (``file_name``, ``lwir_file_name``,
    relative to the dataset's root) and its frame (``im_name``); the boxes numbered from 1, as every
    conversion numbers them (a source's id 0 or an id used twice would be mis-read by pycocotools)."""
    coco = ground_truth_to_coco(annotations)
    for number, ann in enumerate(coco["annotations"], FIRST_ANNOTATION_ID["kit"]):
        ann["id"] = number
    visible, thermal = (m.name for m in bench.modalities)
    for image, name in zip(coco["images"], annotations.image_names):
        if bench.frame(name) is None:
            continue
        frame = bench.frame(name)
        image.update(
            file_name=bench.picture_path(visible, frame, split or ""),
            lwir_file_name=bench.picture_path(thermal, frame, split or ""),
            im_name=frame,
        )
    return coco


def _voc_conventions(options: ParseOptions) -> dict:
    return {"voc_boxes": options.benchmark.voc_boxes}


def _cvc14_conventions(options: ParseOptions) -> dict:
    return {"box_origin": options.origin}


# ------------------------------------------------------------------------------------------------
# The specs


def _voc(bench: Benchmark, folder: str, name: str, example: str, choose) -> SourceFormat:
    return SourceFormat(
        "voc",
        f"{bench.title}'s VOC XML files, {example}",
        Layout(re.compile(rf"(?:^|/){folder}$"), re.compile(name), frame="{frame}", flat_root=True),
        parse_voc_files,
        example,
        VOC_PROBLEMS,
        reads_as_xml,
        benchmark=bench,
        choose=choose,
        conventions=_voc_conventions,
    )


COCO_PROBLEMS = frozenset({"reader note", "unnamed frame"})


def _one_file(text: str) -> None:
    return None  # a COCO file is one file, not a tree of files to recognise


def _coco(bench: Benchmark) -> SourceFormat:
    return SourceFormat(
        "coco",
        f"a COCO ground truth of {bench.title} (the conversions in circulation too)",
        None,
        read_coco_file,
        f"{bench.name}-test.json",
        COCO_PROBLEMS,
        _one_file,
        benchmark=bench,
    )


BENCHMARK_FORMATS: Mapping[str, Mapping[str, SourceFormat]] = MappingProxyType(
    {
        FLIR_ALIGNED.name: {
            "voc": _voc(
                FLIR_ALIGNED,
                "Annotations",
                r"(?P<frame>FLIR_\d{5})_PreviewData\.xml",
                "align/Annotations/FLIR_NNNNN_PreviewData.xml",
                partial(_listed_frames, FLIR_ALIGNED),
            ),
            "coco": _coco(FLIR_ALIGNED),
        },
        LLVIP.name: {
            "voc": _voc(LLVIP, "Annotations", r"(?P<frame>\d{6})\.xml", "Annotations/NNNNNN.xml", _llvip_frames),
            "coco": _coco(LLVIP),
        },
        CVC14.name: {
            "cvc-14": SourceFormat(
                "cvc-14",
                "CVC-14's {Day,Night}/Visible/{Train,NewTest}/Annotations/STAMP.txt",
                _cvc14_layout("test"),
                parse_cvc14_files,
                "Day/Visible/NewTest/Annotations/2014_05_04_23_14_18_894000.txt",
                CVC14_PROBLEMS,
                reads_as_cvc14,
                benchmark=CVC14,
                choose=_cvc14_frames,
                split_layout=_cvc14_layout,
                conventions=_cvc14_conventions,
            ),
            "coco": _coco(CVC14),
        },
        M3FD.name: {
            "voc": _voc(
                M3FD,
                "Annotation",
                r"(?P<frame>\d{5})\.xml",
                "Annotation/NNNNN.xml",
                partial(_listed_frames, M3FD),
            ),
            "coco": _coco(M3FD),
        },
    }
)
# Every format name `kaist-kit convert` takes besides KAIST's.
BENCHMARK_FORMAT_NAMES = tuple(dict.fromkeys(name for formats in BENCHMARK_FORMATS.values() for name in formats))


def benchmark_format(benchmark: Benchmark, name: str) -> SourceFormat:
    """The format ``name`` of ``benchmark`` (not KAIST: see `formats.SOURCE_FORMATS`). A benchmark registered
    without formats of its own here is converted from a COCO ground truth of it."""
    formats = BENCHMARK_FORMATS.get(benchmark.name) or {"coco": _coco(benchmark)}
    if name not in formats:
        owners = [BENCHMARKS[b].name for b, specs in BENCHMARK_FORMATS.items() if name in specs]
        hint = f"; {name} annotations are {' or '.join(owners)}'s: pass --benchmark" if owners else ""
        raise InputError(
            f"{benchmark.title}'s annotations are read as {', '.join(formats) or 'its own formats'}, not {name}{hint}"
        )
    return formats[name]


def tree_formats() -> list[SourceFormat]:
    """The other benchmarks' formats that are trees of files (what a source's files may look like)."""
    return [spec for formats in BENCHMARK_FORMATS.values() for spec in formats.values() if spec.layout is not None]
