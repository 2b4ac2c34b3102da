"""Does fusion work? Halfway fusion against colour-only and thermal-only, on the synthetic KAIST.

    python speed/fusion_synth.py [--family retinanet] [--size 320x256] [--train 400] [--test 600]
                                      [--epochs 8] [--seed 0] [--setting reasonable] [--models ...]

It writes a synthetic dataset (kept under --work for the next run), trains the
fusion, RGB-only and thermal-only `*_synth.py` configs of one family (`FAMILIES`: RetinaNet and
Faster R-CNN with halfway fusion; DINO and Deformable DETR with halfway and gated fusion) with the
same schedule and seed, runs each final checkpoint on the test frames with `kaist-kit test`'s code,
and records the miss rates (all / day / night) and the times in docs/speed.md and
docs/training.md, in the family's section.

Speed on a GPU is speed/gpu_detectors.py's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import describe, publish  # noqa: E402

from kaist_kit.converters import convert  # noqa: E402
from kaist_kit.datasets.kaist_truth import load_ground_truth  # noqa: E402
from kaist_kit.errors import KitWarning  # noqa: E402
from kaist_kit.metrics.evaluate import ResultFiles, ScoreGrid, evaluate_files  # noqa: E402
from kaist_kit.tools.synth import SynthConfig, generate  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODELS = (("halfway-fusion", "halfway fusion"), ("rgb", "RGB only"), ("thermal", "thermal only"))
GATED = ("gated-fusion", "gated fusion")


@dataclass(frozen=True)
class Family:
    """The synthetic configs of one detector family: ``{prefix}_{model}_synth.py``."""

    prefix: str
    models: tuple[tuple[str, str], ...]  # (model in the config's name, title); the fusions first
    section: str  # its heading in docs/speed.md and docs/training.md


FAMILIES = {
    "retinanet": Family("retinanet_r18_fpn", MODELS, "## Fusion on the synthetic KAIST"),
    "faster-rcnn": Family("faster-rcnn_r18_fpn", MODELS, "## Fusion on the synthetic KAIST"),
    "dino": Family("dino_r18", (MODELS[0], GATED, *MODELS[1:]), "## DINO: fusion on the synthetic KAIST"),
    "deformable-detr": Family(
        "deformable-detr_r18", (MODELS[0], GATED, *MODELS[1:]), "## Deformable DETR: fusion on the synthetic KAIST"
    ),
}
SECTION = FAMILIES["retinanet"].section


def synthetic_dataset(folder: Path, size: tuple[int, int], train: int, test: int, seed: int) -> Path:
    """The synthetic KAIST with train.json and test.json, written once per set of parameters."""
    width, height = size
    data = folder / f"synth-{width}x{height}-train{train}-test{test}-seed{seed}"
    if not (data / "test.json").is_file():
        generate(data, SynthConfig(seed=seed, train_frames=train, test_frames=test, width=width, height=height))
        convert("sanitized", data / "annotations-sanitized", data / "train.json", image_size=size)
        convert("improved", data / "annotations-improved", data / "test.json", image_size=size)
    return data


def synthetic_run(args) -> tuple[tuple[int, int], Path, dict]:
    """The picture size, the dataset and the config overrides of a synthetic run with ``args``."""
    size = tuple(int(v) for v in args.size.split("x"))
    data = synthetic_dataset(args.work, size, args.train, args.test, args.seed)
    options = {
        "data_root": str(data),
        "train_cfg.max_epochs": args.epochs,
        "param_scheduler.1.T_max": args.epochs,
        "param_scheduler.1.end": args.epochs,
        "randomness.seed": args.seed,
        # the Resize steps of the synthetic pipelines
        "train_dataloader.dataset.pipeline.2.scale": size,
        "test_dataloader.dataset.pipeline.1.scale": size,
    }
    return size, data, options


def synthetic_config(args, name: str) -> tuple[Path, Path]:
    """The ``*_synth.py`` config of ``args.family`` for model ``name``, and its work folder."""
    config = ROOT / "configs" / f"{FAMILIES[args.family].prefix}_{name}_synth.py"
    return config, args.work / f"{config.stem}-{args.size}-train{args.train}-e{args.epochs}-seed{args.seed}"


def machine() -> str:
    """The machine a run used, and how busy it was (the CPU is shared)."""
    import torch

    device = f"GPU {torch.cuda.get_device_name()}" if torch.cuda.is_available() else "CPU only"
    return f"{describe()}, {device}, load average {load_average()}"


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "unknown"


STAMP = r"(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d) - mmengine"  # how mmengine's log lines start


def logged_training_seconds(work: Path, epochs: int) -> float:
    """How long a finished run in ``work`` trained: from its log's first line to its last checkpoint."""
    import datetime
    import re

    for log in sorted(work.glob("*/*.log"), reverse=True):
        text = log.read_text()
        stamps = re.findall(rf"^{STAMP}", text, re.M)
        saved = re.search(rf"^{STAMP} - INFO - Saving checkpoint at {epochs} epochs", text, re.M)
        if stamps and saved:
            read = [datetime.datetime.strptime(t, "%Y/%m/%d %H:%M:%S") for t in (stamps[0], saved.group(1))]
            return (read[1] - read[0]).total_seconds()
    raise SystemExit(f"--reuse: no log of a finished run of {epochs} epochs in {work}")


def fusion_table(args) -> None:
    from kaist_kit.models.predict import test
    from kaist_kit.models.train import train

    size, data, options = synthetic_run(args)
    gt = load_ground_truth(data / "test.json")
    where = machine()
    rows = []
    family = FAMILIES[args.family]
    models = [m for m in family.models if not args.models or m[0] in args.models]
    for name, title in models:
        config, work = synthetic_config(args, name)
        start = time.perf_counter()
        if args.reuse and (work / f"epoch_{args.epochs}.pth").is_file():
            train_seconds = logged_training_seconds(work, args.epochs)
        else:
            train(config, work, cfg_options=options)
            train_seconds = time.perf_counter() - start
        start = time.perf_counter()
        results = work / f"{config.stem}_result.json"
        test(config, work / f"epoch_{args.epochs}.pth", results, work, options)
        test_seconds = time.perf_counter() - start
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", KitWarning)
            scores = {
                r.split: r for r in evaluate_files(ResultFiles((results,), (title,)), gt, ScoreGrid((args.setting,)))
            }
        rows.append((title, config.name, scores, train_seconds, test_seconds))
        print(
            f"{title}: "
            + ", ".join(f"{s} {100 * r.lamr:.2f}" for s, r in scores.items())
            + f"; trained in {train_seconds:.0f} s",
            flush=True,
        )

    fusions = [row for row in rows if "fusion" in row[1]]
    singles = [row for row in rows if "fusion" not in row[1]]
    verdicts = []
    for title, _, scores, _, _ in fusions:
        beaten = [t for t, _, other, _, _ in singles if all(scores[s].lamr < other[s].lamr for s in ("day", "night"))]
        title = title[0].upper() + title[1:]
        if len(beaten) == len(singles) == 2:
            verdicts.append(f"{title} beats both single-modality detectors by day and by night.")
        else:
            verdicts.append(
                f"{title} does NOT beat both single-modality detectors by day and by night in this run "
                f"(it beats {' and '.join(beaten) or 'neither'} on both splits)."
            )
    fusion = rows[0][2]
    train_set = json.loads((data / "train.json").read_text())
    with_pedestrians = {
        a["image_id"] for a in train_set["annotations"] if not a["ignore"] and a["bbox"][2] >= 1 and a["bbox"][3] >= 1
    }
    table = ["| model | config | all | day | night | training | test |", "|---|---|---:|---:|---:|---:|---:|"]
    for title, config, scores, train_seconds, test_seconds in rows:
        cells = " | ".join(f"{100 * scores[s].lamr:.2f}" for s in ("all", "day", "night"))
        table.append(f"| {title} | `{config}` | {cells} | {train_seconds / 60:.1f} min | {test_seconds:.0f} s |")
    counts = ", ".join(f"{s} {fusion[s].n_gt}" for s in ("all", "day", "night"))
    chosen = (f" --models {' '.join(args.models)}" if args.models else "") + (" --reuse" if args.reuse else "")
    publish(
        args.doc,
        family.section,
        [
            family.section,
            "",
            f"Measured by `python speed/fusion_synth.py --family {args.family} --size {args.size} --train "
            f"{args.train} --test {args.test} --epochs {args.epochs} --seed {args.seed} --setting {args.setting}"
            f"{chosen}` on: {where} at the start; at the end: load average {load_average()}.",
            "",
            f"Each model trains from scratch for {args.epochs} epochs on the {len(with_pedestrians)} of "
            f"{len(train_set['images'])} synthetic training frames that have a pedestrian ({size[0]} x {size[1]}, half "
            f"day, half night) with the same schedule and seed, and its final weights are scored on {gt.n_images} "
            "test frames: log-average miss "
            f"rate (%, lower is better), leaderboard protocol, setting {args.setting} "
            f"(pedestrians that count: {counts}). Times are wall-clock on this machine; the test column includes "
            "loading the model.",
            "",
            *table,
            "",
            *verdicts,
            "The synthetic pictures are made so that each modality alone falls short (docs/datasets.md): "
            "colour loses pedestrians at night and takes mannequins for them by day; thermal misses "
            "pedestrians before sun-warmed walls by day and takes warm posts for them, day and night.",
            "",
        ],
    )


def synthetic_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a synthetic run (see `synthetic_run`), shared with misalignment_synth.py."""
    parser.add_argument("--family", choices=tuple(FAMILIES), default="retinanet")
    parser.add_argument("--models", nargs="+", help="only these models of the family (e.g. halfway-fusion rgb)")
    parser.add_argument(
        "--reuse", action="store_true", help="test a model already trained in its work folder (time from its log)"
    )
    parser.add_argument("--size", default="320x256", help="synthetic picture size WIDTHxHEIGHT")
    parser.add_argument("--train", type=int, default=400, help="synthetic training frames")
    parser.add_argument("--test", type=int, default=600, help="synthetic test frames")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--setting", default="reasonable")
    parser.add_argument("--work", type=Path, default=ROOT / "runs" / "fusion-synth")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    synthetic_arguments(parser)
    parser.add_argument(
        "--doc",
        type=Path,
        nargs="+",
        default=[ROOT / "docs" / "speed.md", ROOT / "docs" / "training.md"],
        help="documents whose section to replace",
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore", UserWarning)
    fusion_table(args)


if __name__ == "__main__":
    main()
