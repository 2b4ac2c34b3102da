"""Converters: the mistakes people make with them, odd trees, output paths and interrupts. Each ends
in a finding or a one-line error with exit code 2, never in a traceback or a half-written file."""

import re

import pytest
from typer.testing import CliRunner

from kaist_kit.cli import app
from kaist_kit.converters import convert

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def flat(output):
    """Output as one line: typer boxes and wraps usage errors."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", output).split())


def write_flat(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


FRAME = "% bbGt version=3\nperson 1 2 30 60 0 0 0 0 0 0 0\n"


@pytest.mark.parametrize("size", ["0x0", "-3x5", "640x0", "640x-512"])
def test_sizes_that_are_not_positive_are_refused(tmp_path, size):
    folder = write_flat(tmp_path / "ann", {"set06_V000_I00019.txt": FRAME})
    result = invoke("convert", "improved", folder, "--out", tmp_path / "gt.json", f"--image-size={size}")
    assert result.exit_code == 2 and f"--image-size: '{size}': the width and the height must be positive" in flat(
        result.output)
    assert not (tmp_path / "gt.json").exists()
    result = invoke("synth", tmp_path / "synth", f"--size={size}")
    assert result.exit_code == 2 and f"--size: '{size}': the width and the height must be positive" in flat(
        result.output)
    assert not (tmp_path / "synth").exists()
    with pytest.raises(ValueError, match="must be positive"):
        convert("improved", folder, None, image_size=tuple(int(v) for v in size.split("x")))
