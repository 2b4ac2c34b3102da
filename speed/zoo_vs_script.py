"""`kaist-kit eval` of the zoo's published files against the leaderboard's own evaluation script, whole
processes, taking turns; recorded in docs/speed.md.

    python speed/zoo_vs_script.py --files FOLDER --script PATH/evaluation_script.py
                                       [--python REFERENCE_PYTHON] [--baseline COMMIT] [--work DIR] [--repeat 3]

The files: one per method, those `kaist-kit compare --zoo` draws by default that are at hand under
FOLDER (taken by blob id, as `kaist-kit zoo fetch --from FOLDER` does) and that the script reads as
published (TC-Det's image ids are frame names, which it cannot read). The kit: `kaist-kit eval zoo:A
zoo:B ... --gt G` (reasonable all / day / night, leaderboard protocol, the findings, the table). The
script: MLPD's evaluation_script.py (sejong-rcv/MLPD-Multi-Label-Pedestrian-Detection@8e58392, the
leaderboard's), run as its README says (`--annFile G --rstFiles A B ... --evalFig F`: reasonable all /
day / night of each file, and its figure) under --python, by default the numpy1-py311 reference
environment (tests/reference_envs.py). Each command runs as a process of its own, in turn with the
others, so that all see the same load on a shared machine; reported: the median wall time and CPU
time (user and system) of the runs, and their ratio.
"""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from record import describe, publish, real_files_arguments  # noqa: E402
from reference_envs import ENVS  # noqa: E402
from scale import ROOT, baseline_code, load, run, short_commit  # noqa: E402

from kaist_kit.zoo.figure import default_entries  # noqa: E402
from kaist_kit.zoo.store import local_path, take_from  # noqa: E402

HEADING = "## The zoo against the leaderboard's script"
UNREADABLE = {"TC-Det"}  # frame names as image ids: the script reads ids as positions


def main() -> None:
    parser = real_files_arguments(__doc__.splitlines()[0], repeat=3)
    parser.add_argument("--files", type=Path, required=True, help="a folder holding the zoo's files")
    parser.add_argument("--script", type=Path, required=True, help="MLPD's evaluation_script/evaluation_script.py")
    parser.add_argument("--python", type=Path, default=ENVS["numpy1-py311"].executable, help="the script's Python")
    parser.add_argument("--baseline", metavar="COMMIT", help="also measure the kit at this commit")
    parser.add_argument("--work", type=Path, default=Path("/tmp/kaist-kit-scale"), help="where the baseline is kept")
    args = parser.parse_args()
    gt = str((args.kaist / "test-all-20.leaderboard.json").resolve())
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        os.environ["XDG_DATA_HOME"] = str(work / "data")
        take_from(args.files, default_entries())
        entries = [e for e in default_entries() if e.name not in UNREADABLE and local_path(e.file).is_file()]
        kit = [sys.executable, "-m", "kaist_kit", "eval", *(f"zoo:{e.name}" for e in entries), "--gt", gt]
        script = [str(args.python), str(args.script.resolve()), "--annFile", gt, "--rstFiles"]
        script += [str(local_path(e.file)) for e in entries] + ["--evalFig", str(work / "figure.jpg")]
        commands = {f"`kaist-kit eval` (`{short_commit('HEAD')}`)": (kit, {})}
        if args.baseline:
            args.work.mkdir(parents=True, exist_ok=True)
            code = baseline_code(short_commit(args.baseline), args.work.resolve())
            commands = {
                f"`kaist-kit eval` (`{short_commit(args.baseline)}`)": (kit, {"PYTHONPATH": str(code)})
            } | commands
        commands["the leaderboard's script"] = (script, {"MPLBACKEND": "Agg"})
        compileall.compile_dir(ROOT / "kaist_kit", quiet=1)  # as installed; the baseline's is compiled too
        loads = [load()]
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, (command, env) in commands.items():
                seconds, _, _, cpu = run(command, env, work)
                runs[name].append((seconds, cpu))
            loads.append(load())
    wall = {name: statistics.median(r[0] for r in found) for name, found in runs.items()}
    cpu = {name: statistics.median(r[1] for r in found) for name, found in runs.items()}
    reference = "the leaderboard's script"
    version = subprocess.run(
        [
            str(args.python),
            "-c",
            "import sys, numpy, matplotlib; print(sys.version.split()[0], numpy.__version__, matplotlib.__version__)",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    lines = [
        HEADING,
        "",
        f"Measured by `python speed/zoo_vs_script.py` on: {describe()}. The machine is shared with other "
        f"work: its load average was {', '.join(loads)} (before the first run and after each round). "
        f"{len(entries)} published files, one per method ({', '.join(e.name for e in entries)}); each command "
        f"a process of its own, taking turns, {args.repeat} runs each; medians of the runs: wall time, CPU time "
        "(user and system), and the script's time divided by each command's (the goal: 50 or more). The "
        "script is MLPD's "
        f"evaluation_script.py, under Python {version[0]}, numpy {version[1]}, matplotlib {version[2]}.",
        "",
        "| command | wall | CPU | script / command, wall | script / command, CPU |",
        "|---|---:|---:|---:|---:|",
    ]
    for name in commands:
        lines.append(
            f"| {name} | {wall[name]:.2f} s | {cpu[name]:.2f} s | {wall[reference] / wall[name]:.1f} | "
            f"{cpu[reference] / cpu[name]:.1f} |"
        )
    lines += [
        "",
        "Runs (wall / CPU seconds): "
        + "; ".join(f"{name}: " + ", ".join(f"{w:.2f} / {c:.2f}" for w, c in runs[name]) for name in commands)
        + ".",
        "",
    ]
    publish(args.doc, HEADING, lines)


if __name__ == "__main__":
    main()
