# A small Deformable DETR trained from scratch on the synthetic pictures on a CPU: mmdetection's
# Deformable DETR with box refinement and two-stage queries
# (configs/deformable_detr/deformable-detr-refine-twostage_r50_16xb2-50e_coco.py) on the half-width
# ResNet-18's three last levels, with two encoder and two decoder layers (feed-forward width 512), 100
# queries; one class, no dropout. As written it sees both modalities; the configs choose.
_base_ = ["./synth_streams.py"]

# mmdetection's DINO and two-stage Deformable DETR embed box coordinates in 128 features a side, so
# their transformers keep 256 channels.
embed_dims = 256

model = dict(
    type="DeformableDETR",
    num_queries=100,
    num_feature_levels=4,
    with_box_refine=True,
    as_two_stage=True,
    data_preprocessor={{_base_.pair_statistics}},
    backbone={{_base_.resnet18_levels}},
    neck=dict(
        type="ChannelMapper",
        in_channels=[64, 128, 256],
        kernel_size=1,
        out_channels=embed_dims,
        act_cfg=None,
        norm_cfg=dict(type="GN", num_groups=32),
        num_outs=4,
    ),
    encoder=dict(
        num_layers=2,
        layer_cfg=dict(
            self_attn_cfg=dict(embed_dims=embed_dims, batch_first=True, dropout=0.0),
            ffn_cfg=dict(embed_dims=embed_dims, feedforward_channels=2 * embed_dims, ffn_drop=0.0),
        ),
    ),
    decoder=dict(
        num_layers=2,
        return_intermediate=True,
        layer_cfg=dict(
            self_attn_cfg=dict(embed_dims=embed_dims, num_heads=8, dropout=0.0, batch_first=True),
            cross_attn_cfg=dict(embed_dims=embed_dims, batch_first=True, dropout=0.0),
            ffn_cfg=dict(embed_dims=embed_dims, feedforward_channels=2 * embed_dims, ffn_drop=0.0),
        ),
        post_norm_cfg=None,
    ),
    positional_encoding=dict(num_feats=embed_dims // 2, normalize=True, offset=-0.5),
    bbox_head=dict(
        type="DeformableDETRHead",
        num_classes=1,
        embed_dims=embed_dims,
        sync_cls_avg_factor=True,
        loss_cls=dict(type="FocalLoss", use_sigmoid=True, gamma=2.0, alpha=0.25, loss_weight=2.0),
        loss_bbox=dict(type="L1Loss", loss_weight=5.0),
        loss_iou=dict(type="GIoULoss", loss_weight=2.0),
    ),
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
    # Every query's box, scored: the miss-rate curve needs the low scores too (docs/training.md).
    test_cfg=dict(max_per_img=100),
)
