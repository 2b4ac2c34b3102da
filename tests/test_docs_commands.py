"""The shell blocks of README.md and docs/training.md that use the synthetic KAIST, run as written.

Each block runs in a fresh folder laid out as a clone (its configs/ the repository's), with bash
stopping at the first failing command. `KAIST_KIT_SYNTH_FRAMES=4` makes the synthetic configs train
and test on their first 4 frames (one step an epoch), so that a block takes a minute or two on two
busy cores; everything else is as a reader would type it. A block that appears in both files (the
training block) runs once.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "README.md", ROOT / "docs" / "training.md")
FENCE = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)


def synthetic_blocks(doc: Path) -> list[str]:
    """The bash blocks of a Markdown file that use the synthetic KAIST."""
    return [block for block in FENCE.findall(doc.read_text(encoding="utf-8")) if "kaist-synth" in block]


def blocks() -> list[str]:
    """Every synthetic block of the docs, each once."""
    return list(dict.fromkeys(block for doc in DOCS for block in synthetic_blocks(doc)))


def test_the_docs_have_their_synthetic_blocks():
    for doc in DOCS:
        assert synthetic_blocks(doc), doc
    assert len(blocks()) == 1  # the README's training block is the one of docs/training.md


@pytest.mark.parametrize("block", blocks(), ids=lambda b: b.splitlines()[-1].split()[1])
def test_the_synthetic_training_block_runs_as_written_on_a_fresh_clone(block, tmp_path):
    pytest.importorskip("mmdet", reason="the training blocks need the mmdet extra (mmdetection)")
    clone = tmp_path / "clone"
    clone.mkdir()
    (clone / "configs").symlink_to(ROOT / "configs")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "KAIST_KIT_SYNTH_FRAMES": "4",
    }
    for name in ("KAIST_KIT_SYNTH", "KAIST_KIT_DATA"):
        env.pop(name, None)
    proc = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block], cwd=clone, env=env, capture_output=True, text=True, timeout=1800
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    [results] = clone.glob("*_result.json")
    records = json.loads(results.read_text())
    test_images = {
        image["id"] for image in json.loads((clone / "data" / "kaist-synth" / "test.json").read_text())["images"]
    }
    assert {r["image_id"] for r in records} <= test_images
    assert "Log-average miss rate" in proc.stdout
