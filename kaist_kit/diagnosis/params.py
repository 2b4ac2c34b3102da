"""What a diagnosis is asked: one frozen record, whose defaults are the kit's (and the CLI's)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields

from ..metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, LEVEL
from ..metrics.matching import MATCH_THRESHOLD
from ..metrics.settings import (
    DEFAULT_FPPI_RANGE,
    SETTINGS,
    SPLITS,
    Protocol,
    get_protocol,
    get_setting,
    with_fppi_range,
)

# Hwang et al. (CVPR 2015) call pedestrians of 115 pixels or taller "near": within about 11 m of
# the vehicle with KAIST's cameras. Unoccluded ones of that size are the foreground a driver
# assistance system must not miss.
FOREGROUND_HEIGHT = 115.0
DEFAULT_FPPI = 1.0
DEFAULT_EXAMPLES = 3


@dataclass(frozen=True)
class DiagnosisParams:
    """The questions of a diagnosis (docs/diagnosis.md).

    ``settings`` are scored with intervals; the main setting is put first among them, and the false
    positives, misses, oracles and examples tables show it. The operating point is the prefix of the
    curve scoring at least ``score_threshold`` when it is given, else up to the last detection whose
    FPPI does not exceed ``fppi``. ``examples`` is the number of worst examples per error type.
    Everything is matched at ``iou`` (a duplicate is a false positive on a taken pedestrian at that
    IoU), and LAMRs read the curve over ``fppi_range`` (see `settings.with_fppi_range`).
    """

    protocol: str = "leaderboard"
    settings: tuple[str, ...] = tuple(SETTINGS)
    splits: tuple[str, ...] = tuple(SPLITS)
    # The questions of the diagnosis alone, each with the option `diagnose` asks it by.
    main_setting: str = field(default="reasonable", metadata={"option": "--setting"})
    resamples: int = field(default=DEFAULT_RESAMPLES, metadata={"option": "--resamples"})
    seed: int = field(default=DEFAULT_SEED, metadata={"option": "--seed"})
    level: float = LEVEL
    fppi: float = field(default=DEFAULT_FPPI, metadata={"option": "--fppi"})
    score_threshold: float | None = field(default=None, metadata={"option": "--score-threshold"})
    foreground_height: float = field(default=FOREGROUND_HEIGHT, metadata={"option": "--foreground-height"})
    examples: int = field(default=DEFAULT_EXAMPLES, metadata={"option": "--examples"})
    iou: float = MATCH_THRESHOLD
    fppi_range: tuple[float, float] = DEFAULT_FPPI_RANGE

    def options_given(self) -> list[str]:
        """The options of the diagnosis' own questions that are not at their defaults."""
        return [
            f.metadata["option"] for f in fields(self) if "option" in f.metadata and getattr(self, f.name) != f.default
        ]

    def __post_init__(self) -> None:
        with_fppi_range(get_protocol(self.protocol), self.fppi_range)
        # Custom settings go by the name that spells out their parameters.
        main_setting = get_setting(self.main_setting).name
        settings = _unique([main_setting, *(get_setting(name).name for name in self.settings)])
        if self.resamples < 1:
            raise ValueError("resamples must be at least 1")
        if not 0 < self.iou < 1:
            raise ValueError(f"IoU threshold {self.iou!r} must lie between 0 and 1")
        # Frozen: the normalised forms are set once, here.
        object.__setattr__(self, "main_setting", main_setting)
        object.__setattr__(self, "settings", settings)
        object.__setattr__(self, "splits", _unique(self.splits))

    @property
    def scoring_protocol(self) -> Protocol:
        """The protocol, reading its curves over ``fppi_range``."""
        return with_fppi_range(get_protocol(self.protocol), self.fppi_range)

    @property
    def operating_rule(self) -> dict:
        """{"score_threshold": x} or {"fppi": x}, as diagnosis.json states it."""
        if self.score_threshold is not None:
            return {"score_threshold": self.score_threshold}
        return {"fppi": self.fppi}


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))
