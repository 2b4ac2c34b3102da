# Early fusion on the synthetic KAIST: one ResNet-18 reads the six stacked channels.
_base_ = [
    "./_base_/models/retinanet_r18_fpn_synth.py",
    "./_base_/datasets/kaist_synth.py",
    "./_base_/schedules/schedule_synth.py",
    "./_base_/default_runtime.py",
]

model = dict(backbone=dict(in_channels=6))
