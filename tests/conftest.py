import os
from pathlib import Path

import numpy as np
import pytest

from kaist_kit.data.groundtruth import ground_truth_from_coco
from kaist_kit.data.results import detections_from_coco

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("KAIST_KIT_SHARED", ROOT.parent / "shared"))
KAIST = SHARED / "data" / "kaist"

# No test downloads: a verb run without --gt on a machine without the cached ground truth would
# otherwise fetch it. The tests of the download lift this for themselves, with a file:// source.
os.environ["KAIST_KIT_OFFLINE"] = "1"

# One thread for torch's OpenMP and MKL pools, in this process and the commands it starts (set before
# torch is imported). On cores shared with other work, two OpenMP threads that wait for each other in
# spin loops made a training step of the synthetic configs 10 times slower (13 s instead of 1.3 s under
# a load of 4.7 on 2 cores); alone, one thread costs a little. OMP_NUM_THREADS=2 pytest ... overrides.
for _pool in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_pool, "1")


# The tests marked `slow`: the main job runs them; the other Pythons and the lowest versions of the
# dependencies (.ci/other-pythons, `pytest -m "not slow"`) leave them out. Whole modules, each for its
# reason, and single tests whose code a lighter test of the same module runs too.
SLOW_MODULES = {
    "test_lamr_differential": "random cases against the plain implementations, at volume",
    "test_metrics_differential": "random cases against the plain implementations, at volume",
    "test_trainsets": "the official tree of 95,325 files, read several times",
    "test_docs_commands": "the README's blocks as whole commands, a training included",
    "test_hosting_browser": "a browser, not Python",
    "test_hosting_workers": "the platforms' own interpreters (tests/reference_envs.py)",
    "test_ms_detr_reference": "MS-DETR's numpy 1.26 (tests/reference_envs.py)",
    "test_sort_orders": "numpy 1.26's sort (tests/reference_envs.py)",
}
SLOW_TESTS = {
    "test_a_demo_killed_at_any_moment_is_replaced_by_the_next": "kills at random moments, several runs",
    "test_demo_end_to_end": "the README's set-up runs the demo on each Python",
    "test_random_values_of_numeric_options": "the extreme values' test parses every option too",
    "test_error_types_match_plain_loops": "random cases against plain loops, at volume",
    "test_error_types_at_the_matchings_threshold_match_plain_loops": "random cases against plain loops, at volume",
    "test_the_reader_reads_what_the_plain_reader_reads_or_refuses": "generated mutations, at volume",
    "test_any_mutation_of_a_configuration_is_checked_in_lines_or_refused_in_one": "generated mutations, at volume",
    "test_interrupts_at_random_moments_end_a_large_conversion_at_once": "interrupts at random moments, many runs",
}


def pytest_collection_modifyitems(items):
    for item in items:
        if item.module.__name__ in SLOW_MODULES or item.originalname in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _release_memory(request):
    """After each detector test, give the memory its models held back to the system.

    Python frees a model's tensors when the test ends, but glibc keeps the freed pages for later
    allocations: the session's size would stay at its largest model's, and on a machine shared
    with other work the distributed test's processes start on top of it."""
    yield
    if request.module.__name__.startswith(("test_models_", "test_docs_")):
        import ctypes
        import gc

        gc.collect()
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):  # not glibc
            pass


@pytest.fixture(scope="session", autouse=True)
def private_temp_folder(tmp_path_factory):
    """Every temporary file of the session, of its subprocesses too, in a folder of its own.

    mmengine writes each config it reads to a temporary file (tmpXXXXXXXX/tmpXXXXXXXX.py) and reads it
    back; torchrun keeps its workers' files in torchelastic_XXXX. In the machine's shared temporary
    folder, another process clearing its own leftovers (tmp* folders) took these files away in the middle
    of a run, and the distributed tests' workers died. The session's basetemp is pytest's own, locked
    while the session runs and left alone by other pytest sessions.
    """
    import tempfile

    folder = tmp_path_factory.mktemp("tempfiles")
    saved = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"] = tempfile.tempdir = str(folder)
    yield folder
    if saved[0] is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = saved[0]
    tempfile.tempdir = saved[1]


@pytest.fixture(scope="session")
def kaist():
    """The real benchmark files in ../shared/data/kaist (skips when they are not there)."""
    if not (KAIST / "test-all-20.leaderboard.json").is_file():
        pytest.skip(f"real KAIST files not found at {KAIST} (set KAIST_KIT_SHARED to the shared folder)")
    return KAIST


@pytest.fixture(scope="session")
def leaderboard_gt(kaist):
    from kaist_kit.datasets.kaist_truth import load_ground_truth

    return load_ground_truth(kaist / "test-all-20.leaderboard.json")


def make_gt(images, annotations):
    return ground_truth_from_coco(
        {"images": images, "annotations": annotations, "categories": [{"id": 1, "name": "person"}]}
    )


def make_dets(gt, records):
    return detections_from_coco(records, gt)


def person(ann_id, image_id, bbox, occlusion=0, ignore=0, height=None):
    return {
        "id": ann_id,
        "image_id": image_id,
        "category_id": 1,
        "bbox": list(bbox),
        "height": bbox[3] if height is None else height,
        "occlusion": occlusion,
        "ignore": ignore,
    }


def frames(n, night_from=None):
    """n 640 x 512 images with KAIST names; images from night_from on are night frames."""
    night_from = n if night_from is None else night_from
    return [
        {"id": i, "im_name": f"set{'09' if i >= night_from else '06'}/V000/I{i:05d}", "width": 640, "height": 512}
        for i in range(n)
    ]


def det(image_id, bbox, score):
    return {"image_id": image_id, "category_id": 1, "bbox": list(bbox), "score": score}


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


def shuffled_copy(path, folder, seed=7):
    """A copy of a text result file with its lines in random order (unsorted within images)."""
    import random

    lines = path.read_text().splitlines()
    random.Random(seed).shuffle(lines)
    copy = folder / f"{path.stem.replace('_result', '')}_shuffled_result{path.suffix}"
    copy.write_text("\n".join(lines) + "\n")
    return copy


@pytest.fixture(scope="session")
def tiny_synth(tmp_path_factory):
    """A tiny synthetic KAIST at 160 x 128 (8 training and 8 test frames, seed 5) with the
    converted train.json and test.json beside its images/, as the *_synth.py configs expect, and a
    val.json of its night training frames for the tests of validation during training."""
    from kaist_kit.converters import convert
    from kaist_kit.tools.synth import SynthConfig, generate

    root = tmp_path_factory.mktemp("synth") / "kaist-synth"
    generate(root, SynthConfig(seed=5, train_frames=8, test_frames=8, width=160, height=128))
    convert("sanitized", root / "annotations-sanitized", root / "train.json", image_size=(160, 128))
    convert("improved", root / "annotations-improved", root / "test.json", image_size=(160, 128))
    convert(
        "sanitized",
        root / "annotations-sanitized",
        root / "val.json",
        image_set="train-night-02",
        image_size=(160, 128),
    )
    return root


DEMO_IMAGES = KAIST / "demo-images"


@pytest.fixture(scope="session")
def kaist_pairs(kaist, tmp_path_factory):
    """The 8 real frame pairs of ../shared/data/kaist/demo-images laid out as KAIST keeps them,
    ``images/setXX/VYYY/{visible,lwir}/IZZZZZ.jpg`` (the PNGs re-encoded as JPEG), with the
    leaderboard's annotations of those frames in ``annotations/demo-8.leaderboard.json``."""
    import json

    from PIL import Image

    pictures = sorted(DEMO_IMAGES.glob("set*_V*_I*_visible.png"))
    if len(pictures) != 8:
        pytest.skip(f"the 8 real frame pairs are not in {DEMO_IMAGES}")
    root = tmp_path_factory.mktemp("kaist-real")
    names = set()
    for visible in pictures:
        set_name, video, stem, _ = visible.name.split("_")
        names.add(f"{set_name}/{video}/{stem}")
        for modality in ("visible", "lwir"):
            source = visible.with_name(f"{set_name}_{video}_{stem}_{modality}.png")
            target = root / "images" / set_name / video / modality / f"{stem}.jpg"
            target.parent.mkdir(parents=True, exist_ok=True)
            Image.open(source).convert("RGB").save(target, quality=95)
    leaderboard = json.loads((kaist / "test-all-20.leaderboard.json").read_text())
    images = [image for image in leaderboard["images"] if image["im_name"] in names]
    ids = {image["id"] for image in images}
    assert len(images) == 8, "every demo frame is in test-all-20"
    subset = {
        **leaderboard,
        "images": images,
        "annotations": [a for a in leaderboard["annotations"] if a["image_id"] in ids],
    }
    (root / "annotations").mkdir()
    (root / "annotations" / "demo-8.leaderboard.json").write_text(json.dumps(subset))
    return root


@pytest.fixture(scope="session")
def benchmark_roots(tmp_path_factory):
    """A small synthetic set (160 x 128, 3 training and 2 test frames, seed 1) of each benchmark a config of
    the other benchmarks trains on, in the benchmark's layout, with the annotation files the configs name,
    made by the commands they give for them (`make_with`, run as written)."""
    from models_helpers import BENCHMARK_CONFIGS
    from typer.testing import CliRunner

    from kaist_kit.cli import app
    from kaist_kit.datasets.synth import BenchmarkSynthConfig, generate_benchmark
    from kaist_kit.tools.config_files import config_datasets, load_config

    base = tmp_path_factory.mktemp("benchmark-configs")
    roots = {}
    for config in BENCHMARK_CONFIGS:
        name = load_config(config).train_dataloader.dataset.benchmark
        if name not in roots:
            roots[name] = base / name
            generate_benchmark(
                name, roots[name], BenchmarkSynthConfig(seed=1, train_frames=3, test_frames=2, size=(160, 128))
            )
        for files in config_datasets(load_config(config, {"data_root": str(roots[name])})):
            if not files.ann_file.is_file():
                command = files.make_with.split()
                assert command[:2] == ["kaist-kit", "convert"], files.make_with
                result = CliRunner().invoke(app, command[1:])
                assert result.exit_code == 0 and files.ann_file.is_file(), (files.make_with, result.output)
    return roots


@pytest.fixture(scope="session")
def reference_env():
    """A function giving the interpreter of a named environment of tests/reference_envs.py: skips when
    it is not made (``python tests/reference_envs.py NAME`` makes it), fails instead under
    KAIST_KIT_REQUIRE_ENVS (CI makes them all)."""
    from reference_envs import ENVS

    def python_of(name: str) -> Path:
        env = ENVS[name]
        if env.ready():
            return env.executable
        message = f"reference environment {name} ({env.why}) is not made: run python tests/reference_envs.py {name}"
        if os.environ.get("KAIST_KIT_REQUIRE_ENVS"):
            pytest.fail(message)
        pytest.skip(message)

    return python_of
