"""Whole commands of the kit at two git revisions, taking turns; prints a before/after table and, with
--record, records it in docs/speed.md.

    python speed/before_after.py BEFORE AFTER [--kaist ../shared/data/kaist] [--work /tmp/kaist-kit-before-after]
                                 [--repeat 3] [--commands eval,big,json,convert,bootstrap] [--record]

Each revision is taken out of git (`git archive`) into a temporary folder, laid out as installed
(submission/ and converters/ inside kaist_kit/), its modules byte-compiled, and run by this Python (its
environment's numpy, typer, rich, msgspec) with PYTHONPATH pointing at that folder: the revision's own
code, whatever is installed. The commands, each a process of its own:

- eval: `kaist-kit eval MBNet_result.txt --gt G`, a typical result file (reasonable all / day / night);
- big: `kaist-kit eval` of 2,000,000 detections as a leaderboard txt (made as speed/scale.py makes it);
- json: the same detections as COCO result JSON;
- convert: `kaist-kit convert xml annotations-xml-original.tar.gz` (the official XML tree, 95,324 files);
- bootstrap: `kaist-kit compare MBNet_result.txt MLPD_result.txt --gt G` (1000 bootstrap resamples of
  each, and the paired test).

The runs take turns (each command, the two revisions one after the other, --repeat rounds), so both
see the same machine. Reported: the median wall time, the median CPU time of the process (user and
system, which other work on a shared machine changes less than the wall time), and the largest peak
resident memory; whether both revisions printed the same output (every number the kit prints must stay
the same); the machine and its load average before and after.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import describe, publish, real_files_arguments  # noqa: E402
from scale import checkout, jittered, mbnet, write_json, write_txt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Before and after"
DETECTIONS = 2_000_000
COMMANDS = ("eval", "big", "json", "convert", "bootstrap")


def git(*arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def revision(name: str) -> tuple[str, str]:
    """(full commit, short commit) of a revision name."""
    commit = git("rev-parse", "--verify", name + "^{commit}")
    return commit, git("rev-parse", "--short", commit)


def big_files(kaist: Path, work: Path) -> dict[str, Path]:
    """The 2,000,000 detections as txt and JSON, built once into ``work``."""
    files = {"txt": work / "big_result.txt", "json": work / "big_result.json"}
    if not all(path.exists() for path in files.values()):
        made = jittered(mbnet(kaist), DETECTIONS)
        for fmt, write in (("txt", write_txt), ("json", write_json)):
            tmp = files[fmt].with_suffix(".tmp")
            write(tmp, *made)
            tmp.rename(files[fmt])
    return files


def run(command: list[str], env: dict, cwd: Path) -> tuple[float, float, float, bytes]:
    """(wall seconds, CPU seconds, peak resident MB, standard output) of a command in a process of its own."""
    with open(cwd / "stderr.txt", "w+b") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, env={**os.environ, **env}, cwd=cwd)
        output = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status):
            err.seek(0)
            raise SystemExit(f"{' '.join(command)} failed:\n{err.read().decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output


def uptime() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = real_files_arguments(__doc__.splitlines()[0], repeat=3)
    parser.add_argument("before", help="a git revision (commit, branch)")
    parser.add_argument("after", help="a git revision (commit, branch)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/kaist-kit-before-after"), help="keeps the big files")
    parser.add_argument("--commands", default=",".join(COMMANDS), help="which commands, comma-separated")
    parser.add_argument("--record", action="store_true", help="record the table in --doc")
    args = parser.parse_args()
    chosen = args.commands.split(",")
    unknown = set(chosen) - set(COMMANDS)
    if unknown:
        raise SystemExit(f"unknown commands {sorted(unknown)}: choose among {', '.join(COMMANDS)}")
    kaist, work = args.kaist.resolve(), args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    gt = str(kaist / "test-all-20.leaderboard.json")
    results = kaist / "results"
    versions = [revision(args.before), revision(args.after)]
    files = big_files(kaist, work) if {"big", "json"} & set(chosen) else {}
    kit = [sys.executable, "-m", "kaist_kit"]
    commands = {
        "eval": ("`kaist-kit eval`, MBNet_result.txt", kit + ["eval", str(results / "MBNet_result.txt"), "--gt", gt]),
        "big": ("`kaist-kit eval`, 2,000,000 detections, txt", kit + ["eval", str(files.get("txt")), "--gt", gt]),
        "json": ("`kaist-kit eval`, 2,000,000 detections, JSON", kit + ["eval", str(files.get("json")), "--gt", gt]),
        "convert": (
            "`kaist-kit convert xml`, the official XML tree",
            kit + ["convert", "xml", str(kaist / "annotations-xml-original.tar.gz"), "--out", "converted.json"],
        ),
        "bootstrap": (
            "`kaist-kit compare` of MBNet and MLPD (bootstrap)",
            kit + ["compare", str(results / "MBNet_result.txt"), str(results / "MLPD_result.txt"), "--gt", gt],
        ),
    }
    with tempfile.TemporaryDirectory(prefix="kaist-kit-before-after-") as temp:
        temp = Path(temp)
        envs = {}
        for commit, short in versions:
            if short in envs:
                raise SystemExit(f"{args.before} and {args.after} are the same commit, {short}")
            code = checkout(commit, temp / short)
            envs[short] = {"PYTHONPATH": str(code)}
            where = run(kit[:1] + ["-c", "import kaist_kit; print(kaist_kit.__file__)"], envs[short], temp)[3]
            if not Path(where.decode().strip()).resolve().is_relative_to(code.resolve()):
                raise SystemExit(f"{short}: kaist_kit is imported from {where.decode().strip()}, not from {code}")
        loads = [uptime()]
        runs: dict[tuple[str, str], list[tuple[float, float, float, bytes]]] = {}
        for _ in range(args.repeat):
            for key in chosen:
                for short, env in envs.items():
                    runs.setdefault((key, short), []).append(run(commands[key][1], env, temp))
                    (temp / "converted.json").unlink(missing_ok=True)
        loads.append(uptime())
    names = list(envs)
    lines = [
        HEADING,
        "",
        f"Measured by `python speed/before_after.py {args.before} {args.after}` on: {describe()}; "
        f"{loads[0]} before, {loads[1]} after. Each command runs as a process of its own, the two revisions "
        f"taking turns, {args.repeat} rounds; medians of the runs: wall seconds, CPU seconds of the process "
        "(user and system: on a shared machine other work stretches the wall time far more), and the largest "
        'peak resident memory. "Same output": both revisions printed the same bytes in every run.',
        "",
        f"| command | `{names[0]}` | `{names[1]}` | CPU, after / before | same output |",
        "|---|---:|---:|---:|---|",
    ]
    for key in chosen:
        cells, cpu = [], []
        for short in names:
            found = runs[key, short]
            wall = statistics.median(r[0] for r in found)
            cpu.append(statistics.median(r[1] for r in found))
            cells.append(f"{wall:.2f} s ({cpu[-1]:.2f} s CPU), {max(r[2] for r in found):.0f} MB")
        outputs = {r[3] for short in names for r in runs[key, short]}
        same = "yes" if len(outputs) == 1 else "no"
        lines.append(f"| {commands[key][0]} | {' | '.join(cells)} | {cpu[1] / cpu[0]:.2f} | {same} |")
    lines.append("")
    if args.record:
        publish(args.doc, HEADING, lines)
    else:
        print("\n".join(lines))


if __name__ == "__main__":
    main()
