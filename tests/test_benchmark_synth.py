"""The other benchmarks' synthetic sets: deterministic, in each layout and frame size, written whole or
not at all; the KAIST synthetic set is unchanged by the hook they use."""

import dataclasses
import hashlib
import json

import pytest
from PIL import Image

from kaist_kit.datasets import get_benchmark
from kaist_kit.datasets.synth import BenchmarkSynthConfig, generate_benchmark
from kaist_kit.errors import InputError


def digests(folder):
    """Every file's MD5; synth.json without the folder it names."""
    out = {
        str(p.relative_to(folder)): hashlib.md5(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "synth.json"
    }
    summary = json.loads((folder / "synth.json").read_text())
    del summary["out"]
    return out, summary


@pytest.mark.parametrize("name", ["flir-aligned", "cvc-14"])
def test_the_same_seed_writes_the_same_files(tmp_path, name):
    config = BenchmarkSynthConfig(seed=9, train_frames=1, test_frames=2)
    generate_benchmark(name, tmp_path / "a", config)
    generate_benchmark(name, tmp_path / "b", config)
    assert digests(tmp_path / "a") == digests(tmp_path / "b")
    generate_benchmark(name, tmp_path / "c", BenchmarkSynthConfig(seed=10, train_frames=1, test_frames=2))
    assert digests(tmp_path / "a") != digests(tmp_path / "c")


@pytest.mark.parametrize(
    "name,pictures",
    [
        ("flir-aligned", ["align/JPEGImages/FLIR_09001_RGB.jpg", "align/JPEGImages/FLIR_09001_PreviewData.jpeg"]),
        ("llvip", ["visible/test/190001.jpg", "infrared/test/190001.jpg"]),
        (
            "cvc-14",
            [
                "Day/Visible/NewTest/FramesPos/2014_05_04_10_00_00_100000.tif",
                "Day/FIR/NewTest/FramesPos/2014_05_04_10_00_00_100000.tif",
            ],
        ),
    ],
)
def test_pictures_in_the_layout_and_frame_size(tmp_path, name, pictures):
    summary = generate_benchmark(name, tmp_path / name, BenchmarkSynthConfig(seed=2, train_frames=1, test_frames=1))
    bench = get_benchmark(name)
    for picture in pictures:
        with Image.open(tmp_path / name / picture) as image:
            assert image.size == bench.image_size
    assert (
        json.loads((tmp_path / name / "synth.json").read_text())["frames"] == summary.frames == {"train": 1, "test": 1}
    )


def test_m3fd_sizes_vary_as_m3fds_do(tmp_path):
    generate_benchmark(
        "m3fd", tmp_path / "m3fd", BenchmarkSynthConfig(seed=2, train_frames=2, test_frames=2, size=None)
    )
    sizes = set()
    for frame in ("00000", "00003"):
        with Image.open(tmp_path / "m3fd" / "Vis" / f"{frame}.png") as image:
            sizes.add(image.size)
    assert sizes == {(1024, 768), (880, 520)}
    assert (tmp_path / "m3fd" / "meta" / "test.txt").read_text() == "00002\n00003\n"


def test_refuses_a_full_folder_and_leaves_nothing_on_failure(tmp_path, request):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(InputError, match="the folder is not empty"):
        generate_benchmark("llvip", tmp_path / "full")
    from kaist_kit.datasets import LLVIP, register

    def broken(*args):
        raise OSError("disk full")

    register(dataclasses.replace(LLVIP, synth=dataclasses.replace(LLVIP.synth, writer=broken)))
    request.addfinalizer(lambda: register(LLVIP))
    (tmp_path / ".out.partial").mkdir()  # a folder of the user's, whatever its name
    (tmp_path / ".out.partial" / "mine.txt").write_text("mine")
    with pytest.raises(OSError):
        generate_benchmark(
            "llvip", tmp_path / "out", BenchmarkSynthConfig(train_frames=1, test_frames=1, size=(96, 96))
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.partial", "full"]
    assert (tmp_path / ".out.partial" / "mine.txt").read_text() == "mine"
    with pytest.raises(InputError, match="is a file; give a folder"):
        generate_benchmark("llvip", tmp_path / "full" / "x")
    with pytest.raises(ValueError, match="writes flir-aligned, llvip, cvc-14, m3fd"):
        generate_benchmark("kaist", tmp_path / "kaist")


def test_the_kaist_synthetic_set_is_unchanged_by_the_hook(tmp_path):
    """`render_frame` draws the other benchmarks' classes only when asked (``extra``)."""
    import numpy as np

    from kaist_kit.tools.synth import render_frame

    plain = render_frame(np.random.default_rng([0, 1]), "set06/V000/I00019", "day", 160, 128)
    hooked = render_frame(np.random.default_rng([0, 1]), "set06/V000/I00019", "day", 160, 128, extra=None)
    assert all(np.array_equal(a, b) for a, b in zip(plain[:2], hooked[:2]))
    assert plain[2] == hooked[2]
