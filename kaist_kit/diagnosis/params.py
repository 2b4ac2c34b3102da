"""What a diagnosis is asked: one frozen record, whose defaults are the kit's (and the CLI's)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, LEVEL
from ..settings import SETTINGS, SPLITS, get_protocol, get_setting

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
    """

    protocol: str = "leaderboard"
    settings: tuple[str, ...] = tuple(SETTINGS)
    splits: tuple[str, ...] = tuple(SPLITS)
    main_setting: str = "reasonable"
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    level: float = LEVEL
    fppi: float = DEFAULT_FPPI
    score_threshold: float | None = None
    foreground_height: float = FOREGROUND_HEIGHT
    examples: int = DEFAULT_EXAMPLES

    def __post_init__(self) -> None:
        get_protocol(self.protocol)
        settings = _unique([self.main_setting, *self.settings])
        for name in settings:
            get_setting(name)
        if self.resamples < 1:
            raise ValueError("resamples must be at least 1")
        # Frozen: the normalised forms are set once, here.
        object.__setattr__(self, "settings", settings)
        object.__setattr__(self, "splits", _unique(self.splits))

    @property
    def operating_rule(self) -> dict:
        """{"score_threshold": x} or {"fppi": x}, as diagnosis.json states it."""
        if self.score_threshold is not None:
            return {"score_threshold": self.score_threshold}
        return {"fppi": self.fppi}


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))
