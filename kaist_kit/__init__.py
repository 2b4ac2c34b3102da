"""kaist-kit: the KAIST multispectral pedestrian benchmark, from annotations to a scored submission.

The core (converters, evaluation, submission, CLI) needs only numpy, msgspec, typer, rich and
matplotlib; the detectors in `kaist_kit.models` need the optional `mmdet` extra. The public names
below are imported on first use (`kaist_kit.exports`): `import kaist_kit` imports none of them.
"""

__version__ = "0.1.0"

from .exports import export_lazily  # noqa: E402

export_lazily(
    __name__,
    {
        "Detections": ".data.detections",
        "RESULT_FORMATS": ".data.detections",
        "ReadOptions": ".data.detections",
        "ResultFormat": ".data.detections",
        "load_detections": ".data.results",
        "InputError": ".errors",
        "KitWarning": ".errors",
        "Evaluation": ".metrics.evaluate",
        "Result": ".metrics.evaluate",
        "evaluate": ".metrics.evaluate",
        "evaluate_files": ".metrics.evaluate",
        "ResultFiles": ".metrics.evaluate",
        "ScoreGrid": ".metrics.evaluate",
        "GroundTruth": ".data.groundtruth",
        "load_ground_truth": ".datasets.kaist_truth",
        "LEADERBOARD": ".metrics.settings",
        "MATLAB": ".metrics.settings",
        "PROTOCOLS": ".metrics.settings",
        "SETTINGS": ".metrics.settings",
    },
)
