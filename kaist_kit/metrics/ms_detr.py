"""MS-DETR's evaluation of CVC-14 as specs: its settings under its names, the results it reports, and
the numpy arithmetic it runs on (docs/benchmarks-other.md, "The log-average miss rate of CVC-14").

MS-DETR (YinghuiXing/MS-DETR at a726dcc) scores CVC-14 with ``kaist_eval_full(detDir, gtDir, 'test',
cvc14=True)`` (eval/kaist_eval_full.py, with ``loadAll``, ``evalRes`` and ``compRoc`` of eval/bbGt.py):
the KAIST devkit's rules in numpy, which it runs on numpy 1.x (on numpy 2 it stops in ``compRoc``).
Two of its numbers depend on that numpy and on the CPU under it:

- the reference FPPIs, ``np.power(10, np.arange(-2, 0.25, 0.25))``: numpy 1.26 on Linux on an AVX-512
  CPU computes powers with SVML, which gives 10^-1.25 and 10^-1 one unit in the last place below the exact
  values (0.09999999999999999 for 0.1), so that a curve point at exactly FPPI 0.1 is left out;
  elsewhere numpy 1.26 gives the exact powers;
- the order of equal keys: it sorts each image's detections by score, each image's ground truths by
  their ignore flag and the curve's detections by score with ``np.argsort`` (unstable), whose order of
  ties is numpy 1.26's AVX-512 sort or its introsort (`kaist_kit.metrics.sort_orders`).

`ms_detr_protocol` is the KAIST evaluator's protocol with both, for numpy 1.26 on this machine or on
another (``order``).
"""

from __future__ import annotations

import math

import numpy as np

from .settings import MATLAB, Protocol, Setting
from .sort_orders import NUMPY1_AVX512, NUMPY1_INTROSORT, STABLE, THIS_NUMPY, numpy1_order

# np.power(10, np.arange(-2, 0.25, 0.25)) as numpy 1.26 computes it on Linux on an AVX-512 CPU (SVML); the
# exact powers are the devkit's (MATLAB's 10.^(-2:.25:0)), as numpy 1.26 computes them elsewhere.
NUMPY1_AVX512_REFS = (
    0.01,
    0.01778279410038923,
    0.03162277660168379,
    0.056234132519034905,
    0.09999999999999999,
    0.1778279410038923,
    0.31622776601683794,
    0.5623413251903491,
    1.0,
)
EXACT_REFS = MATLAB.fppi_refs

_BOTH = frozenset({0, 1})
_NONE = frozenset({0})
# Its settings for CVC-14 (testSettings with cvc14=True): [name, condition, height range, occlusion
# types], the border xRng [5, 635] and yRng [5, 466] of the 640 x 471 frame (the kit's 5-pixel border).
# CVC-14 has no occlusion labels: every box is 'none', so 'Reasonable-near' and 'Scale=near' agree.
SETTINGS = (
    Setting("Reasonable", (55, math.inf), _BOTH, "ms-detr", "height >= 55, no or partial occlusion"),
    Setting("Reasonable-near", (115, math.inf), _BOTH, "ms-detr", "height >= 115, no or partial occlusion"),
    Setting("Reasonable-medium", (55, 115), _BOTH, "ms-detr", "height 55-115, no or partial occlusion"),
    Setting("Scale=near", (115, math.inf), _NONE, "ms-detr", "height >= 115, no occlusion"),
    Setting("Scale=medium", (45, 115), _NONE, "ms-detr", "height 45-115, no occlusion"),
    Setting("Scale=far", (1, 45), _NONE, "ms-detr", "height 1-45, no occlusion"),
    Setting(
        "all",
        (1, math.inf),
        _BOTH,
        "ms-detr",
        "height >= 1, no or partial occlusion (MS-DETR's CVC-14 'all'; the kit's all-pedestrians is height >= 20)",
    ),
)
SETTING_NAMES = tuple(s.name for s in SETTINGS)

# The fifteen results kaist_eval_full returns with cvc14=True, by the key it gives each:
# (setting, split) -> key ('test-all', 'test-day', 'test-night' are the splits all, day, night).
RESULT_KEYS = {
    ("Reasonable", "all"): "Reasonable-all",
    ("Reasonable", "day"): "Reasonable-day",
    ("Reasonable", "night"): "Reasonable-night",
    ("Reasonable-near", "all"): "Reasonable-near",
    ("Reasonable-medium", "all"): "Reasonable-medium",
    ("Reasonable-near", "day"): "Reasonable-day-near",
    ("Reasonable-medium", "day"): "Reasonable-day-medium",
    ("Reasonable-near", "night"): "Reasonable-night-near",
    ("Reasonable-medium", "night"): "Reasonable-night-medium",
    ("Scale=near", "all"): "Scale=near",
    ("Scale=medium", "all"): "Scale=medium",
    ("Scale=far", "all"): "Scale=far",
    ("all", "all"): "all",
    ("all", "day"): "all-day",
    ("all", "night"): "all-night",
}

_NUMPY = {
    NUMPY1_AVX512: "numpy 1.26 on Linux on an AVX-512 CPU",
    NUMPY1_INTROSORT: "numpy 1.26 on a CPU without AVX-512",
    THIS_NUMPY: f"numpy {np.__version__} on this CPU",
    STABLE: "exact powers and stable sorts",
}


def numpy_refs(order: str) -> tuple[float, ...]:
    """MS-DETR's reference FPPIs as the numpy of ``order`` computes them."""
    if order == NUMPY1_AVX512:
        return NUMPY1_AVX512_REFS
    if order == THIS_NUMPY:
        return tuple(float(v) for v in np.power(10, np.arange(-2, 0.25, 0.25)))
    return EXACT_REFS


def ms_detr_protocol(order: str = "") -> Protocol:
    """The KAIST evaluator's protocol as MS-DETR's evaluation of CVC-14 runs on numpy: numpy 1.26 on this
    machine by default, else the numpy and CPU ``order`` names (`kaist_kit.metrics.sort_orders`: numpy1-avx512,
    numpy1-introsort, numpy for the running numpy, stable for exact powers and stable sorts)."""
    order = order or numpy1_order()
    if order not in _NUMPY:
        raise ValueError(f"unknown numpy order {order!r}; choose from {', '.join(_NUMPY)}")
    return Protocol(
        name="ms-detr",
        fppi_refs=numpy_refs(order),
        below_first_reads_last=False,
        miss_rate_floor=1e-10,
        skips_images_without_detections=False,
        id_zero_is_unmatched=False,
        max_detections_per_image=None,
        description=f"MS-DETR's evaluation of CVC-14, as it runs on {_NUMPY[order]}",
        tie_order=order,
    )


def setting(name: str) -> Setting | None:
    """MS-DETR's setting of this name, if it has one."""
    return next((s for s in SETTINGS if s.name == name), None)


def named(candidate: Setting) -> Setting:
    """MS-DETR's setting with the same rules as ``candidate`` (the kit's 'reasonable' is its
    'Reasonable', 'far' its 'Scale=far'), else ``candidate``."""
    rules = (candidate.height, candidate.occlusions, candidate.border, candidate.squarify)
    return next((s for s in SETTINGS if (s.height, s.occlusions, s.border, s.squarify) == rules), candidate)
