# Colour-only baseline on the synthetic KAIST: the small DINO from scratch.
_base_ = [
    "./_base_/models/dino_r18_synth.py",
    "./_base_/datasets/kaist_synth.py",
    "./_base_/schedules/schedule_detr_synth.py",
    "./_base_/default_runtime.py",
]

model = dict(data_preprocessor=dict(modalities=("visible",)))
