"""IoU thresholds, COCO's AP / AR accumulation, MR-4 and custom settings against the plain loop
implementation, on thousands of random cases."""

import math
import random
import warnings

import numpy as np
import pytest
from conftest import make_dets, make_gt
from plain_lamr import COCO_IOU_THRESHOLDS, MR4_REFS, RECALL_POINTS, coco_of, lamr_of, matched_sequence

from kaist_kit.errors import KitWarning
from kaist_kit.metrics import coco
from kaist_kit.metrics.evaluate import Evaluation
from kaist_kit.metrics.settings import LEADERBOARD, MATLAB, SETTINGS, with_fppi_range

INF = math.inf
# Custom settings as the plain implementation takes them: ((low, high), occlusions, border, squarify).
CUSTOM = [
    ((50, INF), {0, 1}, 5, None),
    ((55, INF), {0, 1}, 5, 0.41),
    ((20, 80), {0, 2}, 0, None),
    ((1, INF), {0, 1, 2}, 12.5, 0.5),
    ((45, 115), {1}, 5, 0.41),
]
# Decimal thresholds as --iou takes them, and the challenge's linspace floats as AP and AR use them.
THRESHOLDS = sorted(set(COCO_IOU_THRESHOLDS) | {0.3, 0.45, 0.6, 0.75, 0.9})


def spec(params):
    """The --setting spelling of a custom setting."""
    (lo, hi), occlusions, border, ratio = params
    names = "+".join(("none", "partial", "heavy")[k] for k in sorted(occlusions))
    text = f"height={lo}:{'inf' if math.isinf(hi) else hi},occlusion={names},border={border}"
    return text + (f",squarify={ratio}" if ratio is not None else "")


def random_case(rnd):
    """Random images, boxes, ties, ignore regions, empty images and exact overlaps, in KAIST's coordinates.

    Besides jittered detections of the boxes and stray ones, some pedestrians get an overlap that is
    exactly a threshold: a 40 x 100 box with a detection pct pixels high on it (IoU pct / 100,
    correctly rounded), an ignore region pct pixels high under a 40 x 100 detection (intersection
    over the detection pct / 100), or a 32 x 128 box with a detection whose IoU is the challenge's
    0.8999999999999999.
    """
    n_images = rnd.choice([1, 2, 5, 20, 40, 80])
    night_from = rnd.randint(0, n_images)
    images = [
        {"id": i, "im_name": f"set{'10' if i >= night_from else '07'}/V001/I{i:05d}", "width": 640, "height": 512}
        for i in range(n_images)
    ]
    ann_ids = list(range(n_images * 8))
    rnd.shuffle(ann_ids)  # id 0 lands anywhere, or nowhere
    annotations, records = [], []
    pool = [0.9, 0.5, 0.25]  # scores tie within and across images

    def add(image_id, box, ignore=0, occlusion=0):
        annotations.append(
            {
                "id": ann_ids.pop(),
                "image_id": image_id,
                "bbox": box,
                "height": box[3],
                "occlusion": occlusion,
                "ignore": ignore,
            }
        )

    def detect(image_id, box):
        score = rnd.choice(pool) if rnd.random() < 0.4 else rnd.random()
        records.append({"image_id": image_id, "category_id": 1, "bbox": [float(v) for v in box], "score": score})

    for image_id in range(n_images):
        for _ in range(rnd.choice([0, 0, 1, 2, 3, 5])):
            h = float(rnd.choice([rnd.randint(10, 140), 45, 50, 55, 75, 115]))
            w = float(max(1, round(h * rnd.uniform(0.3, 0.6))))
            x = float(rnd.choice([rnd.randint(-10, 650 - int(w)), 5, 635 - w]))
            y = float(rnd.choice([rnd.randint(0, 512 - int(h)), 5, 507 - h, 4]))
            add(image_id, [x, y, w, h], int(rnd.random() < 0.25), rnd.choice([0, 0, 1, 2]))
            for _ in range(rnd.choice([0, 1, 1, 2])):
                detect(
                    image_id,
                    [
                        x + rnd.gauss(0, 3),
                        y + rnd.gauss(0, 3),
                        max(0.0, w + rnd.gauss(0, 2)),
                        max(0.0, h + rnd.gauss(0, 4)),
                    ],
                )
            if rnd.random() < 0.2:
                detect(image_id, [x, y, w, h])
        for _ in range(rnd.choice([0, 0, 1, 3])):
            detect(image_id, [rnd.uniform(0, 600), rnd.uniform(0, 480), rnd.uniform(5, 80), rnd.uniform(10, 160)])
        if rnd.random() < 0.4:
            x, y = float(rnd.randint(20, 560)), float(rnd.randint(20, 370))
            pct = float(rnd.choice([30, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95]))
            kind = rnd.randrange(3)
            if kind == 0:
                add(image_id, [x, y, 40.0, 100.0], occlusion=rnd.choice([0, 1]))
                detect(image_id, [x, y, 40.0, pct])
            elif kind == 1:
                add(image_id, [x, y, 40.0, pct], ignore=1)
                detect(image_id, [x, y, 40.0, 100.0])
            else:
                add(image_id, [x, y, 32.0, 128.0], occlusion=rnd.choice([0, 1]))
                detect(image_id, [x, y, 35.55555555555556, 128.0])
    rnd.shuffle(records)  # unsorted within images, interleaved images
    return images, annotations, records


def split_of(rnd, gt, images):
    split = rnd.choice(["all", "day", "night", "subset"])
    if split == "subset":
        ids = [img["id"] for img in images if rnd.random() < 0.5]
        return split, ids, ids
    return split, [i for i, p in zip(gt.image_ids, gt.image_periods) if split in ("all", p)], split


@pytest.mark.parametrize("seed", range(8))
def test_thresholds_coco_and_mr4_match_plain_implementation(seed):
    rnd = random.Random(5000 + seed)
    seen = {
        "detections in ignore regions": 0,
        "match to id 0": 0,
        "images skipped": 0,
        "squarify moves": 0,
        "recall points past the curve": 0,
        "threshold decides": 0,
    }
    for case in range(250):
        images, annotations, records = random_case(rnd)
        gt = make_gt(images, annotations)
        named = rnd.choice(list(SETTINGS))
        custom = rnd.choice(CUSTOM)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", KitWarning)
            evaluation = Evaluation(gt, make_dets(gt, records), [named, spec(custom)])
        iou = rnd.choice(THRESHOLDS)
        for setting, plain_setting in ((named, named), (spec(custom), custom)):
            split, ids, selection = split_of(rnd, gt, images)
            context = f"seed {seed} case {case} {setting} {split} iou {iou!r}"
            n_gt = {}
            for protocol, proto in (("leaderboard", LEADERBOARD), ("matlab", MATLAB)):
                matched = matched_sequence(images, annotations, records, plain_setting, set(ids), protocol, iou)
                mr4 = rnd.random() < 0.3
                scored = with_fppi_range(proto, (1e-4, 1.0)) if mr4 else proto
                result = evaluation.score(setting, selection, scored, split, iou)
                want, miss, n_gt[protocol] = lamr_of(*matched, protocol, MR4_REFS if mr4 else None)
                assert result.n_gt == n_gt[protocol], context
                assert result.miss_rates == pytest.approx(miss, abs=1e-15), context
                assert math.isclose(result.lamr, want, rel_tol=1e-12, abs_tol=1e-300), context

                precision, recall, n = evaluation.precision_recall(setting, selection, proto, [iou])
                plain = coco_of(matched[0], matched[1])
                if plain is None:
                    assert n == 0 and np.isnan(precision).all() and np.isnan(recall).all(), context
                    continue
                at_points, final_recall, plain_n = plain
                assert n == plain_n, context
                assert precision[0].tolist() == at_points, context
                assert recall[0] == final_recall, context
                seen["recall points past the curve"] += at_points[-1] == 0.0 < max(at_points)
            seen["images skipped"] += n_gt["leaderboard"] < n_gt["matlab"]
            matches = evaluation.matches_at(iou)
            row = evaluation.row(setting)
            seen["detections in ignore regions"] += bool((matches.status[row] == -1).any())
            taken = matches.matched_gt[row][matches.status[row] == 1]
            seen["match to id 0"] += bool((gt.ann_ids[taken] == 0).any())
            above = evaluation.matches_at(float(np.nextafter(iou, 1.0)))
            seen["threshold decides"] += not np.array_equal(above.status[row], matches.status[row])
        if custom[3] is not None:
            squared = evaluation.score(spec(custom), "all", "matlab", iou=iou)
            flat = Evaluation(gt, make_dets(gt, records), [spec((*custom[:3], None))]).score(
                spec((*custom[:3], None)), "all", "matlab", iou=iou
            )
            seen["squarify moves"] += squared.miss_rates != flat.miss_rates
    # The generator must keep reaching the cases where the rules matter.
    assert all(count >= 5 for count in seen.values()), seen


def test_coco_accumulation_of_true_positives_only_equals_the_per_detection_loop():
    # coco.precision_recall reads precision at the true positives only; COCO's loop at every detection.
    rng = np.random.default_rng(11)
    for _ in range(300):
        length = int(rng.integers(0, 60))
        kind = rng.choice([0, 1, 2], size=(3, length), p=[0.45, 0.4, 0.15])  # fp, tp, ignored
        tp, fp = kind == 1, kind == 0
        n_gt = int(tp.sum(axis=1).max()) + int(rng.integers(1, 4))
        precision, recall = coco.precision_recall(tp, fp, n_gt)
        for t in range(3):
            ts, fs, pr, rc = 0, 0, [], []
            for k in kind[t]:
                ts += k == 1
                fs += k == 0
                rc.append(ts / n_gt)
                pr.append(ts / (fs + ts + np.spacing(1)))
            for i in range(len(pr) - 1, 0, -1):
                pr[i - 1] = max(pr[i - 1], pr[i])
            want = [next((pr[i] for i, r in enumerate(rc) if r >= point), 0.0) for point in RECALL_POINTS]
            assert precision[t].tolist() == want
            assert recall[t] == (rc[-1] if rc else 0.0)
