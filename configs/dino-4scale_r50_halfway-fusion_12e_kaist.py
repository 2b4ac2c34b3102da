# Two-stream DINO 4-scale R50 on KAIST: a ResNet-50 per modality, concatenated and mixed by a 1x1
# convolution at each of the three levels DINO reads (halfway fusion), before its channel mapper, and
# mmdetection's DINO after it. Start it from mmdetection's COCO DINO, both streams filled from its
# backbone (docs/training.md, "DINO and Deformable DETR"):
#   kaist-kit init-checkpoint configs/dino-4scale_r50_halfway-fusion_12e_kaist.py COCO.pth \
#       --out work_dirs/dino-halfway-from-coco.pth
# with COCO.pth mmdetection's checkpoint (a file, or its address):
#   https://download.openmmlab.com/mmdetection/v3.0/dino/dino-4scale_r50_8xb2-12e_coco/dino-4scale_r50_8xb2-12e_coco_20221202_182705-55b2bba2.pth
#   kaist-kit train configs/dino-4scale_r50_halfway-fusion_12e_kaist.py \
#       --cfg-options load_from=work_dirs/dino-halfway-from-coco.pth
# Trains on train-02, keeps the best checkpoint on val-02, scores test-all-20 once (kaist-kit test).
_base_ = [
    "./_base_/models/dino-4scale_r50_kaist.py",
    "./_base_/datasets/kaist.py",
    "./_base_/schedules/schedule_detr_12e.py",
    "./_base_/default_runtime.py",
]

model = dict(backbone=dict(fusion=dict(type="ConcatFusion")))
