"""Late fusion: one detector per modality, their boxes merged."""

from __future__ import annotations

import torch
from mmcv.ops import batched_nms
from mmdet.models.detectors import BaseDetector
from mmdet.registry import MODELS
from mmdet.structures.bbox import bbox_overlaps
from mmengine.config import ConfigDict
from mmengine.structures import InstanceData

from .data import CHANNELS, MODALITIES

MERGES = ("probabilistic", "nms")


def _joined(first: InstanceData, second: InstanceData) -> tuple[torch.Tensor, ...]:
    bboxes = torch.cat([first.bboxes, second.bboxes])
    scores = torch.cat([first.scores, second.scores])
    labels = torch.cat([first.labels, second.labels])
    source = torch.cat(
        [
            torch.zeros(len(first.scores), dtype=torch.long, device=scores.device),
            torch.ones(len(second.scores), dtype=torch.long, device=scores.device),
        ]
    )
    return bboxes, scores, labels, source


def merge_by_nms(
    first: InstanceData, second: InstanceData, iou_threshold: float = 0.5, max_per_img: int = 100
) -> InstanceData:
    """The simple baseline: pool both detectors' boxes and keep the best of each overlapping group."""
    bboxes, scores, labels, _ = _joined(first, second)
    if len(scores) == 0:
        return InstanceData(bboxes=bboxes, scores=scores, labels=labels)
    _, keep = batched_nms(bboxes, scores, labels, dict(type="nms", iou_threshold=iou_threshold))
    keep = keep[:max_per_img]
    return InstanceData(bboxes=bboxes[keep], scores=scores[keep], labels=labels[keep])


def fuse_scores(scores: torch.Tensor) -> torch.Tensor:
    """Posterior that the object is a pedestrian given independent detectors' scores.

    With modalities conditionally independent given the class and a flat prior,
    p(person | both) is proportional to the product of the detectors' posteriors, against the
    product of their complements for background. Two agreeing scores reinforce each other; a
    box that only one detector found keeps its score, the other's silence counting as no
    evidence either way (the prior), as in probabilistic ensembling.
    """
    p = scores.clamp(1e-6, 1 - 1e-6)
    yes, no = p.prod(), (1 - p).prod()
    return yes / (yes + no)


def merge_by_probability(
    first: InstanceData, second: InstanceData, iou_threshold: float = 0.5, max_per_img: int = 100
) -> InstanceData:
    """Probabilistic ensembling of two detectors' boxes.

    Boxes are taken in descending score. Each untaken box gathers the untaken boxes of its class
    that overlap it (IoU >= ``iou_threshold``); from that group the best box of each detector is
    fused: scores by `fuse_scores`, coordinates by a score-weighted mean. The rest of the group
    is dropped, as NMS would.
    """
    bboxes, scores, labels, source = _joined(first, second)
    if len(scores) == 0:
        return InstanceData(bboxes=bboxes, scores=scores, labels=labels)
    overlaps = bbox_overlaps(bboxes, bboxes)
    taken = torch.zeros(len(scores), dtype=torch.bool, device=scores.device)
    out_boxes, out_scores, out_labels = [], [], []
    for index in torch.argsort(scores, descending=True).tolist():
        if taken[index]:
            continue
        group = ~taken & (overlaps[index] >= iou_threshold) & (labels == labels[index])
        group[index] = True
        picked = []
        for detector in (0, 1):
            members = torch.nonzero(group & (source == detector)).flatten()
            if len(members):
                picked.append(members[scores[members].argmax()])
        picked = torch.stack(picked)
        weights = scores[picked]
        out_boxes.append((bboxes[picked] * weights[:, None]).sum(0) / weights.sum())
        out_scores.append(fuse_scores(weights))
        out_labels.append(labels[index])
        taken |= group
    fused_scores = torch.stack(out_scores)
    order = torch.argsort(fused_scores, descending=True)[:max_per_img]
    return InstanceData(
        bboxes=torch.stack(out_boxes)[order], scores=fused_scores[order], labels=torch.stack(out_labels)[order]
    )


@MODELS.register_module()
class LateFusionDetector(BaseDetector):
    """A visible detector and a thermal detector trained side by side; their boxes are merged.

    ``visible`` and ``lwir`` are complete detector configs (any mmdet detector); their own
    ``data_preprocessor`` entries are ignored: this model's `PairDataPreprocessor` (both
    modalities) feeds channels 0-2 to the visible detector and 3-5 to the thermal one. The loss
    is the sum of both detectors' losses (logged with ``visible_`` and ``lwir_`` prefixes).
    ``merge`` is ``'probabilistic'`` (see `merge_by_probability`) or ``'nms'``.
    """

    def __init__(
        self,
        visible: dict,
        lwir: dict,
        merge: str = "probabilistic",
        iou_threshold: float = 0.5,
        max_per_img: int = 100,
        data_preprocessor: dict | None = None,
        init_cfg=None,
    ):
        super().__init__(data_preprocessor=data_preprocessor, init_cfg=init_cfg)
        if merge not in MERGES:
            raise ValueError(f"merge is one of {MERGES}, not {merge!r}")
        self.visible = MODELS.build(self._detector_config(visible))
        self.lwir = MODELS.build(self._detector_config(lwir))
        self.merge = merge
        self.iou_threshold = iou_threshold
        self.max_per_img = max_per_img

    @staticmethod
    def _detector_config(config: dict) -> ConfigDict:
        # Two-stage detectors read their train_cfg by attribute, which needs a ConfigDict.
        config = ConfigDict(config)
        config.pop("data_preprocessor", None)
        return config

    def streams(self, inputs: torch.Tensor):
        for modality in MODALITIES:
            yield modality, getattr(self, modality), inputs[:, CHANNELS[modality]]

    def loss(self, batch_inputs, batch_data_samples) -> dict:
        losses = {}
        for modality, detector, inputs in self.streams(batch_inputs):
            for key, value in detector.loss(inputs, batch_data_samples).items():
                losses[f"{modality}_{key}"] = value
        return losses

    def predict(self, batch_inputs, batch_data_samples, rescale: bool = True):
        found = []
        for _, detector, inputs in self.streams(batch_inputs):
            samples = detector.predict(inputs, batch_data_samples, rescale=rescale)
            found.append([sample.pred_instances for sample in samples])
        merge = merge_by_probability if self.merge == "probabilistic" else merge_by_nms
        merged = [merge(v, t, self.iou_threshold, self.max_per_img) for v, t in zip(*found)]
        return self.add_pred_to_datasample(batch_data_samples, merged)

    def _forward(self, batch_inputs, batch_data_samples=None):
        return tuple(
            detector._forward(inputs, batch_data_samples) for _, detector, inputs in self.streams(batch_inputs)
        )

    def extract_feat(self, batch_inputs):
        return tuple(detector.extract_feat(inputs) for _, detector, inputs in self.streams(batch_inputs))
