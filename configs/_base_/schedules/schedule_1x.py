# 12 epochs, SGD, the learning rate divided by 10 after epochs 8 and 11 (mmdetection's 1x).
train_cfg = dict(type="EpochBasedTrainLoop", max_epochs=12, val_interval=1)
val_cfg = dict(type="ValLoop")
test_cfg = dict(type="TestLoop")

param_scheduler = [
    dict(type="LinearLR", start_factor=0.001, by_epoch=False, begin=0, end=500),
    dict(type="MultiStepLR", begin=0, end=12, by_epoch=True, milestones=[8, 11], gamma=0.1),
]

optim_wrapper = dict(type="OptimWrapper", optimizer=dict(type="SGD", lr=0.02, momentum=0.9, weight_decay=0.0001))

# lr 0.02 is for 16 images per step (8 GPUs x 2); the runner scales it to the real batch.
auto_scale_lr = dict(enable=True, base_batch_size=16)
