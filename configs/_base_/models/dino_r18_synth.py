# A small DINO trained from scratch on the synthetic pictures on a CPU: mmdetection's DINO 4-scale
# (configs/dino/dino-4scale_r50_8xb2-12e_coco.py: box refinement, two-stage queries, contrastive
# denoising) on the half-width ResNet-18's three last levels, with two encoder and two decoder layers
# (feed-forward width 512), 100 queries; one class, no dropout. As written it sees both modalities; the
# configs choose.
_base_ = ["./synth_streams.py"]

# mmdetection's DINO and two-stage Deformable DETR embed box coordinates in 128 features a side, so
# their transformers keep 256 channels.
embed_dims = 256

model = dict(
    type="DINO",
    num_queries=100,
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
            self_attn_cfg=dict(embed_dims=embed_dims, num_levels=4, dropout=0.0),
            ffn_cfg=dict(embed_dims=embed_dims, feedforward_channels=2 * embed_dims, ffn_drop=0.0),
        ),
    ),
    decoder=dict(
        num_layers=2,
        return_intermediate=True,
        layer_cfg=dict(
            self_attn_cfg=dict(embed_dims=embed_dims, num_heads=8, dropout=0.0),
            cross_attn_cfg=dict(embed_dims=embed_dims, num_levels=4, dropout=0.0),
            ffn_cfg=dict(embed_dims=embed_dims, feedforward_channels=2 * embed_dims, ffn_drop=0.0),
        ),
        post_norm_cfg=None,
    ),
    positional_encoding=dict(num_feats=embed_dims // 2, normalize=True, offset=0.0, temperature=20),
    bbox_head=dict(
        type="DINOHead",
        num_classes=1,
        embed_dims=embed_dims,
        sync_cls_avg_factor=True,
        loss_cls=dict(type="FocalLoss", use_sigmoid=True, gamma=2.0, alpha=0.25, loss_weight=1.0),
        loss_bbox=dict(type="L1Loss", loss_weight=5.0),
        loss_iou=dict(type="GIoULoss", loss_weight=2.0),
    ),
    dn_cfg=dict(
        label_noise_scale=0.5, box_noise_scale=1.0, group_cfg=dict(dynamic=True, num_groups=None, num_dn_queries=20)
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
