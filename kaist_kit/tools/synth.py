"""A synthetic KAIST: visible/thermal frame pairs and every annotation format, from a seed.

The pictures are built so that neither modality suffices alone, as on the real benchmark:

- pedestrians are warm in thermal; in colour they are clear by day and nearly invisible at night;
- by day some pedestrians stand before sun-warmed walls and almost vanish in thermal;
- "mannequins" (posters, shop dummies) look like pedestrians in colour but are cold in thermal;
- "warm posts" (heaters, exhausts, lamp posts) look like pedestrians in thermal but show in colour
  as a grey post by day or a lit lamp at night.

So a colour-only detector misses people at night and is fooled by mannequins, a thermal-only
detector misses people before warm walls and is fooled by warm posts, and a detector that fuses
both can do better than either. Heights follow a log-normal law (median 50 px, most between 30
and 80 px, as on KAIST at 640 x 512) and widths 0.41 of the height; there are groups (people),
uncertain pedestrians (person?), cyclists, and partial and heavy occlusion.

Layout written under OUT (KAIST's own, see docs/datasets.md):

    images/setXX/VYYY/{visible,lwir}/IZZZZZ.jpg
    annotations/setXX/VYYY/IZZZZZ.txt                  original bbGt, every frame
    annotations-xml-new/setXX/VYYY/IZZZZZ.xml          official XML, every frame
    annotations-sanitized/setXX_VYYY_IZZZZZ.txt        training frames (Li et al.'s form)
    annotations-paired/setXX/VYYY/{visible,lwir}/IZZZZZ.txt   training frames (Zhang et al.'s form)
    annotations-improved/setXX_VYYY_IZZZZZ.txt         test frames (the benchmark's ground truth)
    imageSets/{train,test}-{all,day,night}-{02,20}.txt (CRLF, as the official lists)
    synth.json                                         the parameters and counts

Training frames are set00 (day) and set03 (night) with odd frame numbers, test frames set06 (day)
and set09 (night) with frame numbers 19, 39, ...: the official list names select them all.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..datasets.kaist import KAIST
from ..errors import InputError
from ..io.write import atomic_folder

LABELS = ("person", "people", "person?", "cyclist")


@dataclass
class SynthConfig:
    seed: int = 0
    train_frames: int = 40
    test_frames: int = 40
    width: int = KAIST.image_size[0]
    height: int = KAIST.image_size[1]
    # Real-world defects for testing converters: a stray shortcut file, CRLF files, zero-size and
    # person?a boxes in the sanitized set, a paired frame whose files disagree.
    quirks: bool = False
    jpeg_quality: int = 90


@dataclass
class Obj:
    label: str
    box: tuple[int, int, int, int]  # visible-frame box x, y, w, h
    occlusion: int = 0
    visible_part: tuple[int, int, int, int] = (0, 0, 0, 0)
    unpaired: bool = False  # behind glass: seen in colour only


@dataclass
class FrameTruth:
    name: str  # setXX/VYYY/IZZZZZ
    period: str
    objects: list[Obj] = field(default_factory=list)
    shift: tuple[int, int] = (0, 0)  # lwir = visible + shift


@dataclass
class SynthSummary:
    out: str
    config: dict
    frames: dict[str, int]
    labels: dict[str, int]


SETS = {("train", "day"): "set00", ("train", "night"): "set03", ("test", "day"): "set06", ("test", "night"): "set09"}


def frame_names(config: SynthConfig) -> list[tuple[str, str, str]]:
    """(split, period, frame name) of every frame: half day, half night in each split."""
    out = []
    for split, total in (("train", config.train_frames), ("test", config.test_frames)):
        day = (total + 1) // 2
        for period, count in (("day", day), ("night", total - day)):
            set_name = SETS[(split, period)]
            for k in range(count):
                number = 2 * k + 1 if split == "train" else 20 * k + 19
                out.append((split, period, f"{set_name}/V000/I{number:05d}"))
    return out


def generate(out: str | os.PathLike, config: SynthConfig | None = None, progress=None) -> SynthSummary:
    """Write the synthetic dataset under ``out`` (which must be empty or not exist)."""
    config = config or SynthConfig()
    from PIL import Image

    out = Path(out)
    if config.width < 64 or config.height < 64:
        raise InputError(f"image size {config.width}x{config.height} is too small (64x64 at least)")
    if out.exists() and out.is_dir() and any(out.iterdir()):
        raise InputError("the folder is not empty; synth writes into a new or empty folder", out)
    names = frame_names(config)
    truths: list[tuple[str, FrameTruth]] = []
    # The files are made in a staging folder of the writer's, which becomes ``out`` only when whole.
    with atomic_folder(out) as staging:
        for k, (split, period, name) in enumerate(names):
            rng = np.random.default_rng([config.seed, k])
            visible, lwir, truth = render_frame(rng, name, period, config.width, config.height)
            set_name, video, stem = name.split("/")
            for modality, pixels in (("visible", visible), ("lwir", lwir)):
                path = staging / "images" / set_name / video / modality / f"{stem}.jpg"
                path.parent.mkdir(parents=True, exist_ok=True)
                Image.fromarray(pixels).save(path, quality=config.jpeg_quality)
            truths.append((split, truth))
            if progress:
                progress(k + 1, len(names))
        _write_annotations(staging, truths, config)
        labels: dict[str, int] = {}
        for _, truth in truths:
            for obj in truth.objects:
                labels[obj.label] = labels.get(obj.label, 0) + 1
        counts = {"train": sum(s == "train" for s, _ in truths), "test": sum(s == "test" for s, _ in truths)}
        summary = SynthSummary(str(out), asdict(config), counts, dict(sorted(labels.items())))
        _write(staging / "synth.json", json.dumps(asdict(summary), indent=1) + "\n")
    return summary


# ---------------------------------------------------------------------------------------------
# Pictures


def render_frame(rng: np.random.Generator, name: str, period: str, width: int, height: int, extra=None):
    """(visible RGB, lwir grey, truth) of one frame.

    ``extra(rng, visible, lwir, night, horizon)``, when given, draws more things (another benchmark's
    classes) after the pedestrians, before the cameras' noise, and returns their `Obj`s."""
    night = period == "night"
    horizon = int(height * rng.uniform(0.3, 0.42))
    visible, lwir = _background(rng, width, height, horizon, night)
    truth = FrameTruth(name, period, shift=(int(rng.integers(-2, 3)), int(rng.integers(-2, 3))))

    things = []  # (kind, label) drawn far to near so that nearer things cover farther ones
    n_people = 0 if rng.random() < 0.3 else int(rng.poisson(2.0))
    for _ in range(n_people):
        label = rng.choice(["person", "people", "cyclist", "person?"], p=[0.8, 0.08, 0.06, 0.06])
        things.append(("pedestrian", str(label)))
    for _ in range(int(rng.poisson(0.9 if not night else 0.35))):
        things.append(("mannequin", ""))
    for _ in range(int(rng.poisson(0.8))):
        things.append(("warm post", ""))
    placed = []
    for kind, label in things:
        h = float(np.clip(rng.lognormal(math.log(50), 0.33), 16, height * 0.9))
        # On a small picture a tall figure must still fit between the horizon and the bottom.
        h = min(h, (height - horizon) / 0.9)
        foot = horizon + h * rng.uniform(1.3, 2.4)
        if foot > height + 0.15 * h:  # too near for this picture: place it farther
            foot = rng.uniform(min(horizon + h, height), max(horizon + h, height + 0.1 * h))
        w = h * rng.uniform(0.37, 0.45)
        x = rng.uniform(-0.1 * w, width - 0.9 * w)
        placed.append((foot, kind, label, x, foot - h, w, h))
    placed.sort(key=lambda p: p[0])

    for _, kind, label, x, y, w, h in placed:
        if kind == "pedestrian":
            obj = _draw_pedestrian(rng, visible, lwir, label, x, y, w, h, night)
            if obj is not None:
                truth.objects.append(obj)
        elif kind == "mannequin":
            _draw_figure(rng, visible, None, x, y, w, h, night, colour_gain=1.0 if not night else 0.5)
        else:
            _draw_warm_post(rng, visible, lwir, x, y, w, h, night)

    if extra is not None:
        truth.objects.extend(extra(rng, visible, lwir, night, horizon))
    visible = _finish_visible(rng, visible, night)
    lwir = _finish_lwir(rng, lwir, truth.shift)
    return visible, lwir, truth


def _background(rng, width, height, horizon, night):
    yy = np.arange(height, dtype=np.float32)[:, None]
    visible = np.empty((height, width, 3), np.float32)
    lwir = np.empty((height, width), np.float32)
    if night:
        sky = np.array([12, 14, 24], np.float32)
        ground = np.array([22, 22, 24], np.float32)
    else:
        sky = np.array([rng.uniform(150, 200), rng.uniform(170, 210), rng.uniform(200, 240)], np.float32)
        ground = np.full(3, rng.uniform(90, 130), np.float32)
    t = np.clip((yy - horizon) / max(1, height - horizon), 0, 1)[..., None]
    visible[:] = np.where(yy[..., None] < horizon, sky, ground * (0.85 + 0.3 * t))
    lwir[:] = np.where(
        yy < horizon,
        rng.uniform(20, 50) if night else rng.uniform(60, 100),
        (rng.uniform(45, 75) if night else rng.uniform(105, 150)) + 20 * t[..., 0],
    )
    # Buildings along the horizon, each with its own colour and temperature.
    x = 0.0
    while x < width:
        bw = rng.uniform(0.08, 0.25) * width
        top = horizon - rng.uniform(0.05, 0.3) * height
        x0, x1, y0 = int(x), int(min(width, x + bw)), int(max(0, top))
        colour = rng.uniform(25, 45, 3) if night else rng.uniform(70, 200, 3)
        visible[y0 : horizon + 2, x0:x1] = colour
        lwir[y0 : horizon + 2, x0:x1] = rng.uniform(50, 95) if night else rng.uniform(90, 170)
        if night:  # lit windows
            for _ in range(int(rng.integers(0, 6))):
                wx, wy = int(rng.uniform(x0, max(x0 + 1, x1 - 6))), int(rng.uniform(y0, max(y0 + 1, horizon - 6)))
                visible[wy : wy + 5, wx : wx + 4] = (200, 180, 110)
        x += bw
    # Lane markings and kerb.
    for _ in range(int(rng.integers(1, 4))):
        ly = int(rng.uniform(horizon + 0.2 * (height - horizon), height - 4))
        visible[ly : ly + 2] = visible[ly : ly + 2] * 0.5 + (60 if night else 200) * 0.5
        lwir[ly : ly + 2] += 6
    if night:  # street lamps: bright in colour, warm in thermal
        for _ in range(int(rng.integers(1, 4))):
            _glow(
                visible,
                rng.uniform(0, width),
                rng.uniform(horizon * 0.3, horizon),
                rng.uniform(0.03, 0.08) * height,
                (255, 220, 140),
            )
    return visible, lwir


def _glow(image, cx, cy, radius, colour):
    height, width = image.shape[:2]
    x0, x1 = int(max(0, cx - 3 * radius)), int(min(width, cx + 3 * radius + 1))
    y0, y1 = int(max(0, cy - 3 * radius)), int(min(height, cy + 3 * radius + 1))
    if x0 >= x1 or y0 >= y1:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    weight = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * radius**2))[..., None]
    image[y0:y1, x0:x1] = image[y0:y1, x0:x1] * (1 - weight) + np.array(colour, np.float32) * weight


def _silhouette(rng, w, h):
    """A person's mask over its box, soft at the edges: head, torso, arms and two legs."""
    hh, ww = max(2, int(round(h))), max(2, int(round(w)))
    v = (np.arange(hh, dtype=np.float32)[:, None] + 0.5) / hh
    u = (np.arange(ww, dtype=np.float32)[None, :] + 0.5) / ww - 0.5
    head = ((u / 0.2) ** 2 + ((v - 0.075) / 0.075) ** 2) <= 1
    torso = (v >= 0.14) & (v <= 0.58) & (np.abs(u) <= 0.3 - 0.05 * (v - 0.14))
    arms = (v >= 0.16) & (v <= 0.52) & (np.abs(u) >= 0.3) & (np.abs(u) <= 0.42)
    stride = rng.uniform(0.0, 0.12)
    left = (v >= 0.55) & (np.abs(u + 0.12 + stride * (v - 0.55)) <= 0.11)
    right = (v >= 0.55) & (np.abs(u - 0.12 - stride * (v - 0.55)) <= 0.11)
    mask = (head | torso | arms | left | right).astype(np.float32)
    # Soften the edge by one pixel so that small figures are not jagged.
    soft = mask.copy()
    soft[1:-1, 1:-1] = (mask[1:-1, 1:-1] * 4 + mask[:-2, 1:-1] + mask[2:, 1:-1] + mask[1:-1, :-2] + mask[1:-1, 2:]) / 8
    return soft, head


def _paste(image, x, y, layer, alpha):
    """Blend ``layer`` (h, w[, c]) with weights ``alpha`` (h, w) at (x, y), clipped to the image."""
    height, width = image.shape[:2]
    hh, ww = alpha.shape
    x0, y0 = int(round(x)), int(round(y))
    cx0, cy0 = max(0, -x0), max(0, -y0)
    cx1, cy1 = min(ww, width - x0), min(hh, height - y0)
    if cx0 >= cx1 or cy0 >= cy1:
        return
    a = alpha[cy0:cy1, cx0:cx1]
    region = image[y0 + cy0 : y0 + cy1, x0 + cx0 : x0 + cx1]
    piece = layer[cy0:cy1, cx0:cx1]
    if image.ndim == 3:
        a = a[..., None]
    region[...] = region * (1 - a) + piece * a


def _draw_figure(rng, visible, lwir, x, y, w, h, night, colour_gain=None, heat=None, glass=False):
    """A person-shaped figure: clothes in colour (scaled by ``colour_gain``), ``heat`` in thermal.

    At night a pedestrian barely differs from the dark street around it (drawn nearly transparent),
    unless it stands under a street lamp."""
    mask, head = _silhouette(rng, w, h)
    hh, ww = mask.shape
    opacity = 1.0
    if colour_gain is None:
        colour_gain = 1.0
        if night:
            lit = rng.random() < 0.1
            colour_gain = 0.6 if lit else 0.3
            opacity = 0.8 if lit else rng.uniform(0.08, 0.2)
    shirt = rng.uniform(30, 230, 3)
    trousers = rng.uniform(20, 120, 3)
    skin = np.array([rng.uniform(150, 220), rng.uniform(110, 170), rng.uniform(90, 140)])
    v = np.linspace(0, 1, hh)[:, None, None]
    colour = np.where(v < 0.14, skin, np.where(v < 0.56, shirt, trousers)) * (1.05 - 0.2 * v)
    colour = np.broadcast_to(colour, (hh, ww, 3)) * colour_gain
    if glass:
        colour = colour * 0.8 + np.array([60, 80, 90]) * 0.2
    _paste(visible, x, y, colour.astype(np.float32), mask * opacity)
    if lwir is not None and heat is not None:
        temperature = np.full((hh, ww), heat, np.float32) + 12 * head
        _paste(lwir, x, y, temperature, mask)
    return mask


def _draw_pedestrian(rng, visible, lwir, label, x, y, w, h, night):
    height, width = lwir.shape
    heat = rng.uniform(185, 235)
    unpaired = label == "person" and rng.random() < 0.03
    if not night and not unpaired and rng.random() < 0.35:
        # A sun-warmed wall behind: nearly the pedestrian's own temperature in thermal.
        pad = 0.7 * w
        wall = np.full((int(h * 1.3) + 2, int(w + 2 * pad) + 2), heat - rng.uniform(0, 14), np.float32)
        _paste(lwir, x - pad, y - 0.2 * h, wall, np.ones_like(wall))
    if label == "people":
        # Two or three people side by side; one box around the group.
        members = int(rng.integers(2, 4))
        step = w * rng.uniform(0.55, 0.8)
        for m in range(members):
            mh = h * rng.uniform(0.9, 1.05)
            _draw_figure(rng, visible, lwir, x + m * step, y + (h - mh), w, mh, night, heat=heat)
        box_w = step * (members - 1) + w
        return _clip_obj("people", x, y, box_w, h, width, height)
    if label == "cyclist":
        _draw_bicycle(visible, lwir, x - 0.35 * w, y + 0.45 * h, 1.7 * w, 0.55 * h, night)
        _draw_figure(rng, visible, lwir, x, y, w, h * 0.85, night, heat=heat)
        return _clip_obj("cyclist", x - 0.35 * w, y, 1.7 * w, h, width, height)
    if label == "person?":
        # Far, blurred or half hidden: annotators were unsure.
        _draw_figure(rng, visible, lwir, x, y, w, h, night, colour_gain=0.4 if not night else 0.05, heat=heat * 0.8)
        return _clip_obj("person?", x, y, w, h, width, height)
    _draw_figure(rng, visible, lwir, x, y, w, h, night, heat=None if unpaired else heat, glass=unpaired)
    occlusion = int(rng.choice([0, 1, 2], p=[0.77, 0.15, 0.08]))
    visible_part = (0, 0, 0, 0)
    if occlusion:
        hidden = rng.uniform(0.2, 0.5) if occlusion == 1 else rng.uniform(0.5, 0.8)
        top = y + h * (1 - hidden)
        _draw_occluder(rng, visible, lwir, x - 0.3 * w, top, w * rng.uniform(1.6, 2.5), h * hidden + 2, night)
        visible_part = (int(round(x)), int(round(y)), int(round(w)), int(round(h * (1 - hidden))))
    obj = _clip_obj("person", x, y, w, h, width, height)
    if obj is not None:
        obj.occlusion = occlusion
        obj.visible_part = visible_part
        obj.unpaired = unpaired
    return obj


def _clip_obj(label, x, y, w, h, width, height):
    """The annotated box: integers, like KAIST's; it may cross the border, as KAIST's do."""
    x0, y0 = int(round(x)), int(round(y))
    bw, bh = int(round(w)), int(round(h))
    if x0 + bw <= 0 or x0 >= width or y0 >= height or bw < 2 or bh < 2:
        return None
    return Obj(label, (x0, y0, bw, bh))


def _draw_occluder(rng, visible, lwir, x, y, w, h, night):
    colour = rng.uniform(20, 50, 3) if night else rng.uniform(40, 220, 3)
    block = np.broadcast_to(colour.astype(np.float32), (max(1, int(h)), max(1, int(w)), 3))
    _paste(visible, x, y, block, np.ones(block.shape[:2], np.float32))
    temperature = np.full(block.shape[:2], rng.uniform(60, 130), np.float32)
    _paste(lwir, x, y, temperature, np.ones(block.shape[:2], np.float32))


def _draw_bicycle(visible, lwir, x, y, w, h, night):
    hh, ww = max(2, int(h)), max(2, int(w))
    yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32)
    r = min(hh / 2, ww / 4)
    wheels = np.zeros((hh, ww), np.float32)
    for cx in (r, ww - r):
        d = np.hypot(xx - cx, yy - (hh - r))
        wheels = np.maximum(wheels, (np.abs(d - r * 0.85) < max(1.0, r * 0.12)).astype(np.float32))
    frame = (np.abs(yy - (hh - r)) < max(1.0, hh * 0.05)) & (xx > r) & (xx < ww - r)
    mask = np.maximum(wheels, frame.astype(np.float32))
    tone = 30 if night else 60
    _paste(visible, x, y, np.full((hh, ww, 3), tone, np.float32), mask)
    _paste(lwir, x, y, np.full((hh, ww), 110, np.float32), mask)


def _draw_warm_post(rng, visible, lwir, x, y, w, h, night):
    """Person-shaped and warm in thermal; a grey post by day, a lit lamp at night in colour."""
    mask, head = _silhouette(rng, w, h)
    heat = rng.uniform(185, 235)
    _paste(lwir, x, y, np.full(mask.shape, heat, np.float32) + 12 * head, mask)
    hh, ww = mask.shape
    post = np.zeros((hh, ww), np.float32)
    post[:, int(ww * 0.3) : max(int(ww * 0.3) + 1, int(ww * 0.7))] = 1
    if night:
        _paste(visible, x, y, np.full((hh, ww, 3), 45, np.float32), post)
        _glow(visible, x + ww / 2, y + hh * 0.1, max(2.0, 0.25 * ww), (255, 225, 150))
    else:
        grey = rng.uniform(60, 160)
        _paste(visible, x, y, np.full((hh, ww, 3), grey, np.float32), post)


def _finish_visible(rng, visible, night):
    noise = rng.normal(0, 6 if night else 4, visible.shape).astype(np.float32)
    return np.clip(visible + noise, 0, 255).astype(np.uint8)


def _finish_lwir(rng, lwir, shift):
    from PIL import Image, ImageFilter

    # Thermal cameras see less sharply; and the lwir camera sits a few pixels off the colour one.
    blurred = np.asarray(
        Image.fromarray(np.clip(lwir, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(1.0)), np.float32
    )
    blurred = np.roll(blurred, shift=(shift[1], shift[0]), axis=(0, 1))
    noise = rng.normal(0, 3, blurred.shape).astype(np.float32)
    return np.clip(blurred + noise, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------------------------------------
# Annotation files


def _bbgt_line(label, box, occlusion=0, visible_part=(0, 0, 0, 0)):
    x, y, w, h = box
    vx, vy, vw, vh = visible_part
    return f"{label} {x} {y} {w} {h} {occlusion} {vx} {vy} {vw} {vh} 0 0"


def _bbgt(lines, crlf=False):
    newline = "\r\n" if crlf else "\n"
    return newline.join(["% bbGt version=3", *lines]) + newline


def _xml(name, width, height, objects):
    parts = [
        "<annotation>",
        "  <folder>KAIST Multispectral Ped Benchmark (synthetic)</folder>",
        f"  <filename>{name}</filename>",
        "  <source>",
        "    <database>kaist-kit synthetic</database>",
        "  </source>",
        "  <size>",
        f"    <width>{width}</width>",
        f"    <height>{height}</height>",
        "    <depth>4</depth>",
        "  </size>",
        "  <segmented>0</segmented>",
    ]
    for obj in objects:
        x, y, w, h = obj.box
        parts += [
            "  <object>",
            f"    <name>{obj.label}</name>",
            "    <bndbox>",
            f"      <x>{x}</x>",
            f"      <y>{y}</y>",
            f"      <w>{w}</w>",
            f"      <h>{h}</h>",
            "    </bndbox>",
            "    <pose>unknown</pose>",
            "    <truncated>0</truncated>",
            "    <difficult>0</difficult>",
            f"    <occlusion>{obj.occlusion}</occlusion>",
            "  </object>",
        ]
    parts.append("</annotation>")
    return "\n".join(parts) + "\n"


def _write(path: Path, text: str) -> None:
    """A file in the staging folder of `generate` (the writer's, renamed into place when whole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())


def _write_annotations(root: Path, truths: list[tuple[str, FrameTruth]], config: SynthConfig) -> None:
    quirky = config.quirks
    for k, (split, truth) in enumerate(truths):
        set_name, video, stem = truth.name.split("/")
        flat = f"{set_name}_{video}_{stem}.txt"
        # The standard formats label a person behind glass as uncertain.
        standard = [(("person?" if o.unpaired else o.label), o) for o in truth.objects]
        lines = [_bbgt_line(label, o.box, o.occlusion, o.visible_part) for label, o in standard]
        _write(root / "annotations" / set_name / video / f"{stem}.txt", _bbgt(lines, crlf=quirky and k % 3 == 0))
        _write(
            root / "annotations-xml-new" / set_name / video / f"{stem}.xml",
            _xml(truth.name, config.width, config.height, [Obj(label, o.box, o.occlusion) for label, o in standard]),
        )
        if split == "test":
            _write(root / "annotations-improved" / flat, _bbgt(lines))
            continue
        sanitized = [
            _bbgt_line("person?a" if label == "person?" else label, o.box, o.occlusion, o.visible_part)
            for label, o in standard
        ]
        if quirky and k % 4 == 1:
            sanitized.append(_bbgt_line("person", (10, 10, 0, 40)))  # a zero-size box, as in the real set
        _write(root / "annotations-sanitized" / flat, _bbgt(sanitized))
        dx, dy = truth.shift
        visible_lines, lwir_lines = [], []
        for _, o in standard:
            x, y, w, h = o.box
            paired_label = "unpaired" if o.unpaired else o.label
            visible_lines.append(_bbgt_line(paired_label, o.box, o.occlusion))
            lwir_lines.append(_bbgt_line(paired_label, (x + dx, y + dy, w, h), o.occlusion))
        if quirky and k == 1:
            lwir_lines.append(_bbgt_line("person", (50, 60, 20, 48)))  # files that disagree
        _write(root / "annotations-paired" / set_name / video / "visible" / f"{stem}.txt", _bbgt(visible_lines))
        _write(root / "annotations-paired" / set_name / video / "lwir" / f"{stem}.txt", _bbgt(lwir_lines))
    if quirky:
        _write(
            root / "annotations-xml-new" / "set00" / "V000" / "annotations-xml-new - shortcut.lnk",
            "L\x00\x00\x00\x01\x14\x02\x00",
        )
    lists: dict[str, list[str]] = {}
    for split, truth in truths:
        step = "02" if split == "train" else "20"
        for period in ("all", truth.period):
            lists.setdefault(f"{split}-{period}-{step}", []).append(truth.name)
    for name, frames in lists.items():
        _write(root / "imageSets" / f"{name}.txt", "".join(f"{f}\r\n" for f in frames))
