"""What pycocotools does with a ground truth's annotation ids, which the ground-truth readers say.

pycocotools' `COCOeval` (and the KAIST leaderboard's evaluator, built on it) has two rules on ids that
change scores without a word:

- **id 0 is never found.** A detection's match is stored as the matched box's id, and a flag of 0 reads
  as "no match": the box with id 0 can only be missed, and the detection that finds it is a false
  positive.
- **An id used twice loads its last box.** The ground truth's boxes are indexed by id (``anns[id] =
  ann``, the last one of an id wins) and the evaluator loads them back by id: every box of an id becomes
  a copy of the last box of that id (its image, class and box), so that a box is doubled where another
  is lost.

The kit writes ids from 1, each once (its converters). `id_notes` says, in one line each, when a ground
truth breaks either rule, and `coco_loaded` gives the boxes pycocotools evaluates in their place (the
kit's COCO evaluator follows it, `kaist_kit.metrics.cocoeval`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import quantity


def id_notes(ids: Sequence, leaderboard: bool = False) -> list[str]:
    """One line for each rule the annotation ``ids`` of a file (in its order; what is not an integer
    is left out) break: id 0, ids used twice. ``leaderboard``: a KAIST ground truth, scored by the
    leaderboard's protocol (which keeps the id-0 rule) or the MATLAB devkit's (which has neither rule),
    with each box as written."""
    ids = np.array([i for i in ids if isinstance(i, (int, np.integer)) and not isinstance(i, bool)], np.int64)
    notes = []
    zero = int(np.count_nonzero(ids == 0))
    if zero:
        who = "the leaderboard's evaluator, as pycocotools," if leaderboard else "pycocotools"
        kit = (
            "the leaderboard protocol keeps that rule, the matlab protocol matches it"
            if leaderboard
            else "the kit's COCO AP does the same"
        )
        notes.append(
            f"{quantity(zero, 'box', 'boxes')} with annotation id 0: {who} never counts a match to "
            f"{'it' if zero == 1 else 'them'} (a detection on {'it' if zero == 1 else 'them'} is a false "
            f"positive), {kit}; number the ids from 1"
        )
    values, counts = np.unique(ids, return_counts=True)
    shared = values[counts > 1]
    if len(shared):
        boxes = int(counts[counts > 1].sum())
        first = int(ids[np.isin(ids, shared)][0])
        kit = "the kit scores each box as written" if leaderboard else "the kit's COCO AP does the same"
        who = "the leaderboard's evaluator, as pycocotools," if leaderboard else "pycocotools"
        notes.append(
            f"{quantity(len(shared), 'annotation id')} used more than once ({boxes} boxes, first: id {first}): "
            f"{who} loads the last box of an id in place of every box of that id (boxes doubled, others "
            f"lost), {kit}; give each box an id of its own"
        )
    return notes


def coco_loaded(keys: Sequence, kept: np.ndarray) -> np.ndarray | None:
    """For each box kept (``kept``: a mask over the file's boxes, in file order, whose ids are ``keys``,
    any hashable values), the kept box pycocotools evaluates in its place: the last box of the file with
    its id, by its index among the kept boxes, or -1 where that box is one the kit left out (of a class
    not in the categories, which pycocotools then files under that class and never scores). None when
    every id is used once (each box is itself)."""
    last = {key: k for k, key in enumerate(keys)}  # as pycocotools' `anns[ann['id']] = ann`
    if len(last) == len(keys):
        return None
    kept = np.asarray(kept, bool)
    kept_index = np.full(len(keys), -1, np.int64)
    kept_index[kept] = np.arange(int(np.count_nonzero(kept)))
    return kept_index[[last[key] for key, keep in zip(keys, kept.tolist()) if keep]]
