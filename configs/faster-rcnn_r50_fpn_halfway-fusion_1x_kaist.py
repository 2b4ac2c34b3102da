# Halfway fusion: a ResNet-50 per modality, fused after each of the four stages, into one FPN.
_base_ = [
    "./_base_/models/faster-rcnn_r50_fpn_kaist.py",
    "./_base_/datasets/kaist.py",
    "./_base_/schedules/schedule_1x.py",
    "./_base_/default_runtime.py",
]

resnet50 = dict(
    type="ResNet",
    depth=50,
    num_stages=4,
    out_indices=(0, 1, 2, 3),
    frozen_stages=1,
    norm_cfg=dict(type="BN", requires_grad=True),
    norm_eval=True,
    style="pytorch",
    init_cfg=dict(type="Pretrained", checkpoint={{_base_.resnet50_imagenet}}),
)

model = dict(
    backbone=dict(
        _delete_=True,
        type="TwoStreamBackbone",
        visible=resnet50,
        lwir=resnet50,
        channels=(256, 512, 1024, 2048),
        # One fusion for every stage, or a list of four: ConcatFusion, WeightedSumFusion,
        # AttentionFusion.
        fusion=dict(type="ConcatFusion"),
    )
)
