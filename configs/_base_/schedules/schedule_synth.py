# A short schedule for the synthetic configs: minutes on a CPU.
max_epochs = 8
train_cfg = dict(type="EpochBasedTrainLoop", max_epochs=max_epochs)
val_cfg = None  # the synthetic configs do not validate (datasets/kaist_synth.py)
test_cfg = dict(type="TestLoop")

param_scheduler = [
    dict(type="LinearLR", start_factor=0.01, by_epoch=False, begin=0, end=100),
    dict(type="CosineAnnealingLR", T_max=max_epochs, eta_min_ratio=0.01, by_epoch=True, begin=0, end=max_epochs),
]

optim_wrapper = dict(
    type="OptimWrapper",
    optimizer=dict(type="AdamW", lr=0.001, weight_decay=0.05),
    clip_grad=dict(max_norm=10, norm_type=2),
)

randomness = dict(seed=0)
