"""The rounds of the vectorised greedy matching (kaist_kit.metrics.matching) against their plain definition."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kaist_kit.metrics.matching import _rounds


def plain_rounds(pair_det, pair_gt, can_be_taken, n_det):
    """One more than the latest round of the earlier detections sharing a pedestrian that can be taken."""
    rounds = [0] * n_det
    for d in range(n_det):
        mine = {g for p, g in zip(pair_det, pair_gt) if p == d and can_be_taken[g]}
        earlier = [rounds[p] for p, g in zip(pair_det, pair_gt) if p < d and g in mine]
        rounds[d] = max(earlier) + 1 if earlier else 0
    return rounds


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.data())
def test_rounds_are_the_longest_chains(data):
    n_det = data.draw(st.integers(1, 30))
    n_gt = data.draw(st.integers(1, 6))
    pairs = data.draw(st.sets(st.tuples(st.integers(0, n_det - 1), st.integers(0, n_gt - 1)), max_size=60))
    pairs = sorted(pairs)  # by detection, then ground truth, as overlaps_by_image gives them
    can_be_taken = np.array(data.draw(st.lists(st.booleans(), min_size=n_gt, max_size=n_gt)))
    pair_det = np.array([d for d, _ in pairs], np.int64)
    pair_gt = np.array([g for _, g in pairs], np.int64)
    got = _rounds(pair_det, pair_gt, can_be_taken, n_det)
    assert got.tolist() == plain_rounds(pair_det.tolist(), pair_gt.tolist(), can_be_taken, n_det)


def test_a_long_chain_is_one_round_per_detection():
    # Every detection overlaps the same pedestrian: each waits for the one before it.
    n = 500
    got = _rounds(np.arange(n), np.zeros(n, np.int64), np.array([True]), n)
    assert got.tolist() == list(range(n))
