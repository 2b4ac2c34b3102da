"""Many files written into one folder through the kit's writer (what `host check` does with a bundle of
20,000 entries), against a baseline commit; figures to docs/speed.md.

    python speed/writer_speed.py [--baseline COMMIT] [--files 2000 5000 20000] [--no-record]

The writer removes the stale temporaries of a folder before it writes there; done on every write, that
is a scan of the whole folder per file written, quadratic in the files. Each count runs in a fresh
process into a fresh temporary folder (imports excluded); the versions alternate.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import (  # noqa: E402
    baseline_code,  # noqa: E402
    describe,
    publish,
)

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Many files into one folder"
WRITE = """
import sys, time
from pathlib import Path
try:
    from kaist_kit.io.write import write_bytes_atomic
except ImportError:  # a baseline from before the writer had a module of its own
    from kaist_kit.io.files import write_bytes_atomic
folder, n = Path(sys.argv[1]), int(sys.argv[2])
start = time.perf_counter()
for k in range(n):
    write_bytes_atomic(folder / f"entry-{k:06d}.txt", b"x")
print(time.perf_counter() - start)
"""


def written(code: Path, n: int, limit: float) -> float | None:
    with tempfile.TemporaryDirectory() as folder:
        try:
            out = subprocess.run(
                [sys.executable, "-c", WRITE, folder, str(n)],
                cwd=code,
                env={**os.environ, "PYTHONPATH": str(code)},
                check=True,
                capture_output=True,
                text=True,
                timeout=limit,
            ).stdout
        except subprocess.TimeoutExpired:
            return None
    return float(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="HEAD~1")
    parser.add_argument("--files", type=int, nargs="+", default=[2000, 5000, 20000])
    parser.add_argument("--limit", type=float, default=300.0, help="seconds a run may take")
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        base = baseline_code(args.baseline, Path(work))
        rows = []
        for n in args.files:
            before = written(base, n, args.limit)
            after = written(ROOT, n, args.limit)
            shown = f"{before:.2f} s" if before is not None else f"over {args.limit:.0f} s"
            rows.append(f"| {n:,} | {shown} | {after:.2f} s |")
    lines = [
        HEADING,
        "",
        f"`python speed/writer_speed.py --baseline {args.baseline}` on {describe()}: "
        f"`write_bytes_atomic` of N one-byte files into one new folder, one process each.",
        "",
        f"| files | {args.baseline} | now |",
        "|---|---|---|",
        *rows,
        "",
    ]
    if args.no_record:
        print("\n".join(lines))
    else:
        publish(ROOT / "docs" / "speed.md", HEADING, lines)


if __name__ == "__main__":
    main()
