"""Reading an mmengine config with command-line overrides, as the train, test, infer and check-data
verbs do, and the annotation files it names.

It needs mmengine only, not mmdetection, so that `kaist-kit check-data DATA_ROOT CONFIG` reads a
config in a fraction of a second.
"""

from __future__ import annotations

import argparse
import os
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError
from ..io.read import check_readable
from ..io.rooted import Root, outside

DATALOADERS = ("train_dataloader", "val_dataloader", "test_dataloader")
# Configs read so far in this process, by file name.
_READ = Counter()


def _mmengine_config():
    """mmengine's config module, or an `InputError` saying how to install it (the core install has none)."""
    try:
        from mmengine import config
    except ImportError as exc:
        raise InputError(
            f"reading a config needs the detector extra ({exc.name or exc} is not installed): "
            "pip install -e '.[mmdet]', see docs/training.md"
        ) from None
    return config


def parse_cfg_options(items: Sequence[str]) -> dict:
    """``['a.b=1', 'c=[1,2]']`` to ``{'a.b': 1, 'c': [1, 2]}``, read as mmdetection's tools read them."""
    DictAction = _mmengine_config().DictAction  # noqa: N806 (mmengine's class)

    for item in items:
        if "=" not in item:
            raise InputError(f"--cfg-options {item!r} is not KEY=VALUE")
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--cfg-options", nargs="+", action=DictAction, default={})
    return parser.parse_args(["--cfg-options", *items]).cfg_options if items else {}


def load_config(path: str | os.PathLike, cfg_options: Sequence[str] | dict | None = None):
    """The mmengine Config at ``path`` with ``cfg_options`` merged in.

    ``data_root=DIR`` among the options moves every dataloader's dataset to DIR, since a config's
    top-level ``data_root`` is copied into the datasets when the file is read and overriding it
    alone would change nothing.
    """
    Config = _mmengine_config().Config  # noqa: N806 (mmengine's class)

    path = Path(path)
    if not path.exists():
        raise InputError("no such config file", path)
    check_readable(path)  # mmengine reads it: a regular file within the limits
    try:
        cfg = Config.fromfile(str(path))
    except Exception as exc:  # a config is Python: it may raise anything
        raise InputError(f"cannot read the config: {type(exc).__name__}: {exc}".splitlines()[0], path) from None
    options = dict(cfg_options) if isinstance(cfg_options, dict) else parse_cfg_options(cfg_options or [])
    if options:
        try:
            cfg.merge_from_dict(options)
        except (TypeError, KeyError, ValueError, AttributeError) as exc:
            raise InputError(f"--cfg-options do not fit the config: {str(exc).splitlines()[0]}", path) from None
        if "data_root" in options:
            set_data_root(cfg, options["data_root"])
    _READ[path.stem] += 1
    if _READ[path.stem] > 1 and "experiment_name" not in cfg:
        # mmengine names a run's logger, visualizer and scope after its config file and the second
        # it starts: a second run of one config within that second would take over the first's.
        cfg.experiment_name = f"{path.stem}-{_READ[path.stem]}"
    return cfg


def set_data_root(cfg, root: str) -> None:
    for name in DATALOADERS:
        for dataset in _datasets(cfg, name):  # through dataset wrappers such as RepeatDataset
            if "data_root" in dataset or "ann_file" in dataset:
                dataset["data_root"] = str(root)


def default_work_dir(config: str | os.PathLike) -> Path:
    """``work_dirs/<config name>``, as mmdetection's tools choose."""
    return Path("work_dirs") / Path(config).stem


MAX_WRAPPERS = 8  # datasets inside datasets (RepeatDataset, ClassBalancedDataset...) followed at most


def _datasets(cfg, loader_name: str) -> list:
    """A loader's dataset and the datasets it wraps, outermost first: dicts each, at most `MAX_WRAPPERS`
    deep; anything else where a loader or a dataset goes is an `InputError` naming the config and key."""
    source = getattr(cfg, "filename", None)
    loader = cfg.get(loader_name)
    if loader is None:
        return []
    if not isinstance(loader, dict):
        raise InputError(f"{loader_name} is {_kind(loader)}, not a dict", source)
    found, key, dataset = [], f"{loader_name}.dataset", loader.get("dataset")
    while dataset is not None:
        if not isinstance(dataset, dict):
            raise InputError(f"{key} is {_kind(dataset)}, not a dict", source)
        if len(found) >= MAX_WRAPPERS:
            raise InputError(f"{key}: datasets wrapped more than {MAX_WRAPPERS} deep", source)
        found.append(dataset)
        key, dataset = f"{key}.dataset", dataset.get("dataset")
    return found


def _kind(value) -> str:
    return f"{type(value).__name__} {repr(value)[:60]}"


def _innermost_dataset(datasets: list) -> tuple[dict | None, int]:
    """The dataset with the annotation file among a loader's (`_datasets`), and how deep it lies."""
    for depth, dataset in enumerate(datasets):
        if "ann_file" in dataset or depth == len(datasets) - 1:
            return dataset, depth
    return None, 0


# A dataset's keys the kit reads, and what each must be (None allowed where it is left out).
_FIELDS = {"ann_file": str, "data_root": (str, os.PathLike), "benchmark": str, "make_with": str}


def config_datasets(cfg, roles=("train", "val", "test")) -> list:
    """The annotation files of a config's training, validation and test datasets, with the folder of
    their pictures and the command that makes each one (`kaist_kit.tools.datacheck.DatasetFiles`); a loader
    the config leaves out (None) has none. Each key read is checked for its type, and an annotation
    file or a picture folder that lies outside its dataset's data root (an absolute path, '..', a link
    out) is refused, naming the config."""
    from ..datasets import BENCHMARKS
    from .datacheck import DatasetFiles

    source = getattr(cfg, "filename", None)
    found = []
    for role in roles:
        dataset, depth = _innermost_dataset(_datasets(cfg, f"{role}_dataloader"))
        if not dataset or not dataset.get("ann_file"):
            continue
        key = f"{role}_dataloader.dataset" + ".dataset" * depth
        for name, kind in _FIELDS.items():
            if dataset.get(name) is not None and not isinstance(dataset[name], kind):
                raise InputError(f"{key}.{name} is {_kind(dataset[name])}, not a path or a name", source)
        root = str(dataset.get("data_root") or "")
        benchmark = dataset.get("benchmark") or "kaist"
        if benchmark not in BENCHMARKS:
            raise InputError(f"{key}.benchmark {benchmark!r} is none of {', '.join(BENCHMARKS)}", source)
        prefixes = dataset.get("data_prefix") or {}
        if not isinstance(prefixes, dict):
            raise InputError(f"{key}.data_prefix is {_kind(prefixes)}, not a dict", source)
        # KaistDataset's own default: KAIST's pictures under images/, another benchmark's under its root.
        prefix = prefixes.get("img", BENCHMARKS[benchmark].pictures_folder)
        # The config's paths stay in its data root (the one check-data is given): never /etc/passwd.
        for name, rel in (("ann_file", dataset["ann_file"]), ("data_prefix.img", prefix or ".")):
            problem = Root(root or ".").problem(rel)
            if problem is not None:
                raise outside(rel, problem, source, f"{key}.{name}")
        ann_file = Path(os.path.join(root, dataset["ann_file"]))
        make_with = dataset.get("make_with")
        if make_with:
            shown = {"data_root": root.rstrip("/") + "/" if root else "", "ann_file": str(ann_file)}
            make_with = re.sub(r"\{(data_root|ann_file)\}", lambda m, shown=shown: shown[m[1]], make_with)
        if any(files.ann_file == ann_file for files in found):
            continue
        found.append(DatasetFiles(role, ann_file, Path(os.path.join(root, prefix)), make_with, benchmark))
    return found


def data_root_of(cfg) -> Path | None:
    """The training dataset's data root, as the config (and --cfg-options data_root) give it."""
    dataset, _ = _innermost_dataset(_datasets(cfg, "train_dataloader"))
    root = (dataset or {}).get("data_root")
    return Path(root) if root else None
