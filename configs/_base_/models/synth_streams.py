# What the small synthetic detectors share: a half-width ResNet-18 trained from scratch (one per
# modality in halfway fusion) and the pair preprocessor with the synthetic pictures' statistics.
resnet18 = dict(
    type="ResNet",
    depth=18,
    # Half the usual width (32 to 256 channels): enough for the synthetic pictures, and a quarter
    # of the cost.
    base_channels=32,
    num_stages=4,
    out_indices=(0, 1, 2, 3),
    frozen_stages=-1,
    norm_cfg=dict(type="BN", requires_grad=True),
    norm_eval=False,
    style="pytorch",
    init_cfg=None,
)

# The three levels DINO and Deformable DETR read (strides 8, 16, 32), before their channel mapper.
resnet18_levels = dict(resnet18, out_indices=(1, 2, 3))

# Measured on the synthetic training pictures.
pair_statistics = dict(
    type="PairDataPreprocessor",
    modalities=("visible", "lwir"),
    mean=dict(visible=[80.0, 81.0, 85.0], lwir=[96.0]),
    std=dict(visible=[58.0, 59.0, 63.0], lwir=[42.0]),
    bgr_to_rgb=True,
    pad_size_divisor=32,
)
# _delete_: it replaces mmdetection's DetDataPreprocessor rather than merging into it.
pair_preprocessor = dict(pair_statistics, _delete_=True)
