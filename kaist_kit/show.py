"""Drawing ground truth and detections on a frame's visible and thermal pictures side by side."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .detections import Detections
from .errors import InputError
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
               detections: Sequence[tuple[str, Detections]] = (), score_threshold: float = 0.0) -> None:
    """Ground truth (pedestrians solid green, ignore regions dashed grey) and detections (one colour
    per method, with scores) on both pictures of image index ``frame``."""
    start, stop = gt.ann_start[frame], gt.ann_start[frame + 1]
    truth = [(gt.boxes[k], gt.labels[k], bool(gt.ignore[k])) for k in range(start, stop)]
    boxes = []
    for name, dets in detections:
        mine = dets.image == frame
        boxes.append((name, dets.boxes[mine], dets.scores[mine]))
    draw_pair(visible, lwir, out, gt.image_names[frame], truth, boxes, score_threshold)


def draw_pair(visible: str | os.PathLike, lwir: str | os.PathLike, out: str | os.PathLike, title: str = "",
              truth: Sequence[tuple[Sequence[float], str, bool]] = (),
              detections: Sequence[tuple[str, np.ndarray, np.ndarray]] = (), score_threshold: float = 0.0) -> None:
    """Boxes on a visible/lwir picture pair side by side.

    ``truth`` holds (box x, y, w, h, label, ignored): pedestrians solid green, ignore regions
    dashed grey. ``detections`` holds (method name, boxes x, y, w, h, scores), one colour per
    method, drawn with their scores when they score at least ``score_threshold``.
    """
    from matplotlib.patches import Rectangle
    from PIL import Image

    from .plots import new_figure, save_figure

    pictures = [np.asarray(Image.open(p).convert("RGB")) for p in (visible, lwir)]
    height, width = pictures[0].shape[:2]
    fig, axes = new_figure(1, 2, width=width / 100 + 0.4, height=height / 100 + 0.6)
    colours = ["tab:red", "tab:cyan", "tab:orange", "tab:purple", "tab:olive"]
    for ax, picture, modality in zip(axes[0], pictures, ("visible", "lwir")):
        ax.imshow(picture)
        ax.set_title(f"{title}  {modality}" if title else modality, fontsize=9)
        ax.set_axis_off()
        for (x, y, w, h), label, ignored in truth:
            ax.add_patch(Rectangle((x, y), w, h, fill=False, lw=1.4,
                                   ec="0.75" if ignored else "lime", ls="--" if ignored else "-"))
            ax.text(x, y - 2, label, color="0.85" if ignored else "lime", fontsize=6, va="bottom")
        for (_, boxes, scores), colour in zip(detections, colours * 4):
            shown = np.asarray(scores) >= score_threshold
            for (x, y, w, h), s in zip(np.asarray(boxes)[shown], np.asarray(scores)[shown]):
                ax.add_patch(Rectangle((x, y), w, h, fill=False, lw=1.0, ec=colour))
                ax.text(x + w, y + h + 1, f"{s:.2f}", color=colour, fontsize=6, ha="right", va="top")
        ax.set_xlim(0, width)
        ax.set_ylim(height, 0)
    if detections:
        handles = [Rectangle((0, 0), 1, 1, fill=False, ec=c) for c in colours[:len(detections)]]
        fig.legend(handles, [name for name, _, _ in detections], loc="lower center", ncol=len(detections),
                   fontsize=8, frameon=False)
    save_figure(fig, out)


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
    written = []
    for frame in frames:
        index = gt.image_index(int(frame) if frame.isdigit() else frame)
        name = gt.image_names[index]
        target = out if len(frames) == 1 else out.with_name(f"{out.stem}_{name.replace('/', '_')}{out.suffix}")
        visible, lwir = find_pictures(name, roots)
        draw_frame(gt, index, visible, lwir, target, drawn, score_threshold)
        written.append((name, target))
    return written
