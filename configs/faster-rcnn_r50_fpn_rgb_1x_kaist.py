# Colour-only baseline: Faster R-CNN R50-FPN on the visible pictures of KAIST.
_base_ = [
    "./_base_/models/faster-rcnn_r50_fpn_kaist.py",
    "./_base_/datasets/kaist.py",
    "./_base_/schedules/schedule_1x.py",
    "./_base_/default_runtime.py",
]

# Same data as the fusion models; the preprocessor passes the visible channels only.
model = dict(data_preprocessor=dict(modalities=("visible",)))
