# Early fusion: visible and lwir stacked into six channels and read by one ResNet-50.
_base_ = [
    "./_base_/models/faster-rcnn_r50_fpn_kaist.py",
    "./_base_/datasets/kaist.py",
    "./_base_/schedules/schedule_1x.py",
    "./_base_/default_runtime.py",
]

# ImageNet's first convolution reads three channels: PairPretrained copies them to all six and
# halves them (a pair of identical pictures then gives ImageNet's response), where Pretrained
# would leave conv1 random, and frozen with the stem.
model = dict(
    backbone=dict(in_channels=6, init_cfg=dict(type="PairPretrained", checkpoint={{_base_.resnet50_imagenet}}))
)
