"""Normalising each modality with its own statistics."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from mmdet.models.data_preprocessors import DetDataPreprocessor
from mmdet.registry import MODELS

from .data import CHANNELS, MODALITIES


def _three(values: Sequence[float] | float) -> list[float]:
    values = [float(values)] if isinstance(values, (int, float)) else [float(v) for v in values]
    if len(values) == 1:
        values = values * 3
    if len(values) != 3:
        raise ValueError(f"a modality's mean and std have 1 or 3 values, not {len(values)}")
    return values


@MODELS.register_module()
class PairDataPreprocessor(DetDataPreprocessor):
    """Batch the six-channel pairs, keep the ``modalities`` the model uses, normalise each.

    ``mean`` and ``std`` map a modality to its statistics (three values in RGB order, or one),
    e.g. ``mean=dict(visible=[123.7, 116.3, 103.5], lwir=[45.0])``. The model receives the
    chosen modalities stacked in the order given: ``('visible', 'lwir')`` gives six channels,
    visible RGB then lwir, and ``('lwir',)`` gives three, so a single-modality detector reads the
    same data as the fusion ones. ``bgr_to_rgb`` turns each modality's channels around.
    Other arguments are `DetDataPreprocessor`'s.
    """

    def __init__(
        self, mean: dict, std: dict, modalities: Sequence[str] = MODALITIES, bgr_to_rgb: bool = True, **kwargs
    ):
        super().__init__(mean=None, std=None, bgr_to_rgb=False, rgb_to_bgr=False, **kwargs)
        self.modalities = tuple(modalities)
        if not self.modalities or any(m not in MODALITIES for m in self.modalities):
            raise ValueError(f"modalities must be taken from {MODALITIES}, got {modalities!r}")
        order: list[int] = []
        for modality in self.modalities:
            channels = list(range(CHANNELS[modality].start, CHANNELS[modality].stop))
            order += channels[::-1] if bgr_to_rgb else channels
        self.channel_order = order
        self.register_buffer(
            "mean", torch.tensor([v for m in self.modalities for v in _three(mean[m])]).view(-1, 1, 1), False
        )
        self.register_buffer(
            "std", torch.tensor([v for m in self.modalities for v in _three(std[m])]).view(-1, 1, 1), False
        )
        self._enable_normalize = True

    def forward(self, data: dict, training: bool = False) -> dict:
        inputs = data["inputs"]
        if isinstance(inputs, torch.Tensor):
            inputs = inputs[:, self.channel_order]
        else:
            inputs = [image[self.channel_order] for image in inputs]
        return super().forward({**data, "inputs": inputs}, training)
