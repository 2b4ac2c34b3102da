"""Small synthetic sets in each other benchmark's layout, frame size and annotation format.

The pictures are `kaist_kit.tools.synth`'s (pedestrians that need both cameras, day and night), with the
benchmark's other classes drawn into the same frames (cars, buses, trucks, motorcycles, lamps,
the odd dog for FLIR-aligned's dropped label). The annotation files are written in each dataset's own
format and convention, so that each dataset's reader (`Benchmark.read_native`) reads the boxes back exactly:

    flir-aligned  align/Annotations/FLIR_NNNNN_PreviewData.xml (VOC, 1-based inclusive pixels),
                  align/JPEGImages/FLIR_NNNNN_RGB.jpg and _PreviewData.jpeg, align/align_train.txt,
                  align/align_validation.txt; 640 x 512
    llvip         Annotations/NNNNNN.xml (VOC, as written), visible/{train,test}/NNNNNN.jpg,
                  infrared/{train,test}/NNNNNN.jpg; 1280 x 1024
    cvc-14        {Day,Night}/{Visible,FIR}/{Train,NewTest}/Annotations/STAMP.txt (x, y the centre) and
                  .../FramesPos/STAMP.tif; 640 x 471; one more test frame is annotated in the visible
                  modality only (the test set leaves it out)
    m3fd          Annotation/NNNNN.xml (VOC, 1-based inclusive), Vis/NNNNN.png, Ir/NNNNN.png,
                  meta/{train,test}.txt; mostly 1024 x 768, some frames 880 x 520

Everything follows from the seed. Files are written in a staging folder of the writer's
(`kaist_kit.io.write.atomic_folder`) that becomes ``out`` only when whole, so that an interrupted run
leaves nothing behind, and a folder that holds anything is never written into nor removed.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..io.write import atomic_folder
from ..tools.synth import Obj, _paste, _write, render_frame
from .registry import BENCHMARKS, get_benchmark
from .spec import Benchmark


@dataclass
class BenchmarkSynthConfig:
    seed: int = 0
    train_frames: int = 4
    test_frames: int = 4
    size: tuple[int, int] | None = None  # default: the benchmark's frame size
    jpeg_quality: int = 90


@dataclass
class BenchmarkSynthSummary:
    out: str
    benchmark: str
    config: dict
    frames: dict[str, int]
    boxes: dict[str, int]
    # Every frame's boxes as the benchmark labels them: frame -> [(label, [x, y, w, h], counts)], where a
    # box that does not count is CVC-14's non-mandatory one.
    truth: dict[str, list] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """Its boxes per label, as `kaist-kit synth` says them."""
        return self.boxes


@dataclass
class _Frame:
    split: str
    period: str
    name: str  # the benchmark's frame name
    size: tuple[int, int]
    objects: list[Obj]


def generate_benchmark(
    benchmark: Benchmark | str, out, config: BenchmarkSynthConfig | None = None, progress=None
) -> BenchmarkSynthSummary:
    """Write a synthetic set of ``benchmark`` under ``out`` (which must be empty or not exist)."""
    bench = get_benchmark(benchmark)
    if bench.synth is None:
        writes = ", ".join(b.name for b in BENCHMARKS.values() if b.synth is not None)
        raise ValueError(f"`kaist_kit.tools.synth` writes the synthetic KAIST; this writes {writes}")
    config = config or BenchmarkSynthConfig()
    from PIL import Image

    out = Path(out)
    if out.is_dir() and any(out.iterdir()):
        raise InputError("the folder is not empty; synth writes into a new or empty folder", out)
    size = config.size or bench.image_size or (1024, 768)
    if min(size) < 64:
        raise InputError(f"image size {size[0]}x{size[1]} is too small (64x64 at least)")
    frames: list[_Frame] = []
    # The files are made in a staging folder of the writer's, which becomes ``out`` only when whole.
    with atomic_folder(out) as staging:
        plan = _plan(bench, config, size)
        for k, (split, period, name, frame_size) in enumerate(plan):
            rng = np.random.default_rng([config.seed, k])
            width, height = frame_size
            visible, thermal, truth = render_frame(
                rng, name, period, width, height, extra=lambda *a: _extras(bench, *a)
            )
            objects = _clipped(truth.objects, width, height)
            frame = _Frame(split, period, name, frame_size, objects)
            frames.append(frame)
            for modality, pixels in zip(bench.modalities, (visible, thermal)):
                path = staging / bench.picture_path(modality.name, name, split)
                path.parent.mkdir(parents=True, exist_ok=True)
                image = Image.fromarray(pixels)
                if path.suffix in (".jpg", ".jpeg"):
                    image.save(path, quality=config.jpeg_quality)
                else:
                    image.save(path)
            if progress:
                progress(k + 1, len(plan))
        boxes = bench.synth.writer(staging, bench, frames)
        counts = {split: sum(f.split == split for f in frames) for split in ("train", "test")}
        truth = {
            f.name: [(label, list(box), counts) for obj in f.objects for label, box, counts in labels_of(bench, obj)]
            for f in frames
        }
        summary = BenchmarkSynthSummary(str(out), bench.name, asdict(config), counts, boxes, truth)
        _write(staging / "synth.json", json.dumps(asdict(summary), indent=1) + "\n")
    return summary


def _plan(bench: Benchmark, config: BenchmarkSynthConfig, size: tuple[int, int]) -> list[tuple]:
    """(split, period, frame name, size) of every frame: half day, half night in each split."""
    layout = bench.synth
    plan = []
    for split, total in (("train", config.train_frames), ("test", config.test_frames)):
        day = (total + 1) // 2
        for k in range(total):
            period = "day" if k < day else "night"
            n = len(plan)
            name = layout.frame_name(split, period, k, n)
            small = layout.small_size is not None and config.size is None and n % 4 == 3
            plan.append((split, period, name, layout.small_size if small else size))
    return plan


# ------------------------------------------------------------------------------------------------
# The other classes


def _extras(bench: Benchmark, rng, visible, lwir, night, horizon) -> list[Obj]:
    """Vehicles (and lamps, the odd dog) for the benchmarks that label them; none for LLVIP and CVC-14."""
    layout = bench.synth
    if not layout.vehicles:
        return []
    height, width = lwir.shape
    objects = []
    for _ in range(int(rng.poisson(1.5))):
        kind = str(rng.choice(["car", "bus", "truck", "motorcycle"], p=[0.7, 0.1, 0.1, 0.1]))
        if not layout.vehicle_kinds:
            kind = "car"  # all its vehicles are 'car'
        h = float(np.clip(rng.lognormal(np.log(45), 0.4), 14, height * 0.5)) * {"bus": 1.6, "truck": 1.5}.get(kind, 1)
        w = h * {"car": 1.6, "bus": 2.4, "truck": 2.0, "motorcycle": 0.8}[kind]
        if w > width:  # a long vehicle in a small frame: as wide as the frame, in proportion
            w, h = width, h * width / w
        y = horizon + rng.uniform(0.1, 0.9) * (height - horizon) - h
        x = rng.uniform(-0.1 * w, width - 0.9 * w)
        _draw_vehicle(rng, visible, lwir, x, y, w, h, night)
        objects.append(Obj(layout.vehicles[kind], (int(round(x)), int(round(y)), int(round(w)), int(round(h)))))
    if layout.lamps:
        for _ in range(int(rng.poisson(0.6))):
            h = rng.uniform(0.15, 0.35) * height
            x, y, w = rng.uniform(0, width - 12), rng.uniform(0, max(1.0, horizon - h * 0.5)), max(6.0, h * 0.08)
            _paste(
                visible,
                x,
                y,
                np.full((int(h), int(w), 3), 70 if night else 110, np.float32),
                np.ones((int(h), int(w)), np.float32),
            )
            objects.append(Obj("Lamp", (int(round(x)), int(round(y)), int(w), int(h))))
    elif rng.random() < 0.2:  # a dog, which FLIR-aligned's readers drop
        w, h = rng.uniform(20, 40), rng.uniform(12, 22)
        x, y = rng.uniform(0, width - w), rng.uniform(horizon, height - h)
        _paste(lwir, x, y, np.full((int(h), int(w)), 200, np.float32), np.ones((int(h), int(w)), np.float32))
        objects.append(Obj("dog", (int(round(x)), int(round(y)), int(w), int(h))))
    return objects


def _draw_vehicle(rng, visible, lwir, x, y, w, h, night):
    hh, ww = max(2, int(h)), max(2, int(w))
    body = rng.uniform(30, 80, 3) if night else rng.uniform(40, 220, 3)
    colour = np.broadcast_to(body.astype(np.float32), (hh, ww, 3)).copy()
    colour[int(hh * 0.15) : int(hh * 0.45), int(ww * 0.15) : int(ww * 0.85)] = 25 if night else 60  # windows
    if night:  # headlights
        colour[int(hh * 0.6) : int(hh * 0.75), : max(1, ww // 8)] = (255, 240, 200)
    _paste(visible, x, y, colour, np.ones((hh, ww), np.float32))
    heat = np.full((hh, ww), rng.uniform(120, 160), np.float32)
    heat[int(hh * 0.75) :, :] += 40  # warm wheels and exhaust
    _paste(lwir, x, y, heat, np.ones((hh, ww), np.float32))


def _clipped(objects: list[Obj], width: int, height: int) -> list[Obj]:
    """Boxes inside the frame (VOC and CVC-14 boxes do not cross it), with even sizes so that a CVC-14
    centre is a whole pixel; boxes left smaller than 4 pixels are dropped."""
    kept = []
    for obj in objects:
        x, y, w, h = obj.box
        x0, y0 = max(0, x), max(0, y)
        x1, y1 = min(width - 1, x + w), min(height - 1, y + h)
        w, h = (x1 - x0) // 2 * 2, (y1 - y0) // 2 * 2
        if w >= 4 and h >= 4:
            kept.append(Obj(obj.label, (x0, y0, w, h), obj.occlusion))
    return kept


# ------------------------------------------------------------------------------------------------
# Annotation files


def labels_of(bench: Benchmark, obj: Obj) -> list[tuple[str, tuple[int, int, int, int], bool]]:
    """(label, box, mandatory) of an object in a benchmark's own terms."""
    layout = bench.synth
    x, y, w, h = obj.box
    if obj.label in ("person", "people"):
        return [(layout.person, obj.box, True)]
    if obj.label == "person?":
        return [("person", obj.box, False)] if layout.uncertain_people else []
    if obj.label == "cyclist":
        if layout.cyclist == "rider and bicycle":  # as FLIR's annotators drew them
            return [("person", obj.box, True), ("bicycle", (x, y + h // 2, w, h - h // 2), True)]
        return [(layout.cyclist, obj.box, True)]
    return [(obj.label, obj.box, True)]


def _voc(filename: str, size: tuple[int, int], objects: list[tuple[str, tuple]], pascal: bool) -> str:
    parts = [
        "<annotation>",
        "\t<folder>synthetic</folder>",
        f"\t<filename>{filename}</filename>",
        "\t<source>",
        "\t\t<database>kaist-kit synthetic</database>",
        "\t</source>",
        "\t<size>",
        f"\t\t<width>{size[0]}</width>",
        f"\t\t<height>{size[1]}</height>",
        "\t\t<depth>3</depth>",
        "\t</size>",
        "\t<segmented>0</segmented>",
    ]
    for label, (x, y, w, h) in objects:
        xmin, ymin = (x + 1, y + 1) if pascal else (x, y)
        parts += [
            "\t<object>",
            f"\t\t<name>{label}</name>",
            "\t\t<pose>Unspecified</pose>",
            "\t\t<truncated>0</truncated>",
            "\t\t<difficult>0</difficult>",
            "\t\t<bndbox>",
            f"\t\t\t<xmin>{xmin}</xmin>",
            f"\t\t\t<ymin>{ymin}</ymin>",
            f"\t\t\t<xmax>{x + w}</xmax>",
            f"\t\t\t<ymax>{y + h}</ymax>",
            "\t\t</bndbox>",
            "\t</object>",
        ]
    parts.append("</annotation>")
    return "\n".join(parts) + "\n"


def write_voc_set(root: Path, bench: Benchmark, frames: list[_Frame], filename) -> dict[str, int]:
    boxes: dict[str, int] = {}
    for frame in frames:
        objects = [(label, box) for obj in frame.objects for label, box, _ in labels_of(bench, obj)]
        for label, _ in objects:
            boxes[label] = boxes.get(label, 0) + 1
        _write(
            root / bench.annotation_file(frame.name),
            _voc(filename(frame), frame.size, objects, bench.voc_boxes == "pascal"),
        )
    return dict(sorted(boxes.items()))


def write_file(path: Path, text: str) -> None:
    """A synthetic annotation file (a dataset's writer writes its files by this)."""
    _write(path, text)
