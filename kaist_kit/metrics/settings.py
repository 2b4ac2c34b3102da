"""Evaluation settings and the two protocols (see docs/evaluation.md).

A setting decides which ground-truth boxes count; a protocol decides how the curve is read and
scored. Both are plain data so that every part of the kit (CLI, metric hook, diagnosis) agrees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

from ..data.frames import SCENES
from ..datasets import KAIST, KAIST_TEST_SETS
from ..errors import by_name

OCCLUSION_NAMES = {0: "none", 1: "partial", 2: "heavy"}

# KAIST's frame size (the spec's: every frame, visible and lwir); files that do not say their size
# are read as this.
KAIST_FRAME_SIZE = KAIST.image_size

# A box closer than this to the image border is ignored in every setting (the spec's border). For a
# KAIST frame these are the benchmark's bounds x >= 5, y >= 5, x + w <= width - 5, y + h <= height - 5.
BORDER_MARGIN = KAIST.border


# The aspect ratio (width / height) the original KAIST demo squarified pedestrians to.
SQUARIFY_RATIO = 0.41


@dataclass(frozen=True)
class Setting:
    name: str
    height: tuple[float, float]  # inclusive
    occlusions: frozenset[int]
    source: str  # where the setting comes from: "both", "leaderboard", "matlab", "papers" or "custom"
    description: str
    border: float = BORDER_MARGIN  # boxes closer than this to the image border are ignored
    # When set, every box that counts is given this width / height about its centre before matching,
    # keeping its height, as the devkit's bbGt does with 'squarify',{3,ratio}; ignored boxes keep theirs.
    squarify: float | None = None


SETTINGS: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting("reasonable", (55, math.inf), frozenset({0, 1}), "both", "height >= 55, no or partial occlusion"),
        Setting(
            "reasonable-small", (50, 75), frozenset({0, 1}), "leaderboard", "height 50-75, no or partial occlusion"
        ),
        Setting("reasonable-heavy", (50, math.inf), frozenset({2}), "leaderboard", "height >= 50, heavy occlusion"),
        Setting("all-pedestrians", (20, math.inf), frozenset({0, 1, 2}), "leaderboard", "height >= 20, any occlusion"),
        Setting("near", (115, math.inf), frozenset({0}), "matlab", "height >= 115, no occlusion"),
        Setting("medium", (45, 115), frozenset({0}), "matlab", "height 45-115, no occlusion"),
        Setting("far", (1, 45), frozenset({0}), "matlab", "height 1-45, no occlusion"),
        Setting("occ-none", (1, math.inf), frozenset({0}), "matlab", "height >= 1, no occlusion"),
        Setting("occ-partial", (1, math.inf), frozenset({1}), "matlab", "height >= 1, partial occlusion"),
        Setting("occ-heavy", (1, math.inf), frozenset({2}), "matlab", "height >= 1, heavy occlusion"),
    )
}

# Named variants that are not one of the benchmark's ten settings.
PRESETS: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting(
            "reasonable-h50",
            (50, math.inf),
            frozenset({0, 1}),
            "papers",
            "height >= 50, no or partial occlusion (the 'reasonable' of several papers)",
        ),
    )
}

LEADERBOARD_SETTINGS = ("reasonable", "reasonable-small", "reasonable-heavy", "all-pedestrians")
MATLAB_SETTINGS = ("reasonable", "near", "medium", "far", "occ-none", "occ-partial", "occ-heavy")


@dataclass(frozen=True)
class Protocol:
    name: str
    fppi_refs: tuple[float, ...]
    # What a reference FPPI below the first point of the curve reads: the leaderboard indexes the
    # recall array with -1 and so reads its last point; the devkit reads recall 0.
    below_first_reads_last: bool
    # The devkit floors miss rates before the logarithm; the leaderboard lets a miss rate of 0
    # make the geometric mean exactly 0.
    miss_rate_floor: float
    # The leaderboard returns no per-image record for an image without detections, so the
    # pedestrians in it leave the recall denominator.
    skips_images_without_detections: bool
    # The leaderboard stores the matched ground truth's id as the match flag, so a match to the
    # annotation with id 0 reads as "no match".
    id_zero_is_unmatched: bool
    max_detections_per_image: int | None
    description: str
    # How equal keys are ordered (kaist_kit.metrics.sort_orders): "stable", file order, as MATLAB's sort and
    # Python's sorted keep it; or as numpy's default argsort leaves them, for an evaluator that sorts
    # scores and ignore flags with it (MS-DETR's), which orders detections, ground truths and the curve.
    tie_order: str = "stable"


LEADERBOARD = Protocol(
    name="leaderboard",
    fppi_refs=(0.0100, 0.0178, 0.0316, 0.0562, 0.1000, 0.1778, 0.3162, 0.5623, 1.0000),
    below_first_reads_last=True,
    miss_rate_floor=0.0,
    skips_images_without_detections=True,
    id_zero_is_unmatched=True,
    max_detections_per_image=1000,
    description="the public KAIST leaderboard's evaluator",
)

MATLAB = Protocol(
    name="matlab",
    fppi_refs=tuple(10.0 ** (-2 + k / 4) for k in range(9)),
    below_first_reads_last=False,
    miss_rate_floor=1e-10,
    skips_images_without_detections=False,
    id_zero_is_unmatched=False,
    max_detections_per_image=None,
    description="the KAIST MATLAB devkit (kaist_eval_full.m with bbGt.m), as most papers report",
)

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (LEADERBOARD, MATLAB)}

SPLITS = ("all", "day", "night")
# Splits by scene and by set of the test videos (set06 to set11); any setNN of a ground truth works.
SCENE_SPLITS = SCENES + tuple(f"{scene}-{period}" for scene in SCENES for period in ("day", "night"))
SET_SPLITS = tuple(f"set{n:02d}" for n in sorted(KAIST_TEST_SETS))


# Reference FPPI range of the LAMR; the points are 10^k for k from log10(low) to log10(high) in
# steps of 0.25, as Dollar's toolbox reads them (10.^(-2:.25:0)); 1e-4 to 1 gives MR-4's 17 points.
DEFAULT_FPPI_RANGE = (1e-2, 1.0)
FPPI_STEP = 0.25


SETTING_KEYS = ("height", "occlusion", "border", "squarify")
_OCCLUSION_CODES = {name: code for code, name in OCCLUSION_NAMES.items()}


def get_setting(name: str | Setting) -> Setting:
    """A named setting or preset, or a custom one spelled as in `parse_setting`."""
    if isinstance(name, Setting):
        return name
    if name in SETTINGS:
        return SETTINGS[name]
    if name in PRESETS:
        return PRESETS[name]
    if "=" in name or "," in name:
        return parse_setting(name)
    raise ValueError(
        f"unknown setting {name!r}; choose from {', '.join([*SETTINGS, *PRESETS])}, "
        "or define one as height=50:inf,occlusion=none+partial"
    )


@lru_cache(maxsize=256)
def parse_setting(spec: str) -> Setting:
    """A custom setting from ``KEY=VALUE`` items separated by commas, optionally after a named setting
    whose parameters the items then change:

    - ``height=LOW:HIGH`` (inclusive; ``inf`` for no upper bound; default ``0:inf``)
    - ``occlusion=none+partial`` (any of none, partial, heavy joined by ``+``, or ``any``; default any)
    - ``border=PIXELS`` (boxes closer than this to the image border are ignored; default 5)
    - ``squarify`` or ``squarify=RATIO`` (counted boxes get width = RATIO x height; 0.41 when not given)

    The setting's name spells out every parameter, e.g. ``height=50:inf,occlusion=none+partial,border=5``.
    """
    items = [item.strip() for item in spec.split(",") if item.strip()]
    if not items:
        raise ValueError("empty setting")
    base = None
    if "=" not in items[0] and items[0] != "squarify":
        if items[0] not in SETTINGS and items[0] not in PRESETS:
            raise ValueError(
                f"unknown setting {items[0]!r} in {spec!r}; choose from {', '.join([*SETTINGS, *PRESETS])}"
            )
        base = get_setting(items.pop(0))
    height = base.height if base else (0.0, math.inf)
    occlusions = base.occlusions if base else frozenset(OCCLUSION_NAMES)
    border = base.border if base else float(BORDER_MARGIN)
    squarify = base.squarify if base else None
    seen = set()
    for item in items:
        key, _, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if key not in SETTING_KEYS:
            raise ValueError(f"unknown setting parameter {key!r} in {spec!r}; use {', '.join(SETTING_KEYS)}")
        if key in seen:
            raise ValueError(f"{key} given twice in {spec!r}")
        seen.add(key)
        if key == "squarify":
            squarify = SQUARIFY_RATIO if not value else _positive(value, key, spec)
        elif not value:
            raise ValueError(f"{key} needs a value in {spec!r}")
        elif key == "height":
            height = _height_range(value, spec)
        elif key == "occlusion":
            occlusions = _occlusions(value, spec)
        else:
            border = _number(value, key, spec)
            if border < 0:
                raise ValueError(f"border must not be negative in {spec!r}")
    name = setting_name(height, occlusions, border, squarify)
    return Setting(
        name, height, occlusions, "custom", describe_setting(height, occlusions, border, squarify), border, squarify
    )


def setting_name(height: tuple[float, float], occlusions: frozenset[int], border: float, squarify: float | None) -> str:
    """The name of a custom setting, which spells out its parameters (and reads back as the same setting)."""
    occlusion = "+".join(OCCLUSION_NAMES[k] for k in sorted(occlusions))
    name = f"height={_plain(height[0])}:{_plain(height[1])},occlusion={occlusion},border={_plain(border)}"
    return name + (f",squarify={_plain(squarify)}" if squarify is not None else "")


def describe_setting(
    height: tuple[float, float], occlusions: frozenset[int], border: float, squarify: float | None
) -> str:
    lo, hi = height
    size = f"height >= {_plain(lo)}" if math.isinf(hi) else f"height {_plain(lo)}-{_plain(hi)}"
    occlusion = (
        "any occlusion"
        if len(occlusions) == len(OCCLUSION_NAMES)
        else "occlusion " + " or ".join(OCCLUSION_NAMES[k] for k in sorted(occlusions))
    )
    parts = [size, occlusion, f"border margin {_plain(border)}"]
    if squarify is not None:
        parts.append(f"pedestrians squarified to width {_plain(squarify)} x height")
    return ", ".join(parts)


def _plain(value: float) -> str:
    if math.isinf(value):
        return "inf"
    return str(int(value)) if value == int(value) else repr(float(value))


def _number(value: str, key: str, spec: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{key}={value!r} is not a number in {spec!r}") from None
    if math.isnan(number):
        raise ValueError(f"{key}={value!r} is not a number in {spec!r}")
    return number


def _positive(value: str, key: str, spec: str) -> float:
    number = _number(value, key, spec)
    if not (0 < number < math.inf):
        raise ValueError(f"{key} must be a positive number in {spec!r}")
    return number


def _height_range(value: str, spec: str) -> tuple[float, float]:
    low, sep, high = value.partition(":")
    if not sep:
        raise ValueError(f"height={value!r} is not LOW:HIGH (e.g. 50:inf) in {spec!r}")
    lo = _number(low, "height", spec) if low.strip() else 0.0
    hi = _number(high, "height", spec) if high.strip() else math.inf
    if lo < 0 or hi < lo or math.isinf(lo):
        raise ValueError(f"height={value!r} is not a range LOW:HIGH with 0 <= LOW <= HIGH in {spec!r}")
    return (lo, hi)


def _occlusions(value: str, spec: str) -> frozenset[int]:
    if value == "any":
        return frozenset(OCCLUSION_NAMES)
    codes = set()
    for part in value.split("+"):
        part = part.strip()
        if part in _OCCLUSION_CODES:
            codes.add(_OCCLUSION_CODES[part])
        elif part in ("0", "1", "2"):
            codes.add(int(part))
        else:
            raise ValueError(f"occlusion {part!r} in {spec!r}; use none, partial, heavy joined by '+', or any")
    return frozenset(codes)


def fppi_references(low: float, high: float) -> tuple[float, ...]:
    """10^k for k from log10(low) to log10(high) in steps of 0.25: exact powers, as the devkit's
    ``10.^(-2:.25:0)``."""
    if not (0 < low < high < math.inf):
        raise ValueError(f"FPPI range {low:g}:{high:g} must satisfy 0 < LOW < HIGH")
    lo, hi = math.log10(low), math.log10(high)
    # As MATLAB's colon operator, tolerate rounding in the number of steps.
    count = int(math.floor((hi - lo) / FPPI_STEP + 1e-10)) + 1
    return tuple(10.0 ** (lo + k * FPPI_STEP) for k in range(count))


def with_fppi_range(proto: Protocol, fppi_range: tuple[float, float] = DEFAULT_FPPI_RANGE) -> Protocol:
    """The protocol reading its curves at the reference points of ``fppi_range``.

    The default range keeps each protocol's own values: the leaderboard's nine rounded ones; any
    other range reads exact powers under both protocols.
    """
    low, high = fppi_range
    if (low, high) == DEFAULT_FPPI_RANGE:
        return proto
    return replace(proto, fppi_refs=fppi_references(low, high))


def own_fppi_range(proto: Protocol) -> tuple[float, float] | None:
    """The reference FPPI range a protocol reads when it is not its own, else None."""
    base = PROTOCOLS.get(proto.name)
    if base is None or proto.fppi_refs == base.fppi_refs:
        return None
    return proto.fppi_refs[0], proto.fppi_refs[-1]


def lamr_variant(iou: float | None, fppi_range: tuple[float, float] | None) -> str:
    """' at IoU 0.75 over FPPI 0.0001 to 1': what sets a LAMR apart from the benchmark's (IoU 0.5 or
    None, the protocol's own reference FPPI when None); '' for that one."""
    text = f" at IoU {iou:g}" if iou is not None and iou != 0.5 else ""
    if fppi_range is not None:
        text += f" over FPPI {fppi_range[0]:g} to {fppi_range[1]:g}"
    return text


def parse_fppi_range(text: str) -> tuple[float, float]:
    """'1e-4:1' -> (0.0001, 1.0)."""
    low, sep, high = text.partition(":")
    try:
        if not sep:
            raise ValueError
        values = (float(low), float(high))
    except ValueError:
        raise ValueError(f"FPPI range {text!r} is not LOW:HIGH, e.g. 1e-4:1") from None
    fppi_references(*values)
    return values


def get_protocol(name: str | Protocol) -> Protocol:
    """A protocol by name; a Protocol (one with another FPPI range, say) is returned as it is."""
    return by_name(name, Protocol, PROTOCOLS, "protocol")
