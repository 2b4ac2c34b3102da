"""Time the image-level bootstrap on the shared MBNet result and record it in docs/speed.md.

    python speed/bootstrap_speed.py [--kaist ../shared/data/kaist] [--repeat 7] [--resamples 1000]

Times, from a loaded result and ground truth: the matching (once, as `kaist-kit diagnose` does),
1,000 resamples of reasonable all / day / night (drawing the resamples included), and the whole
diagnosis without figures (10 settings x 3 splits, each with its bootstrap, error types, misses,
filtered and oracle LAMRs). Reported times are the best of --repeat runs, the least disturbed by
other work on the machine, with the median beside it.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import describe, publish, real_files_arguments, timed  # noqa: E402

from kaist_kit.data.results import load_detections  # noqa: E402
from kaist_kit.datasets.kaist_truth import load_ground_truth  # noqa: E402
from kaist_kit.diagnosis import DiagnosisParams, diagnose  # noqa: E402
from kaist_kit.errors import KitWarning  # noqa: E402
from kaist_kit.metrics.bootstrap import bootstrap_intervals  # noqa: E402
from kaist_kit.metrics.evaluate import Evaluation  # noqa: E402
from kaist_kit.metrics.settings import LEADERBOARD, SPLITS  # noqa: E402


def main() -> None:
    parser = real_files_arguments(__doc__.splitlines()[0], repeat=7)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    warnings.simplefilter("ignore", KitWarning)

    gt = load_ground_truth(args.kaist / "test-all-20.leaderboard.json")
    dets = load_detections(args.kaist / "results" / "MBNet_result.txt", gt)

    def bootstrap_reasonable(evaluation):
        found = bootstrap_intervals([evaluation], ["reasonable"], SPLITS, LEADERBOARD, args.resamples, seed=0)[0]
        return {split: resampled.interval for (_, split), resampled in found.items()}

    match_best, match_med, evaluation = timed(lambda: Evaluation(gt, dets, ["reasonable"]), args.repeat)
    boot_best, boot_med, intervals = timed(lambda: bootstrap_reasonable(evaluation), args.repeat)
    both_best, both_med, _ = timed(lambda: bootstrap_reasonable(Evaluation(gt, dets, ["reasonable"])), args.repeat)
    full_best, full_med, _ = timed(
        lambda: diagnose(gt, dets, DiagnosisParams(examples=0), "MBNet"), max(1, args.repeat // 2)
    )

    machine = describe()
    rows = [
        ("matching MBNet once (reasonable)", match_best, match_med),
        (f"{args.resamples} resamples of reasonable all / day / night, matching done", boot_best, boot_med),
        ("the same with the matching", both_best, both_med),
        (
            f"whole diagnosis without figures: 10 settings x 3 splits, {args.resamples} resamples each",
            full_best,
            full_med,
        ),
    ]
    table = ["| step | best | median |", "|---|---:|---:|"]
    table += [f"| {name} | {1000 * best:.0f} ms | {1000 * med:.0f} ms |" for name, best, med in rows]
    found = ", ".join(f"{split} [{100 * lo:.2f}, {100 * hi:.2f}]" for split, (lo, hi) in intervals.items())
    publish(
        args.doc,
        "## Bootstrap speed",
        [
            "## Bootstrap speed",
            "",
            f"Measured by `python speed/bootstrap_speed.py` on: {machine}.",
            f"MBNet's shared result ({len(dets)} detections), leaderboard protocol, seed 0. Best of "
            f"{args.repeat} runs (the whole diagnosis: of {max(1, args.repeat // 2)}), median beside it.",
            "",
            *table,
            "",
            f"Reasonable LAMR intervals found (95 %, percentile): {found}.",
            "The target is 10 s for 1,000 resamples of reasonable all / day / night.",
            "",
        ],
    )


if __name__ == "__main__":
    main()
