"""Reading files through the kit's opener: the shared result files, a large result, the ground truth and
the XML tree's archive, against a baseline commit; figures to docs/speed.md.

    python speed/files_speed.py [--kaist ../shared/data/kaist] [--baseline COMMIT] [--repeat 5]

Each read runs in a fresh process (imports excluded from the time) and reports its wall and processor
seconds; the versions alternate run by run, so that both see the same machine; the best run of each
is reported. The large result (500,000 detections as COCO JSON, made with a fixed seed) is written to
a temporary folder, never to the repository.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import code_versions, describe, printed_by, publish, real_files_arguments  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Reading files through the opener"
READ = """
import resource, sys, time
from kaist_kit.data.results import load_detections
try:
    from kaist_kit.io.archives import read_archive
except ImportError:  # a baseline from before archives had a module of their own
    from kaist_kit.io.files import read_archive
from kaist_kit.datasets.kaist_truth import load_ground_truth
what, path, gt = sys.argv[1:4]
ground_truth = load_ground_truth(gt) if what == "result" else None
start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
if what == "result":
    load_detections(path, ground_truth)
elif what == "archive":
    read_archive(path)
else:
    load_ground_truth(path)
after = resource.getrusage(resource.RUSAGE_SELF)
print(time.perf_counter() - start, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
"""


def large_result(path: Path, n: int = 500_000) -> Path:
    rng = random.Random(20240919)
    records = [
        {
            "image_id": rng.randrange(2252),
            "category_id": 1,
            "bbox": [
                round(rng.uniform(0, 600), 2),
                round(rng.uniform(0, 500), 2),
                round(rng.uniform(5, 60), 2),
                round(rng.uniform(10, 150), 2),
            ],
            "score": round(rng.random(), 5),
        }
        for _ in range(n)
    ]
    path.write_text(json.dumps(records))
    return path


def main() -> None:
    parser = real_files_arguments(__doc__.splitlines()[0], repeat=5)
    parser.add_argument("--baseline", metavar="COMMIT", help="also read with the kit at this commit")
    args = parser.parse_args()
    kaist = args.kaist.resolve()
    gt = kaist / "test-all-20.leaderboard.json"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        versions = code_versions(args.baseline, work)
        reads = {
            **{
                f"`load_detections`, {name}": ("result", kaist / "results" / name)
                for name in ("MLPD_result.json", "MBNet_result.txt", "MBNet-per-image.tar.gz")
            },
            "`load_detections`, 500,000 detections as COCO JSON (47 MB)": (
                "result",
                large_result(work / "large_result.json"),
            ),
            "`load_ground_truth`, the leaderboard's (1.6 MB)": ("gt", gt),
            "`read_archive`, the official XML tree (4.5 MB packed, 70 MB of files)": (
                "archive",
                kaist / "annotations-xml-original.tar.gz",
            ),
        }
        loads = [os.getloadavg()[0]]
        best: dict[tuple[str, str], tuple[float, float]] = {}
        for name, (what, path) in reads.items():
            for _ in range(args.repeat):
                for version, env in versions.items():
                    output = printed_by(READ, [what, str(path), str(gt)], env, work)
                    wall, cpu = float(output[0]), float(output[1])
                    old = best.get((name, version), (float("inf"), float("inf")))
                    best[name, version] = (min(old[0], wall), min(old[1], cpu))
        loads.append(os.getloadavg()[0])

    names = list(versions)
    lines = [
        HEADING,
        "",
        f"Measured by `python speed/files_speed.py{' --baseline ' + args.baseline if args.baseline else ''}` "
        f"on: {describe()}. The machine is shared: its load average was {loads[0]:.1f}, then {loads[1]:.1f}. "
        f"Each read in a fresh process, imports excluded; the best of {args.repeat} runs, the versions "
        "alternating: wall seconds (processor seconds).",
        "",
        "| read | " + " | ".join(f"`{v}`" for v in names) + " |",
        "|---|" + "---:|" * len(names),
        *[
            f"| {name} | "
            + " | ".join(f"{best[name, v][0] * 1e3:.0f} ms ({best[name, v][1] * 1e3:.0f} ms)" for v in names)
            + " |"
            for name in reads
        ],
        "",
        "The opener adds two stats and a non-blocking open to a read; an archive is read as a stream through "
        "its bound; the ground truth's types are checked field by field.",
        "",
    ]
    publish(args.doc, HEADING, lines)


if __name__ == "__main__":
    main()
