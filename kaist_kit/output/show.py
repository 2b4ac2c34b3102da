"""Drawing ground truth and detections on a frame's visible and thermal pictures side by side."""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..data.detections import Detections
from ..data.groundtruth import GroundTruth
from ..errors import InputError
from ..io.read import note_input, read_bytes
from ..io.rooted import Root
from ..io.write import check_outputs

PICTURE_SUFFIXES = (".jpg", ".png", ".jpeg")


def find_pictures(frame: str, roots: Sequence[str | os.PathLike], source=None) -> tuple[Path, Path]:
    """The visible and lwir pictures of a frame, in KAIST's tree (``setXX/VYYY/visible/IZZZZZ.jpg``)
    or flat (``setXX_VYYY_IZZZZZ_visible.png``) under any of ``roots``. The frame's name comes from a
    ground truth (``source``): a picture it names outside a root is refused (`kaist_kit.io.rooted`)."""
    if frame.count("/") != 2:
        raise InputError(f"frame {frame!r} is not named as KAIST's (setXX/VYYY/IZZZZZ): its pictures cannot be found")
    set_name, video, stem = frame.split("/")
    what = f"picture of frame {frame!r}"
    patterns = ("{set}/{video}/{m}/{stem}{suffix}", "{set}_{video}_{stem}_{m}{suffix}")
    found, tried = _first_pair(
        [
            root.join(pattern.format(set=set_name, video=video, stem=stem, m=m, suffix=suffix), source, what)
            for m in ("visible", "lwir")
        ]
        for root in map(Root, roots)
        for suffix in PICTURE_SUFFIXES
        for pattern in patterns
    )
    if found is not None:
        return found
    raise InputError(
        f"no visible/lwir pictures of {frame} under {_folders(roots)} (looked for names like "
        f"{tried[0].name if tried else 'setXX/VYYY/visible/IZZZZZ.jpg'}); pass --images"
    )


def _first_pair(candidates: Iterable[Sequence[Path]]) -> tuple[tuple[Path, Path] | None, list[Path]]:
    """The first candidate pair of pictures (each named in its root only when its turn comes) whose two
    files exist, else None; and the first picture of every candidate looked at."""
    tried = []
    for pair in candidates:
        tried.append(pair[0])
        if pair[0].is_file() and pair[1].is_file():
            return (pair[0], pair[1]), tried
    return None, tried


def _folders(roots: Sequence[str | os.PathLike]) -> str:
    return ", ".join(str(Path(r)) for r in roots) or "(no folder given)"


def draw_frame(
    gt: GroundTruth,
    frame: int,
    visible: Path,
    lwir: Path,
    out: str | os.PathLike,
    detections: Sequence[tuple[str, Detections]] = (),
    score_threshold: float = 0.0,
    colours: dict[str, str] | None = None,
) -> None:
    """Ground truth (pedestrians solid green, ignore regions dashed grey) and detections (one colour
    per method, ``colours`` or `series_colours` in order, with scores) on both pictures of image index
    ``frame``."""
    from .plots import save_figure

    start, stop = gt.ann_start[frame], gt.ann_start[frame + 1]
    truth = [(gt.boxes[k], gt.labels[k], bool(gt.ignore[k])) for k in range(start, stop)]
    boxes = []
    for name, dets in detections:
        mine = dets.image == frame
        boxes.append((name, dets.boxes[mine], dets.scores[mine]))
    figure = pair_figure(visible, lwir, gt.image_names[frame], truth, boxes, score_threshold, colours)
    save_figure(figure, out, layout=False)


def pair_figure(
    visible: str | os.PathLike,
    lwir: str | os.PathLike,
    title: str = "",
    truth: Sequence[tuple[Sequence[float], str, bool]] = (),
    detections: Sequence[tuple] = (),
    score_threshold: float = 0.0,
    colours: dict[str, str] | None = None,
    class_colours: dict[str, str] | None = None,
    modalities: Sequence[str] = ("visible", "lwir"),
):
    """The figure of a visible/lwir picture pair side by side.

    ``truth`` holds (box x, y, w, h, label, ignored): pedestrians solid green, ignore regions
    dashed grey; with ``class_colours`` (label -> colour: another benchmark's classes) each class in
    its colour, named in the legend. ``detections`` holds (method name, boxes x, y, w, h, scores), a
    colour per method (``colours``, name -> colour, the colours of the run's curves; default:
    `series_colours` in the order given), drawn with their scores (and, given a fourth item, each
    box's class name) when they score at least ``score_threshold``. The legend names the ground
    truth's kinds of box and every method; score labels that would overlap are moved apart, on a dark
    ground that keeps them readable on any picture. ``modalities`` name the two pictures; boxes are
    drawn on the second only when it has the first one's size (CVC-14's FIR frames need not: their
    boxes are the visible frame's).
    """
    from matplotlib.patches import Rectangle

    from .plots import IGNORE_COLOUR, TRUTH_COLOUR, new_figure, series_colours

    pictures = [_picture(p) for p in (visible, lwir)]
    height, width = pictures[0].shape[:2]
    fig, axes = new_figure(1, 2, width=width / 100 + 0.4, height=height / 100 + 0.85)
    colours = colours or series_colours(item[0] for item in detections)
    labels = []
    for ax, picture, modality in zip(axes[0], pictures, modalities):
        ax.imshow(picture)
        boxed = picture.shape[:2] == (height, width)
        where = modality if boxed else f"{modality} ({picture.shape[1]} x {picture.shape[0]}: no boxes)"
        ax.set_title(f"{title}  {where}" if title else where, fontsize=9)
        ax.set_axis_off()
        ax.set_xlim(0, picture.shape[1])
        ax.set_ylim(picture.shape[0], 0)
        if not boxed:
            labels.append((ax, []))
            continue
        for (x, y, w, h), label, ignored in truth:
            colour = IGNORE_COLOUR if ignored else (class_colours or {}).get(label, TRUTH_COLOUR)
            ax.add_patch(Rectangle((x, y), w, h, fill=False, lw=1.4, ec=colour, ls="--" if ignored else "-"))
            ax.text(x, y - 2, label, color="0.85" if ignored else colour, fontsize=6, va="bottom")
        scored = []
        for name, boxes, scores, *named in detections:
            shown = np.asarray(scores) >= score_threshold
            texts = np.asarray(named[0], dtype=object)[shown] if named else [""] * int(shown.sum())
            for (x, y, w, h), s, what in zip(np.asarray(boxes)[shown], np.asarray(scores)[shown], texts):
                ax.add_patch(Rectangle((x, y), w, h, fill=False, lw=1.0, ec=colours[name]))
                text = ax.text(
                    x + w,
                    y + h + 1,
                    f"{what} {s:.2f}" if what else f"{s:.2f}",
                    color=colours[name],
                    fontsize=6,
                    ha="right",
                    va="top",
                    bbox=SCORE_GROUND,
                    clip_on=True,
                )
                text.set_in_layout(False)
                scored.append((float(s), text))
        labels.append((ax, [text for _, text in sorted(scored, key=lambda item: -item[0])]))
    handles, names = [], []
    kinds = {ignored for _, _, ignored in truth}
    if class_colours:
        for label in class_colours:
            if any(label == shown and not ignored for _, shown, ignored in truth):
                handles.append(Rectangle((0, 0), 1, 1, fill=False, lw=1.4, ec=class_colours[label]))
                names.append(f"{label} (ground truth)")
    elif False in kinds:
        handles.append(Rectangle((0, 0), 1, 1, fill=False, lw=1.4, ec=TRUTH_COLOUR))
        names.append("pedestrian (ground truth)")
    if True in kinds:
        handles.append(Rectangle((0, 0), 1, 1, fill=False, lw=1.4, ec=IGNORE_COLOUR, ls="--"))
        names.append("ignore region (ground truth)")
    for name, *_ in detections:
        handles.append(Rectangle((0, 0), 1, 1, fill=False, ec=colours[name]))
        names.append(name)
    if handles:
        fig.legend(handles, names, loc="lower center", ncol=len(handles), fontsize=8, frameon=False)
    # A band at the bottom for the legend, below the pictures.
    fig.tight_layout(rect=(0, 0.25 / fig.get_figheight() if handles else 0, 1, 1))
    renderer = fig.canvas.get_renderer()
    for ax, texts in labels:
        spread_labels(ax, texts, renderer)
    return fig


# Behind a score label: a dark, half-transparent ground.
SCORE_GROUND = {"boxstyle": "square,pad=0.15", "facecolor": "black", "alpha": 0.55, "linewidth": 0}
# Where a label may go when its place is taken: steps of its own height up and down, then a width aside.
_SHIFTS = [(dx, dy) for dx in (0, -1, 1) for dy in (0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6)]


def spread_labels(ax, texts, renderer) -> None:
    """Move each text (in order: the first keeps its place) to the nearest place, in steps of its own
    size, where it overlaps none placed before it; one with no free place left stays where it is."""
    placed = []
    for text in texts:
        box = text.get_window_extent(renderer)
        step_x, step_y = box.width * 1.1, box.height * 1.3  # the dark grounds apart too
        for dx, dy in _SHIFTS:
            moved = box.translated(dx * step_x, dy * step_y)
            if not any(moved.overlaps(other) for other in placed):
                break
        else:
            dx = dy = 0
            moved = box
        if dx or dy:
            x, y = ax.transData.transform(text.get_position())
            text.set_position(ax.transData.inverted().transform((x + dx * step_x, y + dy * step_y)))
        placed.append(moved)


def _picture(path: str | os.PathLike) -> np.ndarray:
    """A picture's RGB pixels, its file read through the kit's opener."""
    from PIL import Image

    try:
        return np.asarray(Image.open(io.BytesIO(read_bytes(path))).convert("RGB"))
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise InputError(f"cannot read the picture: {exc}", path) from None


@dataclass(frozen=True)
class Drawing:
    """What `show` draws, on any benchmark: the frames (names or image ids), the result files whose
    detections are drawn on them, the folders their pictures are looked for under, and where the figure
    goes (one frame to ``out``, several to ``out`` with each frame's name added), from which score on."""

    frames: tuple[str, ...]
    results: tuple[str | os.PathLike, ...]
    roots: tuple[str | os.PathLike, ...]
    out: str | os.PathLike
    score_threshold: float = 0.0

    def target(self, name: str, several: bool) -> Path:
        """Where the figure of the frame ``name`` goes."""
        out = Path(self.out)
        return out.with_name(f"{out.stem}_{name.replace('/', '_')}{out.suffix}") if several else out


def show_frames(gt: GroundTruth, drawing: Drawing) -> list[tuple[str, Path]]:
    """Draw each frame (a setXX/VYYY/IZZZZZ name or an image id) with the detections of each result
    file. Returns each frame's name and its figure."""
    from ..data.detections import method_name
    from ..data.results import load_detections

    frames = drawing.frames
    for frame in frames:
        if not frame.isdigit() and frame.replace("_", "/") not in gt.index_of_name and Path(frame).exists():
            raise InputError(
                f"{frame!r} is a file, not a frame: give each result its own --det "
                "(--det A_result.txt --det B_result.json)"
            )
    drawn = [(method_name(p), load_detections(p, gt)) for p in drawing.results]
    planned = []
    for frame in frames:
        index = gt.image_index(int(frame) if frame.isdigit() else frame)
        name = gt.image_names[index]
        target = drawing.target(name, several=len(frames) > 1)
        pictures = find_pictures(name, drawing.roots, gt.path)
        for picture in pictures:
            note_input(picture)
        planned.append((index, name, target, pictures))
    check_outputs(target for _, _, target, _ in planned)  # every input known, before the first is drawn
    for index, _, target, (visible, lwir) in planned:
        draw_frame(gt, index, visible, lwir, target, drawn, drawing.score_threshold)
    return [(name, target) for _, name, target, _ in planned]


# ------------------------------------------------------------------------------------------------
# The other benchmarks

# A class's colour in drawn frames: the first class (the pedestrian) keeps the ground truth's green,
# the others take colours apart from the methods' palette (`plots.PALETTE`) and the ignore regions' grey.
CLASS_COLOURS = ("yellow", "aqua", "white", "violet", "tan", "lightcoral", "palegreen")


def class_colours(names: Sequence[str]) -> dict[str, str]:
    """A colour per class name, in the benchmark's order: the first the ground truth's green."""
    from .plots import TRUTH_COLOUR

    palette = (TRUTH_COLOUR, *CLASS_COLOURS)
    return {name: palette[k % len(palette)] for k, name in enumerate(names)}


def find_benchmark_pictures(bench, frame: str, roots: Sequence[str | os.PathLike], source=None) -> tuple[Path, Path]:
    """Both pictures of another benchmark's frame where it keeps them (`Benchmark.picture_path`, in any
    split's folder), under any of ``roots``; as `find_pictures`, none outside a root."""
    if bench.frame(frame) is None:
        raise InputError(f"{frame!r} is not a {bench.title} frame name: its pictures cannot be found", source)
    splits = ["", *dict.fromkeys(bench.split_folders.get(s.name, s.name) for s in bench.splits)]
    what = f"picture of {bench.title} frame {frame!r}"
    found, tried = _first_pair(
        [root.join(bench.picture_path(m.name, frame, split), source, what) for m in bench.modalities]
        for root in map(Root, roots)
        for split in splits
    )
    if found is not None:
        return found
    raise InputError(
        f"no {' and '.join(m.name for m in bench.modalities)} pictures of {bench.title} frame {frame} "
        f"under {_folders(roots)} (looked for {tried[0] if tried else frame}); pass --images, the dataset's root"
    )


def show_benchmark_frames(annotations, drawing: Drawing) -> list[tuple[str, Path]]:
    """`show_frames` for another benchmark's ground truth (`kaist_kit.data.groundtruth.GroundTruth`): each frame
    (its name, or an image id as the file writes it) with its boxes in their classes' colours and the
    detections of each COCO result file (with their class names), on both pictures side by side."""
    from ..data.detections import method_name
    from ..data.results import load_detections
    from .plots import save_figure

    bench = annotations.benchmark
    by_name = {name: k for k, name in enumerate(annotations.image_names)}
    by_id = {str(image_id): k for k, image_id in enumerate(annotations.image_ids)}
    chosen = []
    for frame in drawing.frames:
        k = by_name.get(bench.frame(frame) or frame, by_id.get(frame))
        if k is None:
            kind = (
                "a file, not a frame: give each result its own --det"
                if Path(frame).is_file()
                else f"neither a frame nor an image id of {annotations.describe()}"
            )
            raise InputError(f"{frame!r} is {kind}")
        chosen.append(k)
    results = [(method_name(path), load_detections(path, annotations)) for path in drawing.results]
    colours = class_colours([c.name for c in annotations.classes])
    name_of_id = {c.id: c.name for c in annotations.classes}
    modalities = [m.name for m in bench.modalities]
    planned = []
    for k in chosen:
        name = annotations.image_names[k]
        target = drawing.target(name, several=len(chosen) > 1)
        pictures = find_benchmark_pictures(bench, name, drawing.roots, annotations.path)
        for picture in pictures:
            note_input(picture)
        planned.append((k, name, target, pictures))
    check_outputs(target for _, _, target, _ in planned)  # every input known, before the first is drawn
    for k, name, target, (visible, thermal) in planned:
        boxes = np.flatnonzero(annotations.ann_image == k)
        truth = [
            (
                annotations.boxes[b],
                annotations.labels[b]
                if annotations.ignore[b] or annotations.iscrowd[b]
                else annotations.classes[annotations.ann_class[b]].name,
                bool(annotations.ignore[b] or annotations.iscrowd[b]),
            )
            for b in boxes
        ]
        drawn = []
        for method, dets in results:
            mine = dets.image == k
            drawn.append(
                (
                    method,
                    dets.boxes[mine],
                    dets.scores[mine],
                    [name_of_id.get(int(c), str(int(c))) for c in dets.category[mine]],
                )
            )
        figure = pair_figure(
            visible, thermal, name, truth, drawn, drawing.score_threshold, class_colours=colours, modalities=modalities
        )
        save_figure(figure, target, layout=False)
    return [(name, target) for _, name, target, _ in planned]
