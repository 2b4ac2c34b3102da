# Early fusion: visible and lwir stacked into six channels and read by one ResNet-50.
_base_ = [
    './_base_/models/faster-rcnn_r50_fpn_kaist.py',
    './_base_/datasets/kaist.py',
    './_base_/schedules/schedule_1x.py',
    './_base_/default_runtime.py',
]

# ImageNet weights cannot fill a six-channel first convolution: mmengine reports the size
# mismatch and conv1 starts from random weights; every later layer is pretrained.
model = dict(backbone=dict(in_channels=6))
