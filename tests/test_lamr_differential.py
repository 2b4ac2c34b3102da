"""The vectorised evaluator against the plain loop implementation, on thousands of random cases."""

import math
import warnings

import numpy as np
import pytest
from conftest import make_dets, make_gt
from plain_lamr import plain_lamr

from kaist_kit.errors import KitWarning
from kaist_kit.metrics.evaluate import Evaluation
from kaist_kit.metrics.settings import SETTINGS


def random_case(rng):
    """Random images, boxes, ties, ignore regions and empty images, in KAIST's coordinates."""
    n_images = int(rng.choice([1, 2, 5, 20, 60, 130]))
    night_from = int(rng.integers(0, n_images + 1))
    images = [
        {"id": i, "im_name": f"set{'10' if i >= night_from else '07'}/V001/I{i:05d}", "width": 640, "height": 512}
        for i in range(n_images)
    ]
    annotations, detections = [], []
    ann_ids = list(rng.permutation(n_images * 8))  # id 0 lands anywhere, or nowhere
    for image_id in range(n_images):
        boxes = []
        for _ in range(int(rng.choice([0, 0, 1, 2, 3, 6]))):
            h = float(rng.choice([rng.integers(10, 140), 45, 50, 55, 75, 115]))
            w = float(max(1, round(h * rng.uniform(0.3, 0.6))))
            x = float(rng.choice([rng.integers(-10, 640 - int(w) + 10), 5, 635 - w]))
            y = float(rng.choice([rng.integers(0, 512 - int(h)), 5, 507 - h, 4]))
            boxes.append((x, y, w, h))
            annotations.append(
                {
                    "id": int(ann_ids.pop()),
                    "image_id": image_id,
                    "bbox": [x, y, w, h],
                    "height": h,
                    "occlusion": int(rng.choice([0, 0, 1, 2])),
                    "ignore": int(rng.random() < 0.25),
                }
            )
        score_pool = rng.choice([0.9, 0.5, 0.25], size=4)  # ties within and across images
        for box in boxes:
            for _ in range(int(rng.choice([0, 1, 1, 2]))):
                jitter = rng.normal(0, [3, 3, 2, 4])
                bx, by, bw, bh = np.array(box) + jitter
                detections.append(((bx, by, max(bw, 0.0), max(bh, 0.0)), image_id))
        for _ in range(int(rng.choice([0, 0, 1, 4]))):
            w, h = rng.uniform(5, 80), rng.uniform(10, 160)
            detections.append(((rng.uniform(0, 600), rng.uniform(0, 480), w, h), image_id))
        if boxes and rng.random() < 0.3:  # a detection exactly on a box: overlap 1, and exact ties
            detections.append((boxes[0], image_id))
    records = []
    for box, image_id in detections:
        score = float(rng.choice(score_pool)) if rng.random() < 0.4 else float(rng.random())
        records.append({"image_id": image_id, "category_id": 1, "bbox": [float(v) for v in box], "score": score})
    order = rng.permutation(len(records))  # unsorted within images, interleaved images
    records = [records[k] for k in order]
    return images, annotations, records


@pytest.mark.parametrize("seed", range(12))
def test_random_cases_match_plain_implementation(seed):
    rng = np.random.default_rng(1000 + seed)
    seen = {"protocols differ": 0, "zero miss rate": 0, "pedestrians skipped": 0, "empty": 0}
    for case in range(250):
        images, annotations, records = random_case(rng)
        gt = make_gt(images, annotations)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", KitWarning)
            evaluation = Evaluation(gt, make_dets(gt, records), list(SETTINGS))
        for setting in SETTINGS:
            split = str(rng.choice(["all", "day", "night", "subset"]))
            if split == "subset":
                ids = [img["id"] for img in images if rng.random() < 0.5]
                selection = ids
            else:
                ids = [i for i, p in zip(gt.image_ids, gt.image_periods) if split in ("all", p)]
                selection = split
            got = {}
            for protocol in ("leaderboard", "matlab"):
                result = evaluation.score(setting, selection, protocol, split)
                want, miss, n_gt = plain_lamr(images, annotations, records, setting, set(ids), protocol)
                context = f"seed {seed} case {case} {protocol} {setting} {split}"
                assert result.n_gt == n_gt, context
                assert result.miss_rates == pytest.approx(miss, abs=1e-15), context
                assert math.isclose(result.lamr, want, rel_tol=1e-12, abs_tol=1e-300), context
                got[protocol] = result
            seen["protocols differ"] += got["leaderboard"].lamr != got["matlab"].lamr
            seen["zero miss rate"] += got["leaderboard"].lamr == 0
            seen["pedestrians skipped"] += got["leaderboard"].n_gt < got["matlab"].n_gt
            seen["empty"] += got["matlab"].n_gt == 0
    # The generator must keep reaching the cases where the protocols part ways.
    assert all(count >= 10 for count in seen.values()), seen
