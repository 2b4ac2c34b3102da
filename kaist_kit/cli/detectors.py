"""Fusion detectors (the mmdet extra): `train`, `test` and `infer`."""

from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from .app import app, out, say
from .command import Whole, whole_option
from .options import MAX_SIDE, SCORES, CfgOptionsOption, OutputFormat, render

MAX_PROCESSES = 1024
MAX_NODES = 1024

# The two arguments `test` and `infer` begin with.
TrainedConfigArgument = Annotated[
    Path, typer.Argument(metavar="CONFIG", help="The config the checkpoint was trained with.")
]
CheckpointArgument = Annotated[Path, typer.Argument(metavar="CHECKPOINT", help="A checkpoint (.pth).")]


def _models(verb: str, *files: tuple[Path, str]):
    """The detector package, or a one-line error saying how to install what it needs.

    ``files`` are (path, what) pairs checked first, so that a typo fails at once rather than
    after importing mmdetection.
    """
    for path, what in files:
        if not path.is_file():
            raise InputError(f"no such {what}", path)
    try:
        import kaist_kit.models as models
    except ImportError as exc:
        raise InputError(
            f"kaist-kit {verb} needs the detector extra ({exc.name or exc} is not installed): "
            "pip install -e '.[mmdet]', see docs/training.md"
        ) from None
    return models


GpusOption = whole_option(
    1,
    MAX_PROCESSES,
    help=f"Processes, 1 to {MAX_PROCESSES}: 1 trains on the GPU if there is one, else on the CPU; more starts "
    "distributed data-parallel training with torchrun (on a CPU-only machine: that many CPU processes).",
)


NodesOption = whole_option(
    1,
    MAX_NODES,
    "--nnodes",
    help=f"Machines, 1 to {MAX_NODES}: run this same command on each, with its own --node-rank and the same "
    "--master-addr and --master-port (torchrun's static rendezvous); each starts --gpus processes.",
)


NodeRankOption = whole_option(
    0,
    MAX_NODES - 1,
    "--node-rank",
    metavar="RANK",
    help="This machine's place among --nnodes, 0 to N-1; machine 0 keeps the checkpoints and logs.",
)


MasterPortOption = whole_option(
    1, 65535, "--master-port", metavar="PORT", help="A free port on machine 0, the same on every machine."
)


@app.command("train")
def train_command(
    config: Annotated[
        Path,
        typer.Argument(
            metavar="CONFIG", help="An mmdetection config, e.g. configs/faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py."
        ),
    ],
    work_dir: Annotated[
        Path | None,
        typer.Option(metavar="FOLDER", help="Folder for checkpoints and logs. Default: work_dirs/<config name>."),
    ] = None,
    gpus: GpusOption = 1,
    resume: Annotated[bool, typer.Option("--resume", help="Continue from the work folder's last checkpoint.")] = False,
    nnodes: NodesOption = 1,
    node_rank: NodeRankOption = 0,
    master_addr: Annotated[
        str | None,
        typer.Option(
            "--master-addr",
            metavar="HOST",
            help="The address of machine 0 (--node-rank 0), which every machine can reach.",
            show_default=False,
        ),
    ] = None,
    master_port: MasterPortOption = 29500,
    slurm: Annotated[
        bool,
        typer.Option(
            "--slurm",
            help="This process is one task that srun started, one per GPU (mmengine's slurm launcher): "
            "srun --nodes N --ntasks-per-node G ... kaist-kit train CONFIG --slurm.",
        ),
    ] = False,
    amp: Annotated[
        bool,
        typer.Option(
            "--amp",
            help="Mixed precision (mmengine's AmpOptimWrapper: float16 with "
            "dynamic loss scaling), as mmdetection's --amp; CUDA GPUs only.",
        ),
    ] = False,
    cfg_options: CfgOptionsOption = None,
) -> None:
    """Train a detector from an mmdetection config (needs the mmdet extra); its data is checked first, as
    kaist-kit check-data does."""
    import subprocess

    _models("train", (config, "config file"))
    from ..models.train import Nodes, train

    nodes = Nodes(nnodes, node_rank, master_addr, master_port)
    try:
        folder = train(config, work_dir, gpus, resume, cfg_options, amp, echo=say, nodes=nodes, slurm=slurm)
    except subprocess.CalledProcessError as exc:
        say(f"error: distributed training stopped with exit code {exc.returncode}")
        raise typer.Exit(exc.returncode or 1) from None
    if node_rank > 0:
        say(f"this machine's processes are done: machine 0 keeps the checkpoints and logs in {folder}")
    else:
        say(f"checkpoints and logs in {folder}")


def parse_shift(value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    pixels = Whole(-MAX_SIDE, MAX_SIDE)
    try:
        dx, dy = (pixels(v) for v in value.split(","))
    except (ValueError, typer.BadParameter):
        raise typer.BadParameter(
            f"{value[:40]!r} is not DX,DY, each {pixels.accepts} (pixels), e.g. 4,0 or 0,-2", param_hint="--shift-lwir"
        ) from None
    return dx, dy


@app.command("test")
def test_command(
    config: TrainedConfigArgument,
    checkpoint: CheckpointArgument,
    results: Annotated[
        Path,
        typer.Option(
            "--out",
            metavar="FILE",
            help="COCO result JSON to write, with the test set's image ids: kaist-kit eval and submit read it.",
            show_default=False,
        ),
    ],
    work_dir: Annotated[
        Path | None, typer.Option(metavar="FOLDER", help="Folder for the logs. Default: work_dirs/<config name>.")
    ] = None,
    shift_lwir: Annotated[
        str | None,
        typer.Option(
            "--shift-lwir",
            metavar="DX,DY",
            help="Move every thermal picture DX pixels right and DY down (negative: left, up) against the visible "
            "one, filling the border with the picture's mean, then score as usual: the misalignment test of "
            "AR-CNN.",
            show_default=False,
        ),
    ] = None,
    cfg_options: CfgOptionsOption = None,
) -> None:
    """Run a checkpoint on the config's test set, write the results and print the miss rates (another
    benchmark's: COCO's AP per class)."""
    from ..datasets.kaist_truth import load_ground_truth
    from ..metrics.evaluate import ResultFiles, ScoreGrid, evaluate_files
    from ..scoring.report import EvalReport

    shift = parse_shift(shift_lwir)
    _models("test", (config, "config file"), (checkpoint, "checkpoint"))
    from ..models.predict import test

    run = test(config, checkpoint, results, work_dir, cfg_options, shift, echo=say)
    say(f"results written to {run.results}")
    if shift:
        say(f"thermal pictures shifted by {shift[0]} px in x and {shift[1]} px in y against the visible ones")
    if run.table is not None:  # another benchmark's: COCO's AP per class
        out.print(run.table.to_rich())
        return
    gt = load_ground_truth(run.ground_truth)
    if not (~gt.ignore).any():
        say(f"{run.ground_truth} has no pedestrians to score against: no miss rates")
        return
    found = evaluate_files(
        ResultFiles((run.results,), (config.stem,)), gt, ScoreGrid(tuple(run.settings), protocols=(run.protocol,))
    )
    render(EvalReport(found, ground_truth=gt.describe()), OutputFormat.table)


@app.command("infer")
def infer_command(
    config: TrainedConfigArgument,
    checkpoint: CheckpointArgument,
    visible: Annotated[Path, typer.Argument(metavar="VISIBLE", help="The colour picture.")],
    lwir: Annotated[Path, typer.Argument(metavar="LWIR", help="The thermal picture of the same frame.")],
    figure: Annotated[
        Path, typer.Option("--out", metavar="FILE", help="Figure to write (.png, .pdf or .svg).", show_default=False)
    ],
    score_threshold: Annotated[
        float, typer.Option(metavar="SCORE", parser=SCORES, help="Draw detections scoring at least this.")
    ] = 0.3,
    cfg_options: CfgOptionsOption = None,
) -> None:
    """Detect pedestrians on one visible/thermal pair and draw them on both pictures."""
    from ..output.plots import check_figure_path

    check_figure_path(figure)
    _models("infer", (config, "config file"), (checkpoint, "checkpoint"), (visible, "picture"), (lwir, "picture"))
    from ..models.predict import infer

    found = infer(config, checkpoint, visible, lwir, figure, score_threshold, cfg_options)
    shown = int((found.scores >= score_threshold).sum())
    say(f"{shown} detections scoring {score_threshold:g} or more (of {len(found.scores)}) drawn to {figure}")


@app.command("init-checkpoint")
def init_checkpoint_command(
    config: Annotated[
        Path,
        typer.Argument(
            metavar="CONFIG", help="The config to start, e.g. configs/faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py."
        ),
    ],
    source: Annotated[
        str,
        typer.Argument(
            metavar="SOURCE",
            help="A single-stream mmdetection detector (e.g. a COCO Faster R-CNN or RetinaNet R50-FPN) or a backbone "
            "checkpoint (torchvision's ResNet layout): a .pth file or an http(s) URL.",
        ),
    ],
    init: Annotated[
        Path,
        typer.Option(
            "--out",
            metavar="FILE",
            help="Checkpoint to write, for --cfg-options load_from=INIT.pth.",
            show_default=False,
        ),
    ],
    cfg_options: CfgOptionsOption = None,
) -> None:
    """Fill a config's model from a single-stream detector or backbone: a checkpoint to train from."""
    local = [] if "://" in source else [(Path(source), "checkpoint")]
    _models("init-checkpoint", (config, "config file"), *local)
    from ..models.init_checkpoint import init_checkpoint

    made = init_checkpoint(config, source, init, cfg_options)
    for line in made.summary():
        out.print(line, markup=False, highlight=False)
    say(f"written to {made.out}: train from it with --cfg-options load_from={made.out}")
