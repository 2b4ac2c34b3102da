# Halfway fusion on FLIR-aligned (640 x 512, three classes): the KAIST halfway-fusion recipe
# (faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py) at its frame size and classes: a ResNet-50 per
# modality, fused after each of the four stages, into one FPN and a Faster R-CNN head. Trains on the
# train split without validation; `kaist-kit test` scores the last epoch on the test split
# (docs/training.md).
_base_ = [
    "./_base_/models/faster-rcnn_r50_fpn_kaist.py",
    "./_base_/datasets/flir_aligned.py",
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

# Three classes of every shape (people upright, cars and bicycles wide): mmdetection's own anchor ratios.
model = dict(
    data_preprocessor=dict(
        # No statistics of FLIR-aligned's thermal pictures are measured here: ImageNet's, which the ImageNet
        # weights of the thermal stream were trained with, for both modalities.
        mean=dict(visible=[123.675, 116.28, 103.53], lwir=[123.675, 116.28, 103.53]),
        std=dict(visible=[58.395, 57.12, 57.375], lwir=[58.395, 57.12, 57.375]),
    ),
    backbone=dict(
        _delete_=True,
        type="TwoStreamBackbone",
        visible=resnet50,
        lwir=resnet50,
        channels=(256, 512, 1024, 2048),
        fusion=dict(type="ConcatFusion"),
    ),
    rpn_head=dict(anchor_generator=dict(ratios=[0.5, 1.0, 2.0])),
    roi_head=dict(bbox_head=dict(num_classes=3)),
)

# No validation split: the last two epochs are kept, the last one scored by kaist-kit test.
val_cfg = None
default_hooks = dict(checkpoint=dict(save_best=None))
