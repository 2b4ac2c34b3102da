"""CVC-14 (González et al., Sensors 2016): its spec, its annotation files' reader (whose x, y are read as
the box's centre or its corner: `read_cvc14`'s ``origin``) and its synthetic layout."""

from __future__ import annotations

import os
import re

import numpy as np

from ..errors import InputError, quantity
from ..metrics.spec import LAMR
from .spec import Benchmark, Citation, FrameNames, Modality, Split, SynthLayout

CVC14_FIELDS = 11  # x y w h mandatory 0 0 0 0 track_id 0


def read_cvc14(root: str | os.PathLike, split: str = "test", origin: str = "centre"):
    """CVC-14's visible ground truth of ``split`` ('train' or 'test'; 'day' and 'night' are test frames by
    period): the frames annotated in both modalities, as MS-DETR's evaluation takes them. ``origin``
    says whether a line's x, y is the box's 'centre' (MS-DETR, and the devkit ports) or its top-left
    'corner' (some converters)."""
    from ..io.read import read_text
    from .readers import NativeBox, annotations_of, folder_of

    if origin not in CVC14.box_origins:
        raise ValueError(f"unknown CVC-14 box origin {origin!r}; use centre or corner")
    root = folder_of(root)
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
            boxes.append(NativeBox(k, "person" if mandatory else "person?", (x, y, w, h), not mandatory))
    notes = [f"x, y read as the box's {origin}"]
    if only_visible:
        notes.append(f"{quantity(only_visible, 'frame')} annotated in the visible modality only left out")
    annotations = annotations_of(CVC14, frames, [CVC14.image_size] * len(frames), scenes, boxes, str(root), notes)
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


def _synthetic_name(split: str, period: str, k: int, n: int) -> str:
    hour = 10 if period == "day" else 23
    return f"{period.capitalize()}/2014_05_0{1 if split == 'train' else 4}_{hour}_00_00_{100000 + k:06d}"


def _write_synthetic(root, bench, frames) -> dict:
    from .synth import labels_of, write_file

    boxes = {"person": 0, "person (not mandatory)": 0}
    for frame in frames:
        period, stem = frame.name.split("/")
        folder = bench.split_folders.get(frame.split, frame.split)
        lines = []
        for track, obj in enumerate(frame.objects, 1):
            for _, (x, y, w, h), mandatory in labels_of(bench, obj):
                lines.append(f"{x + w // 2} {y + h // 2} {w} {h} {int(mandatory)} 0 0 0 0 {track} 0")
                boxes["person" if mandatory else "person (not mandatory)"] += 1
        text = "".join(f"{line}\n" for line in lines)
        for modality in ("Visible", "FIR"):
            write_file(root / period / modality / folder / "Annotations" / f"{stem}.txt", text)
    # A test frame annotated in the visible modality only, which the test set leaves out.
    write_file(
        root / "Day" / "Visible" / "NewTest" / "Annotations" / "2014_05_04_10_00_00_999999.txt",
        "320 240 40 80 1 0 0 0 0 1 0\n",
    )
    return boxes


CVC14 = Benchmark(
    synth=SynthLayout(frame_name=_synthetic_name, writer=_write_synthetic, uncertain_people=True),
    read_native=read_cvc14,
    name="cvc-14",
    aliases=("cvc14",),
    title="CVC-14",
    frames=FrameNames(
        re.compile(
            r"(?i:(?P<period>day|night))[/_](?:(?:Visible|FIR)/(?:Train|NewTest)/"
            r"(?:Annotations|FramesPos)/)?(?P<stem>\d{4}(?:_\d\d){5}_\d+)"
        ),
        "{period}/{stem}",
    ),
    modalities=(
        Modality("visible", "{period}/Visible/{split}/FramesPos/{stem}.tif", (640, 471)),
        Modality("fir", "{period}/FIR/{split}/FramesPos/{stem}.tif", None),
    ),
    annotation_format="cvc-14",
    annotation_path="{period}/Visible/{split}/Annotations/{stem}.txt",
    splits=(
        Split("train", "{Day,Night}/{Visible,FIR}/Train"),
        Split("test", "{Day,Night}/{Visible,FIR}/NewTest, frames annotated in both modalities"),
        Split("day", "test frames under Day/"),
        Split("night", "test frames under Night/"),
    ),
    metrics=(LAMR.name,),
    protocols=("ms-detr", "matlab"),  # MS-DETR's evaluation of CVC-14, and the devkit's own sum
    citation=Citation(
        "A. González, Z. Fang, Y. Socarras, J. Serrat, D. Vázquez, J. Xu, A. M. López",
        "Pedestrian detection at day/night time with visible and FIR cameras: a comparison",
        "Sensors 16(6):820",
        2016,
        "gonzalez2016pedestrian",
    ),
    download="http://adas.cvc.uab.es/elektra/enigma-portfolio/cvc-14-visible-fir-day-night-pedestrian-sequence-"
    "dataset/ (on request from the Computer Vision Center, UAB)",
    licence="the Computer Vision Center's terms (research use)",
    # MS-DETR reads x, y as the centre, some converters as the corner.
    box_origins=("centre", "corner"),
    ignore_labels=frozenset({"person?"}),  # the kit's label of a box whose 'mandatory' field is 0
    split_folders={"train": "Train", "test": "NewTest", "day": "NewTest", "night": "NewTest"},
    lamr_settings=("reasonable",),
    notes=(
        "Lines are 'x y w h mandatory 0 0 0 0 track_id 0'; tools disagree whether x, y is the box's centre "
        "or its top-left corner (the kit reads the centre by default, as MS-DETR does, and says so when the "
        "other reading matches the detections far better).",
    ),
)
