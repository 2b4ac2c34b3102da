"""Starting a fusion detector from a single-stream one: `kaist-kit init-checkpoint`.

Researchers fine-tune from mmdetection's COCO detectors or from an ImageNet backbone. This
builds a config's model and fills every tensor it can from such a checkpoint, by name and shape:

- halfway fusion (`TwoStreamBackbone`, Faster R-CNN's, RetinaNet's, DINO's and Deformable DETR's):
  the source's ``backbone.*`` into both ``backbone.visible.*`` and ``backbone.lwir.*``; the fusion
  modules start fresh;
- late fusion (`LateFusionDetector`): the whole source detector into both ``visible.*`` and
  ``lwir.*``;
- early fusion (a backbone reading six channels): the first convolution's three input channels
  copied to all six and halved, so that a pair of identical pictures gives the source's features;
- everything else (necks, heads, single-modality models) as it is, except the classifier of a
  single-class detection head, which starts fresh: the source's class scores (COCO's 80 classes,
  or another dataset's person) are not KAIST's pedestrian.

The checkpoint written holds only the filled tensors, in mmengine's layout; with
``load_from=INIT.pth`` the runner loads it over the config's own initialisation, so whatever
was not filled starts as the config says (random, or ImageNet where the config asks for it).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mmdet.registry import WEIGHT_INITIALIZERS
from mmengine.model.weight_init import PretrainedInit

from ..errors import InputError, quantity
from ..io.read import check_readable
from ..tools.config_files import load_config
from .checkpoints import state_dict_of, weights_only_checkpoints

# The layers that score classes in mmdetection's detection heads (Faster R-CNN's BBoxHead,
# RetinaNet, FCOS / ATSS and the other anchor-free heads, DETR's heads: one per decoder layer).
CLASSIFIERS = ("fc_cls", "retina_cls", "conv_cls", "cls_branches")
NOT_IN_SOURCE = "not in the source"
SHAPE = "another shape in the source"
CLASSIFIER = "the classifier of a single-class head: the source's class scores do not carry over"
HALVED = "its 3 input channels copied to all 6 and halved"


@dataclass
class InitCheckpoint:
    """What `init_checkpoint` wrote: target tensor name to source tensor name, or to the reason it
    starts fresh."""

    out: Path
    model: str
    source: str
    filled: dict[str, str] = field(default_factory=dict)
    halved: list[str] = field(default_factory=list)  # filled keys whose input channels were doubled
    fresh: dict[str, str] = field(default_factory=dict)
    shapes: dict[str, tuple[str, str]] = field(default_factory=dict)  # fresh for their shape: here, source
    unused: list[str] = field(default_factory=list)  # source tensors that filled nothing
    streams: tuple[str, ...] = ()  # prefixes of the two-stream parts, e.g. 'backbone.visible.'
    bases: tuple[str, ...] = ()  # prefixes of the two-stream modules, e.g. 'backbone.'

    def group(self, key: str) -> str:
        """The part of the model a tensor belongs to: a stream, a module beside the streams (the
        fusions), or a top-level module."""
        for stream in self.streams:
            if key.startswith(stream):
                return stream + "*"
        for base in self.bases:
            if key.startswith(base):
                return base + key[len(base) :].split(".")[0] + ".*"
        return key.split(".")[0] + ".*"

    def summary(self) -> list[str]:
        total = len(self.filled) + len(self.fresh)
        lines = [f"filled {len(self.filled)} of the {total} tensors of {self.model} from {self.source}:"]
        pairs = Counter(
            (self.group(k), _source_group(self.group(k), k, v)) for k, v in self.filled.items() if k not in self.halved
        )
        for (target, source), n in pairs.items():
            origin = (
                "as they are" if target == source else "from the whole source" if source == "*" else f"from {source}"
            )
            lines.append(f"  {target} {origin} ({quantity(n, 'tensor')})")
        lines += [f"  {key} from {self.filled[key]}: {HALVED}" for key in self.halved]
        if self.fresh:
            lines.append("starts fresh (the config's own initialisation when training begins):")
            absent = Counter(self.group(k) for k, why in self.fresh.items() if why == NOT_IN_SOURCE)
            lines += [f"  {group} ({quantity(n, 'tensor')}): {NOT_IN_SOURCE}" for group, n in absent.items()]
            others: dict[tuple[str, str], list[str]] = {}
            for key, why in self.fresh.items():
                if why != NOT_IN_SOURCE:
                    others.setdefault((key.rsplit(".", 1)[0], why), []).append(key)
            for (module, why), keys in others.items():
                if why == SHAPE:
                    why = (
                        f"shape {' and '.join(self.shapes[k][0] for k in keys)} here, "
                        f"{' and '.join(self.shapes[k][1] for k in keys)} in the source"
                    )
                lines.append(f"  {module} ({', '.join(k.rsplit('.', 1)[1] for k in keys)}): {why}")
        if self.unused:
            unused = Counter(key.split(".")[0] + ".*" for key in self.unused)
            lines.append(
                "unused from the source: " + ", ".join(f"{g} ({quantity(n, 'tensor')})" for g, n in unused.items())
            )
        return lines


def _source_group(target_group: str, target: str, source: str) -> str:
    """The source's counterpart of ``target_group``: ``backbone.visible.*`` came from ``backbone.*``."""
    inside = target[len(target_group) - 1 :]
    return source[: len(source) - len(inside)] + "*" if source.endswith(inside) else target_group


def read_source(source: str):
    """The state dict of a checkpoint: a local file or an http(s) URL, in mmengine's layout
    (``state_dict``), as a bare state dict (torchvision's) or under ``model``; read by torch's
    weights-only unpickler (`weights_only_checkpoints`): a pickle that names anything else is refused."""
    from mmengine.runner.checkpoint import CheckpointLoader

    remote = "://" in source
    if not remote:
        if not Path(source).exists():
            raise InputError("no such checkpoint", source)
        check_readable(source)  # a regular file within the limits, and one of the command's inputs
    try:
        with weights_only_checkpoints():
            checkpoint = CheckpointLoader.load_checkpoint(source, map_location="cpu", logger="silent")
    except InputError:
        raise
    except Exception as exc:  # a download or torch.load failing as they do
        raise InputError(f"cannot read the checkpoint: {type(exc).__name__}: {exc}".splitlines()[0], source) from None
    weights = state_dict_of(checkpoint)
    if not weights:
        raise InputError("not a checkpoint: it holds no tensors", source)
    return weights


def fits_pair(target, value) -> bool:
    """Whether ``target`` is a convolution reading the six-channel pair where ``value`` reads three."""
    return (
        target.dim() == 4
        and value.dim() == 4
        and target.shape[1] == 6
        and value.shape[1] == 3
        and target.shape[0] == value.shape[0]
        and target.shape[2:] == value.shape[2:]
    )


def halved_pair(value):
    """A three-channel convolution's weights copied to both halves of six channels and halved: a
    pair of identical pictures then gives the source's response to one of them."""
    import torch

    return torch.cat([value, value], dim=1) / 2


@WEIGHT_INITIALIZERS.register_module()
class PairPretrained(PretrainedInit):
    """mmengine's ``Pretrained`` initialisation for a backbone that reads the six-channel pair
    (early fusion), e.g. ``init_cfg=dict(type='PairPretrained', checkpoint=...)``.

    The checkpoint loads as with ``Pretrained``, except that a convolution reading six channels
    where the checkpoint's reads three (the first one) gets them copied and halved, as
    `init_checkpoint` does, instead of starting from random weights.
    """

    def __call__(self, module) -> None:
        from mmengine.logging import print_log
        from mmengine.model.weight_init import update_init_info
        from mmengine.runner.checkpoint import CheckpointLoader, load_state_dict

        print_log(f"load model from: {self.checkpoint}", logger="current")
        state = state_dict_of(
            CheckpointLoader.load_checkpoint(self.checkpoint, map_location=self.map_location, logger="current")
        )
        if self.prefix:
            state = {k[len(self.prefix) :]: v for k, v in state.items() if k.startswith(self.prefix)}
        own = module.state_dict()
        for key, value in state.items():
            if key in own and fits_pair(own[key], value):
                state[key] = halved_pair(value)
                print_log(f"{key}: the checkpoint's {HALVED}", logger="current")
        load_state_dict(module, state, strict=False, logger="current")
        if hasattr(module, "_params_init_info"):
            update_init_info(module, init_info=self._get_init_info())


def _streams(model) -> list[tuple[str, str]]:
    """(stream prefix, what it is read from) for every two-stream part of the model."""
    from .fusion import TwoStreamBackbone
    from .late_fusion import LateFusionDetector

    streams = []
    for name, module in model.named_modules():
        if isinstance(module, (TwoStreamBackbone, LateFusionDetector)):
            base = f"{name}." if name else ""
            streams += [(f"{base}visible.", base), (f"{base}lwir.", base)]
    return streams


def _classifiers(model) -> list[str]:
    """Prefixes of the class-scoring layers of the model's single-class detection heads (not the
    RPN's, whose object-or-not score is what the source learnt too)."""
    from mmdet.models.dense_heads import RPNHead

    found = []
    for name, module in model.named_modules():
        if getattr(module, "num_classes", None) == 1 and not isinstance(module, RPNHead):
            found += [f"{name}.{layer}." for layer in CLASSIFIERS if hasattr(module, layer)]
    return found


def _source_name(key: str, streams: Sequence[tuple[str, str]]) -> str:
    for stream, base in streams:
        if key.startswith(stream):
            return _source_name(base + key[len(stream) :], streams)
    return key


def _shape(tensor) -> str:
    return "(" + ", ".join(map(str, tensor.shape)) + ")" if tensor.dim() != 1 else f"({tensor.shape[0]},)"


def init_checkpoint(
    config: str | os.PathLike,
    source: str | os.PathLike,
    out: str | os.PathLike,
    cfg_options: Sequence[str] | dict | None = None,
) -> InitCheckpoint:
    """Write to ``out`` the tensors of ``config``'s model that ``source`` fills (see the module's
    docstring), in mmengine's checkpoint layout for ``load_from``. A source whose names do not
    start with ``backbone.`` is read as a backbone checkpoint (torchvision's ResNet layout, which
    mmdetection's ResNet shares). Refuses a source that fills nothing."""
    import torch
    from mmdet.registry import MODELS
    from mmengine.registry import init_default_scope

    from .. import __version__
    from ..io.write import atomic_file

    cfg = load_config(config, cfg_options)
    weights = read_source(str(source))
    original = {key: key for key in weights}
    if not any(key.startswith("backbone.") for key in weights):
        original = {f"backbone.{key}": key for key in weights}
        weights = {f"backbone.{key}": value for key, value in weights.items()}
    init_default_scope(cfg.get("default_scope", "mmdet"))
    model = MODELS.build(cfg.model)
    streams = _streams(model)
    classifiers = _classifiers(model)

    made = InitCheckpoint(
        Path(out),
        Path(str(config)).stem,
        str(source),
        streams=tuple(s for s, _ in streams),
        bases=tuple(sorted({base for _, base in streams if base})),
    )
    state, used = {}, set()
    for key, target in model.state_dict().items():
        name = _source_name(key, streams)
        value = weights.get(name)
        if value is None:
            made.fresh[key] = NOT_IN_SOURCE
            continue
        used.add(name)
        if any(key.startswith(prefix) for prefix in classifiers):
            made.fresh[key] = CLASSIFIER
        elif value.shape == target.shape:
            state[key] = value.to(target.dtype)
            made.filled[key] = original[name]
        elif fits_pair(target, value):
            state[key] = halved_pair(value).to(target.dtype)
            made.filled[key] = original[name]
            made.halved.append(key)
        else:
            made.fresh[key] = SHAPE
            made.shapes[key] = (_shape(target), _shape(value))
    if not state:
        raise InputError(
            f"fills none of the {len(made.fresh)} tensors of {made.model}'s model: not a checkpoint "
            "of a matching detector or backbone",
            source,
        )
    made.unused = [original[key] for key in weights if key not in used]
    meta = dict(
        kaist_kit=__version__, config=str(config), source=str(source), filled=len(made.filled), fresh=len(made.fresh)
    )
    with atomic_file(out) as handle:
        torch.save(dict(meta=meta, state_dict=state), handle)
    return made
