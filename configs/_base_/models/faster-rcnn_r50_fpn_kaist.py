# mmdetection's Faster R-CNN R50-FPN (ImageNet-initialised ResNet-50) made a KAIST pedestrian
# detector: one class, anchors shaped like people, ignore regions skipped, and the pair
# preprocessor. As written it sees both modalities (six channels); the configs choose.
_base_ = "mmdet::_base_/models/faster-rcnn_r50_fpn.py"

# torchvision's ImageNet ResNet-50, the file `torchvision://resnet50` names (mmengine's table,
# mmengine/hub/torchvision_0.12.json), fetched by mmengine itself: no torchvision needed. It is
# kept in torch's cache ($TORCH_HOME/hub/checkpoints); without network, put the file there or
# point init_cfg.checkpoint at a local copy (docs/training.md).
resnet50_imagenet = "https://download.pytorch.org/models/resnet50-0676ba61.pth"

model = dict(
    data_preprocessor=dict(
        _delete_=True,
        type="PairDataPreprocessor",
        modalities=("visible", "lwir"),
        # ImageNet statistics for colour; thermal measured on KAIST sample frames.
        mean=dict(visible=[123.675, 116.28, 103.53], lwir=[44.0]),
        std=dict(visible=[58.395, 57.12, 57.375], lwir=[23.0]),
        bgr_to_rgb=True,
        pad_size_divisor=32,
    ),
    backbone=dict(init_cfg=dict(type="Pretrained", checkpoint=resnet50_imagenet)),
    rpn_head=dict(
        # Pedestrians are about 2.4 times as tall as wide (mmdet's ratio is height / width).
        anchor_generator=dict(ratios=[1.0, 2.0, 3.0])
    ),
    roi_head=dict(bbox_head=dict(num_classes=1)),
    train_cfg=dict(
        # Anchors and proposals lying mostly inside an ignore region (people, cyclist, person?)
        # are neither positives nor negatives.
        rpn=dict(assigner=dict(ignore_iof_thr=0.5)),
        rcnn=dict(assigner=dict(ignore_iof_thr=0.5)),
    ),
    test_cfg=dict(rcnn=dict(score_thr=0.01, max_per_img=100)),
)
