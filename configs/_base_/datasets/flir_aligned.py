# FLIR-aligned at 640 x 512, its three classes person, bicycle and car (docs/benchmarks-other.md).
# Layout under data_root (default data/flir-aligned/, or $KAIST_KIT_FLIR_ALIGNED_DATA), as the dataset
# unpacks, with the two annotation files kaist-kit convert writes from it:
#   align/JPEGImages/FLIR_NNNNN_RGB.jpg, FLIR_NNNNN_PreviewData.jpeg   the registered colour and thermal pictures
#   align/Annotations/FLIR_NNNNN_PreviewData.xml                       VOC, one per frame
#   align/align_train.txt, align/align_validation.txt                  the splits (4,129 and 1,013 frames)
#   annotations/train.json    kaist-kit convert voc DATA_ROOT --benchmark flir-aligned --split train --out ...
#   annotations/test.json     the same with --split test: align_validation.txt, the test split of every paper
# No validation during training: FLIR-aligned has no split to spare for it, and its test split is not one
# (docs/training.md, "Validation"). The last epoch is scored once, at the end, by `kaist-kit test`.
dataset_type = "KaistDataset"
benchmark = "flir-aligned"
data_root = "{{$KAIST_KIT_FLIR_ALIGNED_DATA:data/flir-aligned/}}"
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
        benchmark=benchmark,
        data_root=data_root,
        ann_file="annotations/train.json",
        make_with="kaist-kit convert voc {data_root} --benchmark flir-aligned --split train --out {ann_file}",
        filter_cfg=dict(filter_empty_gt=True),
        pipeline=train_pipeline,
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
        benchmark=benchmark,
        data_root=data_root,
        ann_file="annotations/test.json",
        make_with="kaist-kit convert voc {data_root} --benchmark flir-aligned --split test --out {ann_file}",
        test_mode=True,
        pipeline=test_pipeline,
        backend_args=backend_args,
    ),
)
val_dataloader = None
val_evaluator = None

# COCO's AP50:95, AP50 and AP75, per class and their mean, as FLIR-aligned's papers report them.
test_evaluator = dict(type="BenchmarkMetric", metrics=["ap", "ap50", "ap75"])
