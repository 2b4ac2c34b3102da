"""The datasets the kit scores: one module per benchmark (its spec and its adapter), one registry.

`spec` is the `Benchmark` spec every dataset fills in; `kaist`, `flir_aligned`, `llvip`, `cvc14` and
`m3fd` are the five the kit ships; `registry` registers them once and is what the verbs ask (`register`
adds a sixth, `get_benchmark` finds one by name, `recognise` from a ground truth's files).
"""

from __future__ import annotations

from .cvc14 import CVC14
from .flir_aligned import FLIR_ALIGNED
from .kaist import (
    KAIST,
    KAIST_IMAGE,
    KAIST_LABELS,
    KAIST_NIGHT_SETS,
    KAIST_PAIRED_LABELS,
    KAIST_SCENES,
    KAIST_SET,
    KAIST_SETS,
    KAIST_TEST_SETS,
    KAIST_VIDEO,
    kaist_frame_period,
    kaist_numbers,
    kaist_parse_split,
    kaist_period,
    kaist_scene,
    kaist_select,
    kaist_set_number,
)
from .llvip import LLVIP
from .m3fd import M3FD
from .registry import (
    BENCHMARKS,
    DEFAULT_BENCHMARK,
    PLUGINS_ENV,
    Recognition,
    get_benchmark,
    recognise,
    register,
    unregister,
)
from .spec import (
    COCO_RULES,
    KAIST_RULES,
    UNNAMED,
    Benchmark,
    Category,
    Citation,
    DataChecks,
    Deferred,
    FrameNames,
    Modality,
    PinnedFile,
    PinnedRules,
    Split,
    TruthRules,
    cameras,
    numbered,
)

# Listed in this order; recognised from a ground truth's image names with CVC-14's distinctive names
# before LLVIP's six digits (a KAIST name also holds five digits: KAIST is tried first).
for _benchmark in (KAIST, FLIR_ALIGNED, LLVIP):
    register(_benchmark)
register(CVC14, recognise_before=LLVIP)
register(M3FD)

__all__ = [
    "BENCHMARKS",
    "COCO_RULES",
    "CVC14",
    "DEFAULT_BENCHMARK",
    "DataChecks",
    "Deferred",
    "FLIR_ALIGNED",
    "KAIST",
    "KAIST_IMAGE",
    "KAIST_LABELS",
    "KAIST_NIGHT_SETS",
    "KAIST_PAIRED_LABELS",
    "KAIST_RULES",
    "KAIST_SCENES",
    "KAIST_SET",
    "KAIST_SETS",
    "KAIST_TEST_SETS",
    "KAIST_VIDEO",
    "LLVIP",
    "M3FD",
    "PLUGINS_ENV",
    "UNNAMED",
    "Benchmark",
    "Category",
    "Citation",
    "FrameNames",
    "Modality",
    "PinnedFile",
    "PinnedRules",
    "Recognition",
    "Split",
    "TruthRules",
    "cameras",
    "get_benchmark",
    "kaist_frame_period",
    "kaist_numbers",
    "kaist_parse_split",
    "kaist_period",
    "kaist_scene",
    "kaist_select",
    "kaist_set_number",
    "numbered",
    "recognise",
    "register",
    "unregister",
]
