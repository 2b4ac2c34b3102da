# Halfway fusion on the synthetic KAIST: a ResNet-18 per modality, fused after every stage.
_base_ = [
    "./_base_/models/retinanet_r18_fpn_synth.py",
    "./_base_/datasets/kaist_synth.py",
    "./_base_/schedules/schedule_synth.py",
    "./_base_/default_runtime.py",
]

model = dict(
    backbone=dict(
        _delete_=True,
        type="TwoStreamBackbone",
        visible={{_base_.resnet18}},
        lwir={{_base_.resnet18}},
        channels=(32, 64, 128, 256),
        fusion=dict(type="AttentionFusion"),
    )
)

# RetinaNet's FPN starts at the second stage, so the first stage's fusion gets no gradient;
# distributed training (kaist-kit train --gpus N) must be told, or it stops at the second step.
find_unused_parameters = True
