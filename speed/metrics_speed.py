"""Time every number `kaist-kit eval` computes for one method, and record it in docs/speed.md.

    python speed/metrics_speed.py [--kaist ../shared/data/kaist] [--repeat 30]

MBNet's shared result: 10 settings x 3 splits x IoU 0.5, 0.6 and 0.75 x the five metrics (lamr,
ap50, ap75, ap, ar), under each protocol, the matching included and reading the file excluded.
Reported times are the best of --repeat runs (the least disturbed by other work on the machine)
with the median beside it.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import describe, publish, real_files_arguments, timed  # noqa: E402

from kaist_kit.data.results import load_detections  # noqa: E402
from kaist_kit.datasets.kaist_truth import load_ground_truth  # noqa: E402
from kaist_kit.errors import KitWarning  # noqa: E402
from kaist_kit.metrics import coco  # noqa: E402
from kaist_kit.metrics.evaluate import Evaluation, evaluate  # noqa: E402
from kaist_kit.metrics.settings import METRICS, PROTOCOLS, SETTINGS, SPLITS  # noqa: E402

FILE = "MBNet_result.txt"
IOUS = (0.5, 0.6, 0.75)


def main() -> None:
    args = real_files_arguments(__doc__.splitlines()[0], repeat=30).parse_args()
    warnings.simplefilter("ignore", KitWarning)

    gt = load_ground_truth(args.kaist / "test-all-20.leaderboard.json")
    dets = load_detections(args.kaist / "results" / FILE, gt)
    thresholds = sorted(set(IOUS) | set(coco.IOU_THRESHOLDS))

    def matchings():
        evaluation = Evaluation(gt, dets, SETTINGS)
        for iou in thresholds:
            evaluation.matches_at(iou)

    match_best, match_med, _ = timed(matchings, args.repeat)
    rows = []
    for protocol in PROTOCOLS:
        best, med, results = timed(
            lambda protocol=protocol: evaluate(gt, dets, SETTINGS, SPLITS, [protocol], "MBNet", IOUS, list(METRICS)),
            args.repeat,
        )
        assert len(results) == len(SETTINGS) * len(SPLITS) * len(IOUS)
        rows.append((protocol, best, med))

    publish(
        args.doc,
        "## Every metric",
        [
            "## Every metric",
            "",
            f"Measured by `python speed/metrics_speed.py` on: {describe()}.",
            f"{FILE} ({len(dets)} detections): {len(SETTINGS)} settings x {len(SPLITS)} splits x IoU "
            f"{', '.join(map(str, IOUS))} x the five metrics ({', '.join(METRICS)}), the matching included, reading "
            f"the file excluded. Best of {args.repeat} runs (median in brackets).",
            "",
            "| step | time |",
            "|---|---:|",
            f"| matching at the {len(thresholds)} thresholds these need, 10 settings | "
            f"{1000 * match_best:.1f} ms ({1000 * match_med:.1f}) |",
            *(
                f"| all of it, {protocol} protocol ({len(SETTINGS) * len(SPLITS) * len(IOUS)} rows) | "
                f"{1000 * best:.1f} ms ({1000 * med:.1f}) |"
                for protocol, best, med in rows
            ),
            "",
            "The goal is 0.3 s. AP and AR need all ten of the 2024 challenge's thresholds (0.5, 0.6 and 0.75 among "
            "them): one matching each, shared by every setting, split and metric.",
            "",
        ],
    )


if __name__ == "__main__":
    main()
