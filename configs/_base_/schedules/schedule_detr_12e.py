# DINO's 12 epochs (mmdetection's dino-4scale_r50_8xb2-12e_coco.py): AdamW, lr 1e-4 for 16 images per
# step scaled to the real batch, the backbones at a tenth of it, gradients clipped at 0.1, the lr divided
# by 10 after epoch 11. The fusion modules start fresh, so they learn at the full rate. Deformable DETR's
# configs raise the lr to 2e-4 and slow its sampling offsets and reference points, as mmdetection's do.
max_epochs = 12
train_cfg = dict(type="EpochBasedTrainLoop", max_epochs=max_epochs, val_interval=1)
val_cfg = dict(type="ValLoop")
test_cfg = dict(type="TestLoop")

param_scheduler = [dict(type="MultiStepLR", begin=0, end=max_epochs, by_epoch=True, milestones=[11], gamma=0.1)]

optim_wrapper = dict(
    type="OptimWrapper",
    optimizer=dict(type="AdamW", lr=0.0001, weight_decay=0.0001),
    clip_grad=dict(max_norm=0.1, norm_type=2),
    # The longest key that a parameter's name contains decides: the fusions are in backbone.fusions.
    paramwise_cfg=dict(custom_keys={"backbone": dict(lr_mult=0.1), "backbone.fusions": dict(lr_mult=1.0)}),
)

auto_scale_lr = dict(enable=True, base_batch_size=16)
