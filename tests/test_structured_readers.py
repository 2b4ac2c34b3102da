"""Structured inputs read against what the kit reads of them: MBNet's training cache (a pickle), a
submission's manifest, annotation JSON (check-data, convert coco, trainset --compare) and a config's data
paths. Generated mutations of their types, depth and sizes (hypothesis, derandomized) are read right or
refused in one line naming the file, never with a traceback, a hang or a wrong number; the pickle bombs
(a DAG of shared references, a list that holds itself, boxes of 1e308) are refused at once.
"""

from __future__ import annotations

import contextlib
import json
import pickle
import signal
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kaist_kit.errors import InputError
from kaist_kit.tools.config_files import config_datasets
from kaist_kit.tools.datacheck import check_data
from kaist_kit.trainsets.compare import compare_sets
from kaist_kit.trainsets.mbnet import MAX_DEPTH, read_mbnet_cache, read_npy_pickle

SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@contextlib.contextmanager
def within(seconds: int):
    """Fail instead of hanging: the block must end within ``seconds``."""

    def expired(*_):
        raise AssertionError(f"still running after {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def read_or_refused(read, path, *args, named=None):
    """What ``read`` gives, or its one-line refusal naming ``path`` (or ``named``); any other outcome
    fails."""
    try:
        with within(20):
            return read(path, *args)
    except InputError as exc:
        message = str(exc)
        names = named if isinstance(named, tuple) else (named or path,)
        assert "\n" not in message and any(str(name) in message for name in names), message
        return exc


# --- MBNet's cache ---------------------------------------------------------------------------------


def _save(path, entries: list) -> None:
    """A cache of these entries, as MBNet's: a numpy object array of them, pickled."""
    array = np.empty(len(entries), dtype=object)
    for k, entry in enumerate(entries):
        array[k] = entry
    np.save(path, array, allow_pickle=True)


def _entry(**changes) -> dict:
    entry = {
        "filepath": "data/kaist/kaist_train/set00/V000/visible/I00001.png",
        "filepath_lwir": "data/kaist/kaist_train/set00/V000/lwir/I00001.png",
        "bboxes": np.array([[10.0, 20.0, 40.0, 90.0]]),
        "ignoreareas": np.zeros((0,), np.float64),
        "vis_bboxes": np.zeros((0,), np.float64),
    }
    entry.update(changes)
    return entry


def _wide_dag(levels: int, width: int):
    node: list = []
    for _ in range(levels):
        node = [node] * width  # the same list, width times: width ** levels paths
    return node


def _self_list():
    looped: list = []
    looped.append(looped)
    return looped


def _self_dict():
    looped: dict = {}
    looped["me"] = looped
    return looped


def _nested_pickle(depth: int) -> bytes:
    """A .npy file whose pickle is a list nested ``depth`` deep (more than pickle.dumps can write)."""
    import io

    stream = io.BytesIO()
    np.lib.format.write_array_header_1_0(stream, {"descr": "|O", "fortran_order": False, "shape": (1,)})
    return stream.getvalue() + b"\x80\x02" + b"(" * depth + b"]" + b"l" * depth + b"."


@pytest.mark.parametrize(
    "bomb, said",
    [
        (lambda: [_wide_dag(MAX_DEPTH - 3, 40)], "entry 0 is a list"),  # 40 ** 13 paths, 13 lists: each once
        (lambda: [_entry(extra=_wide_dag(12, 50))], None),  # read: an entry may hold other keys
        (lambda: [_self_list()], "holds itself"),
        (lambda: [_entry(extra=_self_dict())], "holds itself"),
        (lambda: [_wide_dag(40, 2)], f"nested more than {MAX_DEPTH} deep"),
        (lambda: [_entry(bboxes=np.array([[-1e308, 0, 1e308, 10]]))], "beyond any number"),
        (lambda: [_entry(ignoreareas=np.array([[0, 0, 1e300, 1e300]]))], "has ignoreareas with a box whose"),
        (lambda: [_entry(filepath="x" * 100_000)], "a string of 100,000 characters"),
    ],
)
def test_pickle_bombs_are_refused_at_once(tmp_path, bomb, said):
    """Refused with what ``said`` says (None: read, as the schema admits it), within seconds."""
    path = tmp_path / "kaist_train_data.npy"
    _save(path, bomb())
    found = read_or_refused(read_mbnet_cache, path)
    if said is None:
        assert [entry.frame for entry in found] == ["set00/V000/I00001"]
    else:
        assert isinstance(found, InputError) and said in str(found), found


def test_a_pickle_nested_beyond_python_s_own_recursion_is_refused(tmp_path):
    path = tmp_path / "deep.npy"
    path.write_bytes(_nested_pickle(100_000))
    found = read_or_refused(read_npy_pickle, path)
    assert isinstance(found, InputError) and f"nested more than {MAX_DEPTH} deep" in str(found)


_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.binary(max_size=10),
    st.sampled_from(["set00/V000/visible/I00001.png", "set00/V000/lwir/I00001.png", "x" * 5000]),
)
_arrays = st.one_of(
    st.builds(lambda n, v: np.full((n, 4), v), st.integers(0, 3), st.floats(-1e308, 1e308)),
    st.builds(lambda n: np.zeros((n, 3)), st.integers(0, 3)),
    st.builds(lambda: np.array(["a", "b"])),
    st.builds(lambda: np.array([[1, 2, 3, 4]], dtype=np.int8)),
    st.builds(lambda: np.array([{"a": 1}, None], dtype=object)),
    st.builds(lambda: np.array([[np.nan, 0, 1, 1]])),
)
_plain = st.recursive(
    st.one_of(_leaves, _arrays),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(st.text(max_size=12), st.integers()), inner, max_size=4),
    ),
    max_leaves=20,
)
_entry_keys = st.sampled_from(["filepath", "filepath_lwir", "bboxes", "ignoreareas", "vis_bboxes", "other"])


@SETTINGS
@given(
    mutations=st.lists(st.tuples(_entry_keys, _plain), max_size=3),
    entries=st.integers(1, 3),
    shared=st.booleans(),
)
def test_mutated_caches_are_read_or_refused_in_one_line(tmp_path, mutations, entries, shared):
    cache = [_entry() for _ in range(entries)]
    for key, value in mutations:
        cache[0][key] = value
    if shared:
        cache.append(cache[0])  # the same entry twice, by reference
    path = tmp_path / "kaist_train_data.npy"
    _save(path, cache)
    found = read_or_refused(read_mbnet_cache, path)
    if not isinstance(found, InputError):
        for entry in found:
            assert entry.boxes.shape[1:] == (4,) and np.isfinite(entry.boxes).all()
            sizes = entry.boxes[:, 2:] - entry.boxes[:, :2]
            assert np.isfinite(sizes[:, 0] * sizes[:, 1]).all()


def test_the_restricted_unpickler_still_refuses_code(tmp_path):
    class Runs:
        def __reduce__(self):
            return (print, ("ran",))

    path = tmp_path / "evil.npy"
    _save(path, [[Runs()]])
    found = read_or_refused(read_mbnet_cache, path)
    assert isinstance(found, InputError) and "the pickle asks for builtins.print" in str(found)
    with pytest.raises(pickle.UnpicklingError):
        pickle.loads(b"\x80\x02X")  # (a truncated pickle is pickle's own error, turned into a refusal above)


# --- a submission's manifest --------------------------------------------------------------------------


_json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=10,
)
_manifest_keys = st.sampled_from(["results_file", "results_sha256", "kit_version", "method", "target", "counts"])


@SETTINGS
@given(
    changes=st.lists(st.tuples(_manifest_keys, st.one_of(_json_values, st.just("x" * 5000))), max_size=3),
    whole=st.sampled_from(["object", "list", "deep", "text"]),
    zipped=st.booleans(),
)
def test_mutated_manifests_are_read_or_refused_in_one_line(tmp_path, changes, whole, zipped):
    from kaist_kit.submission import check

    records = [{"image_id": 1, "category_id": 1, "bbox": [10, 10, 20, 40], "score": 0.9}]
    manifest: object = {"results_file": "r.json", "method": "m", "kit_version": "0.1.0", "results_sha256": "0" * 64}
    for key, value in changes:
        manifest[key] = value
    text = {
        "object": json.dumps(manifest),
        "list": json.dumps([manifest]),
        "deep": "[" * 50_000 + "]" * 50_000,
        "text": "not json",
    }[whole]
    if zipped:
        path = tmp_path / "entry.zip"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("r.json", json.dumps(records))
            archive.writestr("manifest.json", text)
    else:
        path = tmp_path / "r.json"
        path.write_text(json.dumps(records))
        (tmp_path / "r.manifest.json").write_text(text)
    found = read_or_refused(check, path, named=path if zipped else tmp_path / "r.manifest.json")
    if not isinstance(found, InputError):
        assert whole == "object"


# --- annotation JSON --------------------------------------------------------------------------------


def _kaist_truth() -> dict:
    return {
        "images": [
            {
                "id": k,
                "file_name": f"set06/V000/visible/I0{k:04d}.jpg",
                "lwir_file_name": f"set06/V000/lwir/I0{k:04d}.jpg",
                "im_name": f"set06/V000/I0{k:04d}",
                "width": 640,
                "height": 512,
            }
            for k in range(2)
        ],
        "annotations": [
            {"id": 1, "image_id": 0, "category_id": 1, "bbox": [10, 10, 20, 50], "label": "person", "ignore": 0}
        ],
        "categories": [{"id": 1, "name": "person"}],
    }


def _places(value, path=()):
    """Every path (keys and indices) into a JSON value."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, (*path, key))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            yield from _places(item, (*path, k))


def _replaced(value, path, new):
    if not path:
        return new
    head, *rest = path
    copy = list(value) if isinstance(value, list) else dict(value)
    copy[head] = _replaced(value[head], rest, new)
    return copy


_mutants = st.one_of(
    _json_values,
    st.just("x" * 10_000),
    st.just(10**400),
    st.just(-1e308),
    st.just(1e308),
    st.just("../../../etc/passwd"),
    st.just("/etc/passwd"),
)


@SETTINGS
@given(place=st.integers(0, 10_000), new=_mutants, deep=st.booleans())
def test_mutated_annotation_files_are_read_or_refused_in_one_line(tmp_path, place, new, deep):
    truth = _kaist_truth()
    places = list(_places(truth))
    mutated = _replaced(truth, places[place % len(places)], new)
    text = json.dumps(mutated)
    if deep:
        text = text.replace('"annotations": [', '"annotations": [' + "[" * 30_000 + "]" * 30_000 + ",", 1)
    root = tmp_path / "root"
    (root / "images").mkdir(parents=True, exist_ok=True)
    path = root / "test.json"
    path.write_text(text)
    for benchmark in ("kaist", "llvip"):  # a file that is no annotation file at all: the root has none
        read_or_refused(lambda p, b=benchmark: check_data(root, benchmark=b), path, named=(path, root))
    read_or_refused(lambda p: compare_sets(p, p), path)


# --- a config's data paths ----------------------------------------------------------------------------


class _Config(dict):
    filename = "evil_config.py"


_config_values = st.one_of(
    _json_values,
    st.just("/etc/passwd"),
    st.just("../x.json"),
    st.just("annotations/train.json"),
    st.just({"img": "/etc"}),
    st.just({"img": 3}),
    st.just("flir-aligned"),
    st.just("{ann_file.__class__}"),
)
_config_keys = st.sampled_from(["ann_file", "data_root", "data_prefix", "benchmark", "make_with", "dataset"])


@SETTINGS
@given(
    changes=st.lists(st.tuples(_config_keys, _config_values), max_size=3),
    wrappers=st.integers(0, 12),
    loader=st.sampled_from(["dict", "list", "none", "text"]),
)
def test_mutated_config_data_paths_are_read_or_refused_in_one_line(changes, wrappers, loader):
    dataset = {"type": "KaistDataset", "data_root": "data/", "ann_file": "annotations/train.json"}
    for key, value in changes:
        dataset[key] = value
    for _ in range(wrappers):
        dataset = {"type": "RepeatDataset", "times": 2, "dataset": dataset}
    shapes = {"dict": {"dataset": dataset}, "list": [dataset], "none": None, "text": "train"}
    cfg = _Config(train_dataloader=shapes[loader])
    found = read_or_refused(lambda _: config_datasets(cfg, roles=("train",)), "evil_config.py")
    if not isinstance(found, InputError):
        for files in found:
            assert not str(files.ann_file).startswith(("/", "..")) and ".." not in files.ann_file.parts
