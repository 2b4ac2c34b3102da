# The synthetic KAIST of `kaist-kit synth`, for training on a CPU in minutes (docs/training.md).
# data_root: $KAIST_KIT_SYNTH, else data/kaist-synth/; or --cfg-options data_root=DIR. It holds
#   images/setXX/V000/{visible,lwir}/IZZZZZ.jpg     written by kaist-kit synth
#   train.json                                      kaist-kit convert sanitized DIR/annotations-sanitized
#   test.json                                       kaist-kit convert improved DIR/annotations-improved
# No validation during training: the synthetic set has no frames to spare for it, and the test set
# is not one (docs/training.md, "Validation"). The last epoch's weights are scored once, at the end,
# by `kaist-kit test`. $KAIST_KIT_SYNTH_FRAMES=N trains and tests on the first N frames only: a quick
# run of the commands, as the tests of the docs do.
dataset_type = "KaistDataset"
data_root = "{{$KAIST_KIT_SYNTH:data/kaist-synth/}}"
image_size = (320, 256)
first_frames = {{"$KAIST_KIT_SYNTH_FRAMES:None"}}

train_pipeline = [
    dict(type="LoadKaistPair"),
    dict(type="LoadAnnotations", with_bbox=True),
    dict(type="Resize", scale=image_size, keep_ratio=True),
    dict(type="RandomFlip", prob=0.5),
    dict(type="PackDetInputs"),
]
test_pipeline = [
    dict(type="LoadKaistPair"),
    dict(type="Resize", scale=image_size, keep_ratio=True),
    dict(type="PackDetInputs", meta_keys=("img_id", "img_path", "lwir_path", "ori_shape", "img_shape", "scale_factor")),
]

train_dataloader = dict(
    batch_size=4,
    # Decoding small JPEGs is quick; a worker process would only compete for a laptop's cores.
    num_workers=0,
    persistent_workers=False,
    sampler=dict(type="DefaultSampler", shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file="train.json",
        make_with="kaist-kit convert sanitized {data_root}annotations-sanitized --out {ann_file} --image-size 320x256",
        indices=first_frames,
        filter_cfg=dict(filter_empty_gt=True),
        pipeline=train_pipeline,
    ),
)
test_dataloader = dict(
    batch_size=4,
    num_workers=0,
    persistent_workers=False,
    drop_last=False,
    sampler=dict(type="DefaultSampler", shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file="test.json",
        make_with="kaist-kit convert improved {data_root}annotations-improved --out {ann_file} --image-size 320x256",
        indices=first_frames,
        test_mode=True,
        pipeline=test_pipeline,
    ),
)
val_dataloader = None
val_evaluator = None

test_evaluator = dict(type="KaistMetric", setting=["reasonable", "all-pedestrians"])
