"""The detectors on a GPU, in one run: two-stream against single-stream training throughput for Faster
R-CNN and DINO, in fp32 and mixed precision; batch-1 latency per pair; peak GPU memory; and a short run
of the real KAIST configs on the 8 real pairs.

    python speed/gpu_detectors.py [--iters 30] [--warmup 5] [--latency-frames 30] [--workers 8]
    python speed/gpu_detectors.py --device cpu --iters 1 --warmup 1 --latency-frames 1 --size 320x256 \
        --train 8 --test 4 --workers 0 --real-epochs 1     (checks that the script runs; nothing is recorded)

Models (`MODELS`), each trained on synthetic pairs of the kit's generator (640 x 512 by default) with
its config's batch size per step:

- Faster R-CNN R50-FPN: `faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py` (a ResNet-50 per modality)
  against `faster-rcnn_r50_fpn_rgb_1x_kaist.py` (one ResNet-50 on the visible picture);
- DINO 4-scale R50: `dino-4scale_r50_halfway-fusion_12e_kaist.py` against the same config with one
  ResNet-50 on the visible picture (its backbone replaced by the visible stream, the preprocessor
  keeping the visible channels: what mmdetection's COCO DINO is, with one class).

For each, in fp32 and with ``--amp`` (mmengine's AmpOptimWrapper and float16 autocast, as
`kaist-kit train --amp`): training images per second over ``--iters`` steps after ``--warmup``, the
share of each step spent waiting for the data loader, the GPU's utilisation (nvidia-smi), the peak
GPU memory of training (``torch.cuda.max_memory_allocated``), and the median latency per pair at
batch 1 (the preprocessor and the model, not decoding) with its own peak memory. Then
`kaist-kit train`, `test` and `infer` of the two real KAIST configs on the 8 real pairs of
``../shared/data/kaist/demo-images`` (laid out as tests/test_models_real.py lays them out; ImageNet
weights left out, a few iterations at 640 x 512), with the time per iteration. Everything is recorded
in docs/speed.md with the GPU's name; a model that fails (out of memory, an op without a CUDA
kernel) is recorded as failed with its error, and the others still run.

On the machine, first: torch's CUDA build, and mmcv 2.1.0 built with its CUDA ops for the GPU
(DEVELOPERS.md, "The detector extra and mmcv"); the script stops at once, saying so, otherwise.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import time
import traceback
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fusion_synth import machine, synthetic_dataset  # noqa: E402
from record import publish, real_pairs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "configs"
SECTION = "## Detectors on a GPU: two streams against one, fp32 and mixed precision"
REAL_SECTION = "## Detectors on a GPU: the real KAIST configs on the 8 real pairs"
# (family, title, config, single stream: the config's own or made from the two-stream one)
MODELS = (
    ("Faster R-CNN R50-FPN", "two streams, halfway fusion", "faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py", False),
    ("Faster R-CNN R50-FPN", "visible only", "faster-rcnn_r50_fpn_rgb_1x_kaist.py", False),
    ("DINO 4-scale R50", "two streams, halfway fusion", "dino-4scale_r50_halfway-fusion_12e_kaist.py", False),
    ("DINO 4-scale R50", "visible only", "dino-4scale_r50_halfway-fusion_12e_kaist.py", True),
)
REAL_CONFIGS = ("faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py", "dino-4scale_r50_halfway-fusion_12e_kaist.py")


def check_gpu(args) -> None:
    """Stop at once, with the reason, where the GPU measurement cannot run."""
    import torch

    cuda = args.device.startswith("cuda")
    if cuda and not torch.cuda.is_available():
        raise SystemExit(
            f"the GPU measurements need a CUDA GPU, and torch {torch.__version__} sees none on this machine "
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


def without_imagenet(node) -> None:
    """Drop every init_cfg that loads weights (no downloads: the weights do not change the speed)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "init_cfg" and isinstance(value, dict) and "checkpoint" in value:
                node[key] = None
            else:
                without_imagenet(value)


def model_config(args, data: Path, config: str, single: bool):
    from kaist_kit.tools.config_files import load_config

    width, height = args.size
    cfg = load_config(
        CONFIGS / config,
        {
            "data_root": str(data),
            "train_dataloader.dataset.ann_file": "train.json",
            "test_dataloader.dataset.ann_file": "test.json",
            "train_dataloader.dataset.filter_cfg.filter_empty_gt": False,
            "train_dataloader.num_workers": args.workers,
            "train_dataloader.persistent_workers": args.workers > 0,
            "train_dataloader.dataset.pipeline.2.scale": (width, height),
            "test_dataloader.dataset.pipeline.1.scale": (width, height),
        },
    )
    if single:  # one ResNet-50 on the visible picture: the two-stream config's visible stream
        cfg.model.backbone = cfg.model.backbone.visible
        cfg.model.data_preprocessor.modalities = ("visible",)
    without_imagenet(cfg.model)
    return cfg


def measure(args, cfg, amp: bool) -> dict:
    """Training throughput, data waiting, utilisation and peak memory; batch-1 latency and its memory."""
    import torch
    from mmdet.registry import MODELS as REGISTRY
    from mmengine.optim import AmpOptimWrapper, OptimWrapper
    from mmengine.runner import Runner

    device = torch.device(args.device)
    cuda = device.type == "cuda"

    def synchronise():
        if cuda:
            torch.cuda.synchronize()

    model = REGISTRY.build(cfg.model)
    model.init_weights()  # the config's initialisation, ImageNet left out: a model that trains as its config says
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
    wrapper = AmpOptimWrapper(optimizer=optimizer, loss_scale="dynamic") if amp else OptimWrapper(optimizer=optimizer)
    loader = Runner.build_dataloader(cfg.train_dataloader, seed=args.seed)
    batch_size = cfg.train_dataloader.batch_size
    if cuda:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
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
        model.train_step(batch, wrapper)
        synchronise()
        if k >= args.warmup:
            waits.append(fetched - start)
            steps.append(time.perf_counter() - start)
    if utilisation:
        utilisation.__exit__()
    train_memory = torch.cuda.max_memory_allocated(device) if cuda else float("nan")
    del optimizer, wrapper, loader, stream

    model.eval()
    if cuda:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
    test_loader = Runner.build_dataloader(dict(cfg.test_dataloader, batch_size=1, num_workers=2), seed=args.seed)
    latencies = []
    with torch.no_grad(), torch.autocast(device.type, dtype=torch.float16, enabled=amp):
        for k, batch in enumerate(test_loader):
            if k >= args.warmup + args.latency_frames:
                break
            synchronise()
            start = time.perf_counter()
            model.test_step(batch)
            synchronise()
            if k >= args.warmup:
                latencies.append(time.perf_counter() - start)
    test_memory = torch.cuda.max_memory_allocated(device) if cuda else float("nan")
    del model
    if cuda:
        torch.cuda.empty_cache()
    return dict(
        images_per_second=batch_size * len(steps) / sum(steps),
        waiting=sum(waits) / sum(steps),
        utilisation=utilisation.text() if utilisation else "n/a",
        train_memory=train_memory,
        latency=statistics.median(latencies),
        test_memory=test_memory,
        batch_size=batch_size,
    )


def _gib(value: float) -> str:
    return "n/a" if value != value else f"{value / 2**30:.1f} GiB"


def speed_table(args) -> list[str]:
    data = synthetic_dataset(args.work, args.size, args.train, args.test, args.seed)
    rows, ratios = [], []
    for amp in (False, True):
        if amp and not args.device.startswith("cuda"):
            continue
        found = {}
        for family, title, config, single in MODELS:
            try:
                figures = measure(args, model_config(args, data, config, single), amp)
            except Exception as exc:  # recorded as failed; the other models still run
                traceback.print_exc()
                figures = dict(error=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200])
            found[(family, title)] = figures
            print(family, title, "amp" if amp else "fp32", figures, flush=True)
            precision = "mixed" if amp else "fp32"
            shown = config + (" (visible stream only)" if single else "")
            if "error" in figures:
                rows.append(f"| {family} | {title} | `{shown}` | {precision} | failed: {figures['error']} | | | | | |")
                continue
            rows.append(
                f"| {family} | {title} | `{shown}` | {precision} | {figures['images_per_second']:.1f} "
                f"(batch {figures['batch_size']}) | {100 * figures['waiting']:.0f}% | {figures['utilisation']} | "
                f"{_gib(figures['train_memory'])} | {1000 * figures['latency']:.1f} ms | "
                f"{_gib(figures['test_memory'])} |"
            )
        for family in dict.fromkeys(f for f, *_ in MODELS):
            two, one = found.get((family, "two streams, halfway fusion")), found.get((family, "visible only"))
            if two and one and "error" not in two and "error" not in one:
                memory = two["train_memory"] / one["train_memory"] if one["train_memory"] > 0 else float("nan")
                ratios.append(
                    f"{family}, {'mixed precision' if amp else 'fp32'}: two streams train at "
                    f"{two['images_per_second'] / one['images_per_second']:.2f} of one stream's throughput, "
                    f"with {memory:.2f} times its peak memory; batch-1 latency "
                    f"{1000 * two['latency']:.1f} ms against {1000 * one['latency']:.1f} ms."
                )
    return [
        "| detector | model | config | precision | training images/s | waiting for data | GPU utilisation | "
        "peak memory, training | latency per pair (batch 1, median) | peak memory, batch 1 |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        *[f"- {line}" for line in ratios],
    ]


def real_table(args) -> list[str]:
    from typer.testing import CliRunner

    from kaist_kit.cli import app
    from kaist_kit.tools.config_files import load_config

    root = real_pairs(args.work / "kaist-real", "annotations/demo-8.leaderboard.json")
    rows = []
    for config in REAL_CONFIGS:
        cfg = load_config(CONFIGS / config)
        options = {
            "data_root": str(root),
            "train_cfg.max_epochs": args.real_epochs,
            "train_cfg.val_begin": args.real_epochs + 1,
            "default_hooks.logger.interval": 1,
            "default_hooks.checkpoint.save_optimizer": False,
            "train_dataloader.batch_size": 2,
        }
        for loader in ("train_dataloader", "val_dataloader", "test_dataloader"):
            options.update(
                {
                    f"{loader}.dataset.ann_file": "annotations/demo-8.leaderboard.json",
                    f"{loader}.num_workers": 2,
                    f"{loader}.persistent_workers": False,
                }
            )
        paths = []
        without_imagenet_paths(cfg.model, "model", paths)
        options.update({path: None for path in paths})
        items = [a for key, value in options.items() for a in ("--cfg-options", f"{key}={value}")]
        work = args.work / "real" / Path(config).stem
        shutil.rmtree(work, ignore_errors=True)
        start = time.perf_counter()
        trained = CliRunner().invoke(app, ["train", str(CONFIGS / config), "--work-dir", str(work), *items])
        seconds = time.perf_counter() - start
        if trained.exit_code != 0:
            rows.append(f"| `{config}` | failed: {trained.output.strip().splitlines()[-1][:200]} | | |")
            continue
        log = next(work.glob("*/*.log")).read_text()
        times = [float(t) for t in re.findall(r"Epoch\(train\).*?  time: ([0-9.]+)", log)]
        checkpoint = work / f"epoch_{args.real_epochs}.pth"
        tested = CliRunner().invoke(
            app, ["test", str(CONFIGS / config), str(checkpoint), "--out", str(work / "result.json"), *items]
        )
        frame = root / "images" / "set09" / "V000"
        drawn = CliRunner().invoke(
            app,
            [
                "infer",
                str(CONFIGS / config),
                str(checkpoint),
                str(frame / "visible" / "I01139.jpg"),
                str(frame / "lwir" / "I01139.jpg"),
                "--out",
                str(work / "pair.png"),
                *items,
            ],
        )
        rows.append(
            f"| `{config}` | {len(times)} iterations of 2 pairs, {statistics.median(times[1:] or times):.3f} s each "
            f"(median after the first; {seconds:.0f} s in all) | "
            f"test: {_ran(tested)} | infer: {_ran(drawn)} |"
        )
        print(rows[-1], flush=True)
    return ["| config | training | `kaist-kit test` | `kaist-kit infer` |", "|---|---|---|---|", *rows]


def _ran(result) -> str:
    return "ran" if result.exit_code == 0 else f"failed: {(result.output.strip().splitlines() or ['?'])[-1][:160]}"


def without_imagenet_paths(node, path: str, found: list[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "init_cfg" and isinstance(value, dict) and "checkpoint" in value:
                found.append(f"{path}.{key}")
            else:
                without_imagenet_paths(value, f"{path}.{key}", found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=30, help="timed training steps per model and precision")
    parser.add_argument("--warmup", type=int, default=5, help="untimed steps and frames first")
    parser.add_argument("--latency-frames", type=int, default=30, help="timed test frames at batch 1")
    parser.add_argument("--workers", type=int, default=8, help="data loading processes")
    parser.add_argument("--size", default="640x512", help="synthetic picture size WIDTHxHEIGHT")
    parser.add_argument("--train", type=int, default=200, help="synthetic training frames")
    parser.add_argument("--test", type=int, default=50, help="synthetic test frames")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--real-epochs", type=int, default=3, help="epochs of the 8 real pairs (4 steps each)")
    parser.add_argument("--skip-real", action="store_true", help="leave out the run on the real pairs")
    parser.add_argument("--device", default="cuda", help="cuda, cuda:1, ... (cpu only checks the code)")
    parser.add_argument("--work", type=Path, default=ROOT / "runs" / "gpu-detectors")
    parser.add_argument("--doc", type=Path, default=ROOT / "docs" / "speed.md")
    args = parser.parse_args()
    args.size = tuple(int(v) for v in args.size.split("x"))
    args.amp = False
    check_gpu(args)
    warnings.simplefilter("ignore", UserWarning)
    import torch
    from mmengine.registry import init_default_scope

    import kaist_kit.models  # noqa: F401  (registers the kit's modules)

    init_default_scope("mmdet")

    cuda = args.device.startswith("cuda")
    where = f"{torch.cuda.get_device_name(torch.device(args.device))}" if cuda else "the CPU"
    started = machine()
    speed = speed_table(args)
    command = " ".join(["python speed/gpu_detectors.py", *sys.argv[1:]])
    publish(
        args.doc if cuda else [],
        SECTION,
        [
            SECTION,
            "",
            f"Measured by `{command}` on {where} ({started}), "
            f"torch {torch.__version__}; synthetic {args.size[0]} x {args.size[1]} pairs, each config's own batch for "
            f'training (AdamW), {args.iters} timed steps after {args.warmup}. "Waiting for data" is the share of a '
            "step spent waiting for the loader; utilisation is nvidia-smi's; peak memory is torch's "
            "max_memory_allocated.",
            "",
            *speed,
            "",
        ],
    )
    if not args.skip_real:
        real = real_table(args)
        publish(
            args.doc if cuda else [],
            REAL_SECTION,
            [
                REAL_SECTION,
                "",
                f"Measured by `{command}` on {where}: each config trains "
                f"{args.real_epochs} epochs of the 8 real pairs of ../shared/data/kaist/demo-images at 640 x 512 "
                "(random initialisation, batch 2), then `kaist-kit test` and `infer` run its checkpoint.",
                "",
                *real,
                "",
            ],
        )
    if not cuda:
        print("(on the CPU: not recorded)")


if __name__ == "__main__":
    main()
