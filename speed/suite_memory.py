"""The peak memory of a command and every process it starts: the test suite's, for DEVELOPERS.md.

    python speed/suite_memory.py [COMMAND ...]      (default: python -m pytest -q -p no:cacheprovider)

Runs the command and, every 0.2 s, sums the resident memory (VmRSS) of it and of all its descendants
(Linux /proc). Prints the largest sum, when it came, and the processes that made it up; the exit
code is the command's. Pages shared between processes (torch's libraries in each worker) count once
per process, as the out-of-memory killer counts them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time


def children() -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        found.setdefault(parent, []).append(int(entry))
    return found


def tree(root: int) -> list[int]:
    kids, out, todo = children(), [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += kids.get(pid, [])
    return out


def resident(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()[:100]
    except OSError:
        return "?"


def main() -> int:
    command = sys.argv[1:] or [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    start = time.perf_counter()
    proc = subprocess.Popen(command)
    peak, when, parts = 0, 0.0, []
    while proc.poll() is None:
        pids = tree(proc.pid)
        sizes = [resident(pid) for pid in pids]
        if sum(sizes) > peak:
            peak, when = sum(sizes), time.perf_counter() - start
            parts = [(size, command_line(pid)) for pid, size in zip(pids, sizes) if size]
        time.sleep(0.2)
    print(
        f"peak {peak / 2**30:.2f} GiB over {len(parts)} processes, {when:.0f} s into a run of "
        f"{time.perf_counter() - start:.0f} s; exit code {proc.returncode}",
        file=sys.stderr,
    )
    for size, line in parts:
        print(f"  {size / 2**30:.2f} GiB  {line}", file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
