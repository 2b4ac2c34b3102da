# The synthetic schedule (schedule_synth.py: AdamW, warm-up, cosine) for the DETR family from scratch:
# a lower learning rate and DETR's tight gradient clipping, which transformers trained with AdamW need.
_base_ = ["./schedule_synth.py"]

optim_wrapper = dict(optimizer=dict(lr=0.0004, weight_decay=0.0001), clip_grad=dict(max_norm=0.1))
