"""Recording benchmark figures: the machine they came from, and their section of docs/benchmarks.md."""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from pathlib import Path


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

    return (f"{cpu_model()}, {cores} cores available, {platform.system()} {platform.release()}, "
            f"Python {sys.version.split()[0]}, numpy {numpy.__version__}")


def write_section(doc: Path, heading: str, section: str) -> None:
    """Replace the section that starts with ``heading`` (up to the next ## heading), or append it."""
    text = doc.read_text() if doc.exists() else "# Benchmarks\n\nFigures recorded by the scripts in `benchmarks/`.\n\n"
    section = section.rstrip("\n") + "\n"
    start = text.find(heading)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(heading))
        text = text[:start] + section + ("\n" + text[end + 1:] if end >= 0 else "")
    doc.write_text(text)


def timed(fn, repeat: int) -> tuple[float, float, object]:
    """(best, median) seconds of ``repeat`` calls, and the last call's value."""
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), value
