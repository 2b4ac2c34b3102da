"""Reading an mmengine config with command-line overrides, as the train, test, infer and check-data
verbs do, and the annotation files it names.

It needs mmengine only, not mmdetection, so that `kaist-kit check-data DATA_ROOT CONFIG` reads a
config in a fraction of a second.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from .errors import InputError
from .files import check_readable
from .rooted import Root, outside

DATALOADERS = ("train_dataloader", "val_dataloader", "test_dataloader")
# Configs read so far in this process, by file name.
_READ = Counter()


def parse_cfg_options(items: Sequence[str]) -> dict:
    """``['a.b=1', 'c=[1,2]']`` to ``{'a.b': 1, 'c': [1, 2]}``, read as mmdetection's tools read them."""
    from mmengine.config import DictAction

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
    from mmengine.config import Config

    path = Path(path)
    if not path.exists():
        raise InputError("no such config file", path)
    check_readable(path)  # mmengine reads it: a regular file within the limits
    try:
        cfg = Config.fromfile(str(path))
    except (SyntaxError, FileNotFoundError, KeyError, ImportError, TypeError, ValueError) as exc:
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
        dataset = (cfg.get(name) or {}).get("dataset")
        while dataset is not None:  # through dataset wrappers such as RepeatDataset
            if "data_root" in dataset or "ann_file" in dataset:
                dataset["data_root"] = str(root)
            dataset = dataset.get("dataset")


def default_work_dir(config: str | os.PathLike) -> Path:
    """``work_dirs/<config name>``, as mmdetection's tools choose."""
    return Path("work_dirs") / Path(config).stem


def _innermost_dataset(dataset):
    """The dataset inside wrappers such as RepeatDataset: the one with the annotation file."""
    while dataset is not None and "ann_file" not in dataset and dataset.get("dataset") is not None:
        dataset = dataset.get("dataset")
    return dataset


def config_datasets(cfg, roles=("train", "val", "test")) -> list:
    """The annotation files of a config's training, validation and test datasets, with the folder of
    their pictures and the command that makes each one (`kaist_kit.datacheck.DatasetFiles`); a loader
    the config leaves out (None) has none. An annotation file or a picture folder that lies outside its
    dataset's data root (an absolute path, '..', a link out) is refused, naming the config."""
    from .datacheck import DatasetFiles

    found = []
    for role in roles:
        loader = cfg.get(f"{role}_dataloader")
        dataset = _innermost_dataset((loader or {}).get("dataset"))
        if not dataset or not dataset.get("ann_file"):
            continue
        root = str(dataset.get("data_root") or "")
        benchmark = dataset.get("benchmark") or "kaist"
        # KaistDataset's own default: KAIST's pictures under images/, another benchmark's under its root.
        prefix = (dataset.get("data_prefix") or {}).get("img", "images/" if benchmark == "kaist" else "")
        # The config's paths stay in its data root (the one check-data is given): never /etc/passwd.
        for key, rel in (("ann_file", dataset["ann_file"]), ("data_prefix.img", prefix or ".")):
            problem = Root(root or ".").problem(rel)
            if problem is not None:
                raise outside(rel, problem, getattr(cfg, "filename", None), f"{role}_dataloader's {key}")
        ann_file = Path(os.path.join(root, dataset["ann_file"]))
        make_with = dataset.get("make_with")
        if make_with:
            make_with = make_with.format(data_root=root.rstrip("/") + "/" if root else "", ann_file=ann_file)
        if any(files.ann_file == ann_file for files in found):
            continue
        found.append(DatasetFiles(role, ann_file, Path(os.path.join(root, prefix)), make_with, benchmark))
    return found


def data_root_of(cfg) -> Path | None:
    """The training dataset's data root, as the config (and --cfg-options data_root) give it."""
    dataset = _innermost_dataset((cfg.get("train_dataloader") or {}).get("dataset"))
    root = (dataset or {}).get("data_root")
    return Path(root) if root else None
