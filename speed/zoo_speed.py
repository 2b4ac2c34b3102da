"""Time reading and scoring every zoo entry at hand, and record it in docs/zoo.md and docs/speed.md.

    python speed/zoo_speed.py --files FOLDER [--kaist ../shared/data/kaist] [--repeat 3]

FOLDER holds the zoo's files anywhere under it (see tests/test_zoo_real.py); they are taken into a
temporary data folder by blob id, as `kaist-kit zoo fetch --from FOLDER` does (timed too). Then, for
every entry at hand: reading it as `zoo:NAME` (its entry's reading: +1 per-image files, frame-named ids,
night files), and scoring it as `kaist-kit zoo` does (reasonable, the splits it covers, both protocols).
Reported times are the best of --repeat runs, with the median beside them.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import ROOT, describe, publish, real_files_arguments, timed  # noqa: E402

from kaist_kit.data.results import load_detections  # noqa: E402
from kaist_kit.datasets.kaist_truth import load_ground_truth  # noqa: E402
from kaist_kit.errors import KitWarning  # noqa: E402
from kaist_kit.metrics.evaluate import Evaluation  # noqa: E402
from kaist_kit.zoo.figure import default_entries  # noqa: E402
from kaist_kit.zoo.resolve import all_entries, find_entry  # noqa: E402
from kaist_kit.zoo.specs import PROTOCOLS  # noqa: E402
from kaist_kit.zoo.store import take_from  # noqa: E402


def main() -> None:
    parser = real_files_arguments(__doc__.splitlines()[0], repeat=3)
    parser.add_argument("--files", type=Path, required=True, help="a folder holding the zoo's files")
    args = parser.parse_args()
    warnings.simplefilter("ignore", KitWarning)
    gt = load_ground_truth(args.kaist / "test-all-20.leaderboard.json")
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as data:
        os.environ["XDG_DATA_HOME"] = data
        start = time.perf_counter()
        names = sorted(t.entry.name for t in take_from(args.files, all_entries()))
        taking = time.perf_counter() - start
        entries = [find_entry(n) for n in names]

        def read_all():
            return [load_detections(f"zoo:{e.name}", gt) for e in entries]

        def score_all(read):
            for e, dets in zip(entries, read):
                evaluation = Evaluation(gt, dets, ["reasonable"])
                for protocol in PROTOCOLS:
                    for split in e.reading.covers:
                        evaluation.score("reasonable", split, protocol)

        read_best, read_median, read = timed(read_all, args.repeat)
        score_best, score_median, _ = timed(lambda: score_all(read), args.repeat)
        both_best, both_median, _ = timed(lambda: score_all(read_all()), args.repeat)
    detections = sum(len(d) for d in read)
    drawn = default_entries()
    sizes = [e.file.size for e in drawn if e.file.size is not None]
    lines = [
        "## Reading and scoring the zoo",
        "",
        f"Measured by `python speed/zoo_speed.py` on: {describe()}. Load average {load:.1f} at the start "
        f"(the machine is shared); best of {args.repeat} runs, median in brackets.",
        "",
        f"- {len(entries)} entries at hand ({detections:,} detections; the per-image entry is 2,252 files), taken "
        f"from a folder by blob id in {taking:.2f} s (each file hashed once; `kaist-kit zoo fetch --from`);",
        f"- reading all of them as `zoo:NAME`: {read_best:.2f} s ({read_median:.2f} s);",
        f"- scoring all of them, reasonable, both protocols, every split each covers: {score_best:.2f} s "
        f"({score_median:.2f} s);",
        f"- both: {both_best:.2f} s ({both_median:.2f} s), {1000 * both_best / len(entries):.0f} ms an entry.",
        "",
        f"A first `kaist-kit compare MY.json --zoo` adds the downloads of the {len(drawn)} files it draws by default, "
        f"one request each to raw.githubusercontent.com: {sum(sizes) / 1e6:.1f} MB for the {len(sizes)} whose size "
        f"their repository's listing gives, and {len(drawn) - len(sizes)} of 4 MiB or more.",
    ]
    publish([ROOT / "docs" / "zoo.md", args.doc], "## Reading and scoring the zoo", lines)


if __name__ == "__main__":
    main()
