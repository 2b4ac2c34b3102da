"""The order numpy's default argsort gives equal keys, reproduced exactly, for evaluators that sort with it.

An evaluator that sorts scores with ``np.argsort`` (numpy's default, unstable ``quicksort``) leaves
detections of equal score in whatever order numpy's sort leaves them, and its miss rate can depend on
that order. The order is numpy's and the CPU's:

- numpy 1.25 and 1.26 on an x86-64 CPU with AVX-512 (numpy's ``AVX512_SKX``), outside Windows: the
  AVX-512 argsort of intel/x86-simd-sort (numpy 1.26.4 vendors it at
  0631a88763a4a0a4c9e84d5eeb0ec5d36053730b; its argsort is unchanged since the copy of numpy 1.25.0):
  sorting networks up to 64 keys, a vectorised quicksort above (median of 8 as pivot), and
  libstdc++'s ``std::sort`` where that quicksort stops making progress (`NUMPY1_AVX512`);
- numpy 1.x otherwise (before 1.25, on other CPUs, on Windows): numpy's own introsort, a quicksort
  with a median of 3, insertion sort up to 16 keys and a heapsort past its depth (`NUMPY1_INTROSORT`);
- numpy 2 vendors newer x86-simd-sort (AVX-512 and AVX2) whose orders differ from 1.26's above 64
  keys (`THIS_NUMPY`: whatever the running numpy does).

`argsort` gives each order for float64 keys without NaN. Where the keys are all distinct every order
is the same and numpy's stable sort gives it at once; only keys with ties go through the Python model
of the algorithm, which follows the C++ operation by operation (each is noted beside its step).

The orders modelled are those of numpy (BSD-3-Clause), intel/x86-simd-sort (BSD-3-Clause) and libstdc++'s
``std::sort`` (GPL-3.0 with the GCC Runtime Library Exception); this module is Python written to give
their orders, and tests/test_sort_orders.py checks it against numpy 1.26 itself.
"""

from __future__ import annotations

import platform
import sys

import numpy as np

STABLE = "stable"  # equal keys keep their order, as MATLAB's sort and Python's sorted do
NUMPY1_INTROSORT = "numpy1-introsort"
NUMPY1_AVX512 = "numpy1-avx512"
THIS_NUMPY = "numpy"  # np.argsort of the running numpy, on this CPU
ORDERS = (STABLE, NUMPY1_INTROSORT, NUMPY1_AVX512, THIS_NUMPY)


def numpy1_order() -> str:
    """The order numpy 1.26's default argsort gives on this machine: its AVX-512 sort where numpy would
    dispatch to it (x86-64 Linux, a CPU with AVX512_SKX), else its introsort. (numpy 1.26 also sorts so on
    an AVX-512 Mac, where its powers are exact, unlike Linux's: that machine is not modelled.)"""
    if not sys.platform.startswith("linux") or platform.machine().lower() not in ("x86_64", "amd64"):
        return NUMPY1_INTROSORT
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # numpy 1.x
        from numpy.core._multiarray_umath import __cpu_features__ as features
    return NUMPY1_AVX512 if features.get("AVX512_SKX") else NUMPY1_INTROSORT


def describe_order(order: str) -> str:
    """What orders ties under ``order``, in words."""
    return {
        STABLE: "a stable sort (file order)",
        NUMPY1_INTROSORT: "numpy 1.26 on a CPU without AVX-512 (its introsort)",
        NUMPY1_AVX512: "numpy 1.26 on an AVX-512 CPU (its x86-simd-sort argsort)",
        THIS_NUMPY: f"numpy {np.__version__} on this CPU",
    }[order]


def argsort(keys: np.ndarray, order: str = STABLE) -> np.ndarray:
    """The indices that sort ``keys`` (float64) ascending, equal keys in the ``order`` named."""
    if order not in ORDERS:
        raise ValueError(f"unknown sort order {order!r}; choose from {', '.join(ORDERS)}")
    keys = np.ascontiguousarray(keys, dtype=np.float64)
    if order == THIS_NUMPY:
        return np.argsort(keys)
    if order == STABLE or len(keys) < 2 or not has_ties(keys):
        return np.argsort(keys, kind="stable")
    if np.isnan(keys).any():
        raise ValueError("keys with NaN: numpy 1.x sorts them by another path, which is not modelled")
    values = keys.tolist()
    arg = list(range(len(values)))
    if order == NUMPY1_INTROSORT:
        _numpy_introsort(values, arg)
    else:
        _simd_argsort(values, arg, 0, len(arg) - 1, 2 * (len(arg).bit_length() - 1))
    return np.array(arg, np.int64)


def has_ties(keys: np.ndarray) -> bool:
    """Whether two keys are equal (0.0 and -0.0 are)."""
    ordered = np.sort(keys)
    return bool(np.any(ordered[1:] == ordered[:-1]))


def _swap(a: list, i: int, j: int) -> None:
    a[i], a[j] = a[j], a[i]


# ------------------------------------------------------------------------------------------------
# numpy's introsort (numpy/core/src/npysort/quicksort.cpp, aquicksort_, and npysort_heapsort.h,
# aheapsort_, at v1.26.4)

_SMALL_QUICKSORT = 15


def _numpy_introsort(v: list, a: list) -> None:
    num = len(a)
    pl, pr = 0, num - 1
    stack: list[tuple[int, int, int]] = []
    cdepth = (num.bit_length() - 1) * 2  # npy_get_msb(num) * 2
    while True:
        if cdepth < 0:  # checked only here: a range keeps partitioning below 0 until it is popped
            _numpy_heapsort(v, a, pl, pr - pl + 1)
        else:
            while pr - pl > _SMALL_QUICKSORT:
                pm = pl + ((pr - pl) >> 1)
                if v[a[pm]] < v[a[pl]]:
                    _swap(a, pm, pl)
                if v[a[pr]] < v[a[pm]]:
                    _swap(a, pr, pm)
                if v[a[pm]] < v[a[pl]]:
                    _swap(a, pm, pl)
                vp = v[a[pm]]
                pi, pj = pl, pr - 1
                _swap(a, pm, pj)
                while True:
                    pi += 1
                    while v[a[pi]] < vp:
                        pi += 1
                    pj -= 1
                    while vp < v[a[pj]]:
                        pj -= 1
                    if pi >= pj:
                        break
                    _swap(a, pi, pj)
                _swap(a, pi, pr - 1)
                cdepth -= 1
                # The larger side waits on the stack with the depth at this point.
                if pi - pl < pr - pi:
                    stack.append((pi + 1, pr, cdepth))
                    pr = pi - 1
                else:
                    stack.append((pl, pi - 1, cdepth))
                    pl = pi + 1
            for pi in range(pl + 1, pr + 1):  # insertion sort
                vi = a[pi]
                vp = v[vi]
                pj = pi
                while pj > pl and vp < v[a[pj - 1]]:
                    a[pj] = a[pj - 1]
                    pj -= 1
                a[pj] = vi
        if not stack:
            return
        pl, pr, cdepth = stack.pop()


def _numpy_heapsort(v: list, a: list, start: int, n: int) -> None:
    base = start - 1  # the heap is 1-based: a[base + k], k = 1 ... n

    def sift(i: int, j: int, n: int, tmp: int) -> None:
        while j <= n:
            if j < n and v[a[base + j]] < v[a[base + j + 1]]:
                j += 1
            if v[tmp] < v[a[base + j]]:
                a[base + i] = a[base + j]
                i = j
                j += j
            else:
                break
        a[base + i] = tmp

    for k in range(n >> 1, 0, -1):
        sift(k, k << 1, n, a[base + k])
    while n > 1:
        tmp = a[base + n]
        a[base + n] = a[base + 1]
        n -= 1
        sift(1, 2, n, tmp)


# ------------------------------------------------------------------------------------------------
# x86-simd-sort's AVX-512 argsort of 64-bit keys (src/avx512-64bit-argsort.hpp,
# avx512-common-argsort.h, avx512-64bit-keyvalue-networks.hpp at 0631a88), as numpy 1.26 calls it
# (avx512_argsort: the whole array, at most 2 * floor(log2(n)) rounds of quicksort).

_LANES = 8


def _simd_argsort(v: list, a: list, left: int, right: int, max_iters: int) -> None:
    """argsort_64bit_: ``left`` and ``right`` inclusive."""
    if max_iters <= 0:  # no progress: std::sort on the range
        _std_sort(v, a, left, right + 1)
        return
    if right + 1 - left <= 64:
        _network_argsort(v, a, left, right + 1 - left)
        return
    size = (right - left) // 8  # get_pivot_64bit: the median of 8 keys spread over the range
    pivot = sorted(v[a[left + k * size]] for k in range(1, 9))[4]
    pivot_index = _partition_unrolled(v, a, left, right + 1, pivot)
    values = [v[x] for x in a[left : right + 1]]
    if pivot != min(values):  # the range's smallest and biggest, as the partition finds them
        _simd_argsort(v, a, left, pivot_index - 1, max_iters - 1)
    if pivot != max(values):
        _simd_argsort(v, a, pivot_index, right, max_iters - 1)


def _partition_vec(v: list, a: list, left: int, right: int, vec: list, pivot: float) -> int:
    """partition_vec: the lanes below the pivot compressed to ``left``, the others to end at ``right``;
    returns how many are at least the pivot."""
    low = [x for x in vec if not v[x] >= pivot]
    high = [x for x in vec if v[x] >= pivot]
    a[left : left + len(low)] = low
    a[right - len(high) : right] = high
    return len(high)


def _scalar_prefix(v: list, a: list, left: int, right: int, pivot: float, count: int) -> tuple[int, int]:
    """The first ``count`` keys partitioned one by one, which leaves a whole number of vectors."""
    for _ in range(count):
        if not v[a[left]] < pivot:
            right -= 1
            _swap(a, left, right)
        else:
            left += 1
    return left, right


def _partition(v: list, a: list, left: int, right: int, pivot: float) -> int:
    """partition_avx512 (``right`` exclusive): one vector at a time."""
    left, right = _scalar_prefix(v, a, left, right, pivot, (right - left) % _LANES)
    if left == right:
        return left
    if right - left == _LANES:
        vec = a[left : left + _LANES]
        return left + _LANES - _partition_vec(v, a, left, left + _LANES, vec, pivot)
    vec_left, vec_right = a[left : left + _LANES], a[right - _LANES : right]
    r_store, l_store = right - _LANES, left
    left, right = left + _LANES, right - _LANES
    while right != left:
        if (r_store + _LANES) - right < left - l_store:
            right -= _LANES
            vec = a[right : right + _LANES]
        else:
            vec = a[left : left + _LANES]
            left += _LANES
        high = _partition_vec(v, a, l_store, r_store + _LANES, vec, pivot)
        r_store -= high
        l_store += _LANES - high
    l_store += _LANES - _partition_vec(v, a, l_store, r_store + _LANES, vec_left, pivot)
    l_store += _LANES - _partition_vec(v, a, l_store, l_store + _LANES, vec_right, pivot)
    return l_store


def _partition_unrolled(v: list, a: list, left: int, right: int, pivot: float, unroll: int = 4) -> int:
    """partition_avx512_unrolled<vtype, 4> (``right`` exclusive): four vectors at a time."""
    if right - left <= 8 * unroll * _LANES:
        return _partition(v, a, left, right, pivot)
    step = unroll * _LANES
    left, right = _scalar_prefix(v, a, left, right, pivot, (right - left) % step)
    if left == right:
        return left
    vec_left = [a[left + _LANES * k : left + _LANES * (k + 1)] for k in range(unroll)]
    vec_right = [a[right - _LANES * (unroll - k) : right - _LANES * (unroll - k - 1)] for k in range(unroll)]
    r_store, l_store = right - _LANES, left
    left, right = left + step, right - step
    while right != left:
        if (r_store + _LANES) - right < left - l_store:
            right -= step
            vecs = [a[right + _LANES * k : right + _LANES * (k + 1)] for k in range(unroll)]
        else:
            vecs = [a[left + _LANES * k : left + _LANES * (k + 1)] for k in range(unroll)]
            left += step
        for vec in vecs:
            high = _partition_vec(v, a, l_store, r_store + _LANES, vec, pivot)
            l_store += _LANES - high
            r_store -= high
    for vec in vec_left + vec_right:
        high = _partition_vec(v, a, l_store, r_store + _LANES, vec, pivot)
        l_store += _LANES - high
        r_store -= high
    return l_store


def _register_network(lanes: list[tuple[int, int]], registers: range) -> list[list[tuple[int, int]]]:
    """One layer of compare-exchanges repeated in each register (lane pairs, min to the first)."""
    return [[(8 * r + i, 8 * r + j) for r in registers for i, j in lanes]]


_ADJACENT = [(0, 1), (2, 3), (4, 5), (6, 7)]
# sort_zmm_64bit: the six layers of the bitonic sort of one register (its shuffles and permutations
# NETWORK_64BIT_1 to _3, with the masks 0xAA, 0xCC, 0xAA, 0xF0, 0xCC, 0xAA that send the maximum up).
_SORT_LAYERS = [
    _ADJACENT,
    [(0, 3), (1, 2), (4, 7), (5, 6)],
    _ADJACENT,
    [(0, 7), (1, 6), (2, 5), (3, 4)],
    [(0, 2), (1, 3), (4, 6), (5, 7)],
    _ADJACENT,
]
# bitonic_merge_zmm_64bit: the half cleaners of one register (NETWORK_64BIT_4, _3 and the shuffle).
_MERGE_LAYERS = [[(0, 4), (1, 5), (2, 6), (3, 7)], [(0, 2), (1, 3), (4, 6), (5, 7)], _ADJACENT]


def _merge_registers(first: int, count: int) -> list[list[tuple[int, int]]]:
    """bitonic_merge_{two,four,eight}_zmm_64bit on registers first ... first + count - 1, two sorted
    halves: each lane of the first half against the mirrored lane of the second (the reversal by
    NETWORK_64BIT_2), then the halves' registers by stride (COEX), then each register's half cleaners."""
    half = count // 2
    layers = [[(8 * (first + r) + i, 8 * (first + count - 1 - r) + 7 - i) for r in range(half) for i in range(8)]]
    stride = half // 2
    while stride:
        layers.append(
            [
                (8 * (first + r) + i, 8 * (first + r + stride) + i)
                for block in range(0, count, 2 * stride)
                for r in range(block, block + stride)
                for i in range(8)
            ]
        )
        stride //= 2
    for lanes in _MERGE_LAYERS:
        layers += _register_network(lanes, range(first, first + count))
    return layers


def _network(registers: int) -> list[list[tuple[int, int]]]:
    """The compare-exchanges of argsort_{8,16,32,64}_64bit on 1, 2, 4 or 8 registers."""
    layers = [layer for lanes in _SORT_LAYERS for layer in _register_network(lanes, range(registers))]
    count = 2
    while count <= registers:
        for first in range(0, registers, count):
            layers += _merge_registers(first, count)
        count *= 2
    return layers


_NETWORKS = {registers: _network(registers) for registers in (1, 2, 4, 8)}


def _network_argsort(v: list, a: list, start: int, n: int) -> None:
    """argsort_64_64bit on a[start : start + n] (n <= 64): keys gathered into registers, the lanes past n
    holding +inf with index 0; a compare-exchange swaps two lanes only when the first key is greater."""
    if n <= 1:  # nothing moves: every compare sees the padding's +inf
        return
    registers = next(r for r in (1, 2, 4, 8) if n <= 8 * r)
    idx = a[start : start + n] + [0] * (8 * registers - n)
    key = [v[x] for x in a[start : start + n]] + [float("inf")] * (8 * registers - n)
    for layer in _NETWORKS[registers]:
        for lo, hi in layer:
            if key[lo] > key[hi]:
                key[lo], key[hi] = key[hi], key[lo]
                idx[lo], idx[hi] = idx[hi], idx[lo]
    a[start : start + n] = idx[:n]


# ------------------------------------------------------------------------------------------------
# libstdc++'s std::sort (bits/stl_algo.h, stl_heap.h), as x86-simd-sort's std_argsort calls it with
# the comparison arr[i] < arr[j]; ``last`` exclusive.

_THRESHOLD = 16


def _std_sort(v: list, a: list, first: int, last: int) -> None:
    if first == last:
        return
    _introsort_loop(v, a, first, last, 2 * ((last - first).bit_length() - 1))
    if last - first > _THRESHOLD:
        _insertion_sort(v, a, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(v, a, i)
    else:
        _insertion_sort(v, a, first, last)


def _introsort_loop(v: list, a: list, first: int, last: int, depth: int) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(v, a, first, last)  # __partial_sort(first, last, last)
            return
        depth -= 1
        mid = first + (last - first) // 2  # __unguarded_partition_pivot
        _move_median_to_first(v, a, first, first + 1, mid, last - 1)
        cut = _unguarded_partition(v, a, first + 1, last, v[a[first]])
        _introsort_loop(v, a, cut, last, depth)
        last = cut


def _move_median_to_first(v: list, a: list, result: int, x: int, y: int, z: int) -> None:
    _swap(a, result, _median_of_three(v, a, x, y, z))


def _median_of_three(v: list, a: list, x: int, y: int, z: int) -> int:
    """The position libstdc++'s median of three picks, by the same comparisons in the same order (ties
    decide which equal value moves first)."""
    if v[a[x]] < v[a[y]]:
        if v[a[y]] < v[a[z]]:
            return y
        return z if v[a[x]] < v[a[z]] else x
    if v[a[x]] < v[a[z]]:
        return x
    return z if v[a[y]] < v[a[z]] else y


def _unguarded_partition(v: list, a: list, first: int, last: int, pivot: float) -> int:
    while True:
        while v[a[first]] < pivot:
            first += 1
        last -= 1
        while pivot < v[a[last]]:
            last -= 1
        if not first < last:
            return first
        _swap(a, first, last)
        first += 1


def _insertion_sort(v: list, a: list, first: int, last: int) -> None:
    for i in range(first + 1, last):
        if v[a[i]] < v[a[first]]:
            value = a[i]
            a[first + 1 : i + 1] = a[first:i]
            a[first] = value
        else:
            _unguarded_linear_insert(v, a, i)


def _unguarded_linear_insert(v: list, a: list, last: int) -> None:
    value = a[last]
    while v[value] < v[a[last - 1]]:
        a[last] = a[last - 1]
        last -= 1
    a[last] = value


def _heap_sort(v: list, a: list, first: int, last: int) -> None:
    n = last - first
    if n >= 2:  # __make_heap
        parent = (n - 2) // 2
        while True:
            _adjust_heap(v, a, first, parent, n, a[first + parent])
            if parent == 0:
                break
            parent -= 1
    while last - first > 1:  # __sort_heap: __pop_heap(first, last - 1, last - 1)
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(v, a, first, 0, last - first, value)


def _adjust_heap(v: list, a: list, first: int, hole: int, n: int, value: int) -> None:
    top = child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if v[a[first + child]] < v[a[first + child - 1]]:
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2  # __push_heap
    while hole > top and v[a[first + parent]] < v[value]:
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value
