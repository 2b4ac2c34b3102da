"""The detector verbs without the mmdet extra, and error lines that hold brackets (no torch needed)."""

import sys

from test_inputs import run_cli
from typer.testing import CliRunner

from kaist_kit.cli import app
from kaist_kit.errors import InputError


def test_the_detector_verbs_say_how_to_install_what_they_need(monkeypatch, tmp_path):
    config = tmp_path / "config.py"
    config.write_text("model = dict()\n")
    monkeypatch.setitem(sys.modules, "kaist_kit.models", None)  # as if torch were not installed
    result = CliRunner().invoke(app, ["train", str(config)])
    assert isinstance(result.exception, InputError)
    assert "needs the detector extra" in str(result.exception) and "pip install -e '.[mmdet]'" in str(result.exception)


def test_missing_files_are_reported_before_anything_is_imported(tmp_path):
    result = CliRunner().invoke(
        app, ["test", str(tmp_path / "config.py"), str(tmp_path / "model.pth"), "--out", str(tmp_path / "r.json")]
    )
    assert isinstance(result.exception, InputError) and "no such config file" in str(result.exception)


def test_an_error_line_keeps_its_brackets(tmp_path):
    missing = tmp_path / "[run 3]_result.json"
    proc = run_cli("eval", missing, "--gt", missing)
    assert proc.returncode == 2 and proc.stderr.strip() == f"error: {missing}: no such file"
