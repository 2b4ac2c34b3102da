# The synthetic KAIST of `kaist-kit synth`, for training on a CPU in minutes (docs/training.md).
# data_root: $KAIST_KIT_SYNTH, else data/kaist-synth/; or --cfg-options data_root=DIR. It holds
#   images/setXX/V000/{visible,lwir}/IZZZZZ.jpg     written by kaist-kit synth
#   train.json                                      kaist-kit convert sanitized DIR/annotations-sanitized
#   test.json                                       kaist-kit convert improved DIR/annotations-improved
dataset_type = 'KaistDataset'
data_root = '{{$KAIST_KIT_SYNTH:data/kaist-synth/}}'
image_size = (320, 256)

train_pipeline = [
    dict(type='LoadKaistPair'),
    dict(type='LoadAnnotations', with_bbox=True),
    dict(type='Resize', scale=image_size, keep_ratio=True),
    dict(type='RandomFlip', prob=0.5),
    dict(type='PackDetInputs'),
]
test_pipeline = [
    dict(type='LoadKaistPair'),
    dict(type='Resize', scale=image_size, keep_ratio=True),
    dict(type='PackDetInputs',
         meta_keys=('img_id', 'img_path', 'lwir_path', 'ori_shape', 'img_shape', 'scale_factor')),
]

train_dataloader = dict(
    batch_size=4,
    # Decoding small JPEGs is quick; a worker process would only compete for a laptop's cores.
    num_workers=0,
    persistent_workers=False,
    sampler=dict(type='DefaultSampler', shuffle=True),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file='train.json',
        filter_cfg=dict(filter_empty_gt=True),
        pipeline=train_pipeline))
val_dataloader = dict(
    batch_size=4,
    num_workers=0,
    persistent_workers=False,
    drop_last=False,
    sampler=dict(type='DefaultSampler', shuffle=False),
    dataset=dict(
        type=dataset_type,
        data_root=data_root,
        ann_file='test.json',
        test_mode=True,
        pipeline=test_pipeline))
test_dataloader = val_dataloader

val_evaluator = dict(type='KaistMetric', setting=['reasonable', 'all-pedestrians'])
test_evaluator = val_evaluator
