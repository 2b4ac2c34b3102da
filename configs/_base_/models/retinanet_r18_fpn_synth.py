# A small RetinaNet trained from scratch on the synthetic pictures in minutes on a CPU:
# a half-width ResNet-18 with batch norm in training mode, a narrow FPN and head, one class, anchors shaped
# like people, ignore regions skipped. As written it sees both modalities; the configs choose.
_base_ = ["mmdet::_base_/models/retinanet_r50_fpn.py", "./synth_streams.py"]

model = dict(
    data_preprocessor={{_base_.pair_preprocessor}},
    backbone={{_base_.resnet18}},
    neck=dict(in_channels=[32, 64, 128, 256], out_channels=64),
    bbox_head=dict(
        num_classes=1, in_channels=64, feat_channels=64, stacked_convs=2, anchor_generator=dict(ratios=[1.0, 2.0, 3.0])
    ),
    train_cfg=dict(assigner=dict(ignore_iof_thr=0.5)),
    test_cfg=dict(score_thr=0.01, max_per_img=100),
)
