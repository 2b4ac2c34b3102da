"""`submit --check`'s model of the evaluators (kaist_kit.submission.evaluators) against a plain model of
their loaders written from "What each evaluator accepts" (tests/plain_upload.py): one test per rule,
then mutated real files, then the numbers printed for what they mis-score."""

import json
import random

import pytest
from plain_lamr import plain_lamr
from plain_upload import as_taken, plain_load, plain_verdict
from test_inputs import run_cli

from kaist_kit.submission import check
from kaist_kit.submission.evaluators import (
    CHALLENGE2024_SCRIPT,
    EVALUATORS,
    LEADERBOARD_SCRIPT,
    Crash,
    Loaded,
    load_upload,
    outcome,
)

GOOD = b"1,300.5,200,30,70,0.9\n1,100,100,20,50,0.5\n2,10,20,30,40,0.25\n"
RECORD = {"image_id": 0, "category_id": 1, "bbox": [300.5, 200, 30, 70], "score": 0.9}


def model(name, data):
    """The module's load: ('crash', exception type) or ('loaded', records as dicts)."""
    loaded = load_upload(name, name, data)
    if isinstance(loaded, Crash):
        return "crash", loaded.exception.split(":")[0]
    if loaded.kind == "txt":
        return "loaded", [
            {"image_id": r[0], "category_id": 1, "bbox": list(r[1:5]), "score": r[5]} for r in loaded.records
        ]
    return "loaded", loaded.records


def plain(name, data):
    try:
        return "loaded", plain_load(name, data)
    except Exception as exc:  # the script's exception, whatever it is
        return "crash", type(exc).__name__


def same(name, data):
    """The module and the plain model agree on the load; returns what they say."""
    found, expected = model(name, data), plain(name, data)
    assert found[0] == expected[0], (name, data[:80], found, expected)
    if found[0] == "crash":
        assert found[1] == expected[1], (name, data[:80], found, expected)
    else:
        assert json.dumps(found[1], sort_keys=True) == json.dumps(expected[1], sort_keys=True)
    return found


def verdicts(name, data):
    """The module's verdict for each script, without ground truth, and the plain model's."""
    loaded = load_upload(name, name, data)
    found = {e.name: outcome(loaded, e).verdict for e in EVALUATORS}
    expected = {e.name: plain_verdict(name, data, e.category) for e in EVALUATORS}
    return found, expected


def records(*dets):
    return json.dumps(list(dets)).encode()


# --- 1. the loader is chosen by the end of the name, case-sensitively --------------------------------


@pytest.mark.parametrize(
    "name", ["r.txt", "r.json", "r.TXT", "r.Json", "r.zip", "r.json.gz", "r", "r.csv", "r.txt.zip"]
)
def test_the_loader_is_chosen_by_the_end_of_the_name(name):
    data = GOOD if "txt" in name.lower() else records(RECORD)
    kind, what = same(name, data)
    assert (kind == "loaded") == name.endswith((".txt", ".json"))
    if kind == "crash":
        crash = load_upload(name, name, data)
        assert crash.exception == f"Exception: [Error] Exception extension : {name.split('.')[-1]}"


# --- 2. the txt parser ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        b"1,300,200,30,70,1e0\n",
        b"+1,300,200,30,70,0.5\n",
        b"1,1_000,200,30,70,0.5\n",
        b" 1 , 300 ,200,30,70, 0.5 \n",
        b"1,300,200,30,70,inf\n",
        b"1,300,200,30,70,nan\n",
        b"1,300,200,30,70,-Infinity\n",
        b"1.0,3e2,2E2,30.,70,.5\n",
        b"1,\t300,200,30,70,0.5\t\n",
    ],
)
def test_txt_fields_read_as_float_reads_them(text):
    assert same("r.txt", text)[0] == "loaded"


@pytest.mark.parametrize(
    "text, exception",
    [
        (GOOD + b"\n", "ValueError: could not convert string to float: '\\n'"),  # a second newline at the end
        (b"1,300,200,30,70,0.9\n\n2,10,20,30,40,0.25\n", "ValueError: could not convert string to float: '\\n'"),
        (b"1,300,200,30,70,0.9\n   \n", "ValueError: could not convert string to float: '   \\n'"),
        (b"1 300 200 30 70 0.9\n", "ValueError: could not convert string to float: '1 300 200 30 70 0.9\\n'"),
        (
            b"1\t300\t200\t30\t70\t0.9\n",
            "ValueError: could not convert string to float: '1\\t300\\t200\\t30\\t70\\t0.9\\n'",
        ),
        (b"1,300,200,30,70,0.9,\n", "ValueError: could not convert string to float: '\\n'"),
        (b"image_id,x,y,w,h,score\n" + GOOD, "ValueError: could not convert string to float: 'image_id'"),
        (b"# MLPD\n" + GOOD, "ValueError: could not convert string to float: '# MLPD\\n'"),
        (b"\xef\xbb\xbf" + GOOD, "ValueError: could not convert string to float: '\\ufeff1'"),
        (b"1,300,200,30,70\n", "IndexError: list index out of range"),
        (b"1;300;200;30;70;0.9\n", "ValueError: could not convert string to float: '1;300;200;30;70;0.9\\n'"),
        (b"1,300,200,30,70,0.9\xff\n", "UnicodeDecodeError"),
    ],
)
def test_txt_lines_the_parser_stops_on(text, exception, tmp_path):
    assert same("r.txt", text)[0] == "crash"
    crash = load_upload("r.txt", "r.txt", text)
    assert crash.exception.startswith(exception)
    assert crash.cause and crash.where.startswith("line ")
    for e in EVALUATORS:
        assert outcome(crash, e).verdict == "crash"
    path = tmp_path / "r_result.txt"
    path.write_bytes(text)
    proc = run_cli("submit", "--check", path)
    assert proc.returncode == 1 and "its evaluator would crash on this file" in proc.stdout, proc.stdout


def test_txt_line_ends_and_extra_fields_read():
    for text in (
        GOOD.replace(b"\n", b"\r\n"),
        GOOD.replace(b"\n", b"\r"),
        GOOD.rstrip(b"\n"),
        GOOD.replace(b"\n", b",7,8\n"),
    ):
        kind, read = same("r.txt", text)
        assert kind == "loaded" and len(read) == 3 and read[2]["score"] == 0.25
    assert "more than six fields" in load_upload("r.txt", "r.txt", GOOD.replace(b"\n", b",7\n")).notes[0]


def test_txt_lines_other_than_newlines_are_not_line_ends():
    # str.splitlines() would split at a form feed; text mode does not, and float() refuses it.
    assert same("r.txt", b"1,300,200,30,70,0.9\x0c2,10,20,30,40,0.25\n")[0] == "crash"


# --- 3. the JSON parser and loadRes --------------------------------------------------------------


@pytest.mark.parametrize(
    "data, exception",
    [
        (b"\xef\xbb\xbf" + records(RECORD), "JSONDecodeError"),
        (json.dumps({"annotations": [RECORD]}).encode(), "AssertionError"),
        (b"[]", "IndexError"),
        (records(dict(RECORD, image_id="0")), "AssertionError"),
        (records(dict(RECORD, image_id=2252)), "AssertionError"),
        (records(dict(RECORD, image_id=-1)), "AssertionError"),
        (records(dict(RECORD, image_id=0.5)), "AssertionError"),
        (records(dict(RECORD, image_id=[0])), "TypeError"),
        (records({k: v for k, v in RECORD.items() if k != "image_id"}), "KeyError"),
        (records(RECORD, [0, 1, [1, 2, 3, 4], 0.5]), "TypeError"),
        (records(dict(RECORD, bbox=["300.5", "200", "30", "70"])), "TypeError"),
        (records(dict(RECORD, bbox={"0": 300.5, "1": 200, "2": 30, "3": 70})), "KeyError"),
        (records(dict(RECORD, bbox=[300.5, 200, 30])), "IndexError"),
        (records(RECORD, {k: v for k, v in RECORD.items() if k != "bbox"}), "KeyError"),
        (records({k: v for k, v in RECORD.items() if k != "category_id"}), "KeyError"),
        (records(dict(RECORD, category_id=[1])), "TypeError"),
        (records({k: v for k, v in RECORD.items() if k != "bbox"}), "KeyError"),  # no bbox first: no ids given
        (b'[{"image_id": 0, "bbox": [1, 2, 3, 4], "score": 0.9, "category_id": 1},]', "JSONDecodeError"),
        (b"", "JSONDecodeError"),
    ],
)
def test_json_files_loadres_stops_on(data, exception):
    assert same("r.json", data) == ("crash", exception)
    crash = load_upload("r.json", "r.json", data)
    assert crash.exception.startswith(exception) and crash.cause


@pytest.mark.parametrize(
    "data",
    [
        records(RECORD),
        records(dict(RECORD, image_id=3.0)),
        records(dict(RECORD, category_id=1.0)),
        records(dict(RECORD, bbox=[300, 200, 30, 70, 1])),
        records(dict(RECORD, extra="kept")),
        records(dict(RECORD, bbox=[300.5, 200, 30, 70], score=1), dict(RECORD, category_id=2)),
        b'[{"image_id": 0, "category_id": 1, "bbox": [300, 200, 30, 70], "score": NaN}]',
        b'[{"image_id": 0, "image_id": 1, "category_id": 1, "bbox": [300, 200, 30, 70], "score": 0.5}]',
    ],
)
def test_json_files_that_load(data):
    assert same("r.json", data)[0] == "loaded"


def test_an_empty_txt_file_crashes_as_an_empty_list():
    assert same("r.txt", b"") == ("crash", "IndexError")


# --- 4. after loading: what each script scores ----------------------------------------------------


def test_other_categories_are_kept_and_never_scored():
    half = records(RECORD, dict(RECORD, category_id=2, image_id=1))
    assert verdicts("r.json", half) == ({"leaderboard": "mis-score", "challenge2024": "mis-score"},) * 2
    only = records(dict(RECORD, category_id=0))
    found, expected = verdicts("r.json", only)
    assert found == expected == {"leaderboard": "crash", "challenge2024": "correct"}
    # a txt file is category 1: the 2024 script prints -1 and -100
    assert verdicts("r.txt", GOOD)[0] == {"leaderboard": "correct", "challenge2024": "mis-score"}


def test_more_than_1000_detections_in_an_image_crash():
    crowded = b"".join(b"1,%d,200,30,70,%f\n" % (k % 600, 1 - k / 2000) for k in range(1001))
    found, expected = verdicts("r.txt", crowded)
    assert found == expected and found["leaderboard"] == "crash"
    assert (
        "IndexError: index 1000 is out of bounds"
        in outcome(load_upload("r.txt", "r.txt", crowded), LEADERBOARD_SCRIPT).crash.exception
    )
    assert verdicts("r.txt", crowded.split(b"\n", 1)[1])[0]["leaderboard"] == "correct"


def test_scores_and_boxes_that_are_not_numbers_stop_the_scoring():
    for bad in (dict(RECORD, score="0.9"), dict(RECORD, score=None), {k: v for k, v in RECORD.items() if k != "score"}):
        found, expected = verdicts("r.json", records(bad))
        assert found == expected and found["leaderboard"] == "crash", bad
    # of a category that is not scored, nothing is read
    found, expected = verdicts("r.json", records(RECORD, dict(RECORD, category_id=0, score="high")))
    assert found == expected == {"leaderboard": "mis-score", "challenge2024": "crash"}


def test_unsorted_and_non_finite_detections_are_mis_scored():
    unsorted = b"1,300,200,30,70,0.5\n1,100,100,20,50,0.9\n"
    for text in (unsorted, b"1,300,200,30,70,nan\n", b"1,300,200,-30,70,0.5\n"):
        found, expected = verdicts("r.txt", text)
        assert found == expected and found["leaderboard"] == "mis-score", text


# --- mutated real files: the module's verdict against the plain model's --------------------------


def mutate_txt(lines, rng):
    """A realistic slip in a leaderboard txt file (its lines, each with its newline)."""
    k = rng.randrange(len(lines))
    fields = lines[k].rstrip("\n").split(",")
    choice = rng.randrange(22)
    if choice == 0:
        lines.insert(k, "\n")
    elif choice == 1:
        lines.append("\n")
    elif choice == 2:
        lines[k] = " ".join(fields) + "\n"
    elif choice == 3:
        lines[k] = "\t".join(fields) + "\n"
    elif choice == 4:
        lines[k] = ",".join(fields) + ",\n"
    elif choice == 5:
        lines[0] = "\ufeff" + lines[0]
    elif choice == 6:
        lines.insert(0, "image_id,x,y,w,h,score\n")
    elif choice == 7:
        lines.insert(k, "# detections\n")
    elif choice == 8:
        lines[k] = ",".join(fields[: rng.randrange(1, 6)]) + "\n"
    elif choice == 9:
        lines[k] = ",".join(fields + ["1"]) + "\n"
    elif choice == 10:
        lines[:] = [line.replace("\n", "\r\n") for line in lines]
    elif choice == 11:
        lines[:] = [line.replace("\n", "\r") for line in lines]
    elif choice == 12:
        lines[-1] = lines[-1].rstrip("\n")
    elif choice == 13:
        fields[rng.randrange(6)] = rng.choice(["1e0", "+1", "1_0", " 7 ", "inf", "nan", "-0", "1.5", "0x1"])
        lines[k] = ",".join(fields) + "\n"
    elif choice == 14:
        fields[0] = rng.choice(["0", "2253", "-1", "1.5"])
        lines[k] = ",".join(fields) + "\n"
    elif choice == 15:
        j = rng.randrange(len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    elif choice == 16:
        lines[k] = lines[k].replace(",", ";")
    elif choice == 17:
        fields[3] = "-" + fields[3]
        lines[k] = ",".join(fields) + "\n"
    elif choice == 18:
        lines[k] = lines[k].rstrip("\n") + "\x0c\n"
    elif choice == 19:
        lines[k] = ", ".join(fields) + "\n"
    elif choice == 20:
        del lines[k]
    else:
        lines[k] = lines[k].replace("\n", "\n\n")
    if not lines:
        lines.append("")


def mutate_json(dets, rng):
    """A realistic slip in a COCO result list (its records); may return a non-list top level."""
    k = rng.randrange(len(dets))
    d = dict(dets[k])
    choice = rng.randrange(20)
    if choice == 0:
        d["image_id"] = str(d["image_id"])
    elif choice == 1:
        d["image_id"] = rng.choice([2252, -1, 5000, 3.0, 0.5, None])
    elif choice == 2:
        d["bbox"] = {str(i): v for i, v in enumerate(d["bbox"])}
    elif choice == 3:
        del d["category_id"]
    elif choice == 4:
        d["category_id"] = rng.choice([0, 2, "1", 1.0, True])
    elif choice == 5:
        d["score"] = str(d["score"])
    elif choice == 6:
        d["bbox"] = d["bbox"][:3]
    elif choice == 7:
        d["bbox"] = [str(v) for v in d["bbox"]]
    elif choice == 8:
        d["score"] = float("nan")
    elif choice == 9:
        d["bbox"] = d["bbox"] + [1.0]
    elif choice == 10:
        j = rng.randrange(len(dets))
        dets[j], d = d, dict(dets[j])
    elif choice == 11:
        del d["bbox"]
    elif choice == 12:
        d["bbox"] = [d["bbox"][0], d["bbox"][1], -d["bbox"][2], d["bbox"][3]]
    elif choice == 13:
        del d["score"]
    elif choice == 14:
        d = [d["image_id"], d["bbox"], d["score"]]
    elif choice == 15:
        d["bbox"] = []
    elif choice == 16:
        dets[:] = [dict(r, category_id=0) for r in dets]
        return dets
    elif choice == 17:
        return {"annotations": dets}
    elif choice == 18:
        d["score"] = None
    else:
        d["image_id"] = d["image_id"] + 1
    dets[k] = d
    return dets


@pytest.fixture(scope="module")
def real_heads(kaist):
    txt = (kaist / "results" / "MLPD_result.txt").read_text().splitlines(keepends=True)[:300]
    dets = json.loads((kaist / "results" / "MLPD_result.json").read_text())[:300]
    return txt, dets


def test_mutated_txt_files_get_the_plain_models_verdict(real_heads):
    rng = random.Random(20240617)
    seen = set()
    for case in range(250):
        lines = list(real_heads[0])
        for _ in range(rng.randrange(1, 3)):
            mutate_txt(lines, rng)
        data = "".join(lines).encode()
        found, expected = verdicts("m.txt", data)
        assert found == expected, (case, data[:200])
        seen.add(tuple(sorted(found.items())))
    assert len(seen) >= 3  # crashes, mis-scores and files scored correctly all came up


def test_mutated_json_files_get_the_plain_models_verdict(real_heads):
    rng = random.Random(20240618)
    seen = set()
    for case in range(250):
        top = [dict(r) for r in real_heads[1]]
        for _ in range(rng.randrange(1, 3)):
            top = mutate_json(top, rng) if isinstance(top, list) else top
        text = json.dumps(top, indent=rng.choice([None, 1]))
        if rng.random() < 0.1:
            text = "\ufeff" + text
        data = text.encode()
        name = rng.choice(["m.json"] * 9 + ["m.JSON"])
        found, expected = verdicts(name, data)
        assert found == expected, (case, name, data[:200])
        seen.add(tuple(sorted(found.items())))
    assert len(seen) >= 3


def test_the_check_gives_the_models_verdict_and_exit_code(real_heads, tmp_path):
    rng = random.Random(7)
    for case in range(12):
        lines = list(real_heads[0])
        mutate_txt(lines, rng)
        path = tmp_path / f"case{case}_result.txt"
        path.write_text("".join(lines), newline="")
        report = check(path)
        expected = plain_verdict("x.txt", path.read_bytes(), 1)
        assert report.outcomes["leaderboard"].verdict == expected
        assert report.ok == (expected == "correct" and not [f for f in report.findings if f.level == "error"])


# --- the numbers printed for what is mis-scored ----------------------------------------------------


def test_an_unsorted_file_gets_the_number_the_leaderboard_prints(kaist, leaderboard_gt, tmp_path):
    data = json.loads((kaist / "test-all-20.leaderboard.json").read_text())
    lines = (kaist / "results" / "MBNet_result.txt").read_text().splitlines()
    random.Random(3).shuffle(lines)
    text = "\n".join(lines) + "\n"
    loaded = load_upload("s.txt", "s.txt", text.encode())
    assert isinstance(loaded, Loaded)
    found = outcome(loaded, LEADERBOARD_SCRIPT, leaderboard_gt)
    assert found.verdict == "mis-score" and "not in descending score order" in found.reasons[0]
    dets = [{"image_id": int(r[0]), "category_id": 1, "bbox": list(r[1:5]), "score": r[5]} for r in loaded.records]
    taken = as_taken(dets)
    ids = {i["id"] for i in data["images"]}
    for split, chosen in (("all", ids), ("day", set(range(1455))), ("night", set(range(1455, 2252)))):
        lamr, _, _ = plain_lamr(data["images"], data["annotations"], taken, "reasonable", chosen, "leaderboard")
        assert found.printed[f"MR_{split}"] == pytest.approx(100 * lamr, abs=1e-9), split
    assert found.printed["MR_all"] > 70  # far from the 8.13 of the same detections sorted
    challenge = outcome(
        load_upload("s.json", "s.json", json.dumps([dict(d, category_id=0) for d in dets]).encode()),
        CHALLENGE2024_SCRIPT,
        leaderboard_gt,
    )
    assert challenge.verdict == "mis-score" and challenge.printed["MR_-2_iou50_all"] == pytest.approx(
        found.printed["MR_all"], abs=1e-9
    )


def test_detections_of_other_categories_get_the_number_printed(kaist, leaderboard_gt, tmp_path):
    dets = json.loads((kaist / "results" / "MLPD_result.json").read_text())
    half = [dict(d, category_id=2) if k % 2 else d for k, d in enumerate(dets)]
    path = tmp_path / "half_result.json"
    path.write_text(json.dumps(half))
    report = check(path, leaderboard_gt)
    found = report.outcomes["leaderboard"]
    assert report.verdict == "mis-score" and "other categories than 1" in found.reasons[0]
    data = json.loads((kaist / "test-all-20.leaderboard.json").read_text())
    kept = [d for d in half if d["category_id"] == 1]
    lamr, _, _ = plain_lamr(data["images"], data["annotations"], kept, "reasonable", set(range(2252)), "leaderboard")
    assert found.printed["MR_all"] == pytest.approx(100 * lamr, abs=1e-9) and found.printed["MR_all"] > 20
    proc = run_cli("submit", "--check", path, "--gt", kaist / "test-all-20.leaderboard.json")
    assert proc.returncode == 1 and f"it would print MR_all {found.printed['MR_all']:.2f}" in proc.stdout


def test_a_partial_result_prints_minus_100_for_the_split_without_detections(kaist, leaderboard_gt, tmp_path):
    dets = [d for d in json.loads((kaist / "results" / "MLPD_result.json").read_text()) if d["image_id"] < 1455]
    found = outcome(load_upload("d.json", "d.json", json.dumps(dets).encode()), LEADERBOARD_SCRIPT, leaderboard_gt)
    assert found.verdict == "mis-score" and found.printed["MR_night"] == -100.0
    assert "MR_night -100" in found.reasons[-1]


def test_files_scored_correctly_print_the_kits_numbers(kaist, leaderboard_gt):
    for name in ("MBNet_result.txt", "MLPD_result.txt", "MLPD_result.json"):
        found = outcome(load_upload(kaist / "results" / name), LEADERBOARD_SCRIPT, leaderboard_gt)
        assert found.verdict == "correct"
        reasonable = {r.split: 100 * r.lamr for r in found.results if r.setting == "reasonable"}
        assert reasonable == {f"{k}": found.printed[f"MR_{k}"] for k in ("all", "day", "night")}
    mbnet = outcome(load_upload(kaist / "results" / "MBNet_result.txt"), LEADERBOARD_SCRIPT, leaderboard_gt)
    assert [round(mbnet.printed[f"MR_{s}"], 2) for s in ("all", "day", "night")] == [8.13, 8.28, 7.86]
