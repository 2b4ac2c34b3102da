"""Checkpoints cannot run code: every verb reads them with torch's weights-only unpickler, admitting
what mmdetection's and the kit's checkpoints hold and nothing else; a checkpoint that does not fit the
model is an error, not a run of random weights."""

import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("torch", reason="the detector tests need the mmdet extra (torch)")
pytest.importorskip("mmdet", reason="the detector tests need the mmdet extra (mmdetection)")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from models_helpers import CONFIGS, build_model, cli_options, tiny_options  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import kaist_kit.models  # noqa: E402,F401
from kaist_kit.cli import app  # noqa: E402
from kaist_kit.errors import InputError  # noqa: E402
from kaist_kit.models.checkpoints import read_checkpoint, weights_only_checkpoints  # noqa: E402
from kaist_kit.tools.config_files import load_config  # noqa: E402

CONFIG = CONFIGS / "retinanet_r18_fpn_halfway-fusion_synth.py"
VISIBLE = "images/set09/V000/visible/I00019.jpg"


class RunsCode:
    """Unpickled whole, this writes the marker file: what a hostile checkpoint would do."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def hostile(path, marker, **extra) -> str:
    """A checkpoint in mmengine's layout whose pickle calls os.system when read whole."""
    torch.save({"meta": {"epoch": 1}, "state_dict": {"x": torch.zeros(1)}, "payload": RunsCode(marker), **extra}, path)
    return str(path)


@pytest.fixture
def evil(tmp_path):
    marker = tmp_path / "RAN"
    path = hostile(tmp_path / "evil.pth", marker)
    yield path, marker
    assert not marker.exists(), "the checkpoint's code ran"


def _refused(result, path):
    assert isinstance(result.exception, InputError), result.output
    message = str(result.exception)
    assert "\n" not in message and message.startswith(f"{path}: refused: it asks to call posix.system"), message


def test_unpickling_the_hostile_file_whole_would_run_its_code(tmp_path):
    """The test's hostile checkpoint does what it says (so that the refusals below mean something)."""
    marker = tmp_path / "RAN"
    torch.load(hostile(tmp_path / "evil.pth", marker), weights_only=False)
    assert marker.exists()


def test_init_checkpoint_refuses_a_pickle_that_runs_code(evil, tmp_path):
    path, _ = evil
    out = tmp_path / "init.pth"
    result = CliRunner().invoke(app, ["init-checkpoint", str(CONFIG), path, "--out", str(out)])
    _refused(result, path)
    assert not out.exists()


def test_test_and_infer_refuse_a_pickle_that_runs_code(evil, tiny_synth, tmp_path):
    path, _ = evil
    options = cli_options(tiny_options(tiny_synth))
    out = tmp_path / "r.json"
    result = CliRunner().invoke(app, ["test", str(CONFIG), path, "--out", str(out), *options])
    _refused(result, path)
    assert not out.exists()
    pair = [str(tiny_synth / VISIBLE), str(tiny_synth / VISIBLE.replace("visible", "lwir"))]
    figure = tmp_path / "f.png"
    result = CliRunner().invoke(app, ["infer", str(CONFIG), path, *pair, "--out", str(figure), *options])
    _refused(result, path)
    assert not figure.exists()


def test_train_refuses_a_hostile_load_from_and_a_hostile_resume(evil, tiny_synth, tmp_path):
    from kaist_kit.models.train import train

    path, _ = evil
    options = {**tiny_options(tiny_synth), "train_cfg.max_epochs": 1}
    with pytest.raises(InputError, match="refused: it asks to call posix.system"):
        train(CONFIG, tmp_path / "from", cfg_options={**options, "load_from": path})
    work = tmp_path / "resumed"
    work.mkdir()
    shutil.copy(path, work / "epoch_1.pth")
    (work / "last_checkpoint").write_text(str(work / "epoch_1.pth"))
    with pytest.raises(InputError, match="refused: it asks to call posix.system"):
        train(CONFIG, work, resume=True, cfg_options=options)
    assert not (work / "epoch_2.pth").exists()


def test_a_remote_checkpoint_is_read_weights_only_too(evil, tmp_path, monkeypatch):
    """mmengine fetches an http(s) checkpoint into torch's cache and asks torch's hub to unpickle it
    whole; within the kit's verbs torch reads weights only whatever it is asked."""
    path, _ = evil

    def download(url, target, *args, **kwargs):
        shutil.copy(path, target)

    monkeypatch.setattr(torch.hub, "download_url_to_file", download)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")  # a user's old setting changes nothing
    url = "https://example.org/models/detector.pth"
    result = CliRunner().invoke(app, ["init-checkpoint", str(CONFIG), url, "--out", str(tmp_path / "init.pth")])
    _refused(result, url)
    assert os.environ["TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"] == "1"
    assert "TORCH_FORCE_WEIGHTS_ONLY_LOAD" not in os.environ  # as it was before the verb


class Call:
    """A pickle that calls ``function(*args)`` when read: how a hostile file reaches what is admitted."""

    def __init__(self, function, *args):
        self.function, self.args = function, args

    def __reduce__(self):
        return (self.function, self.args)


def _history_buffer():
    from mmengine.logging import HistoryBuffer

    return HistoryBuffer


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(lambda: Call(getattr, _history_buffer(), "__init__"), id="getattr"),
        pytest.param(lambda: np.array([RunsCode("/nonexistent/RAN")], dtype=object), id="object-array"),
        pytest.param(lambda: Call(np.dtype, "O"), id="object-dtype"),
        pytest.param(lambda: Call(eval, "1 + 1"), id="eval"),
        pytest.param(lambda: Call(subprocess.run, ["true"]), id="subprocess"),
    ],
)
def test_what_the_kit_admits_is_admitted_only_as_checkpoints_use_it(payload, tmp_path):
    path = tmp_path / "odd.pth"
    torch.save({"state_dict": {"x": torch.zeros(1)}, "odd": payload()}, path)
    with pytest.raises(InputError, match="refused") as caught:
        read_checkpoint(path)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "tamper",
    [
        pytest.param(lambda s, hb: s.update(statistics_methods={"mean": hb.max}), id="another-statistic"),
        pytest.param(lambda s, hb: s.update(statistics_methods={"mean": hb.update}), id="a-method"),
        pytest.param(lambda s, hb: s.update(_log_history=np.array([RunsCode("/x")], dtype=object)), id="objects"),
        pytest.param(lambda s, hb: s.update(max_length="1"), id="max-length"),
        pytest.param(lambda s, hb: s.update(_statistics_methods={}), id="class-attribute"),
    ],
)
def test_a_history_buffer_is_admitted_with_mmengine_s_state_only(tamper, tmp_path, monkeypatch):
    """mmengine's HistoryBuffer (the message hub's logs) loads as mmengine's class with its own state;
    a pickle that gives it another (statistics that are other functions, objects, other attributes)
    is refused: HistoryBuffer's own __setstate__ would put its statistics into the class for good."""
    HistoryBuffer = _history_buffer()
    buffer = HistoryBuffer([1.0, 3.0], [1, 1])
    genuine = tmp_path / "genuine.pth"
    torch.save({"state_dict": {}, "hub": buffer}, genuine)
    loaded = read_checkpoint(genuine)["hub"]
    assert type(loaded) is HistoryBuffer and loaded.mean() == 2.0 and loaded.statistics("max") == 3.0
    state = dict(buffer.__getstate__())
    tamper(state, HistoryBuffer)
    monkeypatch.setattr(HistoryBuffer, "__getstate__", lambda self: state)
    odd = tmp_path / "odd.pth"
    torch.save({"state_dict": {}, "hub": buffer}, odd)
    monkeypatch.undo()
    before = dict(HistoryBuffer._statistics_methods)
    with pytest.raises(InputError, match="refused"):
        read_checkpoint(odd)
    assert HistoryBuffer._statistics_methods == before


def test_a_checkpoint_of_another_model_is_an_error_in_test_and_infer(tiny_synth, tmp_path):
    """A checkpoint that does not fill the model would be scored as random weights: refused with how
    much it fills and what is missing, before anything runs."""
    other = build_model(load_config(CONFIGS / "retinanet_r18_fpn_rgb_synth.py", tiny_options(tiny_synth)))
    path = tmp_path / "rgb.pth"
    torch.save({"meta": {}, "state_dict": other.state_dict()}, path)
    unrelated = tmp_path / "unrelated.pth"
    torch.save({"state_dict": {"head.fc.weight": torch.zeros(3, 3)}}, unrelated)
    options = cli_options(tiny_options(tiny_synth))
    own = build_model(load_config(CONFIG, tiny_options(tiny_synth))).state_dict()
    theirs = other.state_dict()
    neck_and_head = sum(k in theirs and theirs[k].shape == v.shape for k, v in own.items())
    assert 0 < neck_and_head < len(own)
    for checkpoint, filled in ((path, f"fills {neck_and_head} of"), (unrelated, "fills 0 of")):
        out = tmp_path / "r.json"
        result = CliRunner().invoke(app, ["test", str(CONFIG), str(checkpoint), "--out", str(out), *options])
        assert isinstance(result.exception, InputError) and not out.exists(), result.output
        message = str(result.exception)
        assert message.startswith(f"{checkpoint}: does not fit the model: it {filled} the model's {len(own)} weights")
        assert "missing backbone.visible.conv1.weight" in message and "\n" not in message
        pair = [str(tiny_synth / VISIBLE), str(tiny_synth / VISIBLE.replace("visible", "lwir"))]
        result = CliRunner().invoke(
            app, ["infer", str(CONFIG), str(checkpoint), *pair, "--out", str(tmp_path / "f.png"), *options]
        )
        assert isinstance(result.exception, InputError) and str(result.exception) == message
    assert "unexpected head.fc.weight" in message


def test_a_load_from_that_fills_nothing_stops_training(tiny_synth, tmp_path):
    from kaist_kit.models.train import train

    unrelated = tmp_path / "unrelated.pth"
    torch.save({"state_dict": {"head.fc.weight": torch.zeros(3, 3)}}, unrelated)
    options = {**tiny_options(tiny_synth), "train_cfg.max_epochs": 1, "load_from": str(unrelated)}
    with pytest.raises(InputError, match="load_from fills none of the model's weights: it fills 0 of"):
        train(CONFIG, tmp_path / "work", cfg_options=options)


def test_the_refusal_is_one_line_with_exit_code_2(evil, tmp_path):
    path, marker = evil
    proc = subprocess.run(
        [sys.executable, "-m", "kaist_kit", "init-checkpoint", str(CONFIG), path, "--out", str(tmp_path / "i.pth")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1].startswith(f"error: {path}: refused: it asks to call posix.system")
    assert not marker.exists()


def test_within_the_block_and_after_it(evil):
    """Inside the block mmengine's loaders read weights only; afterwards they are mmengine's again."""
    from mmengine.runner.checkpoint import CheckpointLoader, load_from_local

    path, _ = evil
    with weights_only_checkpoints(), pytest.raises(InputError, match="refused"):
        CheckpointLoader.load_checkpoint(path, logger="silent")
    assert CheckpointLoader._schemes[""] is load_from_local and "TORCH_FORCE_WEIGHTS_ONLY_LOAD" not in os.environ
