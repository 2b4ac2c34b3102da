"""The benchmark specs: KAIST's states what the kit has scattered (so that the next step can point
those places at it), every spec's frame names, paths and classes hold together, a ground truth is
recognised, and a pinned ground truth is fetched, verified and cached as KAIST's is."""

import hashlib

import pytest
from bench_cases import FLIR_TEST, M3FD_TEST, load

from kaist_kit.data import frames
from kaist_kit.datasets import (
    BENCHMARKS,
    CVC14,
    FLIR_ALIGNED,
    KAIST,
    LLVIP,
    M3FD,
    Modality,
    cameras,
    get_benchmark,
    kaist_period,
    kaist_scene,
    numbered,
    recognise,
)
from kaist_kit.datasets.pinned import PinnedUnavailable, find_pinned
from kaist_kit.metrics import settings


def test_kaist_spec_states_what_the_kit_has_scattered():
    from kaist_kit.datasets import kaist_truth as groundtruth
    from kaist_kit.submission import checks

    assert KAIST.image_size == settings.KAIST_FRAME_SIZE
    assert KAIST.border == settings.BORDER_MARGIN
    assert KAIST.test_images == checks.TEST_IMAGES == 2252
    assert tuple(KAIST.lamr_settings) == tuple(settings.SETTINGS)
    assert KAIST.protocols == tuple(settings.PROTOCOLS)
    pinned = KAIST.ground_truth
    assert (pinned.url, pinned.size, pinned.md5, pinned.filename, pinned.attribution, pinned.env, pinned.url_env) == (
        groundtruth.GT_URL,
        groundtruth.LEADERBOARD_GT_BYTES,
        groundtruth.LEADERBOARD_GT_MD5,
        groundtruth.GT_FILENAME,
        groundtruth.GT_ATTRIBUTION,
        groundtruth.GT_ENV,
        groundtruth.GT_URL_ENV,
    )
    for number in range(12):
        name = f"set{number:02d}/V000/I00019"
        assert kaist_period(number) == frames.period_of(name)
        assert kaist_scene(number) == frames.scene_of(number)
    for text in (
        "set06/V000/I00019",
        "set06_V000_I00019.txt",
        "images/set06/V000/lwir/I00019.jpg",
        "x/set11/V002/visible/I01279.png",
        "set6/V000/I00019",
        "I00019.jpg",
    ):
        assert KAIST.frame(text) == frames.find_frame(text), text


@pytest.mark.parametrize("bench", BENCHMARKS.values(), ids=list(BENCHMARKS))
def test_every_spec_holds_together(bench):
    assert get_benchmark(bench.name) is bench
    assert bench.default_split in [s.name for s in bench.splits]
    assert len({c.id for c in bench.categories}) == len(bench.categories)
    assert bench.protocols and bench.metrics and bench.citation.text() and bench.download
    example = {
        "kaist": "set06/V000/I00019",
        "flir-aligned": "FLIR_09266",
        "llvip": "190001",
        "cvc-14": "Day/2014_05_04_10_00_00_100000",
        "m3fd": "00002",
    }[bench.name]
    assert bench.frame(example) == example
    for modality in bench.modalities:  # a picture's path names its frame
        assert bench.frame(bench.picture_path(modality.name, example, "test")) == example
    assert bench.frame(bench.annotation_file(example, "NewTest")) == example
    if bench.ground_truth is not None:
        assert len(bench.ground_truth.md5) == 32 and bench.ground_truth.url.startswith("https://")


def test_frame_names_found_in_the_names_other_files_use():
    assert FLIR_ALIGNED.frame("FLIR_09266.jpeg_RGB") == "FLIR_09266"  # the COCO conversion's image id
    assert FLIR_ALIGNED.frame("align/JPEGImages/FLIR_00002_PreviewData.jpeg") == "FLIR_00002"
    assert CVC14.frame("night_2014_05_04_23_16_06_620000.txt") == "Night/2014_05_04_23_16_06_620000"
    assert LLVIP.frame("infrared/test/190001.jpg") == "190001" and LLVIP.frame("00002") is None
    assert M3FD.frame("Vis/00002.png") == "00002" and M3FD.frame("190001") is None
    assert FLIR_ALIGNED.category("bike").name == "bicycle" and M3FD.category(6).name == "Lamp"
    assert get_benchmark("FLIR").name == "flir-aligned" and get_benchmark("cvc14") is CVC14
    with pytest.raises(ValueError, match="unknown benchmark 'kitti'; choose from kaist, flir-aligned"):
        get_benchmark("kitti")


def test_numbered_frames_are_found_whole_and_named_as_written():
    flir, six = numbered(5, prefix="FLIR_"), numbered(6)
    assert flir.format == "FLIR_{number}" and six.format == "{number}"
    assert [m.group(0) for m in flir.pattern.finditer("a/FLIR_00002_RGB.jpg FLIR_12345.xml")] == [
        "FLIR_00002",
        "FLIR_12345",
    ]
    # A longer name is not a frame's: a letter or digit before the prefix, a digit after the number.
    assert not any(flir.pattern.search(t) for t in ("XFLIR_00002", "2FLIR_00002", "FLIR_000021", "FLIR_0002"))
    assert six.pattern.search("infrared/test/190001.jpg").group("number") == "190001"
    assert not any(six.pattern.search(t) for t in ("1900012", "2190001", "19000"))
    assert six.pattern.search("set190001").group(0) == "190001"  # a letter may stand before a bare number
    assert cameras((640, 512), visible="v/{number}.jpg", lwir="l/{number}.jpg") == (
        Modality("visible", "v/{number}.jpg", (640, 512)),
        Modality("lwir", "l/{number}.jpg", (640, 512)),
    )


def test_recognised_from_the_ground_truth():
    assert recognise([], md5=KAIST.ground_truth.md5).benchmark is KAIST
    assert recognise(["set06/V000/I00019", "set09/V000/I00039"], ["person"]).benchmark is KAIST
    assert recognise(["190001", "190002"], ["person"]).benchmark is LLVIP
    assert recognise(["Day/2014_05_04_10_00_00_100000"], ["person"]).benchmark is CVC14
    assert recognise(["00002", "00003"], ["People", "Car"]).benchmark is M3FD
    assert recognise(["00002", "00003"], ["person"]) is None  # five digits, but not M3FD's classes
    assert recognise(["a.jpg", "b.jpg"], ["person"]) is None
    for path, bench in ((FLIR_TEST, FLIR_ALIGNED), (M3FD_TEST, M3FD)):
        if not path.is_file():
            continue
        data = load(path)
        by_names = recognise([i["file_name"] for i in data["images"]], [c["name"] for c in data["categories"]])
        assert by_names.benchmark is bench
        assert recognise([], md5=hashlib.md5(path.read_bytes()).hexdigest()).benchmark is bench


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("KAIST_KIT_OFFLINE", raising=False)
    monkeypatch.delenv("KAIST_KIT_FLIR_ALIGNED_GT", raising=False)
    return tmp_path / "data" / "kaist-kit"


def test_pinned_ground_truth_fetched_verified_and_cached(cache, monkeypatch, tmp_path):
    if not FLIR_TEST.is_file():
        pytest.skip(f"{FLIR_TEST} not found (the shared data folder)")
    monkeypatch.setenv("KAIST_KIT_FLIR_ALIGNED_GT_URL", FLIR_TEST.as_uri())
    said = []
    path = find_pinned("flir-aligned", echo=said.append)
    assert path == cache / "flir-aligned-test.coco.json" and path.read_bytes() == FLIR_TEST.read_bytes()
    assert len(said) == 1 and "ganlumomo/voc2coco (MIT)" in said[0]
    assert find_pinned("flir-aligned", echo=said.append) == path and len(said) == 1  # from the cache now
    path.write_text("{}")  # a cached file that is not the pinned one is replaced
    assert find_pinned("flir-aligned", echo=said.append).read_bytes() == FLIR_TEST.read_bytes()

    altered = tmp_path / "altered.json"
    altered.write_bytes(FLIR_TEST.read_bytes().replace(b"person", b"persoN"))
    monkeypatch.setenv("KAIST_KIT_FLIR_ALIGNED_GT_URL", altered.as_uri())
    path.unlink()
    with pytest.raises(PinnedUnavailable, match="does not serve the pinned file"):
        find_pinned("flir-aligned")
    assert not any(cache.iterdir())  # nothing half-written
    monkeypatch.setenv("KAIST_KIT_OFFLINE", "1")
    with pytest.raises(PinnedUnavailable, match="KAIST_KIT_OFFLINE=1 forbids downloads"):
        find_pinned("flir-aligned")


def test_no_public_ground_truth_for_llvip_and_cvc14(cache):
    for name in ("llvip", "cvc-14"):
        with pytest.raises(PinnedUnavailable, match="in no public file the kit can fetch: download the dataset"):
            find_pinned(name)
