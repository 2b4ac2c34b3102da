"""Training data: named training sets (`trainset`) and the check of a data root (`check-data`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..datasets import BENCHMARKS, DEFAULT_BENCHMARK
from ..errors import InputError
from .app import app, out, say
from .command import whole_option
from .options import benchmark_name

MAX_DECODED = 1_000_000  # more pictures than KAIST's tree holds
_SETS_HELP = (
    "A named set: train-all-02, train-all-04, train-all-20, train-02, val-02, paired-8892, mbnet-8963, "
    "sanitized-7601 (--list says what each is)."
)


@app.command("trainset")
def trainset_command(
    name: Annotated[str | None, typer.Argument(metavar="NAME", help=_SETS_HELP)] = None,
    annotations: Annotated[
        Path | None,
        typer.Option(
            metavar="SOURCE",
            help="Where the boxes come from: the official XML tree annotations-xml-new/ (or its "
            "archive), the sanitized or KAIST-Paired download, or MBNet's kaist_train_data.npy, "
            "as the set accepts.",
            show_default=False,
        ),
    ] = None,
    out_file: Annotated[
        Path | None, typer.Option("--out", metavar="FILE", help="The COCO JSON to write.", show_default=False)
    ] = None,
    source_kind: Annotated[
        str | None,
        typer.Option(
            "--format",
            metavar="KIND",
            help="The source's kind (xml, original, sanitized, paired, mbnet-cache); "
            "found from its files when not given.",
            show_default=False,
        ),
    ] = None,
    list_sets: Annotated[bool, typer.Option("--list", help="List the named sets: frames, citation, sources.")] = False,
    compare: Annotated[
        tuple[Path, Path] | None,
        typer.Option(
            metavar="A.json B.json",
            help="Compare two training sets: frames only in one, boxes that changed.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write the COCO training annotations of a published training set, by name."""
    modes = sum([list_sets, compare is not None, name is not None])
    if modes != 1:
        raise InputError("give a set NAME (with --annotations and --out), --list, or --compare A.json B.json")
    if list_sets:
        from ..trainsets.report import sets_lines

        for line in sets_lines():
            out.print(line, markup=False, highlight=False)
        return
    if compare is not None:
        from ..trainsets.compare import compare_sets
        from ..trainsets.report import comparison_lines

        for line in comparison_lines(compare_sets(*compare)):
            out.print(line, markup=False, highlight=False)
        return
    if annotations is None or out_file is None:
        raise InputError(f"kaist-kit trainset {name} needs --annotations SOURCE and --out FILE")
    from ..trainsets.build import build_training_set
    from ..trainsets.report import built_lines

    for line in built_lines(build_training_set(name, annotations, out_file, source_kind, echo=say)):
        say(line)


DecodeOption = whole_option(
    0, MAX_DECODED, help=f"Pictures to decode whole, spread over all, each once (0 to {MAX_DECODED:,})."
)


@app.command("check-data")
def check_data_command(
    root: Annotated[
        Path,
        typer.Argument(
            metavar="DATA_ROOT", help="The data root: images/setXX/VYYY/{visible,lwir}/ and the annotation files."
        ),
    ],
    config: Annotated[
        Path | None,
        typer.Argument(
            metavar="CONFIG",
            help="A config: check its training, validation and test annotation files (with "
            "data_root=DATA_ROOT). Without: the *.json files of DATA_ROOT and "
            "DATA_ROOT/annotations.",
        ),
    ] = None,
    decode: DecodeOption = 32,
    benchmark: Annotated[
        str,
        typer.Option(
            metavar="NAME",
            parser=benchmark_name,
            help="Without CONFIG: whose annotation files and layout these are, "
            f"{', '.join(list(BENCHMARKS)[:-1])} or {list(BENCHMARKS)[-1]} (a config's datasets say it themselves).",
        ),
    ] = DEFAULT_BENCHMARK.name,
) -> None:
    """Check a data root before training: every annotated frame has both pictures, whole and of the right
    size; the annotation files exist and are the named sets they say."""
    from ..tools.datacheck import check_data, check_lines

    datasets = None
    if config is not None:
        from ..tools.config_files import config_datasets, load_config

        datasets = config_datasets(load_config(config, {"data_root": str(root)}))
    check = check_data(root, datasets, decode=decode, benchmark=benchmark)
    for line in check_lines(check):
        out.print(line, markup=False, highlight=False)
    if not check.ok:
        raise check.error()
