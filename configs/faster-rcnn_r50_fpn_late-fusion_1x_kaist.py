# Late fusion: a colour and a thermal Faster R-CNN R50-FPN trained side by side, their boxes
# merged by probabilistic ensembling.
_base_ = [
    "./_base_/models/faster-rcnn_r50_fpn_kaist.py",
    "./_base_/datasets/kaist.py",
    "./_base_/schedules/schedule_1x.py",
    "./_base_/default_runtime.py",
]

detector = {{_base_.model}}

model = dict(
    _delete_=True,
    type="LateFusionDetector",
    data_preprocessor={{_base_.model.data_preprocessor}},
    visible=detector,
    lwir=detector,
    # 'probabilistic' or 'nms' (the plain baseline).
    merge="probabilistic",
    iou_threshold=0.5,
    max_per_img=100,
)
