"""numpy's default argsort of equal keys, modelled by kaist_kit.metrics.sort_orders, against numpy 1.26 itself (the
numpy1-py311 reference environment): its AVX-512 sort where this CPU has AVX-512, its introsort (with
AVX-512 switched off, or on a CPU without it), and its heapsort; on keys with many ties, including ranges
where the AVX-512 quicksort stops making progress and hands over to std::sort."""

import os
import subprocess

import numpy as np
import pytest

from kaist_kit.metrics import sort_orders
from kaist_kit.metrics.sort_orders import NUMPY1_AVX512, NUMPY1_INTROSORT, STABLE, THIS_NUMPY, argsort, numpy1_order

NUMPY1_ARGSORT = """
import sys
import numpy as np
data = np.load(sys.argv[1])
np.savez(sys.argv[2], **{name: np.argsort(data[name], kind=sys.argv[3]) for name in data.files})
"""
# numpy 1.26's names of the AVX-512 features its sorts dispatch on.
AVX512 = "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL"


def tied_arrays(seed: int) -> dict[str, np.ndarray]:
    """Keys with ties of every kind, at every size up to 80 (the sorting networks), then larger."""
    rng = np.random.default_rng(seed)
    arrays = {}
    for n in [*range(80), 100, 129, 256, 257, 300, 1000, 1024, 3000]:
        kinds = [
            rng.choice([0.0, 1.0], n),  # ignore flags
            -rng.choice([0.1, 0.25, 0.5, 0.75, 0.9], n),  # negated scores from a few values
            rng.integers(0, max(1, n // 3), n).astype(float),
            # mostly the smallest key: the AVX-512 quicksort makes no progress and calls std::sort
            np.where(rng.random(n) < 0.93, -1.0, rng.choice([0.0, 2.0, 3.0], n)),
            np.where(rng.random(n) < 0.5, 5.0, rng.random(n)),
            -np.round(rng.random(n), 2),
        ]
        for k, keys in enumerate(kinds):
            arrays[f"n{n}_{k}"] = keys
    return arrays


def numpy1_argsort(python, arrays, tmp_path, kind="quicksort", env=None) -> dict[str, np.ndarray]:
    np.savez(tmp_path / "keys.npz", **arrays)
    subprocess.run(
        [str(python), "-c", NUMPY1_ARGSORT, str(tmp_path / "keys.npz"), str(tmp_path / "order.npz"), kind],
        check=True,
        env=env,
        timeout=120,
    )
    with np.load(tmp_path / "order.npz") as found:
        return {name: found[name] for name in found.files}


def test_numpy1_introsort_and_heapsort(reference_env, tmp_path):
    python = reference_env("numpy1-py311")
    arrays = tied_arrays(1)
    # numpy 1.26 sorts by its introsort on a CPU without AVX-512; on one with it, when told so.
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=AVX512) if numpy1_order() == NUMPY1_AVX512 else None
    want = numpy1_argsort(python, arrays, tmp_path, env=env)
    for name, keys in arrays.items():
        assert np.array_equal(argsort(keys, NUMPY1_INTROSORT), want[name]), name
    heap = numpy1_argsort(python, arrays, tmp_path, kind="heapsort")
    for name, keys in arrays.items():
        arg = list(range(len(keys)))
        sort_orders._numpy_heapsort(keys.tolist(), arg, 0, len(arg))
        assert arg == heap[name].tolist(), name


def test_numpy1_avx512(reference_env, tmp_path, monkeypatch):
    if numpy1_order() != NUMPY1_AVX512:
        pytest.skip("this CPU has no AVX-512: numpy 1.26 does not run its AVX-512 sort here")
    python = reference_env("numpy1-py311")
    calls = []
    std_sort = sort_orders._std_sort
    monkeypatch.setattr(sort_orders, "_std_sort", lambda *a: calls.append(a) or std_sort(*a))
    arrays = tied_arrays(2)
    want = numpy1_argsort(python, arrays, tmp_path)
    differ = 0
    for name, keys in arrays.items():
        assert np.array_equal(argsort(keys, NUMPY1_AVX512), want[name]), name
        differ += not np.array_equal(want[name], argsort(keys, NUMPY1_INTROSORT))
    assert calls  # the hand-over to std::sort was taken
    assert differ > len(arrays) // 2  # the two numpy 1.26 orders differ on most of these keys


def test_every_order_sorts_and_agrees_without_ties():
    rng = np.random.default_rng(3)
    for n in (0, 1, 2, 7, 64, 65, 500):
        tied = rng.choice([0.0, -0.0, 1.0, 2.5], n)
        distinct = rng.permutation(n).astype(float) / 7
        for order in (STABLE, NUMPY1_INTROSORT, NUMPY1_AVX512, THIS_NUMPY):
            got = argsort(tied, order)
            assert sorted(got.tolist()) == list(range(n))
            assert np.all(np.diff(tied[got]) >= 0)
            assert np.array_equal(argsort(distinct, order), np.argsort(distinct, kind="stable"))


def test_std_sort_heap_fallback_sorts():
    # libstdc++'s introsort hands a range to its heapsort past its depth: depth 0 forces it here.
    keys = np.random.default_rng(4).choice([3.0, 1.0, 2.0], 200).tolist()
    arg = list(range(200))
    sort_orders._introsort_loop(keys, arg, 0, 200, 0)
    assert [keys[i] for i in arg] == sorted(keys)


def test_refusals():
    with pytest.raises(ValueError, match="unknown sort order"):
        argsort(np.zeros(3), "timsort")
    with pytest.raises(ValueError, match="NaN"):
        argsort(np.array([1.0, np.nan, 1.0]), NUMPY1_AVX512)
