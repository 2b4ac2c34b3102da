"""Time the evaluator on the real result files and record the figures in docs/speed.md.

    python speed/eval_speed.py [--kaist ../shared/data/kaist] [--repeat 20]

For each shared result file: reading it, matching it once for all 10 settings, and scoring all
10 settings x 3 splits under each protocol. Reported times are the best of --repeat runs (the
least disturbed by other work on the machine) with the median beside it.
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
from kaist_kit.metrics.evaluate import Evaluation  # noqa: E402
from kaist_kit.metrics.settings import SETTINGS, SPLITS  # noqa: E402

FILES = ("MBNet_result.txt", "MLPD_result.txt", "MLPD_result.json", "MBNet-per-image.tar.gz")


def main() -> None:
    args = real_files_arguments(__doc__.splitlines()[0], repeat=20).parse_args()
    warnings.simplefilter("ignore", KitWarning)

    gt = load_ground_truth(args.kaist / "test-all-20.leaderboard.json")
    rows = []
    for name in FILES:
        path = args.kaist / "results" / name
        load_best, load_med, dets = timed(lambda path=path: load_detections(path, gt), args.repeat)

        def full(protocol, dets=dets):
            evaluation = Evaluation(gt, dets, SETTINGS)
            return [evaluation.score(s, split, protocol) for s in SETTINGS for split in SPLITS]

        match_best, match_med, _ = timed(lambda dets=dets: Evaluation(gt, dets, SETTINGS), args.repeat)
        lb_best, lb_med, results = timed(lambda: full("leaderboard"), args.repeat)
        dk_best, dk_med, _ = timed(lambda: full("matlab"), args.repeat)
        assert len(results) == 30
        rows.append((name, len(dets), load_best, load_med, match_best, match_med, lb_best, lb_med, dk_best, dk_med))

    machine = describe()
    table = [
        "| result file | detections | read | match, 10 settings | 10 settings x 3 splits, leaderboard | same, matlab |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, n, *t in rows:
        cells = [f"{1000 * t[i]:.1f} ms ({1000 * t[i + 1]:.1f})" for i in range(0, 8, 2)]
        table.append(f"| {name} | {n} | " + " | ".join(cells) + " |")
    publish(
        args.doc,
        "## Evaluation speed",
        [
            "## Evaluation speed",
            "",
            f"Measured by `python speed/eval_speed.py` on: {machine}.",
            f'Best of {args.repeat} runs (median in brackets). "10 settings x 3 splits" includes the '
            "matching; reading the file is separate.",
            "",
            *table,
            "",
            "For comparison, the leaderboard's own evaluation script takes 2 to 14 seconds on such a "
            "machine for only reasonable all / day / night.",
            "",
        ],
    )


if __name__ == "__main__":
    main()
