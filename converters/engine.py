"""The conversion engine: locating a source's frames, reading and parsing them (in chunks, one process
per core for large sources) and writing the COCO JSON. The formats themselves are specs in formats.py.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from operator import methodcaller
from pathlib import Path

from kaist_kit import __version__
from kaist_kit.data.groundtruth import ORIGINS
from kaist_kit.data.imagesets import resolve_image_set
from kaist_kit.datasets import KAIST, Benchmark, get_benchmark
from kaist_kit.errors import InputError, quantity
from kaist_kit.io.read import input_scope, note_input, note_input_tree, read_bytes
from kaist_kit.io.text import decode_text, text_lines
from kaist_kit.io.write import atomic_file, check_writable

from .benchmark_formats import (
    BENCHMARK_FORMAT_NAMES,
    BENCHMARK_FORMATS,
    annotations_to_kit,
    benchmark_format,
    tree_formats,
)
from .coco import (
    FIRST_ANNOTATION_ID,
    LICENSE,
    benchmark_categories,
    coco_pieces,
    format_benchmark_frames,
    format_frames,
)
from .formats import EVERY_SET, FORMATS, LOOK_ALIKES, SOURCE_FORMATS, LookAlike, SourceFormat, resembles, set_number
from .paired import MODALITIES
from .problems import Finding, Problems
from .records import ParseOptions
from .sources import Source, open_source, text_of, walk_folders
from .workers import worker_pool

COMPAT = ("leaderboard",)
_IMAGE_SETS = "/imageSets/"
# Below this many frames one process is quicker than starting workers.
PARALLEL_FROM = 4000
# Frames handed to a worker at a time while a tree is being walked.
_STREAMED_CHUNK = 4000
# Files read again, spread over a source, to tell what it looks like.
_SAMPLE = 16


@dataclass
class Conversion:
    """What a conversion read and wrote."""

    format: str
    source: str
    out: str | None
    n_images: int
    n_annotations: int
    labels: dict[str, int]
    problems: Problems
    image_set: str | None = None
    info: dict = field(default_factory=dict)
    pieces: list[bytes] = field(default_factory=list, repr=False)  # of the file, in order
    findings: list[Finding] = field(default_factory=list)  # about the source as a whole
    benchmark: str = KAIST.name

    @property
    def text(self) -> str:
        return b"".join(self.pieces).decode("utf-8")


@dataclass
class _Job:
    """A chunk of frames to read, parse and format; runs in a worker process for large sources."""

    format: SourceFormat
    frames: list[tuple[int, str, str | dict[str, str]]]  # (image id, frame name, path or {modality: path})
    layout: str
    options: ParseOptions
    split: str | None = None  # another benchmark's split (where its pictures lie)


@dataclass
class _Chunk:
    """A chunk's output as a few large UTF-8 byte strings: cheap to send back from a worker process,
    and written as they are."""

    paths: str  # the relative paths of the files read, one a line
    digests: bytes  # their contents' sha256 digests, 32 bytes each
    images: bytes  # the images' JSON objects joined by ",\n"
    annotations: bytes  # the annotations' JSON text after their id, one a line
    n_annotations: int
    labels: Counter
    problems: list[tuple[str, str]]
    n_frames: int


@contextlib.contextmanager
def _without_gc() -> Iterator[None]:
    """Run without the cyclic garbage collector: conversion makes hundreds of thousands of small
    tuples and no reference cycles, and the collector's passes over them cost about a seventh of the
    time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@_without_gc()
def convert(
    format: str,
    source: str | os.PathLike,
    out: str | os.PathLike | None = None,
    image_set: str | None = None,
    compat: str | None = None,
    strict: bool = False,
    reference: str = "lwir",
    image_size: tuple[int, int] | None = None,
    echo: Callable[[str], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
    benchmark: Benchmark | str = KAIST,
    split: str | None = None,
    origin: str = "centre",
) -> Conversion:
    """Convert an annotation source of ``benchmark`` (KAIST's by default) to COCO JSON at ``out``
    (written atomically).

    ``echo`` receives one line per problem; ``progress(done, total)`` follows the frames. The
    conversion's findings say when the source looks like another format, or gives no box. Under
    ``strict``, any problem that changed or dropped annotations, or any finding, raises `InputError`
    and nothing is written. Image ids follow the image set's order (else sorted frame names); a
    frame left out for an error leaves its id unused, so that no id depends on another frame's
    problems. ``image_size`` is the size of frames whose files do not record it (default: the
    benchmark's).

    Another benchmark's frames are chosen by ``split`` (its name, or for FLIR-aligned and M3FD a list
    file) rather than by ``image_set``; ``origin`` says how CVC-14's lines place a box ('centre' or
    'corner'). Its formats are `benchmark_formats.BENCHMARK_FORMATS`: ``voc``, ``cvc-14`` and ``coco``
    (a COCO ground truth, one file).
    """
    bench = get_benchmark(benchmark)
    chosen = (("--image-set", image_set, "a list file or a list name"), ("--split", split, "a split"))
    for option, value, what in chosen:
        if value is not None and not value.strip():  # not the same as leaving the option out
            raise InputError(f"{option} {value!r} names nothing: give {what}, or leave the option out for every frame")
    if bench.kaist_model:
        if format in BENCHMARK_FORMAT_NAMES and format not in FORMATS:
            raise InputError(
                f"{format} annotations are another benchmark's: name it, --benchmark "
                f"{'|'.join(name for name, specs in BENCHMARK_FORMATS.items() if format in specs)}"
            )
        if format not in FORMATS:
            raise ValueError(f"unknown format {format!r}; choose from {', '.join(FORMATS)}")
        if split is not None:
            raise InputError(
                "KAIST's frames are chosen by an image set (--image-set, a list name or file), not a split"
            )
        spec = SOURCE_FORMATS[format]
    else:
        spec = benchmark_format(bench, format)
        if image_set is not None or compat is not None:
            raise InputError(
                f"{'an image set (--image-set)' if image_set is not None else 'the leaderboard layout'} "
                f"is KAIST's; {bench.title}'s frames are chosen by a split (--split)"
            )
    if compat not in (None, *COMPAT):
        raise ValueError(f"unknown layout {compat!r}; choose from {', '.join(COMPAT)}")
    if reference not in MODALITIES:
        raise ValueError(f"the reference modality is visible or lwir, not {reference!r}")
    if origin not in ORIGINS:
        raise ValueError(f"a CVC-14 box's x, y is its centre or its corner, not {origin!r}")
    if image_size is not None and min(image_size) <= 0:
        raise ValueError(f"the image size must be positive, not {image_size[0]}x{image_size[1]}")
    # (0, 0): no size known (M3FD's frames vary), for files that do not record theirs.
    image_size = image_size or bench.image_size or (0, 0)
    with input_scope():
        if spec.layout is None:
            return _convert_file(spec, source, out, split, strict, echo)
        return _convert(
            spec.for_split(split),
            source,
            out,
            image_set,
            compat,
            strict,
            ParseOptions(image_size, reference, bench, origin),
            split,
            echo,
            progress,
            workers,
        )


def _convert(
    spec: SourceFormat, source, out, image_set, compat, strict, options: ParseOptions, split, echo, progress, workers
) -> Conversion:
    note_input(source)
    if out is not None:
        check_writable(out)
    src = open_source(source)
    layout = compat or "kit"
    # Workers are forked processes; without fork (Windows) one process does the work.
    workers = (workers or min(os.cpu_count() or 1, 8)) if hasattr(os, "fork") else 1
    job = _Job(spec, [], layout, options, split)
    done = None
    if image_set is None and spec.choose is None and not spec.layout.per_modality and src.is_folder and workers > 1:
        done = _convert_streamed(src, job, workers, progress)
    if done is None:
        done = _convert_planned(src, job, image_set, workers, progress)
    problems = Problems(echo)
    problems.extend(done.problems.records)
    findings = _findings(src, spec, done)
    if strict and (problems.failing or findings):
        failures = [problems.summary()] if problems.failing else []
        raise InputError(f"--strict: {'; '.join(failures + [f.text for f in findings])}; nothing written", src.root)

    bench = spec.benchmark
    info = {
        "description": f"{bench.title} annotations in COCO form"
        if not bench.kaist_model
        else "KAIST multispectral pedestrian annotations in COCO form",
        "source_format": spec.name,
        "source": str(Path(source).resolve()),
        "inputs_sha256": done.inputs_sha256(),
        "image_set": done.list_name,
        "layout": "leaderboard" if compat else "kaist-kit",
        "kit_version": __version__,
        "license": LICENSE if bench.kaist_model else _licence(bench),
    }
    if spec.layout.per_modality:
        info["reference_modality"] = options.reference
    if not bench.kaist_model:
        info = {
            "benchmark": bench.name,
            **info,
            "split": done.list_name,
            **(spec.conventions(options) if spec.conventions else {}),
        }
        del info["image_set"]
    pieces = coco_pieces(
        info, done.images, done.annotations, layout, None if bench.kaist_model else benchmark_categories(bench)
    )
    if src.is_folder:
        note_input_tree(src.root, done.read)
    if out is not None:
        with atomic_file(out) as f:
            f.writelines(pieces)
    return Conversion(
        spec.name,
        str(source),
        None if out is None else str(out),
        done.kept,
        done.n_annotations,
        dict(sorted(done.labels.items())),
        problems,
        done.list_name,
        info,
        pieces,
        findings,
        bench.name,
    )


def _licence(bench: Benchmark) -> str:
    return f"{bench.licence}: {bench.title}, {bench.citation.text()}"


def _convert_file(spec: SourceFormat, source, out, split: str | None, strict: bool, echo) -> Conversion:
    """A COCO ground truth of another benchmark in the kit's layout: its images given the paths of their
    pictures (relative to the dataset's root), its ids, classes and boxes as read."""
    bench = spec.benchmark
    if out is not None:
        check_writable(out)
    if split is None and any("{split}" in m.picture for m in bench.modalities):
        raise InputError(
            f"{bench.title}'s pictures lie in a folder per split: give the split the file annotates "
            "(--split train or --split test)"
        )
    problems = Problems(echo)
    raw = read_bytes(source)
    annotations = spec.parse(source, bench, split, problems, decode_text(raw, source))
    if strict and problems.failing:
        raise InputError(f"--strict: {problems.summary()}; nothing written", source)
    coco = annotations_to_kit(annotations, bench, split)
    compact = {"separators": (",", ":")}
    images = [",\n".join(json.dumps(image, **compact) for image in coco["images"]).encode()]
    anns = [",\n".join(json.dumps(ann, **compact) for ann in coco["annotations"]).encode()]
    findings = []
    if not coco["annotations"]:
        findings.append(
            Finding(
                "no-boxes",
                f"the output holds no box: {quantity(len(coco['images']), 'image')} written, none with an object",
                str(source),
            )
        )
        if strict:
            raise InputError(f"--strict: {findings[0].text}; nothing written", source)
    name = Path(source).name
    info = {
        "benchmark": bench.name,
        "description": f"{bench.title} annotations in COCO form",
        "source_format": spec.name,
        "source": str(Path(source).resolve()),
        "inputs_sha256": hashlib.sha256(name.encode() + b"\0" + hashlib.sha256(raw).digest()).hexdigest(),
        "layout": "kaist-kit",
        "kit_version": __version__,
        "license": _licence(bench),
        "split": split,
    }
    pieces = coco_pieces(
        info, images if coco["images"] else [], anns if coco["annotations"] else [], "kit", coco["categories"]
    )
    if out is not None:
        with atomic_file(out) as f:
            f.writelines(pieces)
    labels = Counter(annotations.labels)
    return Conversion(
        spec.name,
        str(source),
        None if out is None else str(out),
        annotations.n_images,
        len(coco["annotations"]),
        dict(sorted(labels.items())),
        problems,
        split,
        info,
        pieces,
        findings,
        bench.name,
    )


def _findings(src: Source, spec: SourceFormat, done: _Done) -> list[Finding]:
    """What to say about the source as a whole: files that look like another format or kind of file,
    frames of sets the format does not cover, an output without a box."""
    findings = []
    if done.located:
        sample, texts = _sample(src, spec, done.located)
        if not resembles(spec, sample, texts):
            other = next(
                (
                    kind
                    for kind in (*SOURCE_FORMATS.values(), *LOOK_ALIKES)
                    if kind is not spec and kind.layout == spec.layout and resembles(kind, sample, texts)
                ),
                None,
            )
            if other is not None:
                findings.append(
                    Finding(
                        "wrong-format",
                        f"these files look like {other.what}, not {spec.what}: {other.advice}",
                        str(src.root),
                    )
                )
        if spec.sets is not EVERY_SET and not findings:
            outside = [name for name in done.located if set_number(name) not in spec.sets.numbers]
            if outside:
                findings.append(
                    Finding(
                        "other-sets",
                        f"{len(outside)} of {len(done.located)} frames (first: "
                        f"{outside[0]}) are not of {spec.sets.name}, which {spec.name} annotations "
                        "cover",
                        str(src.root),
                    )
                )
    if done.n_annotations == 0:
        findings.append(
            Finding(
                "no-boxes",
                f"the output holds no box: {quantity(done.kept, 'frame')} written, none with an object",
                str(src.root),
            )
        )
    return findings


def _sample(
    src: Source, format: SourceFormat | LookAlike, located: dict[str, str | dict[str, str]]
) -> tuple[list[str], list[str]]:
    """The frames and the texts of a few files spread over those located."""
    names = list(located)
    chosen = [names[k * len(names) // _SAMPLE] for k in range(min(_SAMPLE, len(names)))]
    rels = [min(located[name].values()) if format.layout.per_modality else located[name] for name in chosen]
    return chosen, list(map(text_of, src.read_all(rels)))


@dataclass
class _Done:
    """The chunks' output in order (annotations numbered as they arrive), and the problems found
    (not echoed yet)."""

    problems: Problems
    list_name: str | None = None
    first_id: int = 1  # the first annotation's id (`coco.FIRST_ANNOTATION_ID`)
    images: list[bytes] = field(default_factory=list)
    annotations: list[bytes] = field(default_factory=list)
    n_annotations: int = 0
    paths: list[str] = field(default_factory=list)
    digests: list[bytes] = field(default_factory=list)
    labels: Counter = field(default_factory=Counter)
    kept: int = 0  # frames written
    frames_done: int = 0  # frames read
    located: dict = field(default_factory=dict)  # frame name -> its file or {modality: file}, of those chosen
    lists: list[str] = field(default_factory=list)  # image-set lists read from the source

    def add(self, chunk: _Chunk, frames: int) -> None:
        self.problems.extend(chunk.problems)
        if chunk.images:
            self.images.append(chunk.images)
        if chunk.n_annotations:
            ids = range(self.first_id + self.n_annotations, self.first_id + self.n_annotations + chunk.n_annotations)
            self.annotations.append(b",\n".join(map(b'{"id":%d%s'.__mod__, zip(ids, chunk.annotations.split(b"\n")))))
            self.n_annotations += chunk.n_annotations
        self.paths.append(chunk.paths)
        self.digests.append(chunk.digests)
        self.labels.update(chunk.labels)
        self.kept += chunk.n_frames
        self.frames_done += frames

    @property
    def read(self) -> _FilesRead:
        """The relative paths of the source's files that were read."""
        return _FilesRead(self.located, self.lists)

    def inputs_sha256(self) -> str:
        """sha256 of the files' paths, one a line, a NUL byte, then their own sha256 digests."""
        digest = hashlib.sha256("\n".join(p for p in self.paths if p).encode() + b"\0")
        digest.update(b"".join(self.digests))
        return digest.hexdigest()


class _FilesRead:
    """The relative paths of a source's files that a conversion read, gathered only when asked about
    (by the writer, to refuse writing onto one of them)."""

    def __init__(self, located: dict, lists: list[str]):
        self.located, self.lists, self.files = located, lists, None

    def __contains__(self, rel: object) -> bool:
        if self.files is None:
            entries = list(self.located.values())
            if entries and isinstance(entries[0], dict):  # paired files: {modality: path}
                entries = [path for entry in entries for path in entry.values()]
            self.files = {*entries, *self.lists}
        return rel in self.files


def _convert_planned(src: Source, job: _Job, image_set: str | None, workers: int, progress) -> _Done:
    """Locate every frame, choose and order them (by the image set, else by name), then convert."""
    problems = Problems()
    located = _locate_frames(src, job.format, problems)
    if not located:
        raise _nothing_found(src, job.format)
    list_name, names, lists = None, sorted(located), []
    if job.format.choose is not None:  # another benchmark's split
        list_name, names, lists = job.format.choose(src, located, job.split, problems)
        missing = [n for n in names if n not in located]
        if missing:
            problems.add(
                "missing frame",
                f"{len(missing)} frames of {list_name} have no annotation file and are left out (first: {missing[0]})",
                str(src.root),
            )
            names = [n for n in names if n in located]
    elif image_set:
        inside = src.image_list(image_set)
        if inside is not None:
            lists.append(inside)
            listed = [line.strip() for line in text_lines(text_of(src.read(inside))) if line.strip()]
            list_name, names = image_set, [n.replace("_", "/") for n in listed]
        else:
            list_name, names = resolve_image_set(image_set, located, src.search_dirs)
        missing = [n for n in names if n not in located]
        if missing:
            # Some sets (the sanitized one) only have files for some frames of a list; for the
            # leaderboard's layout a missing frame breaks the id layout, so it is a real problem.
            kind = "missing frame" if job.layout == "leaderboard" else "no annotation file"
            problems.add(
                kind,
                f"{len(missing)} frames of {list_name} have no annotation file and are left out (first: {missing[0]})",
                str(src.root),
            )
            names = [n for n in names if n in located]
    frames = list(zip(range(len(names)), names, map(located.__getitem__, names)))
    parallel = workers > 1 and len(frames) >= PARALLEL_FROM
    size = max(1, -(-len(frames) // (workers * 8))) if parallel else max(1, len(frames))
    jobs = [replace(job, frames=frames[k : k + size]) for k in range(0, len(frames), size)]
    chosen = {name: located[name] for name in names}
    done = _Done(problems, list_name, FIRST_ANNOTATION_ID[job.layout], located=chosen, lists=lists)
    if parallel:
        with worker_pool(workers, _init_worker, (src,)) as pool:
            for part, chunk in zip(jobs, pool.map(_work, jobs)):
                done.add(chunk, len(part.frames))
                if progress:
                    progress(done.frames_done, len(frames))
    else:
        for part in jobs:
            done.add(_process(src, part), len(part.frames))
            if progress:
                progress(done.frames_done, len(frames))
    return done


def _convert_streamed(src: Source, job: _Job, workers: int, progress) -> _Done | None:
    """Hand frames to the workers folder by folder while the tree is still being walked, so that
    listing 95k files overlaps with reading them. The frames must come in name order, as they do in
    KAIST's trees; otherwise (None) the caller plans the whole conversion first."""
    problems, links = Problems(), Problems()
    located: dict[str, str] = {}
    pending: list[tuple[int, str, str]] = []
    parts: list[tuple[int, object]] = []  # (frames, future) in order
    pool = None
    previous, count = "", 0
    with contextlib.ExitStack() as stack:
        for folder, names in walk_folders(src.root, links=links):
            for frame in _locate_in_folder(src, job.format, folder, names, located, problems):
                if frame <= previous:
                    return None
                previous = frame
                pending.append((count, frame, located[frame]))
                count += 1
            if pool is None and len(located) >= PARALLEL_FROM:
                pool = stack.enter_context(worker_pool(workers, _init_worker, (src,)))
            while pool is not None and len(pending) >= _STREAMED_CHUNK:
                parts.append((_STREAMED_CHUNK, pool.submit(_work, replace(job, frames=pending[:_STREAMED_CHUNK]))))
                pending = pending[_STREAMED_CHUNK:]
        if not located:
            raise _nothing_found(src, job.format)
        links.extend(problems.records)  # links first, as the planned conversion notes them
        done = _Done(links, first_id=FIRST_ANNOTATION_ID[job.layout], located=located)
        if pool is None:
            done.add(_process(src, replace(job, frames=pending)), len(pending))
        else:
            if pending:
                parts.append((len(pending), pool.submit(_work, replace(job, frames=pending))))
            for frames, future in parts:
                done.add(future.result(), frames)
                if progress:
                    progress(done.frames_done, len(located))
        return done


def _nothing_found(src: Source, format: SourceFormat) -> InputError:
    """The error for a source without files of ``format``, naming what its files look like."""
    message = f"no {format.benchmark.owner}{format.name} annotation files found (expected names like {format.example})"
    for kind in (*SOURCE_FORMATS.values(), *tree_formats(), *LOOK_ALIKES):
        located = _locate_frames(src, kind, Problems(), probe=True) if kind is not format else {}
        if located and resembles(kind, *_sample(src, kind, located)):
            message += f"; the files look like {kind.what}: {kind.advice}"
            break
    return InputError(message, src.root)


def _locate_frames(
    src: Source, format: SourceFormat, problems: Problems, probe: bool = False
) -> dict[str, str | dict[str, str]]:
    """Frame name -> the relative path of its annotation file ({modality: path} for paired files).
    ``probe``: only to see whether files of ``format`` are there, so two files of a frame pass."""
    located: dict[str, str | dict[str, str]] = {}
    folders = src.folders
    problems.extend(src.links.records)
    for folder, names in folders:
        _locate_in_folder(src, format, folder, names, located, problems, probe)
    return located


def _locate_in_folder(
    src: Source,
    format: SourceFormat,
    folder: str,
    names: list[str],
    located: dict,
    problems: Problems,
    probe: bool = False,
) -> list[str]:
    """Add the frames of one folder to ``located``; returns the frames added, in name order. Two
    files of one frame are an `InputError` (unless ``probe``): which one is meant cannot be told."""
    folder_pattern, name_pattern = format.layout.folder, format.layout.name
    prefix = f"{folder}/" if folder else ""
    if format.layout.frame is not None:
        return _locate_named(src, format.layout, folder, names, located, problems, probe)
    if _IMAGE_SETS in f"/{prefix}":
        return []  # image-set lists travel with annotation archives; --image-set reads them
    matches = list(map(name_pattern.fullmatch, names))
    head = ""
    if folder_pattern is not None:
        where = folder_pattern.search(folder)
        if where is None:
            matches = [None] * len(names)
        else:
            head = f"{where[1]}/{where[2]}/"
    if format.layout.per_modality:
        return _locate_pairs(src, located, prefix, head, where[3] if head else "", names, matches, problems, probe)
    frames = [head + m[1] if head else f"{m[1]}/{m[2]}/{m[3]}" for m in matches if m is not None]
    if len(frames) == len(names) and located.keys().isdisjoint(frames) and len(set(frames)) == len(frames):
        located.update(zip(frames, map(prefix.__add__, names)))  # the usual folder: nothing odd
        return frames
    added = []
    for name, match in zip(names, matches):
        if match is None:
            problems.add("stray file", "not an annotation file of this format, skipped", src.display(prefix + name))
            continue
        frame = head + match[1] if head else f"{match[1]}/{match[2]}/{match[3]}"
        _note_file(src, located, frame, prefix + name, added, probe)
    return added


def _locate_named(
    src: Source, layout, folder: str, names: list[str], located: dict, problems: Problems, probe: bool
) -> list[str]:
    """`_locate_in_folder` for another benchmark's layout: only folders of its annotations are looked into
    (a dataset's root holds its pictures and lists too, which are not noted), and the source's own
    folder where its files may lie there."""
    prefix = f"{folder}/" if folder else ""
    where = layout.folder.search(folder) if layout.folder is not None else None
    if layout.folder is not None and where is None and (folder or not layout.flat_root):
        return []
    added = []
    for name in names:
        match = layout.name.fullmatch(name)
        if match is None:
            if where is not None or layout.folder is None:
                problems.add("stray file", "not an annotation file of this format, skipped", src.display(prefix + name))
            continue
        _note_file(src, located, layout.frame_of(where, match), prefix + name, added, probe)
    return added


def _note_file(src: Source, located: dict, frame: str, path: str, added: list, probe: bool) -> None:
    """Note ``path`` as ``frame``'s annotation file; a second file for a frame stops the conversion (a
    probe passes over it)."""
    if frame in located:
        if not probe:
            raise _two_files(src, frame, located[frame], path)
        return
    located[frame] = path
    added.append(frame)


def _locate_pairs(src, located, prefix, head, modality, names, matches, problems, probe) -> list[str]:
    added = []
    for name, match in zip(names, matches):
        if match is None:
            problems.add("stray file", "not an annotation file of this format, skipped", src.display(prefix + name))
            continue
        entry = located.setdefault(head + match[1], {})
        if modality in entry:
            if not probe:
                raise _two_files(src, f"{head + match[1]} ({modality})", entry[modality], prefix + name)
            continue
        entry[modality] = prefix + name
        added.append(head + match[1])
    return added


def _two_files(src: Source, frame: str, first: str, second: str) -> InputError:
    return InputError(
        f"a second annotation file for the frame {frame}, beside {src.display(first)}: which one "
        "is meant cannot be told; remove one",
        src.display(second),
    )


_SOURCE: Source | None = None  # the source, in a worker process


def _init_worker(src: Source) -> None:
    global _SOURCE
    _SOURCE = src


@_without_gc()
def _work(job: _Job) -> _Chunk:
    return _process(_SOURCE, job)


def _process(src: Source, job: _Job) -> _Chunk:
    """Read, parse and format one chunk of frames."""
    problems = Problems()
    per_modality = job.format.layout.per_modality
    rels = [rel for _, _, entry in job.frames for rel in (sorted(entry.values()) if per_modality else [entry])]
    data = src.read_all(rels)
    digests = b"".join(map(methodcaller("digest"), map(hashlib.sha256, data)))
    frames, objects = job.format.parse(job.frames, dict(zip(rels, data)), src.display, problems, job.options)
    if job.format.benchmark.kaist_model:
        images, annotations = format_frames(frames, objects, job.layout)
    else:
        images, annotations = format_benchmark_frames(frames, objects, job.format.benchmark, job.split)
    return _Chunk(
        "\n".join(rels),
        digests,
        ",\n".join(images).encode(),
        "\n".join(annotations).encode(),
        len(annotations),
        Counter(objects.label),
        problems.records,
        len(images),
    )
