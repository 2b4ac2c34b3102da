"""How fast does one data-loading worker prepare KAIST training pairs?

    python speed/loader_speed.py [--rounds 25] [--config configs/faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py]

Lays out the 8 real frame pairs of ../shared/data/kaist/demo-images as KAIST does (JPEG,
640 x 512, re-encoded from the PNGs) with their leaderboard annotations, then runs the config's
training pipeline over them, round after round, in one process set up as a data-loader worker
is (one torch thread; OpenCV without its own threads, as the configs' ``opencv_num_threads=0``
sets). Records pairs per second and the time of each step in docs/speed.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import describe, publish, real_pairs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
KAIST = ROOT.parent / "shared" / "data" / "kaist"
SECTION = "## Loading training pairs"
ANNOTATIONS = "annotations/demo-8.leaderboard.json"
GOAL = 50  # pairs per second per worker
# What the step that dominates spends its time on.
NOTES = {
    "PerModality": "It runs mmdetection's PhotoMetricDistortion on each modality: the picture to float32, "
    "through HSV and back (always, whatever the draws), a random channel order; its output "
    "stays float32, so the packing that follows copies four times the bytes of the decoded "
    "pair.",
    "LoadKaistPair": "It reads and decodes both JPEGs and joins them into six channels.",
}


def _interleaved(candidates: dict, repeat: int) -> dict[str, float]:
    """Median seconds of each candidate, run in turn so that the machine's load falls on all alike."""
    times: dict[str, list[float]] = defaultdict(list)
    for _ in range(repeat):
        for name, run in candidates.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def decoding(folder: Path, repeat: int = 30) -> list[tuple[str, float, bool]]:
    """(flags, ms per picture, same pixels as IMREAD_COLOR) for OpenCV's decoding flags."""
    import cv2
    import numpy as np

    files = [np.frombuffer(p.read_bytes(), np.uint8) for p in sorted((folder / "images").rglob("*.jpg"))]
    flags = {
        "IMREAD_COLOR (mmcv's 'color')": cv2.IMREAD_COLOR,
        "IMREAD_COLOR \\| IMREAD_IGNORE_ORIENTATION (the kit's)": cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION,
        "IMREAD_GRAYSCALE, repeated to 3 channels": cv2.IMREAD_GRAYSCALE,
    }

    def decode_all(flag):
        decoded = [cv2.imdecode(data, flag) for data in files]
        return [np.repeat(d[..., None], 3, axis=2) if d.ndim == 2 else d for d in decoded]

    reference = decode_all(cv2.IMREAD_COLOR)
    seconds = _interleaved({name: lambda flag=flag: decode_all(flag) for name, flag in flags.items()}, repeat)
    return [
        (
            name,
            1000 * seconds[name] / len(files),
            all(np.array_equal(a, b) for a, b in zip(decode_all(flag), reference)),
        )
        for name, flag in flags.items()
    ]


def decoding_verdict(rows: list[tuple[str, float, bool]]) -> str:
    """What the decoding table says, in words."""
    (_, plain, _), (_, ignoring, same), (_, grey, grey_same) = rows
    gain = 1 - ignoring / plain
    speed = (
        f"{100 * gain:.0f}% faster"
        if gain >= 0.05
        else "no measurable difference in speed here"
        if gain > -0.05
        else f"{-100 * gain:.0f}% slower"
    )
    return (
        f"Ignoring EXIF orientation: {speed}, and {'the same' if same else 'DIFFERENT'} pixels on KAIST's "
        "pictures, which carry no orientation; the kit decodes so, reading a camera pair as its sensors "
        "recorded it. Decoding the thermal pictures as grey would "
        f"{'keep' if grey_same else 'change'} the pixels (the sample's thermal pictures have three slightly "
        f"different channels) and was {'faster' if grey < plain else 'not faster'} here: not used. The time that "
        "decoding flags cannot save is elsewhere: joining the pair into six channels, below."
    )


def joining(folder: Path, repeat: int = 30) -> list[tuple[str, float, bool]]:
    """(how, ms per pair, same array) for joining a decoded pair into six channels, in uint8 as
    `LoadKaistPair` does and in float32 as `PerModality` does after the photometric changes."""
    import numpy as np

    from kaist_kit.models.data import join_channels, read_picture

    visible, lwir = (read_picture(str(p)) for p in sorted((folder / "images" / "set06").rglob("*.jpg")))
    rows = []
    for dtype in (np.uint8, np.float32):
        pair = [visible.astype(dtype), lwir.astype(dtype)]
        seconds = _interleaved(
            {"numpy": lambda pair=pair: np.concatenate(pair, axis=2), "opencv": lambda pair=pair: join_channels(pair)},
            repeat,
        )
        same = np.array_equal(np.concatenate(pair, axis=2), join_channels(pair))
        rows.append((f"`np.concatenate(pair, axis=2)`, {np.dtype(dtype).name}", 1000 * seconds["numpy"], True))
        rows.append(
            (f"`cv2.merge(pair)` (the kit's `join_channels`), {np.dtype(dtype).name}", 1000 * seconds["opencv"], same)
        )
    return rows


def pipeline_speed(config: Path, folder: Path, rounds: int) -> tuple[list[float], dict[str, float], int]:
    """Pairs per second of each round, and milliseconds per pair of each step."""
    import cv2
    import numpy as np
    import torch
    from mmdet.registry import DATASETS, TRANSFORMS
    from mmengine.registry import init_default_scope

    import kaist_kit.models  # noqa: F401  (registers the kit's modules)
    from kaist_kit.tools.config_files import load_config

    torch.set_num_threads(1)  # as in a DataLoader worker
    cv2.setNumThreads(0)  # as the configs' env_cfg.mp_cfg.opencv_num_threads=0 sets for the workers
    init_default_scope("mmdet")
    cfg = load_config(config, {"data_root": str(folder), "train_dataloader.dataset.ann_file": ANNOTATIONS})
    settings = cfg.train_dataloader.dataset
    steps = [TRANSFORMS.build(step) for step in settings.pipeline]
    dataset = DATASETS.build(dict(settings, pipeline=[]))
    np.random.seed(0)
    per_step: dict[str, float] = defaultdict(float)
    speeds = []
    for _ in range(rounds):
        start = time.perf_counter()
        for k in range(len(dataset)):
            data = dataset[k]
            for step in steps:
                begun = time.perf_counter()
                data = step(data)
                per_step[type(step).__name__] += time.perf_counter() - begun
        speeds.append(len(dataset) / (time.perf_counter() - start))
    pairs = rounds * len(dataset)
    return speeds, {name: 1000 * seconds / pairs for name, seconds in per_step.items()}, len(dataset)


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=25, help="passes over the 8 pairs")
    parser.add_argument(
        "--config", type=Path, default=ROOT / "configs" / "faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py"
    )
    parser.add_argument("--work", type=Path, default=ROOT / "runs" / "loader-speed")
    parser.add_argument("--doc", type=Path, nargs="+", default=[ROOT / "docs" / "speed.md"])
    args = parser.parse_args()
    warnings.simplefilter("ignore", UserWarning)
    folder = real_pairs(args.work, ANNOTATIONS, quality=95)
    load_before = load_average()
    flags = decoding(folder)
    joins = joining(folder)
    speeds, per_step, frames = pipeline_speed(args.config, folder, args.rounds)
    load_after = load_average()
    total = sum(per_step.values())
    top = max(per_step, key=per_step.get)
    rows = ["| step | ms per pair | share |", "|---|---:|---:|"]
    for name, ms in sorted(per_step.items(), key=lambda item: -item[1]):
        rows.append(f"| `{name}` | {ms:.2f} | {100 * ms / total:.0f}% |")
    flag_rows = ["| flags | ms per picture | same pixels as IMREAD_COLOR |", "|---|---:|---|"]
    flag_rows += [f"| {name} | {ms:.2f} | {'yes' if same else 'no'} |" for name, ms, same in flags]
    join_rows = ["| joining the two pictures | ms per pair | same array |", "|---|---:|---|"]
    join_rows += [f"| {name} | {ms:.2f} | {'yes' if same else 'no'} |" for name, ms, same in joins]
    publish(
        args.doc,
        SECTION,
        [
            SECTION,
            "",
            f"Measured by `python speed/loader_speed.py --rounds {args.rounds}` on: {describe()}; load average "
            f"{load_before} before and {load_after} after (the machine is shared: other work ran beside it).",
            "",
            f"The training pipeline of `{args.config.name}` (decode both JPEGs, Resize to 640 x 512, RandomFlip, "
            "PhotoMetricDistortion per modality, PackDetInputs) over the 8 real KAIST pairs at 640 x 512, "
            f"{frames} of which have pedestrians to train on, {args.rounds} times, in one process set up as a "
            "data-loader worker (one torch thread, OpenCV without threads of its own).",
            "",
            f"**{statistics.median(speeds):.1f} pairs per second per worker** (median of {args.rounds} rounds; "
            f"best {max(speeds):.1f}, worst {min(speeds):.1f}); the goal is {GOAL}, so that 4 workers keep a GPU "
            f"busy: {'met' if statistics.median(speeds) >= GOAL else 'NOT met'} in this run. On a shared machine "
            "separate runs differ by tens of percent with the work beside them; the best and worst rounds show the "
            "spread.",
            "",
            *rows,
            "",
            f"`{top}` dominates with {100 * per_step[top] / total:.0f}% of the time. " + NOTES.get(top, ""),
            "",
            "Decoding one 640 x 512 JPEG with OpenCV's flags (medians of 30 passes over the 16 pictures, "
            "the flags taking turns):",
            "",
            *flag_rows,
            "",
            decoding_verdict(flags),
            "",
            "Joining a pair into one six-channel array (medians of 30, taking turns):",
            "",
            *join_rows,
            "",
        ],
    )


if __name__ == "__main__":
    main()
