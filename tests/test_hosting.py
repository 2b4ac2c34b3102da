"""Hosting: the EvalAI and Codabench bundles run as the platforms run them, `host check`, the YAML writer
and the leaderboard site's scores and cache."""

import json
import shutil
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kaist_kit.errors import InputError
from kaist_kit.files import limited, read_archive
from kaist_kit.hosting import yamlout
from kaist_kit.hosting.bundle import core_modules, zip_bytes
from kaist_kit.hosting.check import check_bundle, metric_direction
from kaist_kit.hosting.codabench import write_codabench_bundle
from kaist_kit.hosting.columns import ColumnSpec
from kaist_kit.hosting.evalai import write_evalai_bundle
from kaist_kit.hosting.leaderboard import CACHE_NAME, build_site
from kaist_kit.hosting.options import HostOptions, parse_phase

ROOT = Path(__file__).resolve().parents[1]
SPEC = ColumnSpec(("lamr", "ap50", "ar"), ("reasonable",), ("all", "day", "night"), ("leaderboard", "matlab"))
RESULTS = ("MLPD_result.json", "MBNet_result.txt", "MBNet-per-image.tar.gz")


def kit_eval(paths, gt, spec=SPEC):
    """What `kaist-kit eval --format json` prints, by (method, protocol, setting, split): the row."""
    args = [sys.executable, "-m", "kaist_kit", "eval", *map(str, paths), "--gt", str(gt), "--format", "json"]
    for protocol in spec.protocols:
        args += ["--protocol", protocol]
    for metric in spec.metrics:
        args += ["--metric", metric]
    for setting in spec.settings:
        args += ["--setting", setting]
    for split in spec.splits:
        args += ["--split", split]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return {(r["method"], r["protocol"], r["setting"], r["split"]): r for r in json.loads(done.stdout)["results"]}


def expected_values(rows, method, spec=SPEC):
    return {c.label: 100 * rows[(method, c.protocol, c.setting, c.split)][c.metric] for c in spec.columns()}


# --- the EvalAI worker ---------------------------------------------------------------------------

# What EvalAI's submission worker does (Cloud-CV/EvalAI, scripts/workers/submission_worker.py): the
# compute folder and challenge_data are packages, challenge_<id> is created with an empty __init__.py
# and the script zip extracted into it, COMPUTE_DIRECTORY_PATH is appended to sys.path, the package
# `challenge_data.challenge_<id>` imported, and evaluate(annotation, upload, codename,
# submission_metadata=...) called with sys.stdout and sys.stderr assigned to the files the
# participant reads; anything it raises is written there as a traceback.
WORKER = textwrap.dedent("""
    import importlib, importlib.util, json, sys, traceback
    numpy_dir, compute, calls, out = sys.argv[1:]
    isolation = {name: importlib.util.find_spec(name) is not None for name in ("kaist_kit", "typer", "rich",
                                                                             "matplotlib", "numpy")}
    sys.path.append(numpy_dir)
    isolation["numpy_added"] = importlib.util.find_spec("numpy") is not None
    isolation["kaist_kit_added"] = importlib.util.find_spec("kaist_kit") is not None
    sys.path.append(compute)
    module = importlib.import_module("challenge_data.challenge_7")
    records = []
    for annotation, upload, codename in json.loads(calls):
        stdout, stderr = open(out + ".stdout", "w+"), open(out + ".stderr", "w+")
        sys.stdout, sys.stderr = stdout, stderr
        try:
            output = module.evaluate(annotation, upload, codename, submission_metadata={"id": 1})
            raised = None
        except Exception:
            output, raised = None, traceback.format_exc()
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        stdout.seek(0), stderr.seek(0)
        records.append({"output": output, "raised": raised, "stdout": stdout.read(), "stderr": stderr.read(),
                        "submission_result": json.dumps(output.get("submission_result", "")) if output else ""})
    json.dump({"isolation": isolation, "path": sys.path, "records": records,
               "kit_from": [m.__file__ for n, m in sys.modules.items() if n.endswith("kaist_kit.evaluate")]},
              open(out, "w"))
""")


def numpy_only(folder: Path) -> Path:
    """A folder whose only packages are numpy (and the shared libraries its wheel brings)."""
    folder.mkdir()
    source = Path(np.__file__).resolve().parent
    (folder / "numpy").symlink_to(source)
    for libs in source.parent.glob("numpy*.libs"):
        (folder / libs.name).symlink_to(libs)
    return folder


def worker_layout(tmp_path: Path, bundle: Path, gt: Path) -> tuple[Path, Path]:
    compute = tmp_path / "compute"
    package = compute / "challenge_data" / "challenge_7"
    package.mkdir(parents=True)
    for folder in (compute, compute / "challenge_data", package):
        (folder / "__init__.py").write_text("")
    with zipfile.ZipFile(bundle / "evaluation_script.zip") as archive:
        archive.extractall(package)
    annotation = package / "phase_data" / "phase_3" / gt.name
    annotation.parent.mkdir(parents=True)
    shutil.copy(bundle / "annotations" / gt.name, annotation)
    return compute, annotation


def run_worker(tmp_path: Path, compute: Path, calls: list) -> dict:
    out = tmp_path / "worker.json"
    subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            WORKER,
            str(numpy_only(tmp_path / "site-packages")),
            str(compute),
            json.dumps(calls),
            str(out),
        ],
        check=True,
        cwd=tmp_path,
        timeout=600,
    )
    return json.loads(out.read_text())


def test_evalai_evaluate_as_the_worker_calls_it_in_an_interpreter_with_numpy_alone(kaist, tmp_path):
    gt = kaist / "test-all-20.leaderboard.json"
    bundle = tmp_path / "bundle"
    write_evalai_bundle(gt, bundle, HostOptions(spec=SPEC))
    compute, annotation = worker_layout(tmp_path, bundle, gt)
    uploads = compute / "submission_files"
    uploads.mkdir()
    for name in RESULTS:
        shutil.copy(kaist / "results" / name, uploads / name)
    corners = uploads / "Corners_result.txt"  # MBNet's boxes written as corners: the kit refuses it
    rows = np.loadtxt(kaist / "results" / "MBNet_result.txt", delimiter=",")
    rows[:, 3:5] += rows[:, 1:3]
    corners.write_text("".join(f"{int(r[0])}," + ",".join(repr(float(v)) for v in r[1:]) + "\n" for r in rows))
    (uploads / "Cut_result.json").write_text('[{"image_id": 0, "category_id": 1, "bbox": [1, 2')
    names = [*RESULTS, corners.name, "Cut_result.json"]
    calls = [[str(annotation), str(uploads / n), "test"] for n in names] + [
        [str(annotation), str(uploads / names[0]), "dev"]
    ]
    report = run_worker(tmp_path, compute, calls)

    # The interpreter had neither the kit nor its other dependencies; numpy came from the folder given.
    iso = report["isolation"]
    assert not any(iso[n] for n in ("kaist_kit", "typer", "rich", "matplotlib", "numpy", "kaist_kit_added"))
    assert iso["numpy_added"]
    assert all(str(compute) in f for f in report["kit_from"]) and report["kit_from"]
    assert not any("site-packages" in p and "site-packages" != Path(p).name for p in report["path"][:-2])

    expected = kit_eval([kaist / "results" / n for n in RESULTS], gt)
    for name, record in zip(RESULTS, report["records"]):
        method = name.split("_result")[0].replace(".tar.gz", "")
        assert record["raised"] is None
        values = record["output"]["result"][0]["test_split"]
        assert values == expected_values(expected, method)  # exactly, every column
        assert list(values) == [c.label for c in SPEC.columns()]
        assert json.loads(record["submission_result"])["test_split"] == values
    mlpd = report["records"][0]
    assert "[threshold]" in mlpd["stdout"]  # the kit's findings reach the participant

    refused, cut, unknown_phase = report["records"][3:]
    for record in (refused, cut, unknown_phase):
        assert record["raised"] is None and record["output"] == {}
        assert "Traceback" not in record["stderr"] + record["stdout"]
        assert len(record["stderr"].strip().splitlines()) == 1
    assert refused["stderr"].startswith("refused: Corners_result.txt: [corners] the boxes look like corners")
    assert "--as-is" not in refused["stderr"] and "kaist-kit submit" in refused["stderr"]
    assert str(compute) not in refused["stderr"]
    assert cut["stderr"] == "refused: Cut_result.json:1: truncated JSON\n"
    assert "knows the phases 'test', not 'dev'" in unknown_phase["stderr"]


def test_the_core_copied_into_bundles_needs_numpy_alone():
    modules = core_modules()
    assert "kaist_kit.hosting.scoring" in modules and "kaist_kit.findings" in modules
    assert not any(name.startswith(("kaist_kit.cli", "kaist_kit.models", "kaist_kit.submission")) for name in modules)
    assert "kaist_kit.metrics.spec" in modules  # labels and column texts come from the metric specs


# --- Codabench ------------------------------------------------------------------------------------


def test_codabench_scoring_program_runs_as_codabench_runs_it(kaist, tmp_path):
    gt = kaist / "test-all-20.leaderboard.json"
    bundle = tmp_path / "bundle.zip"
    spec = ColumnSpec(("lamr", "ap75"), ("reasonable", "reasonable-small"), ("all", "night"), ("leaderboard",))
    write_codabench_bundle(gt, bundle, HostOptions(spec=spec))
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(tmp_path / "unpacked")
    unpacked = tmp_path / "unpacked"
    competition = yaml.safe_load((unpacked / "competition.yaml").read_text())
    assert competition["version"] == 2 and competition["docker_image"].endswith(":py312")
    columns = competition["leaderboards"][0]["columns"]
    assert [c["key"] for c in columns] == [c.key for c in spec.columns()]
    assert {c["sorting"] for c in columns if c["key"].startswith("lamr")} == {"asc"}
    assert {c["sorting"] for c in columns if c["key"].startswith("ap75")} == {"desc"}
    command = yaml.safe_load((unpacked / "scoring_program" / "metadata.yaml").read_text())["command"]
    assert command == "python3 /app/program/score.py /app/input /app/output"

    # The container's layout: /app/program, /app/input/ref (reference data), /app/input/res (the
    # participant's zip extracted), /app/output.
    app = tmp_path / "app"
    shutil.copytree(unpacked / "scoring_program", app / "program")
    shutil.copytree(unpacked / "reference_data", app / "input" / "ref")
    numpy_dir = numpy_only(tmp_path / "site-packages")
    expected = kit_eval([kaist / "results" / "MBNet_result.txt"], gt, spec)
    submitted = tmp_path / "MBNet.zip"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "kaist_kit",
            "submit",
            str(kaist / "results" / "MBNet_result.txt"),
            "--out",
            str(submitted),
            "--gt",
            str(gt),
        ],
        check=True,
        capture_output=True,
    )

    def score(files: dict) -> subprocess.CompletedProcess:
        for folder in (app / "input" / "res", app / "output"):
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
        for name, data in files.items():
            (app / "input" / "res" / name).write_bytes(data)
        argv = [a.replace("/app/", f"{app}/") for a in command.split()[1:]]
        runner = (
            f"import runpy, sys; sys.path.append({str(numpy_dir)!r}); sys.argv = {argv!r}; "
            f"runpy.run_path(sys.argv[0], run_name='__main__')"
        )
        return subprocess.run(
            [sys.executable, "-I", "-S", "-c", runner], capture_output=True, text=True, cwd=app / "program", timeout=600
        )

    with zipfile.ZipFile(submitted) as archive:  # the zip `kaist-kit submit` writes, as Codabench extracts it
        done = score({n: archive.read(n) for n in archive.namelist()})
    assert done.returncode == 0, done.stderr
    scores = json.loads((app / "output" / "scores.json").read_text())
    keys = {c.label: c.key for c in spec.columns()}
    assert scores == {keys[label]: v for label, v in expected_values(expected, "MBNet", spec).items()}

    done = score({"MBNet_result.txt": b"garbage\n"})
    assert done.returncode == 1 and not (app / "output" / "scores.json").exists()
    assert done.stderr.startswith("refused: MBNet_result.txt:1: ") and "Traceback" not in done.stderr
    done = score({"a_result.json": b"[]", "b_result.json": b"[]"})
    assert done.returncode == 1 and "must hold one result file" in done.stderr


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
    for bundle in (first, tmp_path / "a.zip"):
        report = check_bundle(bundle)
        assert report.ran and report.problems == [], [p.line() for p in report.problems]
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
    assert check_bundle(tmp_path / "bundle").problems == []


# --- host check on the 2024 challenge's configuration, as published ------------------------------

# soonminh/EvalAI-Starters at commit b2cb37d, challenge_config.yaml: the leaderboard's labels, sort
# orders and descriptions, the phase's file types and the phase split, as published (a flow mapping with
# comments and trailing commas, Python-style booleans). Its evaluator is stood in for by a script that
# behaves as docs/evaluation.md describes the published one: .txt uploads read as category 1 while only
# category 0 is scored (every column -1, the MR ones shown as -100), and json.load on the upload, which
# raises on a malformed file.
CONFIG_2024 = """\
title: Multispectral Pedestrian Detection Challenge
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
    with zipfile.ZipFile(folder / "evaluation_script.zip", "w") as archive:
        archive.writestr("__init__.py", "from .main import evaluate  # noqa: F401\n")
        archive.writestr("main.py", STAND_IN_MAIN)
        archive.writestr("scorer.py", STAND_IN_SCORER)
    return folder


def test_host_check_flags_each_defect_of_the_2024_configuration(tmp_path):
    report = check_bundle(bundle_2024(tmp_path / "2024"))
    lines = [p.line() for p in report.problems]
    codes = sorted(p.code for p in report.problems)
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
