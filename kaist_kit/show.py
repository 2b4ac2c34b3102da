"""Drawing ground truth and detections on a frame's visible and thermal pictures side by side."""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .detections import Detections
from .errors import InputError
from .files import check_outputs, note_input, read_bytes
from .groundtruth import GroundTruth

PICTURE_SUFFIXES = (".jpg", ".png", ".jpeg")


def find_pictures(frame: str, roots: Sequence[str | os.PathLike]) -> tuple[Path, Path]:
    """The visible and lwir pictures of a frame, in KAIST's tree (``setXX/VYYY/visible/IZZZZZ.jpg``)
    or flat (``setXX_VYYY_IZZZZZ_visible.png``) under any of ``roots``."""
    set_name, video, stem = frame.split("/")
    tried = []
    for root in roots:
        root = Path(root)
        for suffix in PICTURE_SUFFIXES:
            for pattern in ("{set}/{video}/{m}/{stem}{suffix}", "images/{set}/{video}/{m}/{stem}{suffix}",
                            "{set}_{video}_{stem}_{m}{suffix}"):
                pair = [root / pattern.format(set=set_name, video=video, stem=stem, m=m, suffix=suffix)
                        for m in ("visible", "lwir")]
                tried.append(pair[0])
                if pair[0].is_file() and pair[1].is_file():
                    return pair[0], pair[1]
    where = ", ".join(str(Path(r)) for r in roots) or "(no folder given)"
    raise InputError(f"no visible/lwir pictures of {frame} under {where} (looked for names like "
                     f"{tried[0].name if tried else 'setXX/VYYY/visible/IZZZZZ.jpg'}); pass --images")


def draw_frame(gt: GroundTruth, frame: int, visible: Path, lwir: Path, out: str | os.PathLike,
               detections: Sequence[tuple[str, Detections]] = (), score_threshold: float = 0.0,
               colours: dict[str, str] | None = None) -> None:
    """Ground truth (pedestrians solid green, ignore regions dashed grey) and detections (one colour
    per method, ``colours`` or `series_colours` in order, with scores) on both pictures of image index
    ``frame``."""
    start, stop = gt.ann_start[frame], gt.ann_start[frame + 1]
    truth = [(gt.boxes[k], gt.labels[k], bool(gt.ignore[k])) for k in range(start, stop)]
    boxes = []
    for name, dets in detections:
        mine = dets.image == frame
        boxes.append((name, dets.boxes[mine], dets.scores[mine]))
    draw_pair(visible, lwir, out, gt.image_names[frame], truth, boxes, score_threshold, colours)


def draw_pair(visible: str | os.PathLike, lwir: str | os.PathLike, out: str | os.PathLike, title: str = "",
              truth: Sequence[tuple[Sequence[float], str, bool]] = (),
              detections: Sequence[tuple[str, np.ndarray, np.ndarray]] = (), score_threshold: float = 0.0,
              colours: dict[str, str] | None = None) -> None:
    """Boxes on a visible/lwir picture pair side by side, written to ``out`` (see `pair_figure`)."""
    from .plots import save_figure

    save_figure(pair_figure(visible, lwir, title, truth, detections, score_threshold, colours), out, layout=False)


def pair_figure(visible: str | os.PathLike, lwir: str | os.PathLike, title: str = "",
                truth: Sequence[tuple[Sequence[float], str, bool]] = (),
                detections: Sequence[tuple[str, np.ndarray, np.ndarray]] = (), score_threshold: float = 0.0,
                colours: dict[str, str] | None = None):
    """The figure of `draw_pair`.

    ``truth`` holds (box x, y, w, h, label, ignored): pedestrians solid green, ignore regions
    dashed grey. ``detections`` holds (method name, boxes x, y, w, h, scores), a colour per method
    (``colours``, name -> colour, the colours of the run's curves; default: `series_colours` in the
    order given), drawn with their scores when they score at least ``score_threshold``. The legend
    names the ground truth's two kinds of box and every method; score labels that would overlap are
    moved apart, on a dark ground that keeps them readable on any picture.
    """
    from matplotlib.patches import Rectangle

    from .plots import IGNORE_COLOUR, TRUTH_COLOUR, new_figure, series_colours

    pictures = [_picture(p) for p in (visible, lwir)]
    height, width = pictures[0].shape[:2]
    fig, axes = new_figure(1, 2, width=width / 100 + 0.4, height=height / 100 + 0.85)
    colours = colours or series_colours(name for name, _, _ in detections)
    labels = []
    for ax, picture, modality in zip(axes[0], pictures, ("visible", "lwir")):
        ax.imshow(picture)
        ax.set_title(f"{title}  {modality}" if title else modality, fontsize=9)
        ax.set_axis_off()
        for (x, y, w, h), label, ignored in truth:
            ax.add_patch(Rectangle((x, y), w, h, fill=False, lw=1.4, ec=IGNORE_COLOUR if ignored else TRUTH_COLOUR,
                                   ls="--" if ignored else "-"))
            ax.text(x, y - 2, label, color="0.85" if ignored else TRUTH_COLOUR, fontsize=6, va="bottom")
        scored = []
        for name, boxes, scores in detections:
            shown = np.asarray(scores) >= score_threshold
            for (x, y, w, h), s in zip(np.asarray(boxes)[shown], np.asarray(scores)[shown]):
                ax.add_patch(Rectangle((x, y), w, h, fill=False, lw=1.0, ec=colours[name]))
                text = ax.text(x + w, y + h + 1, f"{s:.2f}", color=colours[name], fontsize=6, ha="right", va="top",
                               bbox=SCORE_GROUND, clip_on=True)
                text.set_in_layout(False)
                scored.append((float(s), text))
        ax.set_xlim(0, width)
        ax.set_ylim(height, 0)
        labels.append((ax, [text for _, text in sorted(scored, key=lambda item: -item[0])]))
    handles, names = [], []
    kinds = {ignored for _, _, ignored in truth}
    if False in kinds:
        handles.append(Rectangle((0, 0), 1, 1, fill=False, lw=1.4, ec=TRUTH_COLOUR))
        names.append("pedestrian (ground truth)")
    if True in kinds:
        handles.append(Rectangle((0, 0), 1, 1, fill=False, lw=1.4, ec=IGNORE_COLOUR, ls="--"))
        names.append("ignore region (ground truth)")
    for name, _, _ in detections:
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


def show_frames(gt: GroundTruth, frames: Sequence[str], results: Sequence[str | os.PathLike],
                roots: Sequence[str | os.PathLike], out: str | os.PathLike,
                score_threshold: float = 0.0) -> list[tuple[str, Path]]:
    """Draw each frame (a setXX/VYYY/IZZZZZ name or an image id) with the detections of each result
    file; one frame is drawn to ``out``, several to ``out`` with each frame's name added. Returns each
    frame's name and its figure."""
    from .detections import load_detections, method_name

    for frame in frames:
        if not frame.isdigit() and frame.replace("_", "/") not in gt.index_of_name and Path(frame).exists():
            raise InputError(f"{frame!r} is a file, not a frame: give each result its own --det "
                             "(--det A_result.txt --det B_result.json)")
    out = Path(out)
    drawn = [(method_name(p), load_detections(p, gt)) for p in results]
    planned = []
    for frame in frames:
        index = gt.image_index(int(frame) if frame.isdigit() else frame)
        name = gt.image_names[index]
        target = out if len(frames) == 1 else out.with_name(f"{out.stem}_{name.replace('/', '_')}{out.suffix}")
        pictures = find_pictures(name, roots)
        for picture in pictures:
            note_input(picture)
        planned.append((index, name, target, pictures))
    check_outputs(target for _, _, target, _ in planned)  # every input known, before the first is drawn
    for index, _, target, (visible, lwir) in planned:
        draw_frame(gt, index, visible, lwir, target, drawn, score_threshold)
    return [(name, target) for _, name, target, _ in planned]
