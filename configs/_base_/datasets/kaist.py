# KAIST at 640 x 512. Layout under data_root (default data/kaist/, or $KAIST_KIT_DATA):
#   images/setXX/VYYY/{visible,lwir}/IZZZZZ.jpg     the dataset's pictures, as published
#   annotations/train-all-02.sanitized.json         kaist-kit convert sanitized ... --image-set train-all-02
#   annotations/test-all-20.leaderboard.json        the leaderboard's ground truth
# Train on paired annotations instead with
#   --cfg-options train_dataloader.dataset.ann_file=annotations/train-all-02.paired.json
dataset_type = "KaistDataset"
data_root = "{{$KAIST_KIT_DATA:data/kaist/}}"
image_size = (640, 512)
backend_args = None

train_pipeline = [
    dict(type="LoadKaistPair", backend_args=backend_args),
    dict(type="LoadAnnotations", with_bbox=True),
    dict(type="Resize", scale=image_size, keep_ratio=True),
    dict(type="RandomFlip", prob=0.5),
    dict(
        type="PerModality",
        visible=[dict(type="PhotoMetricDistortion")],
        lwir=[dict(type="PhotoMetricDistortion", hue_delta=0, saturation_range=(1, 1))],
    ),
    dict(type="PackDetInputs"),
]
test_pipeline = [
    dict(type="LoadKaistPair", backend_args=backend_args),
    dict(type="Resize", scale=image_size, keep_ratio=True),
    dict(type="PackDetInputs", meta_keys=("img_id", "img_path", "lwir_path", "ori_shape", "img_shape", "scale_factor")),
]

train_dataloader = dict(
    batch_size=4,
    num_workers=4,
    persistent_workers=True,
    sampler=dict(type="DefaultSampler", shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file="annotations/train-02.json",
        filter_cfg=dict(filter_empty_gt=True),
        pipeline=train_pipeline,
        backend_args=backend_args,
    ),
)
val_dataloader = dict(
    batch_size=1,
    num_workers=2,
    persistent_workers=True,
    drop_last=False,
    sampler=dict(type="DefaultSampler", shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file="annotations/val-02.json",
        test_mode=True,
        pipeline=test_pipeline,
        backend_args=backend_args,
    ),
)
test_dataloader = dict(
    batch_size=1,
    num_workers=2,
    persistent_workers=True,
    drop_last=False,
    sampler=dict(type="DefaultSampler", shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file="annotations/test-all-20.leaderboard.json",
        test_mode=True,
        pipeline=test_pipeline,
        backend_args=backend_args,
    ),
)

# The leaderboard's LAMR, reasonable setting, all / day / night, against the dataset's ann_file: on
# val-02 during training (save_best reads it), on test-all-20 by `kaist-kit test`.
val_evaluator = dict(type="KaistMetric", setting="reasonable", protocol="leaderboard")
test_evaluator = val_evaluator
