"""Writing a named training set as COCO JSON: `kaist-kit trainset NAME --annotations SRC --out FILE`.

The boxes come from the user's annotations, read by the converters (`kaist_kit.converters.convert`,
the same engine and formats as `kaist-kit convert`), or from MBNet's cache; the frames from the set's
pinned list. The file is the converter's, every listed frame an image of it (frames without a
pedestrian included: configs leave those out at load), with the set's name, citation and the
checksum of its frame list added to ``info``. A source that lacks frames of the set, or gives another
count, is refused with what is missing.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, quantity
from ..io.text import parse_json
from ..io.write import atomic_path, check_writable, scratch_folder, write_text_atomic
from ..metrics.settings import KAIST_FRAME_SIZE
from .lists import frames_of_test_sets, list_sha256, named_list
from .mbnet import read_mbnet_cache
from .specs import (
    MBNET_CACHE,
    MBNET_CACHE_SHA256,
    MBNET_ENTRIES_SHA256,
    SOURCE_KINDS,
    TrainingSet,
    get_set,
)

Echo = Callable[[str], None]


@dataclass
class BuiltSet:
    """What `build_training_set` wrote."""

    set: TrainingSet
    out: Path
    source: Path
    source_kind: str
    images: int
    pedestrians: int  # boxes labelled person, not flagged ignore
    ignore_regions: int
    labels: dict[str, int]  # every box by its label
    day: int  # images by day
    night: int
    with_pedestrians: int  # images with at least one pedestrian
    frames_sha256: str
    notes: list[str] = field(default_factory=list)  # what was left out or must be known, one line each
    problems: str = "no problems found"  # the conversion's summary


def detect_source_kind(source: str | os.PathLike, accepted: tuple[str, ...]) -> str | None:
    """Which of ``accepted`` (`SOURCE_KINDS`) the source is: a file that is not an archive is MBNet's
    cache (its reader says when it is not one), a folder of annotation files is the kind whose layout
    most of its files follow (the converters' format specs). None for an archive: listing it costs
    as much as reading it, so `build_training_set` tries its kinds in turn."""
    from ..converters import SOURCE_FORMATS
    from ..io.archives import is_archive

    path = Path(source)
    cache = path.is_file() and not is_archive(path)
    if cache != (MBNET_CACHE in accepted):
        what = "a numpy file" if path.suffix == ".npy" else "a file" if cache else "not a numpy .npy file"
        raise InputError(f"{what}; this set is built from {_accepted(accepted)}", source)
    if cache:
        return MBNET_CACHE
    if is_archive(path):
        return None
    votes = Counter()
    for folder, _, names in os.walk(path):
        rel = os.path.relpath(folder, path).replace(os.sep, "/")
        for name in names:
            for kind in accepted:
                if _fits(SOURCE_FORMATS[kind], rel, name):
                    votes[kind] += 1
    if not votes:
        raise InputError(f"no annotation files of the kinds this set is built from ({_accepted(accepted)})", source)
    return max(accepted, key=lambda kind: (votes[kind], -accepted.index(kind)))


def _fits(spec, folder: str, name: str) -> bool:
    """Whether a file is named and placed as a format's files are."""
    if not spec.layout.name.fullmatch(name):
        return False
    if spec.layout.folder is not None:
        return spec.layout.folder.search(folder) is not None
    return int(name[3:5]) in spec.sets.numbers


def _accepted(kinds: tuple[str, ...]) -> str:
    return "; ".join(SOURCE_KINDS[kind] for kind in kinds)


def build_training_set(
    name: str, source: str | os.PathLike, out: str | os.PathLike, kind: str | None = None, echo: Echo | None = None
) -> BuiltSet:
    """Write the named set ``name`` with the boxes of ``source`` to ``out`` (COCO JSON, atomically).

    ``kind`` is the source's kind (`SOURCE_KINDS`), found from its files when None. ``echo`` hears the
    conversion's problems, one line each. A source that misses frames of the set or gives another
    count is an `InputError` naming what is missing, and nothing is written.
    """
    spec = get_set(name)
    check_writable(out)
    if not Path(source).exists():
        raise InputError("no such file or folder", source)
    if kind is not None and kind not in spec.sources:
        raise InputError(
            f"{name} is built from {_accepted(spec.sources)}, not from {SOURCE_KINDS.get(kind, kind)}", source
        )
    kind = kind or detect_source_kind(source, spec.sources)
    if kind == MBNET_CACHE:
        data, notes, problems = _from_mbnet_cache(spec, source)
    elif kind is not None:
        data, notes, problems = _from_annotations(spec, kind, source, echo)
    else:  # an archive: its kinds in turn, the usual one first
        for kind in spec.sources:
            try:
                data, notes, problems = _from_annotations(spec, kind, source, echo)
                break
            except InputError as exc:
                if not exc.reason.startswith(f"no {kind} annotation files found"):
                    raise
        else:
            raise InputError(
                f"no annotation files of the kinds this set is built from ({_accepted(spec.sources)})", source
            )
    names = [image["im_name"] for image in data["images"]]
    digest = list_sha256(names)
    data["info"].update(
        {
            "description": f"KAIST {name} ({spec.citation}) in COCO form",
            "training_set": name,
            "training_set_citation": spec.citation,
            "frames_sha256": digest,
        }
    )
    if spec.notes.get(kind):
        data["info"]["note"] = spec.notes[kind]
    write_coco(out, data)
    return _summary(spec, Path(out), Path(source), kind, data, digest, notes, problems)


def _from_annotations(spec: TrainingSet, kind: str, source, echo: Echo | None) -> tuple[dict, list[str], str]:
    """The set's frames with the boxes of an annotation tree or archive, converted by the converters."""
    from ..converters import convert

    notes = [spec.notes[kind]] if kind in spec.notes else []
    if spec.pinned:
        frames = list(named_list(spec.name))
        with scratch_folder("trainset") as folder:  # the converter reads a list by name
            listed = folder / f"{spec.name}.txt"
            write_text_atomic(listed, "".join(f"{frame}\n" for frame in frames))
            conversion = convert(kind, source, None, image_set=str(listed), echo=echo)
    else:
        frames = None
        conversion = convert(kind, source, None, echo=echo)
    if conversion.findings:
        raise InputError(f"cannot build {spec.name} from it: " + "; ".join(f.text for f in conversion.findings), source)
    data = parse_json(conversion.text, source)
    names = [image["im_name"] for image in data["images"]]
    if frames is not None:
        found = set(names)
        missing = [frame for frame in frames if frame not in found]
        if missing:
            raise InputError(
                f"{len(missing):,} of the {len(frames):,} frames of {spec.name} are missing from it or "
                f"could not be read (first: {', '.join(missing[:3])}){_advice(spec, kind)}",
                source,
            )
    else:
        test = frames_of_test_sets(names)
        if test:
            raise InputError(
                f"{quantity(len(test), 'frame')} of the test sets (first: {test[0]}) are not "
                f"training frames; {spec.name} holds training frames only",
                source,
            )
        if len(names) != spec.frames:
            raise InputError(
                f"holds {len(names):,} frames, not the {spec.frames:,} of {spec.name} "
                f"({spec.citation}): not that set, or not all of it",
                source,
            )
    return data, notes, conversion.problems.summary()


def _advice(spec: TrainingSet, kind: str) -> str:
    if kind == "sanitized":
        return (
            "; the sanitized download annotates only the 7,601 frames of sanitized-7601: build that set, or "
            f"{spec.name} from the official XML tree"
        )
    if kind == "paired":
        return (
            "; the KAIST-Paired download annotates the frames of paired-8892: build that set, or "
            f"{spec.name} from the official XML tree"
        )
    return f"; {spec.name} needs an annotation file for each of its frames"


def _from_mbnet_cache(spec: TrainingSet, source) -> tuple[dict, list[str], str]:
    """MBNet's cache as the kit's COCO: one image per distinct frame, in the cache's order, with the
    cache's boxes (x1 y1 x2 y2 -> x y w h) as pedestrians and its ignore areas as ignore regions."""
    import hashlib

    from .. import __version__
    from ..converters.coco import FIRST_ANNOTATION_ID, LICENSE, format_frames
    from ..converters.records import AnnotatedObject, FrameColumns, ObjectColumns
    from ..io.read import read_bytes

    entries = read_mbnet_cache(source)
    frames = [entry.frame for entry in entries]
    if list_sha256(frames) != MBNET_ENTRIES_SHA256:
        distinct = len(set(frames))
        raise InputError(
            f"its {len(frames):,} entries ({distinct:,} distinct frames) are not those of MBNet's "
            f"published cache ({spec.entries:,} entries, {spec.frames:,} frames; CalayZhou/MBNet, "
            "data/cache/kaist_train_data.npy)",
            source,
        )
    notes = []
    source_sha256 = hashlib.sha256(read_bytes(source)).hexdigest()
    if source_sha256 != MBNET_CACHE_SHA256:
        notes.append(
            "the file's bytes differ from the published cache's (its frames are the same): its boxes "
            "are taken as they are"
        )
    first: dict[str, int] = {}
    kept, rows, skipped = [], [], 0
    for entry in entries:
        if entry.frame in first:
            earlier = entries[first[entry.frame]]
            if not (_same(earlier.boxes, entry.boxes) and _same(earlier.ignore_areas, entry.ignore_areas)):
                raise InputError(
                    f"entries {earlier.index} and {entry.index} both hold {entry.frame} with "
                    "different boxes: which to train on is not known",
                    source,
                )
            notes.append(
                f"{entry.frame} is in the cache twice (entries {earlier.index} and {entry.index}), with "
                "the same boxes: one image here (MBNet trained on it twice an epoch)"
            )
            continue
        image_id = first[entry.frame] = len(kept)
        kept.append((image_id, entry.frame, *KAIST_FRAME_SIZE))
        for boxes, label, ign in ((entry.boxes, "person", 0), (entry.ignore_areas, "ignore", 1)):
            for x1, y1, x2, y2 in boxes.tolist():
                if x2 <= x1 or y2 <= y1:
                    skipped += 1
                    continue
                x, y, w, h = (int(v) if float(v).is_integer() else v for v in (x1, y1, x2 - x1, y2 - y1))
                rows.append((image_id, AnnotatedObject(label, x, y, w, h, ign=ign)))
    if skipped:
        notes.append(f"{quantity(skipped, 'box')} of zero or negative size left out")
    test = frames_of_test_sets(first)
    if test:
        raise InputError(f"holds frames of the test sets (first: {test[0]})", source)
    images, annotations = format_frames(FrameColumns.of(kept), ObjectColumns.of(rows), "kit")
    data = {
        "info": {
            "description": "",
            "source_format": MBNET_CACHE,
            "source": str(Path(source).resolve()),
            "source_sha256": source_sha256,
            "image_set": spec.name,
            "layout": "kaist-kit",
            "kit_version": __version__,
            "license": LICENSE,
            "occlusion": "not recorded by the cache: 0 throughout",
        },
        "images": [json.loads(text) for text in images],
        "annotations": [
            json.loads(f'{{"id":{k}{text}') for k, text in enumerate(annotations, FIRST_ANNOTATION_ID["kit"])
        ],
    }
    return data, notes, "no problems found"


def _same(a, b) -> bool:
    return a.shape == b.shape and bool((a == b).all())


def write_coco(path: str | os.PathLike, data: dict) -> None:
    """The COCO JSON as the converters write it (one record a line), atomically."""
    from ..converters.coco import coco_pieces

    def run(records: list) -> list[bytes]:
        return [",\n".join(json.dumps(r, separators=(",", ":")) for r in records).encode()] if records else []

    pieces = coco_pieces(data["info"], run(data["images"]), run(data["annotations"]), "kit")
    try:
        with atomic_path(path) as tmp, open(tmp, "wb") as f:
            f.writelines(pieces)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", path) from None


def _summary(spec, out, source, kind, data, digest, notes, problems) -> BuiltSet:
    labels = Counter(ann.get("label", "person") for ann in data["annotations"])
    ignore = sum(1 for ann in data["annotations"] if ann.get("ignore"))
    with_pedestrians = len({ann["image_id"] for ann in data["annotations"] if not ann.get("ignore")})
    periods = Counter(image.get("period") for image in data["images"])
    return BuiltSet(
        spec,
        out,
        source,
        kind,
        len(data["images"]),
        len(data["annotations"]) - ignore,
        ignore,
        dict(sorted(labels.items())),
        periods["day"],
        periods["night"],
        with_pedestrians,
        digest,
        notes,
        problems,
    )
