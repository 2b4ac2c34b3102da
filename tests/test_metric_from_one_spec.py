"""A metric added from one spec reaches every place that reports metrics: `eval` (its table and --format
json), the hosted leaderboard's columns and the mmengine metric, with no change elsewhere in the kit."""

import json
import subprocess
import sys

import pytest
from conftest import KAIST

from kaist_kit.metrics.spec import COCO, MISS_RATE, YOLOV5, Metric, Precision, register, unregister

GT = KAIST / "test-all-20.leaderboard.json"
MLPD = KAIST / "results" / "MLPD_result.txt"

# AP at IoU 0.6: between AP50 and AP75 on any file, which tells a number read off the wrong threshold.
AP60 = Metric(
    "ap60",
    "AP60",
    "average precision at IoU 0.6",
    False,
    "0.6",
    "COCO average precision at IoU 0.6",
    ((MISS_RATE, Precision(0.6)), (COCO, Precision(0.6, "all", 100)), (YOLOV5, Precision(0.6))),
)


@pytest.fixture
def ap60():
    register(AP60)
    yield AP60
    unregister(AP60.name)


def run_with_ap60(*args) -> subprocess.CompletedProcess:
    """The command line in a fresh interpreter where the metric is registered before the kit's CLI loads."""
    script = (
        "import sys\n"
        "from kaist_kit.metrics.spec import Metric, Precision, register\n"
        f"register({AP60!r})\n"
        "from kaist_kit.cli import main\n"
        "sys.argv = ['kaist-kit', *sys.argv[1:]]\n"
        "main()\n"
    )
    return subprocess.run([sys.executable, "-c", script, *map(str, args)], capture_output=True, text=True)


needs_shared = pytest.mark.skipif(not GT.is_file(), reason="../shared/data/kaist is not beside the checkout")


@needs_shared
def test_eval_reports_a_registered_metric_in_its_table_and_json():
    common = ("eval", MLPD, "--gt", GT, "--split", "all", "--metric", "ap50", "--metric", "ap60", "--metric", "ap75")
    table = run_with_ap60(*common)
    assert table.returncode == 0, table.stderr
    assert "AP60" in table.stdout
    done = run_with_ap60(*common, "--format", "json")
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)["results"]
    assert row["ap75"] < row["ap60"] < row["ap50"]
    help_text = run_with_ap60("eval", "--help").stdout
    assert "ap60" in help_text
    refused = run_with_ap60("eval", MLPD, "--gt", GT, "--metric", "ap65")
    assert refused.returncode == 2 and "ap60" in refused.stderr  # the choices offered include it


def test_hosting_columns_carry_a_registered_metric(ap60):
    from kaist_kit.hosting.columns import ColumnSpec

    columns = ColumnSpec(metrics=("lamr", ap60.name), splits=("all",)).columns()
    added = [c for c in columns if c.metric == ap60.name]
    assert len(added) == 1 and added[0].label.startswith("AP60")
    assert not added[0].lower_is_better and "IoU 0.6" in added[0].description


@needs_shared
def test_the_mmengine_metric_reports_a_registered_metric(ap60, tmp_path):
    pytest.importorskip("mmdet", reason="the mmengine metric needs the models extra")
    import numpy as np

    from kaist_kit.data.results import load_detections, read_coco
    from kaist_kit.datasets.kaist_truth import load_ground_truth
    from kaist_kit.metrics.evaluate import evaluate
    from kaist_kit.models.metric import KaistMetric

    gt = load_ground_truth(GT)
    dets = load_detections(MLPD, gt)
    written = tmp_path / "predictions.json"
    metric = KaistMetric(ann_file=str(GT), splits=("all",), metrics=(ap60.name,), results_file=str(written))
    for k, image_id in enumerate(gt.image_ids):
        rows = dets.image == k
        x, y, w, h = dets.boxes[rows].T
        metric.results.append((int(image_id), None, np.stack([x, y, x + w, y + h], 1), dets.scores[rows], None))
    found = metric.compute_metrics(metric.results)
    # The numbers `kaist-kit eval` gives the predictions the metric wrote.
    scored = read_coco(written.read_bytes(), str(written), gt)
    (expected,) = evaluate(gt, scored, splits=("all",), metrics=("lamr", ap60.name))
    assert found == {"reasonable_all": expected.lamr, "reasonable_all_ap60": expected.values["ap60"]}
    assert 0 < found["reasonable_all_ap60"] < 1
    with pytest.raises(ValueError, match="ap60"):
        KaistMetric(ann_file=str(GT), metrics=("ap65",))
