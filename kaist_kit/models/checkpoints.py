"""Loading checkpoints without running code, whether they fit the model, and CPU distributed training
with mmengine 0.10.7 on recent torch.

A checkpoint is a pickle, and a pickle can name any function to call while it is read (``os.system``
among them). The kit reads every checkpoint with torch's weights-only unpickler, which builds tensors,
numbers, text, lists, tuples and dicts and refuses anything else, and admits besides exactly what
mmdetection's and the kit's own checkpoints hold (`checkpoint_globals`):

- numpy arrays and scalars of numbers (mmengine's message hub keeps its logged values so), rebuilt
  only as numpy rebuilds them, never of Python objects;
- mmengine's ``HistoryBuffer`` (the message hub's logs), with its state checked: two arrays of
  numbers, a length, and the names of its four statistics, read as those of mmengine's own class.

Anything else a checkpoint names is refused in one line naming the file, before it is called.
"""

from __future__ import annotations

import contextlib
import functools
import os
import os.path as osp
import pickle
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..errors import InputError

# What a weights-only read says when a checkpoint names something else; the kit's refusals say it too.
REFUSED = (
    "refused: it asks to call {what} while it is read, which no checkpoint of weights needs "
    "(unpickling it could run code); the kit reads tensors, numbers, text and what mmdetection's and "
    "mmengine's checkpoints hold besides"
)
HISTORY_STATISTICS = ("min", "max", "current", "mean")  # HistoryBuffer's own, by name in its pickled state
NUMBER_KINDS = "biufc"  # numpy's kinds of booleans, integers and floating and complex numbers
# torch's environment switches of torch.load: the first forces weights only, the second a whole unpickling.
TORCH_SWITCHES = ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")


def _multiarray():
    try:
        import numpy._core.multiarray as multiarray  # numpy 2
    except ImportError:  # numpy 1
        import numpy.core.multiarray as multiarray
    return multiarray


def _number_dtype(value):
    import numpy as np

    if not isinstance(value, np.dtype) or value.kind not in NUMBER_KINDS or value.fields is not None:
        raise pickle.UnpicklingError(f"a numpy array or scalar of {value!r}, not of numbers")
    return value


def number_dtype(spec, align=False, copy=False):
    """``numpy.dtype`` as a pickle calls it, for numbers only (never Python objects or records)."""
    import numpy as np

    if not isinstance(spec, str) or len(spec) > 8:
        raise pickle.UnpicklingError(f"numpy.dtype of {spec!r}: not a number type")
    return _number_dtype(np.dtype(spec, bool(align), bool(copy)))


def number_array(subtype, shape, typecode):
    """numpy's ``_reconstruct`` as numpy's own pickles call it: an empty plain array, filled by its state."""
    import numpy as np

    if subtype is not np.ndarray or not isinstance(typecode, bytes) or not isinstance(shape, tuple):
        raise pickle.UnpicklingError("numpy's _reconstruct called otherwise than numpy calls it")
    return _multiarray()._reconstruct(subtype, shape, typecode)


def number_scalar(dtype, data):
    """numpy's ``scalar`` (a numpy number from its bytes), for numbers only."""
    dtype = _number_dtype(dtype)
    if not isinstance(data, bytes) or len(data) != dtype.itemsize:
        raise pickle.UnpicklingError(f"a numpy {dtype} scalar of {len(data) if isinstance(data, bytes) else '?'} bytes")
    return _multiarray().scalar(dtype, data)


@functools.cache
def _loaded_history_buffer():
    """A stand-in for mmengine's HistoryBuffer while a checkpoint is read: its state is checked, and the
    object becomes a plain HistoryBuffer once built (so the checkpoints saved afterwards name mmengine's
    class, as before)."""
    import numpy as np
    from mmengine.logging import HistoryBuffer

    class LoadedHistoryBuffer(HistoryBuffer):
        def __setstate__(self, state):
            if not isinstance(state, dict) or not set(state) <= {
                "max_length",
                "_log_history",
                "_count_history",
                "statistics_methods",
            }:
                raise pickle.UnpicklingError("a HistoryBuffer whose state is not mmengine's")
            arrays = [state.get("_log_history"), state.get("_count_history")]
            if not all(isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype.kind in NUMBER_KINDS for a in arrays):
                raise pickle.UnpicklingError("a HistoryBuffer whose history is not numbers")
            if not isinstance(state.get("max_length"), int):
                raise pickle.UnpicklingError("a HistoryBuffer whose max_length is not a number")
            methods = state.get("statistics_methods", {})
            own = {name: getattr(HistoryBuffer, name) for name in HISTORY_STATISTICS}
            if not isinstance(methods, dict) or any(own.get(k) is not v for k, v in methods.items()):
                raise pickle.UnpicklingError("a HistoryBuffer whose statistics are not mmengine's")
            self.__class__ = HistoryBuffer
            HistoryBuffer.__setstate__(self, dict(state))

    return LoadedHistoryBuffer


def history_statistic(owner, name):
    """``getattr`` as mmengine's HistoryBuffer pickles its statistics (``getattr(HistoryBuffer, 'mean')``),
    and for nothing else."""
    from mmengine.logging import HistoryBuffer

    if owner is not _loaded_history_buffer() or name not in HISTORY_STATISTICS:
        raise pickle.UnpicklingError(f"getattr of {name!r}: only HistoryBuffer's statistics are read")
    return getattr(HistoryBuffer, name)


def checkpoint_globals() -> list:
    """What torch's weights-only unpickler admits besides tensors when the kit reads a checkpoint, each
    under the name(s) pickles give it (numpy 1 and 2 name their module differently)."""
    import numpy as np

    admitted = [np.ndarray, (number_dtype, "numpy.dtype"), (history_statistic, "builtins.getattr")]
    for module in ("numpy.core.multiarray", "numpy._core.multiarray"):
        admitted += [(number_array, f"{module}._reconstruct"), (number_scalar, f"{module}.scalar")]
    # A dtype's state is set on its own class (numpy.dtypes.Float64DType, ...), never named in a pickle.
    admitted += sorted({type(np.dtype(code)) for code in "?bBhHiIlLqQefdgFDG"}, key=str)
    admitted.append((_loaded_history_buffer(), "mmengine.logging.history_buffer.HistoryBuffer"))
    return admitted


def refusal(exc: Exception) -> str:
    """One line saying why a weights-only read refused a checkpoint (torch's message without its advice,
    which is to unpickle the file whole)."""
    text = str(exc)
    named = re.search(r"GLOBAL (\S+)", text)
    if named:
        return REFUSED.format(what=named.group(1))
    called = re.search(r"call reduce for unrecognized function (.+?)(?: which belongs|$)", text, re.M)
    if called:
        return REFUSED.format(what=called.group(1).strip())
    advice = ("Weights only load failed", "Check the documentation", "Please file an issue", "In PyTorch 2.6")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith(advice)]
    detail = lines[0] if lines else type(exc).__name__
    return "refused: " + detail.split("WeightsUnpickler error:", 1)[-1].strip()


@contextlib.contextmanager
def _admitting() -> Iterator[None]:
    import torch

    with torch.serialization.safe_globals(checkpoint_globals()):
        yield


def read_checkpoint(filename: str | os.PathLike, map_location=None):
    """A local checkpoint read by torch's weights-only unpickler admitting `checkpoint_globals`, through
    the kit's opener (a regular file within the limits). What it would not build is an `InputError`
    naming the file, raised before anything it names is called; so is a file that is no checkpoint."""
    import torch

    from ..io.read import open_input

    filename = osp.expanduser(str(filename))
    with open_input(filename) as handle, _admitting():
        try:
            return torch.load(handle, map_location=map_location, weights_only=True)
        except pickle.UnpicklingError as exc:
            raise InputError(refusal(exc), filename) from None
        except Exception as exc:  # torch's readers raise whatever a file that is no checkpoint makes them meet
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            why = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
            raise InputError(f"cannot read the checkpoint, not a file torch.save wrote? ({why})", filename) from None


def load_from_local_weights(filename: str, map_location=None):
    """mmengine's loader for local paths (the scheme ``''``), reading as `read_checkpoint` does."""
    filename = osp.expanduser(filename)
    if not osp.isfile(filename):
        raise FileNotFoundError(f"{filename} can not be found.")
    return read_checkpoint(filename, map_location)


def _weights_only(loader):
    """One of mmengine's other loaders (http(s), torchvision://, open-mmlab://, s3://, ...) as it is,
    its refusals said in one line naming the address: within `weights_only_checkpoints`, every
    ``torch.load`` it makes reads weights only."""

    def load(filename, map_location=None):
        try:
            return loader(filename, map_location)
        except pickle.UnpicklingError as exc:
            raise InputError(refusal(exc), filename) from None

    load.__name__ = loader.__name__  # mmengine logs the loader's name
    return load


@contextlib.contextmanager
def weights_only_checkpoints() -> Iterator[None]:
    """Within the block, every checkpoint mmengine loads is read by torch's weights-only unpickler
    admitting what mmdetection's and the kit's checkpoints hold (`checkpoint_globals`): local files
    through `load_from_local_weights`, remote ones by mmengine's own loaders (download and cache), with torch told
    to read weights only whatever they ask (``TORCH_FORCE_WEIGHTS_ONLY_LOAD``; mmengine's http loader
    asks torch's hub for a whole unpickling). A refusal is an `InputError` naming the file or address.

    `kaist-kit train`, `test`, `infer` and `init-checkpoint` load through this block; afterwards
    everything is as before, and importing `kaist_kit.models` (as configs do through
    ``custom_imports``) changes nothing in how mmengine loads checkpoints.
    """
    from mmengine.runner.checkpoint import CheckpointLoader

    schemes = CheckpointLoader._schemes
    environment = {name: os.environ.get(name) for name in TORCH_SWITCHES}
    for prefix, loader in schemes.items():
        CheckpointLoader.register_scheme(prefixes=prefix, loader=_weights_only(loader), force=True)
    CheckpointLoader.register_scheme(prefixes="", loader=load_from_local_weights, force=True)
    os.environ["TORCH_FORCE_WEIGHTS_ONLY_LOAD"] = "1"
    os.environ.pop("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", None)  # torch refuses both at once
    try:
        with _admitting():
            yield
    finally:
        CheckpointLoader._schemes = schemes
        for name, value in environment.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def use_weights_only_checkpoints() -> None:
    """Make mmengine read local checkpoints as `weights_only_checkpoints` does for the rest of the
    process, for a script of your own that drives mmengine."""
    import torch
    from mmengine.runner.checkpoint import CheckpointLoader

    torch.serialization.add_safe_globals(checkpoint_globals())
    CheckpointLoader.register_scheme(prefixes="", loader=load_from_local_weights, force=True)


def state_dict_of(checkpoint) -> dict:
    """The named tensors of a loaded checkpoint (under ``state_dict`` or ``model``, or bare),
    without the ``module.`` prefix of distributed training."""
    import torch

    if isinstance(checkpoint, dict):
        for key in ("state_dict", "model"):
            if isinstance(checkpoint.get(key), dict):
                checkpoint = checkpoint[key]
                break
    if not isinstance(checkpoint, dict):
        return {}
    return {
        k.removeprefix("module."): v
        for k, v in checkpoint.items()
        if isinstance(k, str) and isinstance(v, torch.Tensor)
    }


@dataclass
class Fit:
    """How a checkpoint's tensors meet a model's: by name and shape."""

    total: int  # the model's tensors (parameters and buffers)
    filled: int = 0
    missing: list[str] = field(default_factory=list)  # the model's, not in the checkpoint
    unexpected: list[str] = field(default_factory=list)  # the checkpoint's, not in the model
    shapes: list[str] = field(default_factory=list)  # in both, of another shape

    @property
    def whole(self) -> bool:
        return self.filled == self.total and not self.unexpected

    def line(self) -> str:
        def some(names: list[str]) -> str:
            shown = ", ".join(names[:3])
            return shown + (f" and {len(names) - 3:,} more" if len(names) > 3 else "")

        parts = [f"fills {self.filled:,} of the model's {self.total:,} weights"]
        if self.missing:
            parts.append(f"missing {some(self.missing)}")
        if self.shapes:
            parts.append(f"of another shape {some(self.shapes)}")
        if self.unexpected:
            parts.append(f"unexpected {some(self.unexpected)}")
        return "; ".join(parts)


def fit_of(model, checkpoint) -> Fit:
    """How ``checkpoint`` (loaded) fills ``model``'s state."""
    weights = state_dict_of(checkpoint)
    own = model.state_dict()
    fit = Fit(len(own))
    for key, value in own.items():
        theirs = weights.get(key)
        if theirs is None:
            fit.missing.append(key)
        elif theirs.shape != value.shape:
            fit.shapes.append(key)
        else:
            fit.filled += 1
    fit.unexpected = [key for key in weights if key not in own]
    return fit


def require_fit(model, checkpoint, source, what: str = "does not fit the model") -> Fit:
    """`fit_of`, or an `InputError` naming ``source`` when the checkpoint does not fill the model whole."""
    fit = fit_of(model, checkpoint)
    if not fit.whole:
        raise InputError(f"{what}: it {fit.line()}", source)
    return fit


def use_gloo_on_cpu(cfg) -> None:
    """Make mmengine's ``launcher='pytorch'`` work without a GPU (several CPU processes, gloo).

    mmengine's process-group setup calls ``torch.cuda.set_device`` and its runner gives
    ``device_ids=[rank]`` to DistributedDataParallel; both fail on CPU. Starting the gloo process
    group first makes the runner skip its own setup, and an explicit wrapper without device ids
    replaces the default one.
    """
    import datetime

    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group(backend="gloo", timeout=datetime.timedelta(minutes=30))
    cfg.env_cfg = cfg.get("env_cfg", {})
    cfg.env_cfg["dist_cfg"] = dict(backend="gloo")
    cfg.model_wrapper_cfg = dict(
        type="MMDistributedDataParallel",
        broadcast_buffers=False,
        find_unused_parameters=cfg.get("find_unused_parameters", False),
        device_ids=None,
    )
