# Two-stream Deformable DETR R50 (box refinement, two-stage queries) on KAIST: a ResNet-50 per modality,
# concatenated and mixed by a 1x1 convolution at each of the three levels it reads (halfway fusion),
# before its channel mapper. Start it from mmdetection's COCO Deformable DETR of the same kind:
#   kaist-kit init-checkpoint configs/deformable-detr-refine-twostage_r50_halfway-fusion_12e_kaist.py COCO.pth \
#       --out work_dirs/deformable-detr-halfway-from-coco.pth
# with COCO.pth mmdetection's checkpoint (a file, or its address):
#   https://download.openmmlab.com/mmdetection/v3.0/deformable_detr/deformable-detr-refine-twostage_r50_16xb2-50e_coco/deformable-detr-refine-twostage_r50_16xb2-50e_coco_20221021_184714-acc8a5ff.pth
#   kaist-kit train configs/deformable-detr-refine-twostage_r50_halfway-fusion_12e_kaist.py \
#       --cfg-options load_from=work_dirs/deformable-detr-halfway-from-coco.pth
# Fine-tuned for DINO's 12 epochs (mmdetection trains it 50 on COCO from ImageNet) at its own lr, 2e-4.
_base_ = [
    "./_base_/models/deformable-detr-refine-twostage_r50_kaist.py",
    "./_base_/datasets/kaist.py",
    "./_base_/schedules/schedule_detr_12e.py",
    "./_base_/default_runtime.py",
]

model = dict(backbone=dict(fusion=dict(type="ConcatFusion")))
optim_wrapper = dict(
    optimizer=dict(lr=0.0002),
    paramwise_cfg=dict(custom_keys={"sampling_offsets": dict(lr_mult=0.1), "reference_points": dict(lr_mult=0.1)}),
)
