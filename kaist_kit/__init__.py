"""kaist-kit: the KAIST multispectral pedestrian benchmark, from annotations to a scored submission.

The core (converters, evaluation, submission, CLI) needs only numpy, msgspec, typer, rich and
matplotlib; the detectors in `kaist_kit.models` need the optional `mmdet` extra.
"""

__version__ = "0.1.0"

from .detections import RESULT_FORMATS, Detections, ReadOptions, ResultFormat, load_detections  # noqa: E402
from .errors import InputError, KitWarning  # noqa: E402
from .evaluate import Evaluation, Result, evaluate, evaluate_files  # noqa: E402
from .groundtruth import GroundTruth, load_ground_truth  # noqa: E402
from .settings import LEADERBOARD, MATLAB, PROTOCOLS, SETTINGS  # noqa: E402

__all__ = [
    "Detections", "Evaluation", "GroundTruth", "InputError", "KitWarning", "LEADERBOARD", "MATLAB",
    "PROTOCOLS", "RESULT_FORMATS", "ReadOptions", "Result", "ResultFormat", "SETTINGS", "evaluate",
    "evaluate_files", "load_detections", "load_ground_truth",
]
