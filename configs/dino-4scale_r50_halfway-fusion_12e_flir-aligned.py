# Two-stream DINO 4-scale R50 on FLIR-aligned (640 x 512, three classes: person, bicycle, car): the KAIST recipe
# (dino-4scale_r50_halfway-fusion_12e_kaist.py) at its frame size and classes: a ResNet-50 per modality,
# concatenated and mixed by a 1x1 convolution at each of the three levels the transformer reads, before
# its channel mapper. Trains on the train split without validation; `kaist-kit test` scores the last
# epoch on the test split (docs/training.md). Start it from mmdetection's COCO checkpoint:
#   kaist-kit init-checkpoint configs/dino-4scale_r50_halfway-fusion_12e_flir-aligned.py COCO.pth \
#       --out work_dirs/dino-4scale_r50-flir-aligned-from-coco.pth
# with COCO.pth mmdetection's checkpoint (a file, or its address):
#   https://download.openmmlab.com/mmdetection/v3.0/dino/dino-4scale_r50_8xb2-12e_coco/dino-4scale_r50_8xb2-12e_coco_20221202_182705-55b2bba2.pth
_base_ = [
    "./_base_/models/dino-4scale_r50_kaist.py",
    "./_base_/datasets/flir_aligned.py",
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
    bbox_head=dict(num_classes=3),
)

# No validation split: the last two epochs are kept, the last one scored by kaist-kit test.
val_cfg = None
default_hooks = dict(checkpoint=dict(save_best=None))
