# mmdetection's DINO 4-scale R50 (configs/dino/dino-4scale_r50_8xb2-12e_coco.py: 900 queries, box
# refinement, two-stage queries, contrastive denoising, ImageNet ResNet-50) made a two-stream KAIST
# pedestrian detector: one class, the pair preprocessor, and a ResNet-50 per modality whose features are
# fused at each of the three levels DINO reads (strides 8, 16, 32), before its channel mapper, which adds
# the fourth. Every other tensor has the name and shape of mmdetection's, so its COCO checkpoint fills
# the model through `kaist-kit init-checkpoint` (both streams from its backbone), all but the class
# scores. The configs choose the fusion.

# torchvision's ImageNet ResNet-50, as in faster-rcnn_r50_fpn_kaist.py (fetched by mmengine into torch's
# cache; docs/training.md).
resnet50_imagenet = "https://download.pytorch.org/models/resnet50-0676ba61.pth"
resnet50 = dict(
    type="ResNet",
    depth=50,
    num_stages=4,
    out_indices=(1, 2, 3),
    frozen_stages=1,
    norm_cfg=dict(type="BN", requires_grad=False),
    norm_eval=True,
    style="pytorch",
    init_cfg=dict(type="Pretrained", checkpoint=resnet50_imagenet),
)

model = dict(
    type="DINO",
    num_queries=900,
    with_box_refine=True,
    as_two_stage=True,
    data_preprocessor=dict(
        type="PairDataPreprocessor",
        modalities=("visible", "lwir"),
        # ImageNet statistics for colour; thermal measured on KAIST sample frames (as the Faster R-CNN configs).
        mean=dict(visible=[123.675, 116.28, 103.53], lwir=[44.0]),
        std=dict(visible=[58.395, 57.12, 57.375], lwir=[23.0]),
        bgr_to_rgb=True,
        pad_size_divisor=1,
    ),
    backbone=dict(
        type="TwoStreamBackbone",
        visible=resnet50,
        lwir=resnet50,
        channels=(512, 1024, 2048),
        fusion=dict(type="ConcatFusion"),
    ),
    neck=dict(
        type="ChannelMapper",
        in_channels=[512, 1024, 2048],
        kernel_size=1,
        out_channels=256,
        act_cfg=None,
        norm_cfg=dict(type="GN", num_groups=32),
        num_outs=4,
    ),
    encoder=dict(
        num_layers=6,
        layer_cfg=dict(
            self_attn_cfg=dict(embed_dims=256, num_levels=4, dropout=0.0),
            ffn_cfg=dict(embed_dims=256, feedforward_channels=2048, ffn_drop=0.0),
        ),
    ),
    decoder=dict(
        num_layers=6,
        return_intermediate=True,
        layer_cfg=dict(
            self_attn_cfg=dict(embed_dims=256, num_heads=8, dropout=0.0),
            cross_attn_cfg=dict(embed_dims=256, num_levels=4, dropout=0.0),
            ffn_cfg=dict(embed_dims=256, feedforward_channels=2048, ffn_drop=0.0),
        ),
        post_norm_cfg=None,
    ),
    positional_encoding=dict(num_feats=128, normalize=True, offset=0.0, temperature=20),
    bbox_head=dict(
        type="DINOHead",
        num_classes=1,
        sync_cls_avg_factor=True,
        loss_cls=dict(type="FocalLoss", use_sigmoid=True, gamma=2.0, alpha=0.25, loss_weight=1.0),
        loss_bbox=dict(type="L1Loss", loss_weight=5.0),
        loss_iou=dict(type="GIoULoss", loss_weight=2.0),
    ),
    dn_cfg=dict(
        label_noise_scale=0.5, box_noise_scale=1.0, group_cfg=dict(dynamic=True, num_groups=None, num_dn_queries=100)
    ),
    # DETR's matching has no ignore regions: KAIST's (people, cyclist, person?) are left out of training.
    train_cfg=dict(
        assigner=dict(
            type="HungarianAssigner",
            match_costs=[
                dict(type="FocalLossCost", weight=2.0),
                dict(type="BBoxL1Cost", weight=5.0, box_format="xywh"),
                dict(type="IoUCost", iou_mode="giou", weight=2.0),
            ],
        )
    ),
    # The 100 best-scoring of the 900 queries per frame, without a score threshold (mmdetection's COCO
    # config keeps 300): the miss-rate curve spans 1e-2 to 1 false positive per image and beyond, as the
    # Faster R-CNN configs' 100 (docs/training.md, "DINO and Deformable DETR").
    test_cfg=dict(max_per_img=100),
)
