# LLVIP at 1280 x 1024, its one class person (docs/benchmarks-other.md).
# Layout under data_root (default data/llvip/, or $KAIST_KIT_LLVIP_DATA), as the dataset
# unpacks, with the two annotation files kaist-kit convert writes from it:
#   visible/{train,test}/NNNNNN.jpg, infrared/{train,test}/NNNNNN.jpg   the pictures (12,025 and 3,463 pairs)
#   Annotations/NNNNNN.xml                                               VOC, one per pair
#   annotations/train.json    kaist-kit convert voc DATA_ROOT --benchmark llvip --split train --out ...
#   annotations/test.json     the same with --split test
# No validation during training: LLVIP has no split to spare for it, and its test split is not one
# (docs/training.md, "Validation"). The last epoch is scored once, at the end, by `kaist-kit test`.
dataset_type = "KaistDataset"
benchmark = "llvip"
data_root = "{{$KAIST_KIT_LLVIP_DATA:data/llvip/}}"
image_size = (1280, 1024)
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
    batch_size=2,
    num_workers=4,
    persistent_workers=True,
    sampler=dict(type="DefaultSampler", shuffle=True),
    dataset=dict(
        type=dataset_type,
        benchmark=benchmark,
        data_root=data_root,
        ann_file="annotations/train.json",
        make_with="kaist-kit convert voc {data_root} --benchmark llvip --split train --out {ann_file}",
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
        make_with="kaist-kit convert voc {data_root} --benchmark llvip --split test --out {ann_file}",
        test_mode=True,
        pipeline=test_pipeline,
        backend_args=backend_args,
    ),
)
val_dataloader = None
val_evaluator = None

# COCO's AP50, AP75 and AP50:95, as LLVIP's papers report them; YOLOv5's AP and the miss rate of the
# results kaist-kit test writes: the other benchmarks' evaluation (docs/benchmarks-other.md).
test_evaluator = dict(type="BenchmarkMetric", metrics=["ap50", "ap75", "ap"])
