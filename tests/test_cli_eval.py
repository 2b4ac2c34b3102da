"""`kaist-kit eval` on the real result files: output formats, ground-truth lookup, figures."""

import csv
import io
import json
import os

import pytest
from test_inputs import run_cli
from typer.testing import CliRunner

from kaist_kit.cli import app

runner = CliRunner()


def invoke(*args, env=None):
    result = runner.invoke(app, [str(a) for a in args], env=env)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture
def files(kaist):
    return {
        "gt": kaist / "test-all-20.leaderboard.json",
        "MBNet": kaist / "results" / "MBNet_result.txt",
        "MLPD": kaist / "results" / "MLPD_result.txt",
    }


def test_json_output_keeps_its_field_names(files, kaist):
    out = invoke(
        "eval",
        files["MBNet"],
        files["MLPD"],
        "--gt",
        files["gt"],
        "--format",
        "json",
        "--setting",
        "reasonable",
        "--setting",
        "all-pedestrians",
    ).stdout
    output = json.loads(out)
    assert set(output) == {"results", "findings"}
    rows = output["results"]
    assert len(rows) == 2 * 2 * 3
    assert set(rows[0]) == {
        "method",
        "protocol",
        "setting",
        "split",
        "iou",
        "lamr",
        "miss_rates",
        "fppi_refs",
        "recall",
        "n_images",
        "n_gt",
    }
    ref = json.loads((kaist / "results" / "reference-lamr.leaderboard.json").read_text())["values"]
    for row in rows:
        assert row["protocol"] == "leaderboard"
        assert row["lamr"] == pytest.approx(ref[row["method"]][row["setting"]][row["split"]], abs=1e-12)
        assert len(row["miss_rates"]) == len(row["fppi_refs"]) == 9
    assert [r["n_images"] for r in rows[:3]] == [2252, 1455, 797]


def test_table_prints_percent_with_two_decimals_and_names_protocol(files):
    out = invoke("eval", files["MBNet"], "--gt", files["gt"]).stdout
    assert "8.13" in out and "8.28" in out and "7.86" in out
    assert "leaderboard protocol" in out and "--protocol matlab" in " ".join(out.split())  # the note wraps
    out = invoke("eval", files["MBNet"], "--gt", files["gt"], "--protocol", "matlab", "--split", "day").stdout
    assert "8.28" in out and "matlab protocol" in out and "night" not in out


def test_csv_and_markdown(files):
    out = invoke(
        "eval",
        files["MLPD"],
        "--gt",
        files["gt"],
        "--format",
        "csv",
        "--protocol",
        "leaderboard",
        "--protocol",
        "matlab",
    ).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["protocol"], r["split"]) for r in rows][:4] == [
        ("leaderboard", "all"),
        ("leaderboard", "day"),
        ("leaderboard", "night"),
        ("matlab", "all"),
    ]
    assert float(rows[1]["lamr"]) == 0.07963704463424127
    md = invoke("eval", files["MLPD"], files["MBNet"], "--gt", files["gt"], "--format", "markdown").stdout
    assert md.splitlines()[0] == "| method | all | day | night |"
    assert "| MLPD | 7.58 | 7.96 | 6.95 |" in md


def test_image_list_subset(files, kaist):
    out = invoke(
        "eval",
        files["MBNet"],
        "--gt",
        files["gt"],
        "--images",
        kaist / "imageSets" / "test-night-20.txt",
        "--split",
        "night",
        "--format",
        "json",
    ).stdout
    night, night_list = json.loads(out)["results"]
    assert night_list["split"] == "test-night-20" and night["split"] == "night"
    assert night_list["lamr"] == night["lamr"] and night_list["n_images"] == 797


def test_plot_written(files, tmp_path):
    figure = tmp_path / "curves.png"
    invoke("eval", files["MBNet"], files["MLPD"], "--gt", files["gt"], "--plot", figure)
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["curves.png"]


def test_ground_truth_from_environment_or_explained(files, tmp_path):
    env = {**os.environ, "KAIST_KIT_GT": str(files["gt"])}
    out = invoke("eval", files["MLPD"], "--split", "all", env=env).stdout
    assert "7.58" in out
    env = {k: v for k, v in os.environ.items() if k != "KAIST_KIT_GT"}
    env["XDG_DATA_HOME"] = str(tmp_path)
    proc = run_cli("eval", files["MLPD"], env=env)
    assert proc.returncode == 2
    assert "--gt" in proc.stderr and "KAIST_KIT_GT" in proc.stderr and len(proc.stderr.splitlines()) == 1
    (tmp_path / "kaist-kit").mkdir()
    (tmp_path / "kaist-kit" / "test-all-20.leaderboard.json").write_bytes(files["gt"].read_bytes())
    proc = run_cli("eval", files["MLPD"], "--split", "all", env=env)
    assert proc.returncode == 0 and "7.58" in proc.stdout


# --- what the inspector finds, as the command says it ------------------------------------------


def corner_copy(kaist, folder):
    records = json.loads((kaist / "results" / "MLPD_result.json").read_text())
    path = folder / "MLPD_corners_result.json"
    path.write_text(
        json.dumps(
            [
                dict(r, bbox=[r["bbox"][0], r["bbox"][1], r["bbox"][0] + r["bbox"][2], r["bbox"][1] + r["bbox"][3]])
                for r in records
            ]
        )
    )
    return path


def test_misread_results_stop_with_the_fix(files, kaist, tmp_path):
    corners = corner_copy(kaist, tmp_path)
    proc = run_cli("eval", corners, "--gt", files["gt"])
    assert proc.returncode == 2 and proc.stdout == "" and len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith(f"error: {corners}: [corners] the boxes look like corners")
    assert "100.00 as written, 7.58 with --corners; rerun with --corners" in proc.stderr
    out = invoke("eval", corners, "--gt", files["gt"], "--corners").stdout
    assert "7.58" in out and "7.96" in out
    as_is = invoke("eval", corners, "--gt", files["gt"], "--as-is")
    assert as_is.exit_code == 0 and "100.00" in as_is.stdout
    assert "warning: [corners]" in as_is.stderr and "(scored as read: --as-is)" in as_is.stderr

    rows = [line.split(",", 1) for line in files["MBNet"].read_text().splitlines()]
    zero_based = tmp_path / "MBNet0_result.txt"  # the first image's detections could not be written 0-based
    zero_based.write_text("\n".join(f"{int(i) - 1},{rest}" for i, rest in rows if i != "1"))
    proc = run_cli("eval", zero_based, "--gt", files["gt"])
    assert proc.returncode == 2 and "[id-offset]" in proc.stderr and "rerun with --id-offset 1" in proc.stderr
    assert "8.13" in invoke("eval", zero_based, "--gt", files["gt"], "--id-offset", "1", "--split", "all").stdout


def test_findings_in_json_and_on_stderr(files):
    result = invoke("eval", files["MLPD"], "--gt", files["gt"], "--format", "json")
    (threshold,) = json.loads(result.stdout)["findings"]
    assert threshold == {
        "code": "threshold",
        "level": "warning",
        "leaderboard": None,
        "source": str(files["MLPD"]),
        "message": threshold["message"],
    }
    assert "the lowest score is 0.1" in threshold["message"]
    assert f"warning: [threshold] {files['MLPD']}: the lowest score is 0.1" in result.stderr
    out = json.loads(
        invoke("diagnose", files["MLPD"], "--gt", files["gt"], "--format", "json", "--resamples", "5").stdout
    )
    assert [f["code"] for f in out["findings"]] == ["threshold"]
    # compare scores the leaderboard's four settings: MLPD leaves two small pedestrians undetected
    out = json.loads(
        invoke(
            "compare", files["MLPD"], files["MBNet"], "--gt", files["gt"], "--format", "json", "--resamples", "5"
        ).stdout
    )
    found = {f["code"]: f["message"] for f in out["findings"]}
    assert set(found) == {"threshold", "empty-images"}
    assert "reasonable-small 2 pedestrians in 2 images" in found["empty-images"]


def test_numbers_as_text_scored_with_a_warning(files, kaist, tmp_path):
    records = json.loads((kaist / "results" / "MLPD_result.json").read_text())
    path = tmp_path / "text_result.json"
    path.write_text(json.dumps([dict(r, score=str(r["score"])) for r in records]))
    result = invoke("eval", path, "--gt", files["gt"], "--split", "all")
    assert result.exit_code == 0 and "7.58" in result.stdout
    assert "warning: [string-values]" in result.stderr and "crashes on a box or score written so" in result.stderr


def test_image_list_adds_a_split(files, kaist):
    out = invoke(
        "eval",
        files["MBNet"],
        "--gt",
        files["gt"],
        "--images",
        kaist / "imageSets" / "test-night-20.txt",
        "--format",
        "json",
    ).stdout
    rows = json.loads(out)["results"]
    assert [r["split"] for r in rows] == ["all", "day", "night", "test-night-20"]
    assert rows[3]["lamr"] == rows[2]["lamr"]


def test_iou_metrics_and_the_2024_challenge_columns(files, kaist):
    out = invoke(
        "eval",
        files["MBNet"],
        "--gt",
        files["gt"],
        "--format",
        "json",
        "--iou",
        "0.5",
        "--iou",
        "0.6",
        "--iou",
        "0.75",
        "--metric",
        "lamr",
        "--metric",
        "ap50",
        "--metric",
        "ap75",
        "--metric",
        "ar",
    ).stdout
    rows = json.loads(out)["results"]
    assert [(r["iou"], r["split"]) for r in rows] == [(t, s) for t in (0.5, 0.6, 0.75) for s in ("all", "day", "night")]
    want = json.loads((kaist / "results" / "reference-challenge2024.json").read_text())["MBNet"]
    for row in rows:
        assert {"lamr", "ap50", "ap75", "ar", "iou"} <= set(row)
        assert row["lamr"] == pytest.approx(want[f"MR_iou{round(100 * row['iou'])}_{row['split']}"], abs=1e-12)
    assert rows[0]["ap50"] == want["AP_iou50"] and rows[0]["ap75"] == want["AP_iou75"]
    assert rows[0]["ar"] == want["AP_iou50:95"]
    table = invoke(
        "eval", files["MBNet"], "--gt", files["gt"], "--metric", "ap50", "--metric", "ar", "--split", "all"
    ).stdout
    assert "AP50, AR (%, higher is better)" in table and "94.46" in table and "58.85" in table
    assert "AP_iou50:95" in table  # the note says which challenge column is which
    csv_rows = list(
        csv.DictReader(
            io.StringIO(
                invoke(
                    "eval", files["MBNet"], "--gt", files["gt"], "--metric", "ap", "--format", "csv", "--split", "all"
                ).stdout
            )
        )
    )
    assert list(csv_rows[0]) == ["method", "protocol", "setting", "split", "iou", "recall", "n_images", "n_gt", "ap"]


def test_mr4_custom_settings_and_scene_splits(files, kaist):
    variants = json.loads((kaist / "results" / "reference-lamr.matlab-variants.json").read_text())["MLPD"]
    rows = json.loads(
        invoke(
            "eval",
            files["MLPD"],
            "--gt",
            files["gt"],
            "--format",
            "json",
            "--protocol",
            "matlab",
            "--fppi-range",
            "1e-4:1",
            "--setting",
            "reasonable",
            "--setting",
            "height=50:inf,occlusion=none+partial",
        ).stdout
    )["results"]
    assert [r["setting"] for r in rows] == ["reasonable"] * 3 + ["height=50:inf,occlusion=none+partial,border=5"] * 3
    for row in rows[:3]:
        assert len(row["fppi_refs"]) == 17 and row["lamr"] == pytest.approx(variants[f"mr4/{row['split']}"], abs=1e-12)
    table = invoke(
        "eval",
        files["MLPD"],
        "--gt",
        files["gt"],
        "--protocol",
        "matlab",
        "--setting",
        "reasonable-h50",
        "--split",
        "all",
    ).stdout
    assert "reasonable-h50" in table and f"{100 * variants['h50/all']:.2f}" in table
    table = invoke("eval", files["MLPD"], "--gt", files["gt"], "--fppi-range", "1e-4:1", "--split", "all").stdout
    assert "over FPPI 0.0001 to 1" in table and "17 reference FPPI" in table and "nine rounded" in table
    rows = json.loads(
        invoke(
            "eval",
            files["MLPD"],
            "--gt",
            files["gt"],
            "--format",
            "json",
            "--split",
            "campus",
            "--split",
            "road-night",
            "--split",
            "set08",
        ).stdout
    )["results"]
    assert [(r["split"], r["n_images"]) for r in rows] == [("campus", 823), ("road-night", 444), ("set08", 401)]


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--iou", "1.5", "above 0 and below 1"),
        ("--fppi-range", "1:0.01", "FPPI range"),
        ("--setting", "height=50", "LOW:HIGH"),
        ("--split", "park", "unknown split"),
        ("--metric", "map", "map"),
    ],
)
def test_bad_variant_options_exit_2(files, option, value, message):
    proc = run_cli("eval", files["MLPD"], "--gt", files["gt"], option, value)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
