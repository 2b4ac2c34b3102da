"""Whole commands on result files of millions of detections, and on seven typical ones; recorded in
docs/speed.md.

    python speed/scale.py [--kaist ../shared/data/kaist] [--work /tmp/kaist-kit-scale]
                               [--baseline COMMIT] [--repeat 3] [--repeat-read 5] [--repeat-typical 15]
                               [--parts big,reads,typical] (or eval: the big files' eval alone)

- `kaist-kit eval R --gt G` and `kaist-kit submit R --gt G --out S.zip` (and `--out S.json`, the
  file to upload) on a leaderboard txt and a COCO result JSON of 2,000,000 detections: wall time
  and peak memory (the maximum resident set size of the process), and the process' CPU time (user and
  system), which another program running on a shared machine changes less than the wall time;
- reading those files alone (load_detections) at 500,000, 1,000,000 and 2,000,000 detections,
  which must take time and memory in proportion;
- `kaist-kit eval A B C D E F G --gt G` on seven typical result files, as one process.

The big files are built from MBNet's shared detections, jittered and repeated over the 2,252 test
images (about 900 per image at 2,000,000), and kept in --work (never in the repository). Each
command runs in a process of its own; reported times are the medians of the runs, memory the
largest peak seen. Both versions' modules are byte-compiled first, as an installed package's are
(with PYTHONDONTWRITEBYTECODE set, every run would otherwise compile the changed ones). With
--baseline, the same commands run on that commit too (extracted into --work), each run
alternating with the working tree's, so that both see the same machine. Only a run of all three
--parts records its section in docs/speed.md.
"""

from __future__ import annotations

import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import describe, publish, real_files_arguments  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SIZES = (500_000, 1_000_000, 2_000_000)
IMAGES = 2252
SEED = 20240601
COPY_SCORE = 0.1
TYPICAL = (
    "MBNet_result.txt",
    "MLPD_result.txt",
    "MLPD_result.json",
    "MBNet-per-image.tar.gz",
    "MBNet_result.json",
    "MLPD-rescored_result.txt",
    "MLPD-submission.zip",
)
HEADING = "## Millions of detections, and whole commands"
# Reads one file in a fresh process and prints the seconds the read took (imports and the ground
# truth excluded).
READ_ONLY = """
import sys, time
from kaist_kit.data.results import load_detections
from kaist_kit.datasets.kaist_truth import load_ground_truth
gt = load_ground_truth(sys.argv[1])
start = time.perf_counter()
dets = load_detections(sys.argv[2], gt)
print(time.perf_counter() - start, len(dets))
"""


# --- the files --------------------------------------------------------------------------------------


def mbnet(kaist: Path) -> np.ndarray:
    """MBNet's shared detections as rows image_id (1-based), x, y, w, h, score."""
    text = (kaist / "results" / "MBNet_result.txt").read_text()
    return np.array(text.replace(",", " ").split(), np.float64).reshape(-1, 6)


def jittered(rows: np.ndarray, n: int, seed: int = SEED) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` detections over the test images, as evenly as possible: each image keeps its own
    detections and is filled up with jittered copies of its own (half the time) or of any image's,
    scored lower than their source. (0-based image index, boxes x y w h, scores), in image order
    and descending score within an image."""
    rng = np.random.default_rng(seed)
    own_image = rows[:, 0].astype(np.int64) - 1
    own_start = np.searchsorted(own_image, np.arange(IMAGES))
    own_count = np.bincount(own_image, minlength=IMAGES)
    counts = np.full(IMAGES, n // IMAGES)
    counts[: n % IMAGES] += 1
    image = np.repeat(np.arange(IMAGES), counts)
    rank = np.arange(n) - np.repeat(np.cumsum(counts) - counts, counts)
    exact = rank < own_count[image]
    from_own = (rng.random(n) < 0.5) & (own_count[image] > 0)
    source = np.where(
        from_own,
        own_start[image] + rng.integers(0, 1 << 30, n) % np.maximum(own_count[image], 1),
        rng.integers(0, len(rows), n),
    )
    source[exact] = (own_start[image] + rank)[exact]
    boxes = rows[source, 1:5].copy()
    scores = rows[source, 5].copy()
    copy = ~exact
    w, h = boxes[copy, 2], boxes[copy, 3]
    boxes[copy, 0] += rng.normal(0, 0.15, copy.sum()) * w
    boxes[copy, 1] += rng.normal(0, 0.1, copy.sum()) * h
    boxes[copy, 2] *= np.exp(rng.normal(0, 0.2, copy.sum()))
    boxes[copy, 3] *= np.exp(rng.normal(0, 0.2, copy.sum()))
    scores[copy] *= COPY_SCORE * rng.random(copy.sum()) ** 2
    order = np.lexsort((-scores, image))
    return image[order], boxes[order], scores[order]


def write_txt(path: Path, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray) -> None:
    """The leaderboard's txt as MBNet's is written: 1-based ids, boxes with 4 decimals, scores with 8."""
    with open(path, "w") as out:
        for start in range(0, len(image), 100_000):
            part = slice(start, start + 100_000)
            lines = [
                f"{i + 1},{x:.4f},{y:.4f},{w:.4f},{h:.4f},{s:.8f}\n"
                for i, (x, y, w, h), s in zip(image[part].tolist(), boxes[part].tolist(), scores[part].tolist())
            ]
            out.write("".join(lines))


def write_json(path: Path, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray) -> None:
    """COCO result JSON as `json.dump` writes a detector's float32 numbers (mmdetection's layout):
    0-based ids, one line, ", " and ": " between items."""
    boxes, scores = boxes.astype(np.float32).astype(np.float64), scores.astype(np.float32).astype(np.float64)
    with open(path, "w") as out:
        out.write("[")
        for start in range(0, len(image), 100_000):
            part = slice(start, start + 100_000)
            records = [
                {"image_id": i, "category_id": 1, "bbox": b, "score": s}
                for i, b, s in zip(image[part].tolist(), boxes[part].tolist(), scores[part].tolist())
            ]
            text = json.dumps(records)[1:-1]
            out.write((", " if start else "") + text)
        out.write("]")


def big_files(kaist: Path, work: Path) -> dict[tuple[str, int], Path]:
    """(format, detections) -> file, built once into ``work``."""
    rows = None
    files = {}
    for n in SIZES:
        for fmt, write in (("txt", write_txt), ("json", write_json)):
            path = work / f"scale-{n // 1000}k_result.{fmt}"
            if not path.exists():
                rows = mbnet(kaist) if rows is None else rows
                tmp = path.with_suffix(".tmp")
                write(tmp, *jittered(rows, n))
                tmp.rename(path)
            files[fmt, n] = path
    return files


def typical_files(kaist: Path, work: Path, python: list[str]) -> list[Path]:
    """The four shared result files and three made from them: MBNet's detections as COCO JSON, MLPD's
    txt with every score squared, and MLPD's JSON packaged by `kaist-kit submit`."""
    results = kaist / "results"
    folder = work / "typical"
    folder.mkdir(exist_ok=True)
    rows = mbnet(kaist)
    made = folder / "MBNet_result.json"
    if not made.exists():
        write_json(made, rows[:, 0].astype(np.int64) - 1, rows[:, 1:5], rows[:, 5])
    made = folder / "MLPD-rescored_result.txt"
    if not made.exists():
        lines = []
        for line in (results / "MLPD_result.txt").read_text().splitlines():
            *fields, score = line.split(",")
            lines.append(",".join(fields) + f",{float(score) ** 2:.8f}\n")
        made.write_text("".join(lines))
    made = folder / "MLPD-submission.zip"
    if not made.exists():
        run(
            python
            + [
                "submit",
                str(results / "MLPD_result.json"),
                "--gt",
                str(kaist / "test-all-20.leaderboard.json"),
                "--out",
                str(made),
                "--method",
                "MLPD",
            ],
            {},
            work,
        )
    return [results / n if (results / n).exists() else folder / n for n in TYPICAL]


# --- running ----------------------------------------------------------------------------------------


def run(command: list[str], env: dict, cwd: Path) -> tuple[float, float, str, float]:
    """(seconds, peak resident memory in MB, standard output, CPU seconds) of a command in a process of
    its own."""
    with open(cwd / "stderr.txt", "w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, env={**os.environ, **env}, cwd=cwd)
        output = process.stdout.read().decode()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode:
            err.seek(0)
            raise SystemExit(f"{' '.join(command)} failed ({process.returncode}):\n{err.read()}")
    return seconds, usage.ru_maxrss / 1024, output, usage.ru_utime + usage.ru_stime


def baseline_code(commit: str, work: Path) -> Path:
    """The kit at ``commit``, laid out as installed (submission/ and converters/ inside kaist_kit/)."""
    folder = work / f"code-{commit}"
    if not folder.exists():
        tmp = work / "code.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        checkout(commit, tmp).rename(folder)
    return folder


def checkout(commit: str, folder: Path) -> Path:
    """The kit at ``commit`` in ``folder``, laid out as installed, its modules byte-compiled."""
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
    folder.mkdir(parents=True)
    with open(folder / "code.tar", "wb") as handle:
        handle.write(archive)
    with tarfile.open(folder / "code.tar") as tar:
        tar.extractall(folder, filter="data")
    (folder / "code.tar").unlink()
    for package in ("submission", "converters"):
        if (folder / package).is_dir() and not (folder / "kaist_kit" / package).exists():
            (folder / "kaist_kit" / package).symlink_to(f"../{package}")
    compileall.compile_dir(folder / "kaist_kit", quiet=1)
    return folder


def measure(
    commands: dict[str, list[str]], versions: dict[str, dict], repeat: int, work: Path
) -> dict[tuple[str, str], tuple[float, float, list[str], float]]:
    """(command, version) -> (median seconds, largest peak MB, the outputs of the runs, median CPU
    seconds), running the versions in turn."""
    runs: dict[tuple[str, str], list[tuple[float, float, str, float]]] = {}
    for name, command in commands.items():
        for _ in range(repeat):
            for version, env in versions.items():
                runs.setdefault((name, version), []).append(run(command, env, work))
                for leftover in work.glob("submission.*"):
                    leftover.unlink()
    return {
        key: (
            statistics.median(r[0] for r in found),
            max(r[1] for r in found),
            [r[2] for r in found],
            statistics.median(r[3] for r in found),
        )
        for key, found in runs.items()
    }


def load() -> str:
    """The load average of the last minute."""
    return f"{os.getloadavg()[0]:.1f}"


def short_commit(revision: str) -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short", revision], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()


def cell(found: dict, name: str, version: str) -> str:
    seconds, peak, _, cpu = found[name, version]
    return f"{seconds:.2f} s ({cpu:.2f} s CPU), {peak:.0f} MB"


def main() -> None:
    parser = real_files_arguments(__doc__.splitlines()[0], repeat=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/kaist-kit-scale"))
    parser.add_argument("--baseline", metavar="COMMIT", help="also measure the kit at this commit")
    parser.add_argument("--repeat-read", type=int, default=5, help="runs of each read")
    parser.add_argument("--repeat-typical", type=int, default=15, help="runs of the seven typical files")
    parser.add_argument("--parts", default="big,reads,typical", help="which parts to run, comma-separated")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    work, kaist = args.work.resolve(), args.kaist.resolve()
    work.mkdir(parents=True, exist_ok=True)
    gt = str(kaist / "test-all-20.leaderboard.json")
    python = [sys.executable, "-m", "kaist_kit"]
    head = short_commit("HEAD")
    installed = run([sys.executable, "-c", "import kaist_kit.submission as s; print(s.__file__)"], {}, work)[2]
    if not Path(installed.strip()).resolve().is_relative_to(ROOT):
        raise SystemExit(f"kaist_kit is installed from {installed.strip()}, not from {ROOT}: pip install -e {ROOT}")
    versions = {head: {}}
    code = [ROOT]
    if args.baseline:
        commit = short_commit(args.baseline)
        code.append(baseline_code(commit, work))
        versions = {commit: {"PYTHONPATH": str(code[-1])}, **versions}
    for folder in code:
        for package in ("kaist_kit", "submission", "converters"):
            compileall.compile_dir(folder / package, quiet=1)

    files = big_files(kaist, work)
    typical = typical_files(kaist, work, python)
    loads = [load()]
    commands, big, read, whole = {}, {}, {}, {}
    for fmt in ("txt", "json"):
        path = str(files[fmt, SIZES[-1]])
        commands[f"`kaist-kit eval`, {fmt}"] = python + ["eval", path, "--gt", gt]
        for out in ("zip", "json"):
            commands[f"`kaist-kit submit --out S.{out}`, {fmt}"] = python + [
                "submit",
                path,
                "--gt",
                gt,
                "--out",
                str(work / f"submission.{out}"),
            ]
    if parts & {"big", "eval"}:  # "eval": the big files' `kaist-kit eval` alone
        chosen = {name: c for name, c in commands.items() if "big" in parts or name.startswith("`kaist-kit eval`")}
        big = measure(chosen, versions, args.repeat, work)
        loads.append(load())
    reads = {
        (fmt, n): [sys.executable, "-c", READ_ONLY, gt, str(files[fmt, n])] for fmt in ("txt", "json") for n in SIZES
    }
    if "reads" in parts:
        read = measure(reads, versions, args.repeat_read, work)
        loads.append(load())
    if "typical" in parts:
        whole = measure(
            {"typical": python + ["eval", *map(str, typical), "--gt", gt], "start": python + ["--version"]},
            versions,
            args.repeat_typical,
            work,
        )
        loads.append(load())

    names = list(versions)
    columns = " | ".join(f"`{v}`" for v in names)
    sizes = {fmt: files[fmt, SIZES[-1]].stat().st_size / 1e6 for fmt in ("txt", "json")}
    lines = [
        HEADING,
        "",
        f"Measured by `python speed/scale.py{' --baseline ' + args.baseline if args.baseline else ''}` on: "
        f"{describe()}. The machine is shared with other developers' work: its load average was "
        f"{', then '.join(loads)} as the parts ran, so times vary from run to run. Each command runs as a "
        "process of its own, the versions in turn (the commits below), their modules byte-compiled first; "
        f"times are the medians of the runs ({args.repeat} of each command, {args.repeat_read} of each read, "
        f"{args.repeat_typical} of the typical files), with the process' CPU time (user and system), which "
        "the other work changes less; memory is the largest peak resident set seen (the whole process, Python "
        "and its libraries included).",
    ]
    if big:
        lines += [
            "",
            f"The files of 2,000,000 detections are MBNet's shared detections jittered and repeated over the "
            f"{IMAGES:,} test images ({SIZES[-1] // IMAGES} or {SIZES[-1] // IMAGES + 1} per image, each copy "
            f"scored lower than its source): a leaderboard txt written as MBNet's ({sizes['txt']:.0f} MB) and a "
            f"COCO result JSON as `json.dump` writes a detector's float32 numbers ({sizes['json']:.0f} MB). The "
            "commands run with their defaults (reasonable, all / day / night).",
            "",
            f"| 2,000,000 detections | {columns} |",
            "|---|" + "---:|" * len(names),
            *[
                f"| {name} | " + " | ".join(cell(big, name, v) for v in names) + " |"
                for name in commands
                if (name, names[0]) in big
            ],
            "",
            "The goals: `eval` within 3 s and 600 MB, `submit` within 6 s and 800 MB. A JSON file's records are "
            "decoded by msgspec into exactly the usual keys and numbers, the numbers `json.loads` reads "
            "(tests/test_bulkread.py and tests/test_result_readers.py check it); any other file is read by "
            "`json.loads` itself.",
        ]
    if read:
        lines += [
            "",
            "Reading a file alone (`load_detections` in a fresh process, the ground truth loaded first): "
            "seconds (the median of the runs), microseconds per detection, and the process' peak memory.",
            "",
            f"| file | detections | {columns} |",
            "|---|---:|" + "---:|" * len(names),
        ]
        for fmt, n in reads:
            cells = []
            for v in names:
                _, peak, outputs, _ = read[(fmt, n), v]
                seconds = statistics.median(float(output.split()[0]) for output in outputs)
                cells.append(f"{seconds:.2f} s ({1e6 * seconds / n:.2f} µs), {peak:.0f} MB")
            lines.append(f"| {fmt} | {n:,} | " + " | ".join(cells) + " |")
    if whole:
        lines += [
            "",
            "`kaist-kit eval` of seven typical result files as one process (`kaist-kit eval A B C D E F G --gt G`, "
            "reasonable all / day / night): "
            + ", ".join(f"`{v}` {cell(whole, 'typical', v)}" for v in names)
            + ". The seven: the four shared files ("
            + ", ".join(TYPICAL[:4])
            + "), and three made from them: "
            "MBNet's detections as COCO JSON as a detector writes it, MLPD's txt with every score squared, and "
            "MLPD's JSON packaged by `kaist-kit submit` (a zip). The goal is 0.4 s. Starting the command "
            "alone (`kaist-kit --version`: Python, numpy, typer, rich and the kit's modules): "
            + ", ".join(f"`{v}` {cell(whole, 'start', v)}" for v in names)
            + ".",
        ]
    lines.append("")
    if parts >= {"big", "reads", "typical"}:
        publish(args.doc, HEADING, lines)
    else:
        print("\n".join(lines))


if __name__ == "__main__":
    main()
