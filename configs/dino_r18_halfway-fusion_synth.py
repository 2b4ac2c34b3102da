# Two-stream DINO on the synthetic KAIST: a ResNet-18 per modality, their features
# concatenated and mixed by a 1x1 convolution (halfway fusion) at each of the three levels, before the channel mapper.
_base_ = [
    "./_base_/models/dino_r18_synth.py",
    "./_base_/datasets/kaist_synth.py",
    "./_base_/schedules/schedule_detr_synth.py",
    "./_base_/default_runtime.py",
]

model = dict(
    backbone=dict(
        _delete_=True,
        type="TwoStreamBackbone",
        visible={{_base_.resnet18_levels}},
        lwir={{_base_.resnet18_levels}},
        channels=(64, 128, 256),
        fusion=dict(type="ConcatFusion"),
    )
)
