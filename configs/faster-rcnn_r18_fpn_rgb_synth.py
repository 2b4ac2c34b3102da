# Colour-only baseline on the synthetic KAIST: Faster R-CNN R18-FPN from scratch.
_base_ = [
    "./_base_/models/faster-rcnn_r18_fpn_synth.py",
    "./_base_/datasets/kaist_synth.py",
    "./_base_/schedules/schedule_synth.py",
    "./_base_/default_runtime.py",
]

model = dict(data_preprocessor=dict(modalities=("visible",)))
