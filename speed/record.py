"""Recording benchmark figures: the machine they came from, and their section of docs/speed.md."""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
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
