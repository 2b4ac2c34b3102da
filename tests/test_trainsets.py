"""Named training sets: the pinned lists, the validation split's rule, MBNet's cache read without
running code, the sets built from every kind of source, refusals, and comparisons."""

import hashlib
import json
import os
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from conftest import KAIST
from hypothesis import given, settings
from hypothesis import strategies as st

from kaist_kit.data.imagesets import read_image_list
from kaist_kit.errors import InputError
from kaist_kit.trainsets import SETS, lists
from kaist_kit.trainsets.build import build_training_set
from kaist_kit.trainsets.compare import compare_sets
from kaist_kit.trainsets.lists import VAL_02_VIDEOS, list_sha256, named_list
from kaist_kit.trainsets.mbnet import read_mbnet_cache, read_npy_pickle

XML = KAIST / "annotations-xml-original.tar.gz"
MBNET = KAIST / "trainsets" / "mbnet-kaist_train_data.npy"
ARCNN = KAIST / "trainsets" / "arcnn-paired-trainval.txt"
HEADER = "% bbGt version=3\n"


def _run(*args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "kaist_kit", *map(str, args)], capture_output=True, text=True, **kwargs
    )


def _one_line_error(proc) -> str:
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


# --- the lists -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["train-all-02", "train-all-04", "train-all-20", "test-all-20"])
def test_the_official_lists_built_by_rule_are_the_official_files(kaist, name):
    official = read_image_list(kaist / "imageSets" / f"{name}.txt")  # CRLF
    assert list(named_list(name)) == official
    assert list_sha256(official) == lists.PINNED_SHA256[name]
    assert (
        len(official)
        == {"train-all-02": 25_086, "train-all-04": 12_538, "train-all-20": 2_500, "test-all-20": 2_252}[name]
    )


def test_the_shipped_arcnn_list_is_the_one_its_authors_published(kaist):
    shipped = lists.ARCNN_LIST.read_bytes()
    assert shipped == ARCNN.read_bytes()
    assert hashlib.sha256(shipped).hexdigest() == lists.PINNED_SHA256["paired-8892"]
    assert len(named_list("paired-8892")) == SETS["paired-8892"].frames == 8_892


def test_a_list_that_no_longer_has_its_checksum_is_a_defect_not_a_set(monkeypatch):
    named_list.cache_clear()
    monkeypatch.setitem(lists.PINNED_SHA256, "train-all-20", "0" * 64)
    try:
        with pytest.raises(lists.PinnedListChanged, match="train-all-20"):
            named_list("train-all-20")
    finally:
        named_list.cache_clear()


def test_every_set_s_frame_count_is_its_list_s():
    for name, spec in SETS.items():
        if spec.pinned:
            assert len(named_list(name)) == spec.frames, name
            assert not lists.frames_of_test_sets(named_list(name)), name


def test_train_02_and_val_02_split_train_all_02_by_whole_videos():
    train, val = set(named_list("train-02")), set(named_list("val-02"))
    assert not train & val and train | val == set(named_list("train-all-02"))
    train_videos, val_videos = {f[:10] for f in train}, {f[:10] for f in val}
    assert not train_videos & val_videos  # no neighbouring frames on both sides
    assert val_videos == set(VAL_02_VIDEOS)
    periods = {"night" if int(v[3:5]) >= 3 else "day" for v in val_videos}
    assert periods == {"day", "night"}
    assert 0.09 < len(val) / len(train | val) < 0.11  # about a tenth
    assert len(val) == 2_532 and len(train) == 22_554


@pytest.fixture(scope="module")
def train_all_02(kaist, tmp_path_factory):
    """train-all-02 with its original labels, built from the official XML archive."""
    out = tmp_path_factory.mktemp("sets") / "train-all-02.json"
    built = build_training_set("train-all-02", XML, out)
    assert built.images == 25_086 and built.source_kind == "xml"
    return out


def test_the_validation_videos_follow_the_documented_rule_on_the_official_annotations(train_all_02, leaderboard_gt):
    from kaist_kit.datasets.kaist_truth import load_ground_truth
    from kaist_kit.trainsets.validation import choose_validation_videos, reasonable_by_period, video_counts

    train = load_ground_truth(train_all_02)
    choice = choose_validation_videos(train, leaderboard_gt)
    assert choice.videos == VAL_02_VIDEOS
    assert (choice.needed_day, choice.needed_night) == (989, 466)
    assert choice.reasonable_day >= 989 and choice.reasonable_night >= 466
    assert choice.frames == len(named_list("val-02"))
    counts = video_counts(train)
    # The figures docs/training.md gives for each video.
    assert [(counts[v].frames, counts[v].pedestrians, counts[v].reasonable) for v in VAL_02_VIDEOS] == [
        (548, 267, 199),
        (150, 77, 55),
        (700, 1223, 848),
        (1134, 1857, 1144),
    ]
    assert reasonable_by_period(leaderboard_gt) == {"day": 989, "night": 466}


# --- building the sets -----------------------------------------------------------------------------


def test_a_set_from_the_xml_archive_is_the_converters_file_with_the_set_named(kaist, tmp_path):
    from kaist_kit.converters import convert

    out = tmp_path / "train-all-20.json"
    built = build_training_set("train-all-20", XML, out)
    reference = convert("xml", XML, None, image_set="train-all-20")
    mine, theirs = out.read_bytes(), reference.text.encode()
    assert mine[mine.index(b'"images"') :] == theirs[theirs.index(b'"images"') :]
    data = json.loads(mine)
    assert data["info"]["training_set"] == "train-all-20"
    assert data["info"]["frames_sha256"] == lists.PINNED_SHA256["train-all-20"] == built.frames_sha256
    assert data["info"]["source_format"] == "xml" and "Hwang" in data["info"]["training_set_citation"]
    # Every listed frame is an image, those without a pedestrian too.
    assert [image["im_name"] for image in data["images"]] == list(named_list("train-all-20"))
    with_boxes = {a["image_id"] for a in data["annotations"]}
    assert len(with_boxes) < len(data["images"]) == 2_500
    assert built.day + built.night == 2_500 and built.pedestrians + built.ignore_regions == len(data["annotations"])


def test_paired_8892_from_the_original_labels_says_they_are_not_the_paired_ones(kaist, tmp_path):
    proc = _run("trainset", "paired-8892", "--annotations", XML, "--out", tmp_path / "p.json")
    assert proc.returncode == 0, proc.stderr
    assert "these are the original labels, not the paired ones" in proc.stderr
    data = json.loads((tmp_path / "p.json").read_text())
    assert len(data["images"]) == 8_892 and "not the paired ones" in data["info"]["note"]


def test_mbnet_8963_keeps_the_cache_s_own_boxes_and_says_what_it_did_with_repeated_entries(kaist, tmp_path):
    out = tmp_path / "mbnet.json"
    proc = _run("trainset", "mbnet-8963", "--annotations", MBNET, "--out", out)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert len(data["images"]) == 8_961  # 8,963 entries, two frames twice
    assert "set00/V000/I01219 is in the cache twice (entries 1 and 100)" in proc.stderr
    assert "set00/V000/I01239 is in the cache twice (entries 11 and 101)" in proc.stderr
    entries = read_mbnet_cache(MBNET)
    assert sum(len(e.boxes) for e in entries) == 25_096
    assert len(data["annotations"]) == 25_096 - 4  # the repeated entries' boxes once
    first = entries[0]  # set00/V000/I01217: x1 y1 x2 y2 -> x y w h, as in the cache
    assert data["images"][0]["im_name"] == first.frame
    x1, y1, x2, y2 = first.boxes[0]
    assert data["annotations"][0]["bbox"] == [x1, y1, x2 - x1, y2 - y1]
    assert data["info"]["source_sha256"] == hashlib.sha256(MBNET.read_bytes()).hexdigest()


def _bbgt(path, boxes=("person 100 100 20 50 0 0 0 0 0 0 0",)):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "".join(f"{b}\n" for b in boxes))


def _sanitized(folder, frames):
    for frame in frames:
        _bbgt(folder / (frame.replace("/", "_") + ".txt"))


def _paired(folder, frames):
    for frame in frames:
        set_name, video, stem = frame.split("/")
        _bbgt(folder / set_name / video / "visible" / f"{stem}.txt", ["person 100 100 20 50 0 0 0 0 0 0 0"])
        _bbgt(folder / set_name / video / "lwir" / f"{stem}.txt", ["person 103 101 20 50 0 0 0 0 0 0 0"])


def test_paired_8892_from_a_paired_download_keeps_both_boxes(tmp_path, monkeypatch):
    import tempfile

    source = tmp_path / "annotations_paired"
    _paired(source, named_list("paired-8892"))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    built = build_training_set("paired-8892", source, tmp_path / "p.json")
    assert list(scratch.iterdir()) == []  # the frame list given to the converter is gone
    assert built.source_kind == "paired" and built.images == 8_892 and built.pedestrians == 8_892
    first = json.loads((tmp_path / "p.json").read_text())["annotations"][0]
    assert first["bbox_visible"] == [100, 100, 20, 50] and first["bbox_lwir"] == first["bbox"] == [103, 101, 20, 50]


def test_a_zipped_paired_download_is_found_to_be_one(tmp_path):
    source = tmp_path / "paired"
    _paired(source, named_list("paired-8892"))
    archive = tmp_path / "paired.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted(source.rglob("*.txt")):
            z.write(path, path.relative_to(tmp_path))
    assert build_training_set("paired-8892", archive, tmp_path / "p.json").source_kind == "paired"


def test_a_source_that_misses_frames_of_the_set_is_refused_naming_them(tmp_path):
    source = tmp_path / "annotations_paired"
    frames = named_list("paired-8892")
    _paired(source, frames[:8_000])
    out = tmp_path / "p.json"
    line = _one_line_error(_run("trainset", "paired-8892", "--annotations", source, "--out", out))
    assert (
        f"892 of the 8,892 frames of paired-8892 are missing from it or could not be read (first: {frames[8000]}"
        in line
        and str(source) in line
    )
    assert not out.exists()


def test_sanitized_7601_is_checked_against_its_count(tmp_path):
    frames = named_list("train-all-02")
    source = tmp_path / "annotations-sanitized"
    _sanitized(source, frames[:7_601])
    built = build_training_set("sanitized-7601", source, tmp_path / "s.json")
    assert built.images == 7_601 and built.source_kind == "sanitized"
    os.unlink(source / (frames[0].replace("/", "_") + ".txt"))
    line = _one_line_error(_run("trainset", "sanitized-7601", "--annotations", source, "--out", tmp_path / "t.json"))
    assert "holds 7,600 frames, not the 7,601 of sanitized-7601 (Li et al., BMVC 2018" in line
    assert not (tmp_path / "t.json").exists()


def test_train_all_02_from_the_sanitized_download_says_which_set_that_download_is(tmp_path):
    source = tmp_path / "annotations-sanitized"
    _sanitized(source, named_list("train-all-02")[:7_601])
    line = _one_line_error(_run("trainset", "train-02", "--annotations", source, "--out", tmp_path / "t.json"))
    assert "of the 22,554 frames of train-02 are missing" in line and "build that set" in line
    assert "sanitized-7601" in line


def test_a_source_of_another_kind_is_refused(kaist, tmp_path):
    line = _one_line_error(_run("trainset", "train-02", "--annotations", MBNET, "--out", tmp_path / "t.json"))
    assert "a numpy file; this set is built from the official XML tree" in line
    line = _one_line_error(_run("trainset", "mbnet-8963", "--annotations", XML, "--out", tmp_path / "t.json"))
    assert "not a numpy .npy file" in line
    line = _one_line_error(_run("trainset", "val-03", "--annotations", XML, "--out", tmp_path / "t.json"))
    assert "no training set named 'val-03'" in line


def test_the_list_names_every_set_with_its_size_citation_and_sources():
    proc = _run("trainset", "--list")
    assert proc.returncode == 0
    for spec in SETS.values():
        line = next(line for line in proc.stdout.splitlines() if line.startswith(spec.name + " "))
        assert spec.size in line and spec.citation in line
        assert f"sources: {', '.join(spec.sources)}" in proc.stdout
    assert "8,963 entries, 8,961 distinct frames" in proc.stdout


# --- MBNet's cache, read without running code ----------------------------------------------------


class RunsACommand:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def test_a_cache_that_would_run_a_command_is_refused_and_nothing_runs(tmp_path):
    marker = tmp_path / "it-ran"
    evil = tmp_path / "kaist_train_data.npy"
    entry = {"filepath": "data/kaist/kaist_train/set00/V000/visible/I00001.png", "payload": RunsACommand(marker)}
    np.save(evil, np.array([entry], dtype=object), allow_pickle=True)
    out = tmp_path / "out.json"
    line = _one_line_error(_run("trainset", "mbnet-8963", "--annotations", evil, "--out", out))
    assert f"{evil}: refused: the pickle asks for posix.system" in line and "nothing of this file was run" in line
    assert not marker.exists() and not out.exists()
    np.load(evil, allow_pickle=True)  # what np.load would have done: the command runs
    assert marker.exists()


def _pickled(payload: bytes) -> bytes:
    """A .npy file holding an object array whose pickle is ``payload``."""
    header = {"descr": "|O", "fortran_order": False, "shape": (1,)}
    import io

    stream = io.BytesIO()
    np.lib.format.write_array_header_1_0(stream, header)
    return stream.getvalue() + payload


@pytest.mark.parametrize(
    "payload, refused",
    [
        # builtins.eval, called with a string
        (b"\x80\x02c__builtin__\neval\nq\x00X\x04\x00\x00\x001+1q\x01\x85q\x02Rq\x03.", "__builtin__.eval"),
        # numpy's scalar rebuild, not admitted
        (b"\x80\x02cnumpy.core.multiarray\nscalar\nq\x00.", "numpy.core.multiarray.scalar"),
        # numpy.ndarray called directly (an allocation of the size the pickle asks)
        (b"\x80\x02cnumpy\nndarray\nq\x00J\x00\xe1\xf5\x05\x85q\x01\x85q\x02R.", "not a readable pickle"),
        # numpy's rebuild asked for another class
        (
            b"\x80\x02cnumpy.core.multiarray\n_reconstruct\nq\x00cnumpy\ndtype\nK\x00\x85U\x01b\x87R.",
            "not as numpy calls it",
        ),
        # a dtype of strings
        (b"\x80\x02cnumpy\ndtype\nX\x02\x00\x00\x00U5K\x00K\x01\x87R.", "only numbers, booleans and objects"),
        # a set (Python 2 pickles build it with builtins.set)
        (pickle.dumps({1, 2}, protocol=2), "__builtin__.set"),
        # a persistent id
        (b"\x80\x02X\x01\x00\x00\x00xQ.", "persistent object"),
    ],
)
def test_every_other_global_or_use_of_numpy_is_refused(tmp_path, payload, refused):
    path = tmp_path / "cache.npy"
    path.write_bytes(_pickled(payload))
    with pytest.raises(InputError) as caught:
        read_npy_pickle(path)
    assert refused in str(caught.value) and str(path) in str(caught.value)


TEXT = st.characters(blacklist_categories=("Cs",))
plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(TEXT, max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(TEXT, max_size=6), inner, max_size=4)
        | st.builds(
            lambda rows, dtype: (np.arange(rows * 4) % 7).astype(dtype).reshape(rows, 4),
            st.integers(0, 3),
            st.sampled_from(["float64", "float32", "int64", "uint8", "bool"]),
        )
    ),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(plain, min_size=1, max_size=5))
def test_the_restricted_reader_reads_what_numpy_reads(tmp_path_factory, items):
    path = tmp_path_factory.mktemp("npy") / "cache.npy"
    array = np.empty(len(items), dtype=object)
    array[:] = items
    np.save(path, array, allow_pickle=True)
    mine, reference = read_npy_pickle(path), np.load(path, allow_pickle=True)
    assert _equal(mine, reference)


def _equal(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if type(a) is not type(b) or a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype.kind == "O":
            return all(_equal(x, y) for x, y in zip(a.ravel(), b.ravel()))
        return np.array_equal(a, b)
    if isinstance(a, dict):
        return type(b) is dict and a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def test_the_published_cache_reads_as_numpy_reads_it(kaist):
    from kaist_kit.trainsets.specs import MBNET_CACHE_SHA256

    # np.load runs the pickle's code: only on the published file, checked first.
    assert hashlib.sha256(MBNET.read_bytes()).hexdigest() == MBNET_CACHE_SHA256
    reference = np.load(MBNET, allow_pickle=True, encoding="latin1")
    assert _equal(read_npy_pickle(MBNET), reference)


def test_a_cache_with_other_entries_is_not_mbnet_s(tmp_path):
    entries = [
        {
            "filepath": f"x/set00/V000/visible/I0000{k}.png",
            "filepath_lwir": f"x/set00/V000/lwir/I0000{k}.png",
            "bboxes": np.array([[1.0, 2.0, 11.0, 32.0]]),
            "ignoreareas": np.zeros(0),
        }
        for k in (1, 3, 5)
    ]
    path = tmp_path / "kaist_train_data.npy"
    np.save(path, np.array(entries, dtype=object), allow_pickle=True)
    assert [e.frame for e in read_mbnet_cache(path)] == ["set00/V000/I00001", "set00/V000/I00003", "set00/V000/I00005"]
    line = _one_line_error(_run("trainset", "mbnet-8963", "--annotations", path, "--out", tmp_path / "m.json"))
    assert "its 3 entries (3 distinct frames) are not those of MBNet's published cache (8,963 entries" in line
    entries[1]["filepath_lwir"] = "x/set00/V000/lwir/I00009.png"
    np.save(path, np.array(entries, dtype=object), allow_pickle=True)
    with pytest.raises(InputError, match="entry 1 pairs the visible picture of set00/V000/I00003 with the lwir"):
        read_mbnet_cache(path)


# --- comparing sets --------------------------------------------------------------------------------


def _coco(path, frames_boxes):
    images, annotations = [], []
    for k, (frame, boxes) in enumerate(frames_boxes.items()):
        images.append({"id": k, "im_name": frame, "width": 640, "height": 512})
        for label, box in boxes:
            annotations.append(
                {
                    "id": len(annotations),
                    "image_id": k,
                    "category_id": 1,
                    "bbox": list(box),
                    "height": box[3],
                    "occlusion": 0,
                    "ignore": int(label != "person"),
                    "label": label,
                }
            )
    path.write_text(
        json.dumps({"images": images, "annotations": annotations, "categories": [{"id": 1, "name": "person"}]})
    )
    return path


def test_compare_lists_frames_on_one_side_and_boxes_that_changed(tmp_path):
    a = _coco(
        tmp_path / "a.json",
        {
            "set00/V000/I00001": [("person", (10, 10, 20, 50)), ("person", (100, 10, 20, 50))],
            "set00/V000/I00003": [("person", (10, 10, 20, 50))],
            "set00/V000/I00005": [("person", (300, 10, 20, 50)), ("people", (400, 10, 40, 50))],
            "set00/V000/I00007": [],
        },
    )
    b = _coco(
        tmp_path / "b.json",
        {
            "set00/V000/I00001": [("person", (10, 10, 20, 50)), ("person", (102, 11, 20, 50))],  # one moved
            "set00/V000/I00003": [("person", (10, 10, 20, 50))],
            "set00/V000/I00005": [("people", (300, 10, 20, 50))],  # relabelled; one only in A
            "set00/V000/I00009": [("person", (1, 1, 20, 50))],
        },
    )
    found = compare_sets(a, b)
    assert found.only_a == ["set00/V000/I00007"] and found.only_b == ["set00/V000/I00009"] and found.both == 3
    assert found.same_frames == 1 and found.examples == ["set00/V000/I00001", "set00/V000/I00005"]
    assert {k: n for k, n in found.boxes.items() if n} == {"same": 2, "moved": 1, "relabelled": 1, "only_a": 1}
    proc = _run("trainset", "--compare", a, b)
    assert proc.returncode == 0, proc.stderr
    assert "frames: 3 in both, 1 only in A, 1 only in B" in proc.stdout
    assert "2 the same, 1 moved (overlap 0.5 or more), 1 relabelled" in proc.stdout
