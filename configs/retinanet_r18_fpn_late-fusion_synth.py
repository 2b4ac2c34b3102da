# Late fusion on the synthetic KAIST: a colour and a thermal RetinaNet R18-FPN trained side by side,
# their boxes merged by probabilistic ensembling.
_base_ = [
    "./_base_/models/retinanet_r18_fpn_synth.py",
    "./_base_/datasets/kaist_synth.py",
    "./_base_/schedules/schedule_synth.py",
    "./_base_/default_runtime.py",
]

model = dict(
    _delete_=True,
    type="LateFusionDetector",
    data_preprocessor={{_base_.model.data_preprocessor}},
    visible={{_base_.model}},
    lwir={{_base_.model}},
    merge="probabilistic",
)
