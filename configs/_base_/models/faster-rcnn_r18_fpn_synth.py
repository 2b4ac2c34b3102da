# A small Faster R-CNN trained from scratch on the synthetic pictures on a CPU: ResNet-18 with
# batch norm in training mode, a narrow FPN, fewer proposals and RoIs (RoIAlign's backward pass
# dominates a CPU step), one class, anchors shaped like people, ignore regions skipped.
_base_ = ["mmdet::_base_/models/faster-rcnn_r50_fpn.py", "./synth_streams.py"]

model = dict(
    data_preprocessor={{_base_.pair_preprocessor}},
    backbone={{_base_.resnet18}},
    neck=dict(in_channels=[32, 64, 128, 256], out_channels=64),
    rpn_head=dict(in_channels=64, feat_channels=64, anchor_generator=dict(ratios=[1.0, 2.0, 3.0])),
    roi_head=dict(
        bbox_roi_extractor=dict(out_channels=64), bbox_head=dict(in_channels=64, fc_out_channels=256, num_classes=1)
    ),
    train_cfg=dict(
        rpn=dict(assigner=dict(ignore_iof_thr=0.5)),
        rpn_proposal=dict(nms_pre=1000, max_per_img=300),
        rcnn=dict(assigner=dict(ignore_iof_thr=0.5), sampler=dict(num=128)),
    ),
    test_cfg=dict(rpn=dict(nms_pre=500, max_per_img=300), rcnn=dict(score_thr=0.01, max_per_img=100)),
)
