"""Recording benchmark figures: the machine they came from, and their section of docs/speed.md."""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "speed.md"
KAIST = ROOT.parent / "shared" / "data" / "kaist"


def real_files_arguments(description: str, repeat: int) -> argparse.ArgumentParser:
    """The options of a benchmark on the real KAIST files: where they are, how many runs, which doc."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--kaist", type=Path, default=KAIST)
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--doc", type=Path, default=DOC)
    return parser


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe() -> str:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    import numpy

    return (
        f"{cpu_model()}, {cores} cores available, {platform.system()} {platform.release()}, "
        f"Python {sys.version.split()[0]}, numpy {numpy.__version__}"
    )


def write_section(doc: Path, heading: str, section: str) -> None:
    """Replace the section that starts with ``heading`` (up to the next ## heading), or append it."""
    fresh = "# Speed and measured figures\n\nFigures recorded by the scripts in `speed/`.\n\n"
    text = doc.read_text() if doc.exists() else fresh
    section = section.rstrip("\n") + "\n"
    start = text.find(heading)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(heading))
        text = text[:start] + section + ("\n" + text[end + 1 :] if end >= 0 else "")
    doc.write_text(text)


def publish(docs: Path | list[Path], heading: str, lines: list[str]) -> str:
    """Print a benchmark's section and record it in each doc under ``heading`` (see `write_section`)."""
    section = "\n".join(lines)
    print(section)
    for doc in [docs] if isinstance(docs, Path) else docs:
        write_section(doc, heading, section)
    return section


def timed(fn, repeat: int) -> tuple[float, float, object]:
    """(best, median) seconds of ``repeat`` calls, and the last call's value."""
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), value


def baseline_code(commit: str, work: Path) -> Path:
    """The kit at ``commit``, laid out as installed (submission/ and converters/ inside kaist_kit/)."""
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
    folder = work / f"code-{commit}"
    folder.mkdir()
    (folder / "code.tar").write_bytes(archive)
    with tarfile.open(folder / "code.tar") as tar:
        tar.extractall(folder, filter="data")
    for package in ("submission", "converters"):
        (folder / "kaist_kit" / package).symlink_to(f"../{package}")
    return folder


def code_versions(baseline: str | None, work: Path) -> dict[str, dict[str, str]]:
    """The kits to time, each with the environment that runs it: the ``baseline`` commit's first when one is
    given (laid out under ``work``), then this tree."""

    def short(commit: str) -> str:
        return subprocess.run(
            ["git", "rev-parse", "--short", commit], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout.strip()

    versions: dict[str, dict[str, str]] = {f"{short('HEAD')} (this tree)": {}}
    if baseline:
        commit = short(baseline)
        versions = {commit: {"PYTHONPATH": str(baseline_code(commit, work))}, **versions}
    return versions


def printed_by(code: str, arguments: list[str], env: dict, work: Path) -> list[str]:
    """The words a snippet prints, run in a fresh interpreter in ``work`` with these environment variables."""
    return subprocess.run(
        [sys.executable, "-c", code, *arguments],
        cwd=work,
        env={**os.environ, **env},
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()


def real_pairs(folder: Path, annotations: str, quality: int = 75) -> Path:
    """The 8 real pairs of ../shared/data/kaist/demo-images laid out in ``folder`` as KAIST keeps them
    (images/setXX/VYYY/{visible,lwir}/IZZZZZ.jpg at this JPEG quality, those already there kept), with the
    leaderboard's annotations of those frames in ``folder / annotations`` (as tests/conftest.py's kaist_pairs)."""
    from PIL import Image

    pictures = sorted((KAIST / "demo-images").glob("set*_V*_I*_visible.png"))
    if len(pictures) != 8:
        raise SystemExit(f"the 8 real frame pairs are not in {KAIST / 'demo-images'}")
    names = set()
    for visible in pictures:
        set_name, video, stem, _ = visible.name.split("_")
        names.add(f"{set_name}/{video}/{stem}")
        for modality in ("visible", "lwir"):
            target = folder / "images" / set_name / video / modality / f"{stem}.jpg"
            if not target.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                picture = Image.open(visible.with_name(f"{set_name}_{video}_{stem}_{modality}.png"))
                picture.convert("RGB").save(target, quality=quality)
    leaderboard = json.loads((KAIST / "test-all-20.leaderboard.json").read_text())
    images = [image for image in leaderboard["images"] if image["im_name"] in names]
    ids = {image["id"] for image in images}
    subset = dict(
        leaderboard, images=images, annotations=[a for a in leaderboard["annotations"] if a["image_id"] in ids]
    )
    (folder / annotations).parent.mkdir(parents=True, exist_ok=True)
    (folder / annotations).write_text(json.dumps(subset))
    return folder
