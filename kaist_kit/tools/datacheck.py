"""Checking a data root before hours of training are spent on it: `kaist-kit check-data`.

For each annotation file (a config's training, validation and test files, or those found under the
root): that it exists (else how to make it), what it holds (frames, pedestrians, ignore regions, day
and night), which named set it is, and whether its name claims a set it is not; then for every frame
it annotates, that both pictures are there, of the size the file gives (KAIST's 640 x 512) and whole.
Sizes and completeness come from the pictures' headers and last bytes (`kaist_kit.io.pictures`), a few
syscalls each, on several threads; only a sample is decoded. A full KAIST tree takes seconds.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..data.frames import find_frame
from ..data.groundtruth import ground_truth_from_coco
from ..datasets import get_benchmark
from ..errors import InputError, quantity
from ..io.pictures import decode_problem, read_header
from ..io.read import load_json
from ..io.rooted import Root, outside

ROLES = ("train", "val", "test")
_CHUNK = 512  # pictures a thread checks at a time
_WORKERS = 8  # threads reading headers: a cold disk or a network file system answers several at once


@dataclass(frozen=True)
class DatasetFiles:
    """One annotation file to check and where its pictures are."""

    role: str  # 'train', 'val', 'test', or 'annotations' for a file found under the root
    ann_file: Path
    images: Path  # the folder the pictures' paths are relative to (the data root's images/; another benchmark's root)
    make_with: str | None = None  # the command that writes ann_file, said when it is missing
    benchmark: str = "kaist"  # whose annotations: another benchmark's are read as its COCO ground truth


@dataclass
class AnnotationCheck:
    files: DatasetFiles
    exists: bool = False
    images: int = 0
    pedestrians: int = 0
    ignore_regions: int = 0
    day: int = 0
    night: int = 0
    with_pedestrians: int = 0
    recognised: str | None = None  # the named set it holds
    claimed: str | None = None  # the named set its file name or info says it is
    frames: list[str] = field(default_factory=list)


@dataclass
class DataCheck:
    root: Path
    annotations: list[AnnotationCheck]
    pictures: int = 0  # pictures checked
    missing: list[str] = field(default_factory=list)  # pictures not there
    broken: list[tuple[str, str]] = field(default_factory=list)  # (picture, what is wrong)
    decoded: int = 0  # pictures decoded (each once)
    not_decoded: int = 0  # of those, the ones that do not decode whole
    sizes: Counter = field(default_factory=Counter)  # (width, height) of the pictures
    problems: list[str] = field(default_factory=list)  # each stops training; one line each
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def error(self) -> InputError:
        """The check's failure as one line: the first problem, and how many there are."""
        more = (
            f" (and {quantity(len(self.problems) - 1, 'more problem')}: kaist-kit check-data lists them)"
            if len(self.problems) > 1
            else ""
        )
        return InputError(self.problems[0] + more)


def missing_annotations_message(path: str | os.PathLike, make_with: str | None = None) -> str:
    """What to say of an annotation file that is not there: how to make it."""
    how = make_with or _trainset_command(path)
    return (
        f"{path}: no such annotation file; make it with: {how}"
        if how
        else f"{path}: no such annotation file (docs/training.md says how to make the annotation files)"
    )


def _trainset_command(path) -> str | None:
    from ..trainsets.specs import SETS

    name = claimed_set(path)
    if name in SETS:
        return f"kaist-kit trainset {name} --annotations annotations-xml-new --out {path} (docs/training.md)"
    if name == "test-all-20":
        return f"kaist-kit fetch --to {Path(path).parent} (the leaderboard's ground truth)"
    return None


def claimed_set(path: str | os.PathLike) -> str | None:
    """The named set a file's name says it holds: annotations/train-02.json -> train-02,
    test-all-20.leaderboard.json -> test-all-20; None for other names."""
    from ..trainsets.lists import known_list_names
    from ..trainsets.specs import SETS

    stem = Path(path).name.split(".")[0]
    return stem if stem in SETS or stem in known_list_names() else None


def recognise(frames: Sequence[str]) -> str | None:
    """The named set whose frames these are (in any order), by the checksum of their sorted names."""
    from ..trainsets.lists import PINNED_LENGTHS, list_sha256, named_list
    from ..trainsets.specs import MBNET_FRAMES_SHA256, SETS

    digest = list_sha256(sorted(frames))
    if len(frames) == SETS["mbnet-8963"].frames and digest == MBNET_FRAMES_SHA256:
        return "mbnet-8963"
    for name, length in PINNED_LENGTHS.items():
        if length == len(frames) and list_sha256(sorted(named_list(name))) == digest:
            return name
    return None


def picture_names(image: dict, benchmark=None) -> tuple[str, str]:
    """(visible, lwir) paths of an image record, relative to the dataset's images/ folder (another
    benchmark's: to its root): the converter writes both; the leaderboard's ground truth has only
    ``im_name``, and the pictures sit where KAIST keeps them; another benchmark's COCO files name the
    frame, whose pictures sit where the benchmark keeps them (`Benchmark.picture_path`)."""
    if image.get("file_name") and image.get("lwir_file_name"):
        return str(image["file_name"]), str(image["lwir_file_name"])
    if benchmark is not None and not benchmark.kaist_model:
        frame = benchmark.frame(str(image.get("im_name") or image.get("file_name") or image.get("id") or ""))
        if frame is None or any("{split}" in m.picture for m in benchmark.modalities):
            raise ValueError(
                f"image {image.get('id')!r} has neither file_name and lwir_file_name nor a "
                f"{benchmark.title} frame name whose pictures can be found; kaist-kit convert "
                f"--benchmark {benchmark.name} writes both"
            )
        return tuple(benchmark.picture_path(m.name, frame) for m in benchmark.modalities)
    name = str(image.get("im_name") or image.get("file_name") or "")
    frame = find_frame(name)
    if frame is None:
        raise ValueError(
            f"image {image.get('id')!r} has neither file_name and lwir_file_name nor a KAIST frame "
            "name (setXX/VYYY/IZZZZZ) in im_name"
        )
    set_name, video, stem = frame.split("/")
    return f"{set_name}/{video}/visible/{stem}.jpg", f"{set_name}/{video}/lwir/{stem}.jpg"


def files_under(root: Path, benchmark: str = "kaist") -> list[DatasetFiles]:
    """The annotation files of a data root without a config: *.json in it and in its annotations/."""
    found = sorted(root.glob("*.json")) + sorted((root / "annotations").glob("*.json"))
    pictures = root / get_benchmark(benchmark).pictures_folder
    return [DatasetFiles("annotations", path, pictures, benchmark=benchmark) for path in found]


def check_data(
    root: str | os.PathLike,
    datasets: Sequence[DatasetFiles] | None = None,
    decode: int = 32,
    roles_needed: Sequence[str] = ("train", "val"),
    benchmark: str = "kaist",
) -> DataCheck:
    """Check the annotation files ``datasets`` (by default those under ``root``, of ``benchmark``) and their
    pictures. Another benchmark's files are read as its COCO ground truths (any class), its pictures
    found where the files name them (else where it keeps them) under its root.

    A missing file of a role in ``roles_needed`` is a problem, one of another role (the test set, which
    `kaist-kit test` finds without it) a warning. ``decode`` pictures, spread over all, are decoded.
    """
    start = time.perf_counter()
    root = Path(root)
    if not root.is_dir():
        raise InputError("no such folder (the data root: images/ and the annotation files)", root)
    from_root = datasets is None
    datasets = list(datasets) if datasets is not None else files_under(root, benchmark)
    check = DataCheck(root, [])
    wanted: dict[str, tuple[int, int]] = {}  # picture -> size the annotations give
    for files in datasets:
        annotation = AnnotationCheck(files)
        check.annotations.append(annotation)
        if not os.path.lexists(files.ann_file):  # what is there but no regular file, its reader refuses
            message = missing_annotations_message(files.ann_file, files.make_with)
            (check.problems if files.role in roles_needed or files.role == "annotations" else check.warnings).append(
                message
            )
            continue
        annotation.exists = True
        _read_annotations(annotation, check, wanted)
    if from_root and not wanted and not get_benchmark(benchmark).kaist_model:
        raise InputError(
            "no annotation files (*.json, annotations/*.json) found here: kaist-kit convert "
            f"--benchmark {benchmark} writes them",
            root,
        )
    if from_root and not wanted:
        wanted = pictures_in_tree(root / "images")
        if not wanted:
            raise InputError(
                "no annotation files (*.json, annotations/*.json) and no pictures "
                "(images/setXX/VYYY/{visible,lwir}/) found here",
                root,
            )
    _check_roles(check)
    _check_pictures(check, wanted, decode)
    check.seconds = time.perf_counter() - start
    return check


def _read_annotations(annotation: AnnotationCheck, check: DataCheck, wanted: dict) -> None:
    path = annotation.files.ann_file
    data = load_json(path)
    if annotation.files.role == "annotations" and not (isinstance(data, dict) and isinstance(data.get("images"), list)):
        annotation.exists = False
        check.warnings.append(f"{path}: not an annotation file (no 'images' list), skipped")
        return
    if not get_benchmark(annotation.files.benchmark).kaist_model:
        _read_benchmark_annotations(annotation, data, wanted)
        return
    gt = ground_truth_from_coco(data, path)
    annotation.images = gt.n_images
    pedestrian = ~gt.ignore
    annotation.pedestrians = int(pedestrian.sum())
    annotation.ignore_regions = int(gt.ignore.sum())
    annotation.with_pedestrians = len(set(gt.ann_image[pedestrian].tolist()))
    annotation.frames = [name for name in gt.image_names if name]
    periods = Counter(gt.image_periods)
    annotation.day, annotation.night = periods["day"], periods["night"]
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    annotation.claimed = claimed_set(path) or (
        info.get("training_set") if isinstance(info.get("training_set"), str) else None
    )
    annotation.recognised = recognise(annotation.frames) if len(annotation.frames) == gt.n_images else None
    if annotation.recognised is None and annotation.claimed == "sanitized-7601" and gt.n_images == 7601:
        annotation.recognised = "sanitized-7601"  # no list of it is published: known by its count
    if annotation.claimed and annotation.recognised != annotation.claimed:
        check.problems.append(_not_the_set(annotation))
    images = data["images"]
    root = Root(annotation.files.images)
    for k, (image, size) in enumerate(zip(images, gt.image_sizes.tolist())):
        try:
            visible, lwir = picture_names(image)
        except ValueError as exc:
            raise InputError(str(exc), path) from None
        for name in (visible, lwir):
            wanted.setdefault(_picture(root, name, path, k), (int(size[0]), int(size[1])))


def _read_benchmark_annotations(annotation: AnnotationCheck, data: dict, wanted: dict) -> None:
    """Another benchmark's COCO ground truth: its boxes of every class that count ("pedestrians" in the
    table), its ignore regions, periods where its images name them, and its frames' pictures."""
    from ..data.groundtruth import ground_truth_from_coco

    path = annotation.files.ann_file
    bench = get_benchmark(annotation.files.benchmark)
    gt = ground_truth_from_coco(data, path, benchmark=bench)
    counted = ~(gt.ignore | gt.iscrowd)
    annotation.images = gt.n_images
    annotation.pedestrians = int(counted.sum())
    annotation.ignore_regions = int((~counted).sum())
    annotation.with_pedestrians = len(set(gt.ann_image[counted].tolist()))
    annotation.frames = list(gt.image_names)
    scenes = Counter(gt.image_scenes)
    annotation.day, annotation.night = scenes["day"], scenes["night"]
    root = Root(annotation.files.images)
    for k, (image, size) in enumerate(zip(data["images"], gt.image_sizes.tolist())):
        try:
            names = picture_names(image, bench)
        except ValueError as exc:
            raise InputError(str(exc), path) from None
        expected = None if any(v != v for v in size) else (int(size[0]), int(size[1]))  # nan: not recorded
        for name in names:
            wanted.setdefault(_picture(root, name, path, k), expected)


def _picture(root: Root, name: str, path: Path, k: int) -> str:
    """The path of a picture that image ``k`` of the annotation file ``path`` names, if it stays under
    the pictures' folder (`kaist_kit.io.rooted`); an `InputError` naming the file otherwise."""
    problem, joined = root.checked(name)
    if problem is not None:
        raise outside(name, problem, path, f"picture of images[{k}]")
    return joined


def _not_the_set(annotation: AnnotationCheck) -> str:
    from ..trainsets.lists import known_list_names, named_list

    name, path = annotation.claimed, annotation.files.ann_file
    what = f"holds {annotation.images:,} frames"
    if name in known_list_names():
        expected = named_list(name)
        listed, held = set(expected), set(annotation.frames)
        extra = [f for f in annotation.frames if f not in listed]
        missing = [f for f in expected if f not in held]
        parts = [
            f"{len(missing):,} of its frames missing (first: {missing[0]})" if missing else "",
            f"{len(extra):,} frames not in it (first: {extra[0]})" if extra else "",
        ]
        what += (
            f", not {name}'s {len(expected):,}: " + "; ".join(p for p in parts if p)
            if missing or extra
            else f" in another order than {name}"
        )
    else:
        what += f", not those of {name}"
    how = _trainset_command(path)
    return f"{path}: {what}" + (f"; make it with: {how}" if how else "")


def _check_roles(check: DataCheck) -> None:
    """Training or validation frames of the test sets, and videos shared by training and validation."""
    from ..trainsets.lists import frames_of_test_sets

    videos = {}
    tested = {frame for a in check.annotations if a.files.role == "test" and a.exists for frame in a.frames}
    for annotation in check.annotations:
        role = annotation.files.role
        if role not in ("train", "val") or not annotation.exists:
            continue
        if not get_benchmark(annotation.files.benchmark).kaist_model:  # another benchmark's: no test frame
            shared = [frame for frame in annotation.frames if frame in tested]
            if shared:
                check.warnings.append(
                    f"{annotation.files.ann_file}: the {role} annotations hold "
                    f"{quantity(len(shared), 'frame')} of the test annotations (first: {shared[0]}): "
                    "a model that sees them cannot be scored on them"
                )
            continue
        test = frames_of_test_sets(annotation.frames)
        if test:
            check.warnings.append(
                f"{annotation.files.ann_file}: the {role} annotations hold "
                f"{quantity(len(test), 'frame')} of the test sets set06-11 (first: {test[0]}): a "
                "model that sees them cannot be scored on test-all-20"
            )
        videos[role] = {frame[:10] for frame in annotation.frames}
    shared = sorted(videos.get("train", set()) & videos.get("val", set()))
    if shared:
        check.warnings.append(
            f"training and validation share {quantity(len(shared), 'video')} ({', '.join(shared[:4])}"
            f"{', ...' if len(shared) > 4 else ''}): neighbouring frames on both sides make the "
            "validation miss rate too good"
        )


def _check_pictures(check: DataCheck, wanted: dict[str, tuple[int, int]], decode: int) -> None:
    paths = list(wanted)
    check.pictures = len(paths)
    chunks = [paths[k : k + _CHUNK] for k in range(0, len(paths), _CHUNK)]
    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        for chunk, headers in zip(chunks, pool.map(lambda chunk: [read_header(p) for p in chunk], chunks)):
            for path, header in zip(chunk, headers):
                if header.problem == "missing":
                    check.missing.append(path)
                    continue
                if header.problem:
                    check.broken.append((path, header.problem))
                    continue
                size = (header.width, header.height)
                check.sizes[size] += 1
                if wanted[path] is not None and size != wanted[path]:
                    check.broken.append(
                        (
                            path,
                            f"{size[0]} x {size[1]}, not the {wanted[path][0]} x {wanted[path][1]} of its annotations",
                        )
                    )
    unusable = set(check.missing) | {path for path, _ in check.broken}
    whole = [p for p in paths if p not in unusable] if unusable else paths
    # Spread over all, each picture once: with fewer pictures than asked for, every one of them.
    decode = max(decode, 0)
    sample = [whole[k * len(whole) // decode] for k in range(decode)] if 0 < decode < len(whole) else whole[:decode]
    for path in sample:
        problem = decode_problem(path, wanted[path] or _size_of(path))
        if problem:
            check.broken.append((path, problem))
            check.not_decoded += 1
    check.decoded = len(sample)
    if check.missing:
        frames = {find_frame(p) for p in check.missing}
        of = f" of {_count(len(frames), 'frame')}" if None not in frames else ""  # another benchmark's names
        check.problems.append(
            f"{_count(len(check.missing), 'picture')}{of} missing (first: {check.missing[0]}); is the data root right?"
        )
    if len(check.sizes) > 1 and None in wanted.values():
        sizes = ", ".join(f"{w} x {h} ({n})" for (w, h), n in check.sizes.most_common())
        check.problems.append(f"the pictures are of several sizes: {sizes}")
    if check.broken:
        path, what = check.broken[0]
        check.problems.append(f"{_count(len(check.broken), 'picture')} unusable (first: {path}: {what})")


def _size_of(path: str) -> tuple[int, int]:
    header = read_header(path)
    return header.width, header.height


def pictures_in_tree(images: Path) -> dict[str, None]:
    """Every picture of a KAIST tree images/setXX/VYYY/{visible,lwir}/, and the partner each one should
    have, for a data root without annotation files (None: no size is expected)."""
    found: dict[str, None] = {}
    for set_entry in sorted(os.scandir(images), key=lambda e: e.name) if images.is_dir() else []:
        if not (set_entry.is_dir() and set_entry.name.startswith("set")):
            continue
        for video in sorted(os.scandir(set_entry.path), key=lambda e: e.name):
            if not video.is_dir():
                continue
            names = {
                m: {e.name for e in os.scandir(os.path.join(video.path, m)) if e.is_file()}
                for m in ("visible", "lwir")
                if os.path.isdir(os.path.join(video.path, m))
            }
            for name in sorted(set().union(*names.values())) if names else []:
                if find_frame(f"{set_entry.name}/{video.name}/{name}") is None:
                    continue
                for modality in ("visible", "lwir"):
                    found.setdefault(os.path.join(video.path, modality, name), None)
    return found


def _decoded(check: DataCheck) -> str:
    if not check.not_decoded:
        return f"{check.decoded} decoded whole"
    return f"{check.decoded} decoded, {check.decoded - check.not_decoded} of them whole"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def check_lines(check: DataCheck) -> list[str]:
    """The check on one screen: a row per annotation file, a line for the pictures, then each problem and
    warning."""
    from ..output.tables import Table

    rows = []
    for a in check.annotations:
        if a.files.role == "annotations" and not a.exists:
            continue  # a JSON file of the root that is not an annotation file
        name = a.recognised or ("not there" if not a.exists else "not a named set")
        rows.append(
            [a.files.role, str(a.files.ann_file), name]
            + (
                [f"{v:,}" for v in (a.images, a.day, a.night, a.with_pedestrians, a.pedestrians, a.ignore_regions)]
                if a.exists
                else [""] * 6
            )
        )
    lines = []
    if rows:
        kaist = all(get_benchmark(a.files.benchmark).kaist_model for a in check.annotations)
        counted = ["with ped.", "pedestrians"] if kaist else ["with box", "boxes"]  # another benchmark's: any class
        table = Table(
            f"Data root {check.root}",
            ["role", "annotations", "set", "frames", "day", "night", *counted, "ignore"],
            rows,
            label_columns=3,
        )
        lines += table.to_text().splitlines()
    sizes = ", ".join(f"{w} x {h}" for (w, h), _ in check.sizes.most_common()) or "none read"
    bad = len(check.missing) + len(check.broken)
    state = "all there and whole" if not bad else f"{_count(bad, 'picture')} missing or unusable"
    if check.pictures:
        lines.append(
            f"pictures: {check.pictures:,} checked ({sizes}), {state}; sizes and ends read from every "
            f"file, {_decoded(check)}; {check.seconds:.1f} s"
        )
    else:
        lines.append("pictures: none checked")
    lines += [f"problem: {p}" for p in check.problems]
    lines += [f"warning: {w}" for w in check.warnings]
    return lines
