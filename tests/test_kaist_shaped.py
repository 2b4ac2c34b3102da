"""A benchmark of KAIST's shape, registered under another name, takes KAIST's paths by what its spec declares
(its truth rules and columns, its picture folder, its adapter), not by being KAIST: its synthetic set, its
conversion and its data check are KAIST's, byte for byte."""

import dataclasses
import importlib
import json

import pytest
from typer.testing import CliRunner

from kaist_kit.cli import app
from kaist_kit.converters import convert
from kaist_kit.datasets import BENCHMARKS, KAIST, Deferred, register, unregister
from kaist_kit.tools.datacheck import DatasetFiles, check_data, check_lines
from kaist_kit.tools.stats import per_label

runner = CliRunner()


@pytest.fixture(scope="module")
def shaped():
    bench = register(dataclasses.replace(KAIST, name="kaist-shaped", title="KAIST-shaped", quiet=False, aliases=()))
    yield bench
    unregister(bench.name)


@pytest.fixture(scope="module")
def synthesised(shaped, tmp_path_factory):
    """The synthetic set of each, from the same seed and sizes."""
    folders = {}
    for name in ("kaist", shaped.name):
        out = tmp_path_factory.mktemp(name) / "set"
        result = runner.invoke(
            app, ["synth", str(out), "--benchmark", name, "--train", "2", "--test", "2", "--size", "128x128"]
        )
        assert result.exit_code == 0, result.output
        folders[name] = out
    return folders


def _files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_its_synthetic_set_is_kaists(shaped, synthesised):
    ours, theirs = (_files(synthesised[name]) for name in ("kaist", shaped.name))
    assert set(ours) == set(theirs) and "imageSets/test-all-20.txt" in ours
    assert all(ours[name] == theirs[name] for name in ours if name != "synth.json")


def test_its_quirks_are_drawn_by_kaists_generator(shaped, tmp_path):
    result = runner.invoke(app, ["synth", str(tmp_path / "q"), "--benchmark", shaped.name, "--test", "2", "--quirks"])
    assert result.exit_code == 0, result.output


def test_it_converts_and_checks_as_kaist(shaped, synthesised, tmp_path):
    root = synthesised[shaped.name]
    written = {}
    for bench in (KAIST, shaped):
        out = tmp_path / f"{bench.name}.json"
        convert("xml", root / "annotations-xml-new", out, benchmark=bench)
        written[bench.name] = json.loads(out.read_text())
    assert written["kaist"] == written[shaped.name]
    assert {"height", "occlusion"} <= set(written["kaist"]["annotations"][0])
    lines = {}
    for bench in (KAIST, shaped):
        files = [DatasetFiles("test", tmp_path / "kaist.json", root / "images", benchmark=bench.name)]
        lines[bench.name] = check_lines(check_data(root, files, roles_needed=("test",), benchmark=bench.name))
    assert lines["kaist"] == lines[shaped.name]
    assert "with ped." in lines["kaist"][1] and per_label(shaped)


def _deferred_in(value, where: str):
    """Every `Deferred` a spec holds, in its fields and in the fields of the rules it holds, with where."""
    if isinstance(value, Deferred):
        yield where, value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            yield from _deferred_in(getattr(value, item.name), f"{where}.{item.name}")


def test_every_function_a_spec_names_exists():
    """A spec's adapter functions are named as text (their modules import the spec's module): each name must
    lead to a function, found here rather than when a user first runs the verb that calls it."""
    found = [pair for bench in BENCHMARKS.values() for pair in _deferred_in(bench, bench.name)]
    assert len(found) >= 7  # KAIST's: its pinned file's rules, its synthesis, its checks, its drawing
    for where, deferred in found:
        module, _, name = deferred.target.partition(":")
        assert callable(getattr(importlib.import_module(module), name, None)), f"{where}: {deferred.target}"


def test_a_misnamed_function_fails_when_called():
    with pytest.raises(AttributeError):
        Deferred("kaist_kit.tools.synth:no_such_function")()
