"""The zoo on generated entries: files served from a local folder through file:// URLs laid out as
raw.githubusercontent.com serves them, so nothing here reaches the network. Pinning (git's object ids,
checked against git itself), fetching, verifying and keeping, the offline and changed-file errors, --from,
each quirk's reading (+1 per-image files, files of one period numbered within it, frame names as ids),
`zoo:NAME` in eval, compare --zoo, diagnose, submit and leaderboard, and the registry's invariants."""

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import frames, person
from test_inputs import run_cli
from typer.testing import CliRunner

from kaist_kit.cli import app
from kaist_kit.data.detections import ReadOptions
from kaist_kit.data.results import load_detections
from kaist_kit.datasets.kaist_truth import load_ground_truth
from kaist_kit.errors import InputError
from kaist_kit.metrics.evaluate import evaluate
from kaist_kit.zoo import entries as registry
from kaist_kit.zoo.figure import default_entries
from kaist_kit.zoo.listing import ZooListing, agreement
from kaist_kit.zoo.resolve import find_entry
from kaist_kit.zoo.specs import PROTOCOLS, SPLITS, Entry, Pin, Quote, Reading, blob_id, tree_id
from kaist_kit.zoo.store import ZooUnavailable, fetch, local_path, take_from

ROOT = Path(__file__).resolve().parents[1]
COMMIT = "0123456789abcdef0123456789abcdef01234567"
REPO = "someone/results"
N_IMAGES, NIGHT_FROM = 30, 20


# --- git's object ids ---------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_blob_and_tree_ids_are_gits(tmp_path):
    rng = np.random.default_rng(5)
    contents = [b"", b"person 1 2 3 4 0.5\n", bytes(rng.integers(0, 256, 5000, dtype=np.uint8))]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    lines = []
    for k, data in enumerate(contents):
        got = (
            subprocess.run(
                ["git", "-C", str(tmp_path), "hash-object", "-w", "--stdin"],
                input=data,
                capture_output=True,
                check=True,
            )
            .stdout.decode()
            .strip()
        )
        assert blob_id(data) == got
        lines.append(f"100644 blob {got}\tset06_V000_I{k:05d}.txt")
    tree = subprocess.run(
        ["git", "-C", str(tmp_path), "mktree"], input="\n".join(lines[::-1]) + "\n", capture_output=True, text=True
    ).stdout.strip()
    assert tree_id((f"set06_V000_I{k:05d}.txt", blob_id(d)) for k, d in enumerate(contents)) == tree


# --- generated entries ----------------------------------------------------------------------------------


def generated_truth():
    """30 frames (20 day, 10 night), two pedestrians each, as the leaderboard's JSON writes them."""
    rng = np.random.default_rng(27)
    annotations, k = [], 0
    for image in range(N_IMAGES):
        for _ in range(2):
            x, y, h = rng.uniform(20, 500), rng.uniform(20, 300), rng.uniform(55, 120)
            annotations.append(person(k, image, [round(x, 1), round(y, 1), round(0.41 * h, 1), round(h, 1)]))
            k += 1
    return {"images": frames(N_IMAGES, NIGHT_FROM), "annotations": annotations, "categories": [{"id": 1}]}


def generated_detections(truth):
    """(image index, x, y, w, h, score) rows: most pedestrians found with jitter, and false positives;
    numbers with at most 4 decimals, as the devkit's files hold them."""
    rng = np.random.default_rng(3)
    rows = []
    for ann in truth["annotations"]:
        if rng.random() < 0.85:
            x, y, w, h = (round(v + rng.normal(0, 2), 4) for v in ann["bbox"])
            rows.append((ann["image_id"], x, y, w, h, round(float(rng.random()), 4)))
    for _ in range(40):
        image = int(rng.integers(N_IMAGES))
        rows.append((image, *(round(float(v), 4) for v in rng.uniform([0, 0, 15, 40], [560, 400, 40, 100])), 0.05))
    return sorted(rows, key=lambda r: (r[0], -r[5]))


def txt_line(image_id, x, y, w, h, score):
    return f"{image_id},{x},{y},{w},{h},{score}\n"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The served repository (files at served/OWNER/REPO/COMMIT/PATH), the ground truth, and the entries."""
    base = tmp_path_factory.mktemp("zoo")
    served = base / "served"
    repo = served / REPO / COMMIT
    truth = generated_truth()
    gt_path = base / "gt.json"
    gt_path.write_text(json.dumps(truth))
    names = [image["im_name"] for image in truth["images"]]
    rows = generated_detections(truth)
    files = {
        "plain_result.txt": "".join(txt_line(r[0] + 1, *r[1:]) for r in rows),
        "det-test-night.txt": "".join(txt_line(r[0] + 1 - NIGHT_FROM, *r[1:]) for r in rows if r[0] >= NIGHT_FROM),
        "named.json": json.dumps(
            [{"image_id": names[r[0]], "category_id": 1, "bbox": list(r[1:5]), "score": r[5]} for r in rows]
        ),
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    # The devkit's per-image files: person x1 y1 x2 y2 score, 0-based (the aggregator adds 1 to x1, y1).
    folder = repo / "result"
    folder.mkdir()
    for k, name in enumerate(names):
        lines = [
            f"person {x - 1:.4f} {y - 1:.4f} {x - 1 + w:.4f} {y - 1 + h:.4f} {s:.8f}\n"
            for image, x, y, w, h, s in rows
            if image == k
        ]
        (folder / f"{name.replace('/', '_')}.txt").write_text("".join(lines))

    def pin(path, size=True):
        data = (repo / path).read_bytes()
        return Pin(REPO, COMMIT, path, blob_id(data), len(data) if size else None)

    per_image = [(p.name, blob_id(p.read_bytes())) for p in folder.iterdir()]
    entries = (
        Entry("Plain", "Plain", "2026", pin("plain_result.txt"), Reading("txt"), "MIT", quotes=()),
        Entry(
            "Night",
            "Plain (night file)",
            "2026",
            pin("det-test-night.txt", size=False),
            Reading("txt", period="night"),
            "MIT",
        ),
        Entry("Named", "Plain (named ids)", "2026", pin("named.json"), Reading("coco", frame_ids=True), "MIT"),
        Entry(
            "PerImage",
            "Plain (per-image)",
            "2026",
            Pin(REPO, COMMIT, "result", tree_id(per_image), files=len(per_image)),
            Reading("per-image"),
            "MIT",
        ),
        Entry("Page", "A page", "2026", pin("plain_result.txt"), None, "none stated", refused="an HTML page"),
    )
    return {"served": served, "repo": repo, "gt_path": gt_path, "entries": entries, "rows": rows}


@pytest.fixture
def zoo(world, tmp_path, monkeypatch):
    """The generated entries as the zoo, an empty data folder, downloads from the served folder."""
    monkeypatch.setattr(registry, "ENTRIES", world["entries"])
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("KAIST_KIT_ZOO_URL", world["served"].as_uri())
    monkeypatch.setenv("KAIST_KIT_GT", str(world["gt_path"]))
    monkeypatch.delenv("KAIST_KIT_OFFLINE", raising=False)
    return world


def invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


# --- fetching, verifying, keeping ----------------------------------------------------------------------


def test_fetch_downloads_verifies_and_keeps_then_reads_what_it_kept(zoo, tmp_path):
    entry = find_entry("Plain")
    lines = []
    done = fetch(entry, echo=lines.append)
    assert done.how == "downloaded" and done.path == local_path(entry.file)
    assert done.path.read_bytes() == (zoo["repo"] / "plain_result.txt").read_bytes()
    assert str(done.path).startswith(str(tmp_path / "data" / "kaist-kit" / "zoo" / REPO / COMMIT))
    assert (
        len(lines) == 1
        and lines[0].startswith("downloading zoo:Plain (plain_result.txt, ")
        and "licence MIT" in lines[0]
    )
    assert fetch(entry, echo=lines.append).how == "kept" and len(lines) == 1
    done.path.write_text("changed\n")  # a kept file that is no longer the pinned one is replaced
    assert fetch(entry, echo=lines.append).how == "downloaded"
    assert "is not the pinned file of zoo:Plain: replacing it" in lines[1]


def test_a_changed_file_and_no_network_are_one_line_each_and_leave_nothing(zoo, tmp_path, monkeypatch):
    entry = find_entry("Plain")
    changed = tmp_path / "changed"
    shutil.copytree(zoo["served"], changed)
    target = changed / REPO / COMMIT / "plain_result.txt"
    target.write_bytes(target.read_bytes().replace(b",", b";", 1))  # arrives whole, other bytes
    monkeypatch.setenv("KAIST_KIT_ZOO_URL", changed.as_uri())
    with pytest.raises(ZooUnavailable) as caught:
        fetch(entry)
    message = str(caught.value)
    assert "does not serve the pinned file" in message and entry.file.object_id in message
    assert "kaist-kit zoo fetch --from FOLDER" in message and "\n" not in message
    unsized = find_entry("Night")  # pinned without a size: the blob id alone decides
    (changed / REPO / COMMIT / "det-test-night.txt").write_text("1,1,1,1,1,1\n")
    with pytest.raises(ZooUnavailable, match="does not serve the pinned file"):
        fetch(unsized)
    monkeypatch.setenv("KAIST_KIT_OFFLINE", "1")
    with pytest.raises(ZooUnavailable, match=r"KAIST_KIT_OFFLINE=1 forbids downloads\); try again with the network"):
        fetch(entry)
    assert not (tmp_path / "data").exists() or not any(p.is_file() for p in (tmp_path / "data").rglob("*"))


def test_from_takes_pinned_files_whatever_their_name_or_place_and_nothing_else(zoo, tmp_path):
    mixed = tmp_path / "mixed" / "deep"
    mixed.mkdir(parents=True)
    shutil.copy(zoo["repo"] / "plain_result.txt", mixed / "whatever.bin")
    decoy = (zoo["repo"] / "named.json").read_bytes()
    (mixed / "named.json").write_bytes(decoy[:-1] + b" ")  # same size and name, another file
    shutil.copytree(zoo["repo"] / "result", tmp_path / "mixed" / "frames")
    taken = take_from(tmp_path / "mixed", registry.ENTRIES)
    assert sorted(t.entry.name for t in taken) == ["PerImage", "Plain"]
    assert all(t.how == "copied" for t in taken)
    assert local_path(find_entry("Plain").file).read_bytes() == (zoo["repo"] / "plain_result.txt").read_bytes()
    assert sorted(p.name for p in local_path(find_entry("PerImage").file).iterdir()) == sorted(
        p.name for p in (zoo["repo"] / "result").iterdir()
    )
    assert take_from(tmp_path / "mixed", registry.ENTRIES) == []  # kept already


def test_fetch_command_all_and_from(zoo, tmp_path, monkeypatch):
    result = invoke("zoo", "fetch", "--all")
    assert result.exit_code == 0, result.output
    assert "zoo:Page is left out: an HTML page" in result.output and "4 entries on this machine" in result.output
    again = invoke("zoo", "fetch", "Plain")
    assert "on this machine already" in again.output
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "other"))
    taken = invoke("zoo", "fetch", "--all", "--from", zoo["repo"])
    assert taken.exit_code == 0 and "4 of 4 entries on this machine" in taken.output
    refused = invoke("zoo", "fetch", "Page")
    assert refused.exit_code == 2 and "listed but not read: an HTML page" in refused.output


def test_the_command_without_network_says_what_to_do_in_one_line(tmp_path):
    env = {"XDG_DATA_HOME": str(tmp_path), "HOME": str(tmp_path), "KAIST_KIT_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    proc = run_cli("zoo", "fetch", "MBNet", env=env)
    assert proc.returncode == 2 and proc.stdout == ""
    [line] = proc.stderr.splitlines()
    assert line.startswith("error: cannot download zoo:MBNet (KAIST_KIT_OFFLINE=1 forbids downloads); try again")
    assert "kaist-kit zoo fetch --from FOLDER" in line
    gt = tmp_path / "gt.json"
    gt.write_text(json.dumps(generated_truth()))
    proc = run_cli("eval", "zoo:MBNet", "--gt", gt, env=env)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1


# --- the quirks, read by the entries' readings --------------------------------------------------------


def lamrs(gt, dets, splits=SPLITS):
    return {(r.protocol, r.split): r.lamr for r in evaluate(gt, dets, ["reasonable"], list(splits), list(PROTOCOLS))}


def test_each_reading_reads_its_quirk_as_the_plain_file(zoo):
    gt = load_ground_truth(zoo["gt_path"])
    plain = load_detections("zoo:Plain", gt)
    assert len(plain) == len(zoo["rows"])
    expected = lamrs(gt, plain)
    per_image = load_detections("zoo:PerImage", gt)  # 0-based corners, +1 as the devkit's aggregator
    np.testing.assert_array_equal(per_image.boxes, plain.boxes)
    assert lamrs(gt, per_image) == expected
    as_written = load_detections(local_path(find_entry("PerImage").file), gt, ReadOptions(devkit_shift=False))
    np.testing.assert_allclose(as_written.boxes[:, :2], plain.boxes[:, :2] - 1, atol=1e-9)
    named = load_detections("zoo:Named", gt)  # frame names as ids
    np.testing.assert_array_equal(named.image, plain.image)
    assert lamrs(gt, named) == expected
    night = load_detections("zoo:Night", gt)  # ids counted within the night images
    assert night.image.min() == NIGHT_FROM and len(night) == int((plain.image >= NIGHT_FROM).sum())
    assert lamrs(gt, night, ["night"]) == {k: v for k, v in expected.items() if k[1] == "night"}


def test_zoo_arguments_are_refused_with_one_reason(zoo):
    gt = load_ground_truth(zoo["gt_path"])
    with pytest.raises(InputError, match="no zoo entry named 'Nope'"):
        load_detections("zoo:Nope", gt)
    with pytest.raises(InputError, match="zoo:Page is listed but not read: an HTML page"):
        load_detections("zoo:Page", gt)
    with pytest.raises(InputError, match="read as its entry says; --id-offset does not apply"):
        load_detections("zoo:Plain", gt, ReadOptions(id_offset=-1))
    assert find_entry("plain").name == "Plain"  # a name matched case-insensitively when it is the only one
    swapped = load_ground_truth(zoo["gt_path"])
    swapped.image_scenes[:] = ["night" if k % 2 else "day" for k in range(N_IMAGES)]
    with pytest.raises(InputError, match="night images do not follow each other"):
        load_detections("zoo:Night", swapped)


# --- the verbs ----------------------------------------------------------------------------------------


def test_eval_diagnose_and_submit_take_zoo_names(zoo, tmp_path):
    plain = zoo["repo"] / "plain_result.txt"
    by_file = invoke("eval", plain, "--protocol", "matlab", "--format", "json")
    by_name = invoke("eval", "zoo:PerImage", "--protocol", "matlab", "--format", "json")
    rows = [json.loads(r.stdout)["results"] for r in (by_file, by_name)]
    assert [r["method"] for r in rows[1]] == ["PerImage"] * 3
    assert [r["lamr"] for r in rows[0]] == [r["lamr"] for r in rows[1]]
    diagnosed = invoke("diagnose", "zoo:Named", "--resamples", "20", "--format", "json")
    assert diagnosed.exit_code == 0 and json.loads(diagnosed.stdout)["method"] == "Named"
    checked = invoke("submit", "--check", "zoo:Plain")  # the published bytes, as an evaluator is given them
    assert "plain_result.txt: leaderboard txt, 90 detections" in checked.stdout, checked.output
    packaged = invoke("submit", "zoo:Named", "--out", tmp_path / "named.json")
    assert packaged.exit_code == 0, packaged.output
    manifest = json.loads((tmp_path / "named.manifest.json").read_text())
    published = local_path(find_entry("Named").file).read_bytes()
    assert manifest["source"]["sha256"] == hashlib.sha256(published).hexdigest()


def test_compare_with_the_zoo_draws_pdf_and_png_and_ranks_both_protocols(zoo, tmp_path):
    mine = tmp_path / "mine_result.txt"
    rows = zoo["rows"]
    mine.write_text("".join(txt_line(r[0] + 1, *r[1:5], 1.0 - r[5]) for r in rows))  # scores reversed: worse
    out = invoke("compare", mine, "--zoo", "Plain", "Night", "--plot", tmp_path / "fig.pdf", "--format", "json")
    assert out.exit_code == 0, out.output
    found = json.loads(out.stdout)
    assert [m["method"] for m in found["methods"]] == ["Plain", "mine", "Plain (night file)"]
    night_only = found["methods"][2]["lamr"]["leaderboard"]
    assert night_only["all"] is None and night_only["day"] is None
    assert night_only["night"] == found["methods"][0]["lamr"]["leaderboard"]["night"]
    assert (tmp_path / "fig.pdf").read_bytes().startswith(b"%PDF") and (tmp_path / "fig.png").is_file()
    everything = invoke("compare", mine, "--zoo", "--plot", tmp_path / "all.png")
    assert everything.exit_code == 0 and "zoo:Plain" in everything.stdout  # the default: one file per method
    assert [e.name for e in default_entries()] == ["Plain", "Named", "PerImage"]
    refused = invoke("compare", mine, "--zoo", "--setting", "all-pedestrians")
    assert refused.exit_code == 2 and "--zoo compares the reasonable setting" in refused.output


def test_leaderboard_ranks_references_marked_as_such(zoo, tmp_path):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    shutil.copy(zoo["repo"] / "plain_result.txt", submissions / "team_result.txt")
    site = tmp_path / "site"
    result = invoke("leaderboard", submissions, "--gt", zoo["gt_path"], "--out", site, "--reference", "Named")
    assert result.exit_code == 0, result.output
    page = (site / "index.html").read_text()
    assert "Plain (named ids) (published)" in page and ">reference<" in page
    assert "a published result, not an entry: someone/results@0123456 named.json" in page


# --- the listing and the registry ---------------------------------------------------------------------


def test_agreement_names_the_protocol_that_gives_a_quote():
    kit = {"leaderboard": (8.1295, 8.2819, 7.8577), "matlab": (8.1295, 8.2759, 7.8577)}
    entry = Entry("X", "X", "2026", Pin(REPO, COMMIT, "x", "0" * 40), Reading("txt"), "MIT", kit=kit)
    assert agreement(entry, Quote((8.13, 8.28, 7.86), "a")) == "= both"
    assert agreement(entry, Quote((8.13, 8.28, None), "a")) == "= both"
    other = {"leaderboard": (7.5756, 7.9637, 6.9476), "matlab": (7.5756, 7.95, 6.9476)}
    entry = Entry("X", "X", "2026", entry.file, Reading("txt"), "MIT", kit=other)
    assert agreement(entry, Quote((7.58, 7.95, 6.95), "a")) == "= matlab"
    assert agreement(entry, Quote((7.58, 7.96, 6.95), "a")) == "= leaderboard"
    assert agreement(entry, Quote((7.59, 7.95, 6.95), "a")) == "all differs; day = matlab; night = both"
    assert (
        agreement(Entry("X", "X", "2026", entry.file, None, "", refused="r"), Quote((1, 2, 3), "a")) == "not computed"
    )


def test_the_registry_pins_every_file_once_and_explains_every_quote_it_does_not_match():
    entries = registry.ENTRIES
    assert len({e.name for e in entries}) == len(entries) and len({e.file.object_id for e in entries}) == len(entries)
    hexes = re.compile(r"[0-9a-f]{40}")
    for e in entries:
        for pin in (e.file, *e.copies):
            assert hexes.fullmatch(pin.commit) and hexes.fullmatch(pin.object_id), e.name
            assert re.fullmatch(r"[\w.-]+/[\w.-]+", pin.repo), e.name
        assert e.readable != bool(e.refused), e.name
        if e.kit:
            assert set(e.kit) == set(PROTOCOLS), e.name
            for protocol in PROTOCOLS:
                assert [v is not None for v in e.kit[protocol]] == [s in e.reading.covers for s in SPLITS], e.name
        elif e.readable:
            assert e.file.size is None, f"{e.name}: a file at hand has its numbers recorded"
        for quote in e.quotes:
            verdict = agreement(e, quote)
            assert verdict.startswith("= ") or verdict == "not computed" or e.note, (e.name, verdict)
    drawn = default_entries()
    assert len({e.method for e in drawn}) == len(drawn) >= 20
    assert {"MBNet", "MBNet-authors", "MBNet-authors-per-image"} <= {e.name for e in entries}


def test_docs_zoo_md_holds_the_real_table():
    from kaist_kit.zoo.resolve import all_entries

    table = ZooListing(all_entries(), details=False).numbers_table().to_markdown()
    assert table in (ROOT / "docs" / "zoo.md").read_text(), (
        "regenerate docs/zoo.md's table: kaist-kit zoo --brief --format markdown"
    )
