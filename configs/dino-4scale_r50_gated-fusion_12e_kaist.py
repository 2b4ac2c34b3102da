# Two-stream DINO 4-scale R50 on KAIST with a learnt gate per pixel at each of the three levels DINO
# reads (GatedFusion: g * visible + (1 - g) * lwir, g from both streams' features around each place,
# starting at 0.5), before its channel mapper. Otherwise as dino-4scale_r50_halfway-fusion_12e_kaist.py,
# started from mmdetection's COCO DINO the same way:
#   kaist-kit init-checkpoint configs/dino-4scale_r50_gated-fusion_12e_kaist.py COCO.pth \
#       --out work_dirs/dino-gated-from-coco.pth
# with COCO.pth mmdetection's checkpoint (a file, or its address):
#   https://download.openmmlab.com/mmdetection/v3.0/dino/dino-4scale_r50_8xb2-12e_coco/dino-4scale_r50_8xb2-12e_coco_20221202_182705-55b2bba2.pth
#   kaist-kit train configs/dino-4scale_r50_gated-fusion_12e_kaist.py \
#       --cfg-options load_from=work_dirs/dino-gated-from-coco.pth
_base_ = [
    "./_base_/models/dino-4scale_r50_kaist.py",
    "./_base_/datasets/kaist.py",
    "./_base_/schedules/schedule_detr_12e.py",
    "./_base_/default_runtime.py",
]

model = dict(backbone=dict(fusion=dict(type="GatedFusion")))
