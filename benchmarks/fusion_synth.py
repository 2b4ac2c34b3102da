"""Does fusion work? Halfway fusion against colour-only and thermal-only, on the synthetic KAIST.

    python benchmarks/fusion_synth.py [--family retinanet] [--size 320x256] [--train 400] [--test 600]
                                      [--epochs 8] [--seed 0] [--setting reasonable] [--models ...]
    python benchmarks/fusion_synth.py --gpu [--amp] [--iters 100]

The first form writes a synthetic dataset (kept under --work for the next run), trains the
fusion, RGB-only and thermal-only `*_synth.py` configs of one family (`FAMILIES`: RetinaNet and
Faster R-CNN with halfway fusion; DINO and Deformable DETR with halfway and gated fusion) with the
same schedule and seed, runs each final checkpoint on the test frames with `kaist-kit test`'s code,
and records the miss rates (all / day / night) and the times in docs/benchmarks.md and
docs/training.md, in the family's section.

The second form, for a machine with a CUDA GPU, measures the 640 x 512 Faster R-CNN R50-FPN
configs on synthetic pictures of that size: training images per second of halfway fusion against
RGB-only (with the time spent waiting for data and the GPU's utilisation), and inference latency
per pair at batch 1; in fp32, or with --amp in mixed precision (mmengine's AmpOptimWrapper, as
`kaist-kit train --amp`). Without a CUDA GPU it stops at once and says so.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import describe, publish  # noqa: E402

from kaist_kit.converters import convert  # noqa: E402
from kaist_kit.errors import KitWarning  # noqa: E402
from kaist_kit.evaluate import evaluate_files  # noqa: E402
from kaist_kit.groundtruth import load_ground_truth  # noqa: E402
from kaist_kit.synth import SynthConfig, generate  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODELS = (("halfway-fusion", "halfway fusion"), ("rgb", "RGB only"), ("thermal", "thermal only"))
GATED = ("gated-fusion", "gated fusion")


@dataclass(frozen=True)
class Family:
    """The synthetic configs of one detector family: ``{prefix}_{model}_synth.py``."""

    prefix: str
    models: tuple[tuple[str, str], ...]  # (model in the config's name, title); the fusions first
    section: str  # its heading in docs/benchmarks.md and docs/training.md


FAMILIES = {
    "retinanet": Family("retinanet_r18_fpn", MODELS, "## Fusion on the synthetic KAIST"),
    "faster-rcnn": Family("faster-rcnn_r18_fpn", MODELS, "## Fusion on the synthetic KAIST"),
    "dino": Family("dino_r18", (MODELS[0], GATED, *MODELS[1:]), "## DINO: fusion on the synthetic KAIST"),
    "deformable-detr": Family(
        "deformable-detr_r18", (MODELS[0], GATED, *MODELS[1:]), "## Deformable DETR: fusion on the synthetic KAIST"
    ),
}
SECTION = FAMILIES["retinanet"].section
GPU_SECTIONS = {False: "## Fusion speed on a GPU, fp32", True: "## Fusion speed on a GPU, mixed precision"}


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
        train(config, work, cfg_options=options)
        train_seconds = time.perf_counter() - start
        start = time.perf_counter()
        results = work / f"{config.stem}_result.json"
        test(config, work / f"epoch_{args.epochs}.pth", results, work, options)
        test_seconds = time.perf_counter() - start
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", KitWarning)
            scores = {r.split: r for r in evaluate_files([results], gt, [args.setting], names=[title])}
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
    chosen = f" --models {' '.join(args.models)}" if args.models else ""
    publish(
        args.doc,
        family.section,
        [
            family.section,
            "",
            f"Measured by `python benchmarks/fusion_synth.py --family {args.family} --size {args.size} --train "
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


def check_gpu(args) -> None:
    """Stop at once, with the reason, where the GPU measurement cannot run."""
    import torch

    cuda = args.device.startswith("cuda")
    if cuda and not torch.cuda.is_available():
        raise SystemExit(
            f"--gpu needs a CUDA GPU, and torch {torch.__version__} sees none on this machine "
            "(--device cpu only checks that this code runs)"
        )
    if args.amp and not cuda:
        raise SystemExit("--amp needs a CUDA GPU: mmengine's AmpOptimWrapper does not run on a CPU")
    if cuda:
        from mmcv.ops import get_compiling_cuda_version

        if get_compiling_cuda_version() == "not available":
            raise SystemExit(
                "mmcv was built without its CUDA ops: rebuild it on this machine with FORCE_CUDA=1 (DEVELOPERS.md)"
            )


class GpuUtilisation:
    """The GPU's utilisation (%) sampled by nvidia-smi every 0.2 s while the block runs."""

    def __init__(self, index: int):
        self.index, self.samples = index, []

    def _sample(self) -> None:
        import subprocess

        while not self.done.wait(0.2):
            reply = subprocess.run(
                ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-i", str(self.index)],
                capture_output=True,
                text=True,
            )
            if reply.returncode == 0 and reply.stdout.strip().isdigit():
                self.samples.append(int(reply.stdout.strip()))

    def __enter__(self):
        import shutil
        import threading

        self.done = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True) if shutil.which("nvidia-smi") else None
        if self.thread:
            self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        if self.thread:
            self.thread.join()

    def text(self) -> str:
        return f"{statistics.mean(self.samples):.0f}%" if self.samples else "n/a"


def gpu_speed(args) -> None:
    """Training throughput and batch-1 latency of halfway fusion against RGB-only at 640 x 512."""
    check_gpu(args)
    import torch
    from mmdet.registry import MODELS as REGISTRY
    from mmengine.optim import AmpOptimWrapper, OptimWrapper
    from mmengine.registry import init_default_scope
    from mmengine.runner import Runner

    import kaist_kit.models  # noqa: F401  (registers the kit's modules)
    from kaist_kit.config_files import load_config

    cuda = args.device.startswith("cuda")
    device = torch.device(args.device)

    def synchronise():
        if cuda:
            torch.cuda.synchronize()

    data = synthetic_dataset(args.work, (640, 512), 200, 50, args.seed)
    init_default_scope("mmdet")
    rows = []
    for name, title in MODELS[:2]:
        config = ROOT / "configs" / f"faster-rcnn_r50_fpn_{name}_1x_kaist.py"
        cfg = load_config(
            config,
            {
                "data_root": str(data),
                "train_dataloader.dataset.ann_file": "train.json",
                "test_dataloader.dataset.ann_file": "test.json",
                "train_dataloader.dataset.filter_cfg.filter_empty_gt": False,
                "train_dataloader.num_workers": args.workers,
                "train_dataloader.persistent_workers": args.workers > 0,
            },
        )
        # No downloads: ImageNet weights do not change the speed.
        for backbone in (cfg.model.backbone, cfg.model.backbone.get("visible"), cfg.model.backbone.get("lwir")):
            if backbone is not None and "init_cfg" in backbone:
                backbone.init_cfg = None
        model = REGISTRY.build(cfg.model).to(device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.005, momentum=0.9)
        wrapper = (
            AmpOptimWrapper(optimizer=optimizer, loss_scale="dynamic")
            if args.amp
            else OptimWrapper(optimizer=optimizer)
        )
        loader = Runner.build_dataloader(cfg.train_dataloader, seed=args.seed)
        batch_size = cfg.train_dataloader.batch_size
        model.train()
        waits, steps, stream = [], [], iter(loader)
        utilisation = GpuUtilisation(device.index or 0) if cuda else None
        for k in range(args.warmup + args.iters):
            if k == args.warmup and utilisation:
                utilisation.__enter__()
            start = time.perf_counter()
            try:
                batch = next(stream)
            except StopIteration:
                stream = iter(loader)
                batch = next(stream)
            fetched = time.perf_counter()
            model.train_step(batch, wrapper)  # preprocessing, forward in the wrapper's precision, update
            synchronise()
            if k >= args.warmup:
                waits.append(fetched - start)
                steps.append(time.perf_counter() - start)
        if utilisation:
            utilisation.__exit__()
        images_per_second = batch_size * len(steps) / sum(steps)

        model.eval()
        test_loader = Runner.build_dataloader(dict(cfg.test_dataloader, batch_size=1, num_workers=2), seed=args.seed)
        latencies = []
        with torch.no_grad(), torch.autocast(device.type, dtype=torch.float16, enabled=args.amp):
            for k, batch in enumerate(test_loader):
                if k >= args.warmup + args.latency_frames:
                    break
                synchronise()
                start = time.perf_counter()
                model.test_step(batch)
                synchronise()
                if k >= args.warmup:
                    latencies.append(time.perf_counter() - start)
        rows.append(
            (
                title,
                config.name,
                images_per_second,
                sum(waits) / sum(steps),
                statistics.median(latencies),
                batch_size,
                utilisation.text() if utilisation else "n/a",
            )
        )
        print(rows[-1], flush=True)
        del model, optimizer, wrapper
        if cuda:
            torch.cuda.empty_cache()

    ratio = rows[0][2] / rows[1][2]
    precision = "mixed precision (AmpOptimWrapper, float16 autocast)" if args.amp else "fp32"
    table = [
        "| model | config | training images/s | waiting for data | GPU utilisation | "
        "latency per pair (batch 1, median) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for title, config, speed, waiting, latency, _, busy in rows:
        table.append(
            f"| {title} | `{config}` | {speed:.1f} | {100 * waiting:.0f}% | {busy} | {1000 * latency:.1f} ms |"
        )
    where = torch.cuda.get_device_name(device) if cuda else "the CPU"
    heading = GPU_SECTIONS[args.amp]
    # Figures of a run on the CPU (--device cpu, to try the script) are shown, never recorded.
    publish(
        args.doc if cuda else [],
        heading,
        [
            heading,
            "",
            f"Measured by `python benchmarks/fusion_synth.py --gpu{' --amp' if args.amp else ''} --iters {args.iters} "
            f"--workers {args.workers}` on {where} ({machine()}), torch {torch.__version__}, {precision}, synthetic "
            f'640 x 512 pairs, batch {rows[0][5]} for training. "Waiting for data" is the share of each training '
            "step spent waiting for the data loader; GPU utilisation is nvidia-smi's, sampled every 0.2 s during the "
            "timed training steps.",
            "",
            *table,
            "",
            f"Halfway fusion trains at {ratio:.2f} of RGB-only's throughput (goal: 0.6 or more); its latency is "
            f"{1000 * rows[0][4]:.1f} ms per pair (goal: 15 ms or less). Latency counts the model and the "
            "preprocessor, not decoding the pictures.",
            "",
        ],
    )
    if not cuda:
        print("(on the CPU: not recorded)")


def synthetic_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a synthetic run (see `synthetic_run`), shared with misalignment_synth.py."""
    parser.add_argument("--family", choices=tuple(FAMILIES), default="retinanet")
    parser.add_argument("--models", nargs="+", help="only these models of the family (e.g. halfway-fusion rgb)")
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
    parser.add_argument("--gpu", action="store_true", help="measure speed on a GPU instead")
    parser.add_argument("--amp", action="store_true", help="--gpu: in mixed precision")
    parser.add_argument("--iters", type=int, default=100, help="--gpu: training iterations to time")
    parser.add_argument("--warmup", type=int, default=10, help="--gpu: untimed iterations and frames first")
    parser.add_argument("--latency-frames", type=int, default=50, help="--gpu: test frames to time")
    parser.add_argument("--workers", type=int, default=8, help="--gpu: data loading processes")
    parser.add_argument("--device", default="cuda", help="--gpu: cuda, cuda:1, ... (cpu only checks the code)")
    parser.add_argument(
        "--doc",
        type=Path,
        nargs="+",
        default=[ROOT / "docs" / "benchmarks.md", ROOT / "docs" / "training.md"],
        help="documents whose section to replace",
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore", UserWarning)
    if args.gpu:
        gpu_speed(args)
    else:
        fusion_table(args)


if __name__ == "__main__":
    main()
