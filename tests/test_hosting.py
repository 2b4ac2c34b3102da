"""Hosting: the bundles' configurations, `host check` on the 2024 challenge's configuration, the YAML writer
and the leaderboard site's scores and cache. (The evaluators run as the workers run them: test_hosting_workers.py;
`host check` on doctored bundles: test_hosting_check.py.)"""

import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
import yaml
from hosting_helpers import RESULTS, SPEC, expected_values, kit_eval
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_envs import ENVS

from kaist_kit.errors import InputError
from kaist_kit.hosting import yamlout
from kaist_kit.hosting.bundle import zip_bytes
from kaist_kit.hosting.check import check_bundle, metric_direction
from kaist_kit.hosting.codabench import write_codabench_bundle
from kaist_kit.hosting.columns import ColumnSpec
from kaist_kit.hosting.evalai import write_evalai_bundle
from kaist_kit.hosting.leaderboard import CACHE_NAME, build_site
from kaist_kit.hosting.options import HostOptions, parse_phase
from kaist_kit.io.archives import read_archive
from kaist_kit.io.read import limited

ROOT = Path(__file__).resolve().parents[1]


def worker_python(name: str) -> str | None:
    """A reference environment's interpreter when it is made (tests/reference_envs.py), else None: `host check`
    then runs the evaluator in this interpreter and says so in a warning."""
    return str(ENVS[name].executable) if ENVS[name].ready() else None


# --- bundles: deterministic, and the kit's own pass `host check` -----------------------------------


def test_bundles_are_byte_identical_and_pass_host_check(kaist, tmp_path, monkeypatch):
    gt = kaist / "test-all-20.leaderboard.json"
    options = HostOptions(
        "A lab's challenge",
        [parse_phase("dev:2026-01-01:2026-01-31"), parse_phase("final:2026-02-01:2026-02-14")],
        SPEC,
    )
    first, second = tmp_path / "a", tmp_path / "b"
    write_evalai_bundle(gt, first, options)
    write_evalai_bundle(gt, second, options)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)
    write_codabench_bundle(gt, tmp_path / "a.zip", options)
    write_codabench_bundle(gt, tmp_path / "b.zip", options)
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()
    # Written into the writer's file, the zip is the one made in memory, byte for byte.
    assert (tmp_path / "a.zip").read_bytes() == zip_bytes(read_archive(tmp_path / "a.zip"))

    config = yaml.safe_load((first / "challenge_config.yaml").read_text())
    schema = config["leaderboard"][0]["schema"]
    assert schema["default_order_by"] == "LAMR all (leaderboard)" == schema["labels"][0]
    assert {label: meta["sort_ascending"] for label, meta in schema["metadata"].items()} == {
        c.label: c.metric == "lamr" for c in SPEC.columns()
    }
    descriptions = [meta["description"] for meta in schema["metadata"].values()]
    assert len(set(descriptions)) == len(descriptions)
    assert all(s["is_leaderboard_order_descending"] is False for s in config["challenge_phase_splits"])
    assert [p["codename"] for p in config["challenge_phases"]] == ["dev", "final"]
    assert config["challenge_phases"][0]["allowed_submission_file_types"] == ".json, .txt, .zip, .tar, .tgz"
    guidelines = (first / "templates" / "submission_guidelines.html").read_text()
    assert "kaist-kit submit MY_result.json --out MY_METHOD.json" in guidelines

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    for bundle, env in ((first, "evalai-py39"), (tmp_path / "a.zip", "codabench-py312")):
        python = worker_python(env)
        report = check_bundle(bundle, python=python)
        problems = [p for p in report.problems if python or p.code != "worker-python"]
        assert report.ran and problems == [], [p.line() for p in report.problems]
        assert list(scratch.iterdir()) == []  # the unpacked bundle and the runs' folders are gone


def test_host_check_unpacks_a_zip_through_the_opener(tmp_path):
    bundle = tmp_path / "bundle.zip"
    with zipfile.ZipFile(bundle, "w") as archive:
        archive.writestr("challenge_config.yaml", "title: x\n")
        archive.writestr("../escaped.yaml", "title: x\n")
    with pytest.raises(InputError, match="lies outside the archive's folder"):
        check_bundle(bundle)
    with zipfile.ZipFile(bundle, "w") as archive:
        archive.writestr(zipfile.ZipInfo("challenge_config.yaml"), b"\n" * 100_000, zipfile.ZIP_DEFLATED)
    with limited(max_bytes=10_000), pytest.raises(InputError, match="its entries declare 97.7 KiB, more than"):
        check_bundle(bundle)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bundle.zip"]


def test_a_test_set_with_hidden_labels_gets_its_image_list(tmp_path):
    images = [{"id": 10 + k, "im_name": f"set06/V000/I{k:05d}", "width": 640, "height": 512} for k in range(4)]
    anns = [
        {
            "id": k + 1,
            "image_id": 10 + k,
            "category_id": 1,
            "bbox": [100, 100, 40, 90],
            "height": 90,
            "occlusion": 0,
            "ignore": 0,
        }
        for k in range(4)
    ]
    gt = tmp_path / "hidden.json"
    gt.write_text(json.dumps({"images": images, "annotations": anns, "categories": [{"id": 1, "name": "person"}]}))
    write_evalai_bundle(gt, tmp_path / "bundle", HostOptions(spec=ColumnSpec(splits=("all",))))
    public = json.loads((tmp_path / "bundle" / "test-images.json").read_text())
    assert public["images"] == images and "annotations" not in public
    guidelines = (tmp_path / "bundle" / "templates" / "submission_guidelines.html").read_text()
    assert "kaist-kit submit MY_result.json --gt test-images.json --out MY_METHOD.json" in guidelines
    assert check_bundle(tmp_path / "bundle", python=worker_python("evalai-py39")).ok


# --- host check on the 2024 challenge's configuration, as published ------------------------------

# soonminh/EvalAI-Starters at commit b2cb37d, challenge_config.yaml: the leaderboard's labels, sort
# orders and descriptions, the phase's file types and the phase split, as published (the challenge's dates,
# which EvalAI requires, are the phase's) (a flow mapping with
# comments and trailing commas, Python-style booleans). Its evaluator is stood in for by a script that
# behaves as docs/evaluation.md describes the published one: .txt uploads read as category 1 while only
# category 0 is scored (every column -1, the MR ones shown as -100), and json.load on the upload, which
# raises on a malformed file.
CONFIG_2024 = """\
title: Multispectral Pedestrian Detection Challenge
start_date: 2024-06-11 00:00:00
end_date: 2024-07-31 23:59:59
description: templates/description.html
evaluation_details: templates/evaluation_details.html
terms_and_conditions: templates/terms_and_conditions.html
image: logo.png
submission_guidelines: templates/submission_guidelines.html
evaluation_script: evaluation_script.zip
leaderboard:
  - id: 1
    schema:
      {
        "labels": [
          "MR_-2_iou50_all",
          # "MR_-2_iou60_all",
          "MR_-2_iou50_day",
          "MR_-2_iou50_night",
          "AP_iou50",
          "AP_iou75",
          "AP_iou50:95",
        ],
        "default_order_by": "MR_-2_iou50_all",
        "metadata": {
          "MR_-2_iou50_all": {"sort_ascending": True,
            "description": "All (Day+Night), Log-averaged Miss Rate at False Positive Per Images in [10^-2, 0]",},
          "MR_-2_iou50_day": {"sort_ascending": True,
            "description": "All (Day+Night), Log-averaged Miss Rate at False Positive Per Images in [10^-2, 0]",},
          "MR_-2_iou50_night": {"sort_ascending": True,
            "description": "All (Day+Night), Log-averaged Miss Rate at False Positive Per Images in [10^-2, 0]",},
          "AP_iou50": {"sort_ascending": True,
            "description": "All (Day+Night), Average Precision (101) @ IoU threshold 0.5",},
          "AP_iou75": {"sort_ascending": True,
            "description": "All (Day+Night), Average Precision (101) @ IoU threshold 0.75",},
          "AP_iou50:95": {"sort_ascending": True,
            "description": "All (Day+Night), Average Precision (101) @ IoU threshold 0.5:0.95",},
        }
      }
challenge_phases:
  - id: 1
    name: benchmark
    description: templates/challenge_phase_1_description.html
    start_date: 2024-06-11 00:00:00
    end_date: 2024-07-31 23:59:59
    test_annotation_file: annotations/KAIST_annotation.json
    codename: test
    allowed_submission_file_types: ".json, .txt"
dataset_splits:
  - id: 1
    name: Test Split
    codename: test_split
challenge_phase_splits:
  - challenge_phase_id: 1
    leaderboard_id: 1
    dataset_split_id: 1
    visibility: 3
    leaderboard_decimal_precision: 4
    is_leaderboard_order_descending: True
"""
STAND_IN_MAIN = """\
from .scorer import run


def evaluate(test_annotation_file, user_submission_file, phase_codename, **kwargs):
    output = {}
    if phase_codename == "test":
        metrics = run(test_annotation_file, user_submission_file)
        output["result"] = [{"test_split": metrics}]
        output["submission_result"] = output["result"][0]
    return output
"""
STAND_IN_SCORER = """\
import json


def read(path):
    if path.endswith(".txt"):
        rows = [[float(v) for v in line.split(",")] for line in open(path).readlines()]
        return [{"image_id": r[0] - 1, "category_id": 1, "bbox": r[1:5], "score": r[5]} for r in rows]
    if path.endswith(".json"):
        return json.load(open(path))
    raise Exception("[Error] Exception extension : %s" % path.split(".")[-1])


def run(annotation_file, upload):
    gt = json.load(open(annotation_file))
    dets = [d for d in read(upload) if d["category_id"] == 0]
    boxes = {(a["image_id"], tuple(a["bbox"])) for a in gt["annotations"] if a["category_id"] == 0}
    if not dets:
        return {"MR_-2_iou50_all": -100, "MR_-2_iou50_day": -100, "MR_-2_iou50_night": -100,
                "AP_iou50": -1, "AP_iou75": -1, "AP_iou50:95": -1}
    found = {(d["image_id"], tuple(d["bbox"])) for d in dets} & boxes
    recall = len(found) / len(boxes)
    mr = 100 * (1 - recall)
    return {"MR_-2_iou50_all": mr, "MR_-2_iou50_day": mr, "MR_-2_iou50_night": mr,
            "AP_iou50": recall, "AP_iou75": recall, "AP_iou50:95": recall}
"""


def bundle_2024(folder: Path, config: str = CONFIG_2024) -> Path:
    folder.mkdir()
    (folder / "challenge_config.yaml").write_text(config)
    for page in (
        "description",
        "evaluation_details",
        "terms_and_conditions",
        "submission_guidelines",
        "challenge_phase_1_description",
    ):
        (folder / "templates").mkdir(exist_ok=True)
        (folder / "templates" / f"{page}.html").write_text(f"<p>{page}</p>\n")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    images = [
        {"id": k, "im_name": f"set0{6 + 3 * (k % 2)}/V000/I{k:05d}", "height": 512, "width": 640} for k in range(6)
    ]
    anns = [
        {
            "id": k,
            "image_id": k,
            "category_id": 0,
            "bbox": [100 + k, 120, 40, 90],
            "height": 90,
            "occlusion": 0,
            "ignore": 0,
        }
        for k in range(6)
    ]
    (folder / "annotations").mkdir()
    (folder / "annotations" / "KAIST_annotation.json").write_text(
        json.dumps({"images": images, "annotations": anns, "categories": [{"id": 0, "name": "person"}]})
    )
    script = {
        "__init__.py": "from .main import evaluate  # noqa: F401\n",
        "main.py": STAND_IN_MAIN,
        "scorer.py": STAND_IN_SCORER,
    }
    with zipfile.ZipFile(folder / "evaluation_script.zip", "w") as archive:
        for name, text in script.items():
            archive.writestr(name, text)
    for name, text in script.items():  # a repository made from EvalAI-Starters: the folder the zip is made of
        (folder / "evaluation_script").mkdir(exist_ok=True)
        (folder / "evaluation_script" / name).write_text(text)
    return folder


def test_host_check_flags_each_defect_of_the_2024_configuration(tmp_path):
    report = check_bundle(bundle_2024(tmp_path / "2024"), python=worker_python("evalai-py39"))
    lines = [p.line() for p in report.problems]
    codes = sorted(p.code for p in report.problems if p.code != "worker-python")
    assert report.ran and not report.ok
    # AP columns sorted ascending: a higher AP ranks lower.
    for label in ("AP_iou50", "AP_iou75", "AP_iou50:95"):
        assert any(f"label {label!r} is sorted ascending" in line for line in lines), lines
    assert not any("label 'MR_" in line and "sort-order" in line for line in lines)
    # Day and night described as "All (Day+Night)".
    assert any(
        "same-description" in line and "'MR_-2_iou50_all', 'MR_-2_iou50_day', 'MR_-2_iou50_night'" in line
        for line in lines
    )
    # Ranked by a miss rate, highest first.
    assert any("default-order" in line and "highest first" in line for line in lines)
    # The evaluator mis-scores .txt uploads and shows a traceback for a malformed one.
    assert any("mis-score" in line and ".txt upload" in line and "AP_iou50 -1" in line for line in lines)
    assert any("traceback" in line and "malformed .json" in line for line in lines)
    assert not any(" a .json upload" in line for line in lines)  # a perfect JSON upload scores perfectly there
    assert codes == sorted(["sort-order"] * 3 + ["same-description", "default-order", "mis-score", "traceback"])


def test_host_check_flags_missing_files_unknown_labels_and_unreadable_types(tmp_path):
    config = CONFIG_2024.replace(
        '"AP_iou50:95",\n        ],', '"AP_iou50:95",\n          "AR_iou50",\n        ],'
    ).replace('".json, .txt"', '".json, .csv"')
    folder = bundle_2024(tmp_path / "variant", config)
    (folder / "templates" / "description.html").unlink()
    lines = [p.line() for p in check_bundle(folder, run=False).problems]
    assert any("missing-file" in line and "templates/description.html" in line for line in lines)
    assert any("file-type" in line and ".csv" in line for line in lines)
    assert any("label-not-returned" in line and "'AR_iou50'" in line for line in lines)  # without running
    (folder / "templates" / "description.html").write_text("<p>back</p>\n")
    lines = [p.line() for p in check_bundle(folder).problems]
    assert any("label-not-returned" in line and "never returns 'AR_iou50'" in line for line in lines), lines


def test_metric_direction_reads_the_usual_names():
    assert [
        metric_direction(n)
        for n in ("MR_-2_iou50_all", "LAMR all", "All (MR-2)", "AP_iou50:95", "AP50 day", "AR", "Accuracy", "Total")
    ] == ["lower", "lower", "lower", "higher", "higher", "higher", "higher", None]


# --- the YAML writer -------------------------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.text(max_size=12)
    | st.floats(allow_nan=False, width=64)
)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.dictionaries(st.text(max_size=10), documents, max_size=5))
def test_yaml_reads_back_as_written(data):
    assert yaml.safe_load(yamlout.dump(data)) == (data if data else None)


def test_yaml_refuses_what_it_does_not_write():
    with pytest.raises(TypeError):
        yamlout.dump({"a": object()})
    assert yamlout.scalar(1e-05) == "1.0e-05" and yamlout.scalar("yes") == '"yes"'


# --- the leaderboard site --------------------------------------------------------------------------


def test_leaderboard_scores_every_entry_and_rescores_only_what_changed(kaist, tmp_path):
    gt = kaist / "test-all-20.leaderboard.json"
    entries = tmp_path / "entries"
    entries.mkdir()
    for name in RESULTS:
        shutil.copy(kaist / "results" / name, entries / name)
    (entries / "Broken_result.txt").write_text("image,x,y,w,h,score\n")
    (entries / "notes.md").write_text("not a result\n")
    site = tmp_path / "site"
    first = build_site(entries, gt, site, ("lamr", "ap50"))
    assert sorted(first.rescored) == sorted([*RESULTS, "Broken_result.txt"]) and first.skipped == ["notes.md"]
    spec = first.spec
    expected = kit_eval([entries / n for n in RESULTS], gt, spec)
    by_source = {e.source: e for e in first.entries}
    for name in RESULTS:
        method = name.split("_result")[0].replace(".tar.gz", "")
        assert {k: 100 * v for k, v in by_source[name].values.items()} == expected_values(expected, method, spec)
    assert by_source["MBNet_result.txt"].verdict == "correct"
    assert by_source["Broken_result.txt"].refused.startswith("Broken_result.txt:1: a header line")
    page = (site / by_source["MLPD_result.json"].page).read_text()
    assert "[threshold]" in page and "<svg" in page

    again = build_site(entries, gt, site, ("lamr", "ap50"))
    assert again.rescored == [] and sorted(again.reused) == sorted(first.rescored)
    (entries / "MLPD_result.json").write_bytes((kaist / "results" / "MLPD_result.json").read_bytes()[:-1] + b" ]")
    third = build_site(entries, gt, site, ("lamr", "ap50"))
    assert third.rescored == ["MLPD_result.json"]
    assert (site / CACHE_NAME).is_file()
    (entries / "Broken_result.txt").unlink()
    (site / "entries" / "notes.html").write_text("the site's owner's own page")
    (site / "entries" / "old.html").symlink_to(site / by_source["MLPD_result.json"].page)
    fourth = build_site(entries, gt, site, ("lamr", "ap50"))
    assert fourth.rescored == [] and not (site / by_source["Broken_result.txt"].page).exists()
    # Only the pages the site recorded writing are removed; the cache lists them.
    assert sorted(p.name for p in (site / "entries").iterdir()) == sorted(
        ["notes.html", "old.html", *(Path(e.page).name for e in fourth.entries)]
    )
    outputs = json.loads((site / CACHE_NAME).read_text())["outputs"]
    assert outputs == {"files": sorted(["index.html", *(e.page for e in fourth.entries)]), "folders": ["entries"]}
    for entry in RESULTS:
        (entries / entry).unlink()
    assert build_site(entries, gt, site, ("lamr", "ap50")).entries == []
    assert sorted(p.relative_to(site).as_posix() for p in site.rglob("*")) == [
        "entries",
        "entries/notes.html",
        "entries/old.html",
        "index.html",
        CACHE_NAME,
    ]


def test_verbs_write_bundles_and_sites_and_say_what_is_wrong(kaist, tmp_path):
    def kit(*args):
        return subprocess.run([sys.executable, "-m", "kaist_kit", *map(str, args)], capture_output=True, text=True)

    gt = kaist / "test-all-20.leaderboard.json"
    done = kit("host", "evalai", "--gt", gt, "--out", tmp_path / "bundle", "--metric", "ap50")
    assert done.returncode == 0 and "LAMR all, LAMR day, LAMR night, AP50 all" in done.stdout
    assert kit("host", "check", tmp_path / "bundle").returncode == 0
    done = kit("host", "check", bundle_2024(tmp_path / "2024"), "--no-run")
    assert done.returncode == 1 and "[same-description]" in done.stdout and "Traceback" not in done.stderr
    done = kit("host", "evalai", "--gt", gt, "--out", tmp_path / "x", "--phase", "dev:2026-02-30:2026-03-01")
    assert done.returncode == 2 and "YYYY-MM-DD" in done.stderr
    done = kit("host", "codabench", "--gt", gt, "--out", tmp_path / "bundle-folder")
    assert done.returncode == 2 and "give --out NAME.zip" in done.stderr
    done = kit("leaderboard", tmp_path / "nothing-here", "--gt", gt, "--out", tmp_path / "site")
    assert done.returncode == 2 and "is not a folder of results" in done.stderr
    (tmp_path / "entries").mkdir()
    shutil.copy(kaist / "results" / "MBNet_result.txt", tmp_path / "entries")
    for _ in range(2):  # the site's cache, read again, is no input that the run may not replace
        done = kit("leaderboard", tmp_path / "entries", "--gt", gt, "--out", tmp_path / "site")
        assert done.returncode == 0, done.stderr
