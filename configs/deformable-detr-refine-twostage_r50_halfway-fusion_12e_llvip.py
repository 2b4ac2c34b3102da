# Two-stream Deformable DETR R50 (box refinement, two-stage queries) on LLVIP (1280 x 1024, one class:
# person): the KAIST recipe (deformable-detr-refine-twostage_r50_halfway-fusion_12e_kaist.py) at its frame
# size and classes: a ResNet-50 per modality, concatenated and mixed by a 1x1 convolution at each of the
# three levels the transformer reads, before its channel mapper. Trains on the train split without
# validation; `kaist-kit test` scores the last epoch on the test split (docs/training.md).
# Start it from mmdetection's COCO checkpoint:
#   kaist-kit init-checkpoint configs/deformable-detr-refine-twostage_r50_halfway-fusion_12e_llvip.py COCO.pth \
#       --out work_dirs/deformable-detr-refine-twostage_r50-llvip-from-coco.pth
# with COCO.pth mmdetection's checkpoint (a file, or its address):
#   https://download.openmmlab.com/mmdetection/v3.0/deformable_detr/deformable-detr-refine-twostage_r50_16xb2-50e_coco/deformable-detr-refine-twostage_r50_16xb2-50e_coco_20221021_184714-acc8a5ff.pth
_base_ = [
    "./_base_/models/deformable-detr-refine-twostage_r50_kaist.py",
    "./_base_/datasets/llvip.py",
    "./_base_/schedules/schedule_detr_12e.py",
    "./_base_/default_runtime.py",
]

model = dict(
    data_preprocessor=dict(
        # No statistics of this benchmark's thermal pictures are measured here: ImageNet's, which the
        # thermal stream's starting weights were trained with, for both modalities.
        mean=dict(visible=[123.675, 116.28, 103.53], lwir=[123.675, 116.28, 103.53]),
        std=dict(visible=[58.395, 57.12, 57.375], lwir=[58.395, 57.12, 57.375]),
    ),
    backbone=dict(fusion=dict(type="ConcatFusion")),
    bbox_head=dict(num_classes=1),
)
optim_wrapper = dict(
    optimizer=dict(lr=0.0002),
    paramwise_cfg=dict(custom_keys={"sampling_offsets": dict(lr_mult=0.1), "reference_points": dict(lr_mult=0.1)}),
)

# No validation split: the last two epochs are kept, the last one scored by kaist-kit test.
val_cfg = None
default_hooks = dict(checkpoint=dict(save_best=None))
