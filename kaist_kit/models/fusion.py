"""Halfway fusion: one backbone per modality, their features fused at every stage."""

from __future__ import annotations

import copy
from collections.abc import Sequence

import torch
from mmdet.registry import MODELS
from mmengine.model import BaseModule
from torch import nn

from .data import CHANNELS


@MODELS.register_module()
class ConcatFusion(BaseModule):
    """Concatenate the two feature maps and mix them with a 1x1 convolution back to ``channels``.

    The convolution starts as the mean of the two streams, so that fused features keep the scale
    the neck expects from a (pretrained) backbone, and learns from there.
    """

    def __init__(self, channels: int, init_cfg=None):
        super().__init__(init_cfg)
        self.mix = nn.Conv2d(2 * channels, channels, kernel_size=1)
        with torch.no_grad():
            eye = torch.eye(channels).view(channels, channels, 1, 1)
            self.mix.weight.copy_(torch.cat([eye, eye], dim=1) / 2)
            self.mix.bias.zero_()

    def forward(self, visible: torch.Tensor, lwir: torch.Tensor) -> torch.Tensor:
        return self.mix(torch.cat([visible, lwir], dim=1))


@MODELS.register_module()
class WeightedSumFusion(BaseModule):
    """A learnt weight per channel: ``a * visible + (1 - a) * lwir`` with ``a`` in (0, 1), from 0.5.

    The weights sum to one, so fused features stay at the streams' scale.
    """

    def __init__(self, channels: int, init_cfg=None):
        super().__init__(init_cfg)
        self.logit = nn.Parameter(torch.zeros(1, channels, 1, 1))

    def forward(self, visible: torch.Tensor, lwir: torch.Tensor) -> torch.Tensor:
        weight = torch.sigmoid(self.logit)
        return weight * visible + (1 - weight) * lwir


@MODELS.register_module()
class AttentionFusion(BaseModule):
    """Per-image, per-channel weights of the two modalities from the pair's global context.

    A small bottleneck reads the pooled features of both streams and gives each channel a softmax
    over the two modalities, so that a frame can lean on thermal where colour is dark (night) and
    on colour where thermal is washed out (sun-warmed surroundings). The last layer starts at
    zero: both modalities weigh 0.5 until the data says otherwise.
    """

    def __init__(self, channels: int, reduction: int = 8, init_cfg=None):
        super().__init__(init_cfg)
        hidden = max(channels // reduction, 8)
        self.context = nn.Sequential(
            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(2 * channels, hidden, kernel_size=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(hidden, 2 * channels, kernel_size=1),
        )
        nn.init.zeros_(self.context[-1].weight)
        nn.init.zeros_(self.context[-1].bias)
        self.channels = channels

    def forward(self, visible: torch.Tensor, lwir: torch.Tensor) -> torch.Tensor:
        logits = self.context(torch.cat([visible, lwir], dim=1))
        weights = logits.view(-1, 2, self.channels, 1, 1).softmax(dim=1)
        return weights[:, 0] * visible + weights[:, 1] * lwir


@MODELS.register_module()
class GatedFusion(BaseModule):
    """A gate at every place of a feature map: ``g * visible + (1 - g) * lwir``, with ``g`` in (0, 1)
    read by a small convolution from both streams' features around that place.

    Where `AttentionFusion` weighs the modalities once per frame and channel, this one weighs them per
    pixel of each level: within one frame a pedestrian in a lit doorway and one in the dark beside it
    lean on different modalities, and so does a warm wall behind a person by day. One gate per level
    (`TwoStreamBackbone` builds one per stage). The last layer starts at zero: both modalities weigh
    0.5 everywhere, the mean of the streams, until the data says otherwise.
    """

    def __init__(self, channels: int, reduction: int = 8, init_cfg=None):
        super().__init__(init_cfg)
        hidden = max(channels // reduction, 8)
        self.gate = nn.Sequential(
            nn.Conv2d(2 * channels, hidden, kernel_size=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(hidden, 1, kernel_size=3, padding=1),
        )
        nn.init.zeros_(self.gate[-1].weight)
        nn.init.zeros_(self.gate[-1].bias)

    def forward(self, visible: torch.Tensor, lwir: torch.Tensor) -> torch.Tensor:
        weight = torch.sigmoid(self.gate(torch.cat([visible, lwir], dim=1)))
        return lwir + weight * (visible - lwir)


@MODELS.register_module()
class TwoStreamBackbone(BaseModule):
    """Two backbones, one per modality, fused stage by stage into one multi-scale output.

    The input is the six-channel pair (visible RGB, then lwir) from `PairDataPreprocessor`.
    ``visible`` and ``lwir`` are backbone configs (two ResNets, or any registered backbone that
    returns a tuple of feature maps); ``channels`` lists the channels of each output stage, the
    same for both streams. ``fusion`` is one fusion config for every stage or a list with one per
    stage; each is built with its stage's ``channels``. The output has the streams' shapes, so any
    mmdet neck and head take it.
    """

    def __init__(
        self, visible: dict, lwir: dict, channels: Sequence[int], fusion: dict | Sequence[dict], init_cfg=None
    ):
        super().__init__(init_cfg)
        self.visible = MODELS.build(visible)
        self.lwir = MODELS.build(lwir)
        per_stage = list(fusion) if isinstance(fusion, (list, tuple)) else [fusion] * len(channels)
        if len(per_stage) != len(channels):
            raise ValueError(f"{len(per_stage)} fusion configs for {len(channels)} stages")
        fusions = []
        for config, stage_channels in zip(per_stage, channels):
            config = copy.deepcopy(config)
            config["channels"] = stage_channels
            fusions.append(MODELS.build(config))
        self.fusions = nn.ModuleList(fusions)

    def forward(self, inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        visible = self.visible(inputs[:, CHANNELS["visible"]])
        lwir = self.lwir(inputs[:, CHANNELS["lwir"]])
        if len(visible) != len(self.fusions) or len(lwir) != len(self.fusions):
            raise ValueError(
                f"the streams give {len(visible)} and {len(lwir)} stages; channels lists {len(self.fusions)}"
            )
        return tuple(fuse(v, t) for fuse, v, t in zip(self.fusions, visible, lwir))
