"""Visible + thermal pedestrian detectors in mmdetection 3 (needs the optional `mmdet` extra).

Importing this package registers the kit's modules in mmdetection's registries; configs load it
with ``custom_imports = dict(imports=['kaist_kit.models'], allow_failed_imports=False)``.

How a frame pair travels through the pipeline:

- `KaistDataset` reads the converter's COCO JSON (or the leaderboard's) and gives each frame an
  ``img_path`` (visible) and an ``lwir_path``; annotations flagged ``ignore`` become ignore
  instances (``ignore_flag=1``), which mmdet's assigners skip when ``ignore_iof_thr`` is set.
- `LoadKaistPair` reads both pictures into one six-channel image, visible BGR in channels 0-2 and
  lwir in channels 3-5. mmdet's geometric transforms (Resize, RandomFlip, RandomCrop, ...; `PadPair`
  for padding) then move both modalities as one array, so they stay pixel-aligned by construction.
- `PerModality` applies photometric transforms to each modality on its own; `ShiftLwir` moves the
  thermal picture against the visible one (the misalignment test of `kaist-kit test --shift-lwir`).
- `PairDataPreprocessor` picks the modalities a model uses and normalises each with its own mean
  and std: visible RGB then lwir (six channels), or one of them alone (three).
- The model splits the channels as it needs: `TwoStreamBackbone` (halfway fusion) runs one
  backbone per modality and fuses each stage with a `ConcatFusion`, `WeightedSumFusion`,
  `AttentionFusion` or `GatedFusion` (for DINO and Deformable DETR: the levels they read, before
  their channel mapper); early fusion is a single backbone with ``in_channels=6`` (`PairPretrained`
  starts its first convolution from a three-channel checkpoint);
  `LateFusionDetector` runs one detector per modality and merges their boxes.
- `KaistMetric` scores the predictions with the kit's evaluator (LAMR all / day / night);
  `BenchmarkMetric` another benchmark's with COCO's AP per class (``KaistDataset(benchmark=...)``
  reads its classes, frame size and picture paths).

Importing changes nothing else: mmengine's checkpoint loading stays as it is. The kit's own
verbs load checkpoints within `weights_only_checkpoints`: torch's weights-only unpickler, admitting
what mmdetection's and mmengine's checkpoints hold besides tensors and refusing anything else (a
pickle can name code to run); scripts of your own can call `use_weights_only_checkpoints`.
"""

from .checkpoints import use_weights_only_checkpoints, weights_only_checkpoints
from .data import KaistDataset, LoadKaistPair, PadPair, PerModality, ShiftLwir
from .fusion import AttentionFusion, ConcatFusion, GatedFusion, TwoStreamBackbone, WeightedSumFusion
from .init_checkpoint import PairPretrained, init_checkpoint
from .late_fusion import LateFusionDetector
from .metric import BenchmarkMetric, KaistMetric
from .preprocessor import PairDataPreprocessor

__all__ = [
    "AttentionFusion",
    "BenchmarkMetric",
    "ConcatFusion",
    "GatedFusion",
    "KaistDataset",
    "KaistMetric",
    "LateFusionDetector",
    "LoadKaistPair",
    "PadPair",
    "PairDataPreprocessor",
    "PairPretrained",
    "PerModality",
    "ShiftLwir",
    "TwoStreamBackbone",
    "WeightedSumFusion",
    "init_checkpoint",
    "use_weights_only_checkpoints",
    "weights_only_checkpoints",
]
