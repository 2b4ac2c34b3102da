"""Every shell block of README.md, and the blocks of docs/training.md that use the synthetic KAIST, run as
written, as a reader pastes them.

Each block runs in an empty folder of its own that holds nothing but the repository's configs/ (the
README's commands are typed in a fresh clone), with bash stopping at the first failing command and a kit
data folder of its own, empty. A block uses what its commands make and what the page tells the reader to
download, nothing else:

- what the kit downloads itself (the leaderboard's, FLIR-aligned's and M3FD's pinned ground truths, the
  zoo's files) comes from ../shared through the mirror variables, so that nothing is downloaded; the zoo
  serves the entries whose files ../shared holds (MBNet, MLPD and its JSON), and those under
  $KAIST_KIT_ZOO_FILES;
- what the page tells the reader to download by hand (`BY_HAND`: KAIST's annotation tree and MBNet's
  training cache) is put in the folder, from ../shared, for the block that names it.

A block that needs what ../shared lacks skips, saying what. The blocks that set up and test
(`<!-- ci:setup -->`, `<!-- ci:test -->`) are .ci/run's, which runs them as written. `KAIST_KIT_SYNTH_FRAMES=4`
makes the synthetic configs train and test on their first 4 frames (one step an epoch), so that the
training block takes a minute or two on two busy cores; the README says how long the whole run takes.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from conftest import SHARED

from kaist_kit.zoo.resolve import all_entries
from kaist_kit.zoo.store import take_from

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TRAINING = ROOT / "docs" / "training.md"
FENCE = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)
KAIST = SHARED / "data" / "kaist"
# The pinned ground truths, served as the kit downloads them (each checked against its pinned MD5).
PINNED = {
    "KAIST_KIT_GT_URL": KAIST / "test-all-20.leaderboard.json",
    "KAIST_KIT_FLIR_ALIGNED_GT_URL": SHARED / "data" / "flir-aligned" / "rgb-test-flir.json",
    "KAIST_KIT_M3FD_GT_URL": SHARED / "data" / "m3fd" / "m3fd-test.json",
}
# What the README tells the reader to download by hand ("Training a fusion detector"), as ../shared holds it.
BY_HAND = {
    "annotations-xml-new": KAIST / "annotations-xml-original.tar.gz",  # the official tree, as an archive
    "kaist_train_data.npy": KAIST / "trainsets" / "mbnet-kaist_train_data.npy",
}


def sections(doc: Path) -> list[tuple[str, str]]:
    """(section title, block) for each bash block of a Markdown file, in order, but .ci/run's."""
    found = []
    for part in re.split(r"^## ", doc.read_text(encoding="utf-8"), flags=re.M):
        title = part.splitlines()[0] if part else ""
        for match in FENCE.finditer(part):
            if not part[: match.start()].rstrip().endswith(("<!-- ci:setup -->", "<!-- ci:test -->")):
                found.append((title, match.group(1)))
    return found


def blocks() -> list[tuple[str, str]]:
    """Every README block, and docs/training.md's synthetic ones that are not the README's."""
    readme = sections(README)
    shown = {block for _, block in readme}
    extra = [(f"docs/training.md: {t}", b) for t, b in sections(TRAINING) if "kaist-synth" in b and b not in shown]
    return readme + extra


def block_id(item: tuple[str, str]) -> str:
    title, block = item
    return f"{title.split(':')[0].split()[0].lower()}-{shlex.split(block.splitlines()[0])[1]}"


def test_the_docs_have_their_blocks():
    titles = [title for title, _ in sections(README)]
    for title in ("Scoring a detector", "Other benchmarks", "Training a fusion detector"):
        assert title in titles, title
    # The training block of docs/training.md is the README's: it runs once.
    synthetic = [b for _, b in sections(TRAINING) if "kaist-synth" in b]
    assert synthetic and set(synthetic) <= {b for _, b in sections(README)}
    assert len([b for _, b in blocks() if "kaist-synth" in b]) == 1
    # What a block may find in its folder unmade is what the README tells the reader to download.
    text = README.read_text(encoding="utf-8")
    for name in BY_HAND:
        assert re.search(rf"[Dd]ownload[^.]*`{re.escape(name)}`", text, re.S), name


def test_every_torch_install_in_the_docs_takes_the_cpu_build():
    """PyPI's torch for Linux is the CUDA build: the docs' CPU installs name pytorch.org's CPU index."""
    installs = []
    for doc in (README, TRAINING, ROOT / "DEVELOPERS.md"):
        for line in doc.read_text(encoding="utf-8").splitlines():
            installs += [(doc.name, c) for c in line.split("&&") if re.search(r"pip install\b.*\btorch==", c)]
    assert {name for name, _ in installs} == {"README.md", "training.md", "DEVELOPERS.md"}
    for name, command in installs:
        assert "--index-url https://download.pytorch.org/whl/cpu" in command, (name, command)


def zoo_names(block: str) -> set[str]:
    """The zoo entries a block reads: zoo:NAME, `zoo fetch NAME...`, `--zoo NAME...`."""
    names = set(re.findall(r"zoo:([\w.+-]+)", block))
    for line in block.splitlines():
        words = shlex.split(line.split("  #")[0])
        for k, word in enumerate(words):
            if word == "--zoo" or (word == "fetch" and words[k - 1] == "zoo"):
                for name in words[k + 1 :]:
                    if name.startswith("-"):
                        break
                    names.add(name)
    return names


@pytest.fixture(scope="module")
def zoo_mirror(tmp_path_factory):
    """A folder serving, as raw.githubusercontent.com does (OWNER/REPO/COMMIT/PATH), the zoo's files at hand:
    those ../shared holds (MBNet's and MLPD's results are the zoo's pinned files) and those under
    $KAIST_KIT_ZOO_FILES. Returns the folder and the names of the entries it serves."""
    mirror = tmp_path_factory.mktemp("zoo-mirror")
    entries = all_entries()
    served = {t.entry.name for t in take_from(KAIST / "results", entries, root=mirror)} if KAIST.is_dir() else set()
    extra = os.environ.get("KAIST_KIT_ZOO_FILES")
    if extra and Path(extra).is_dir():
        served |= {t.entry.name for t in take_from(extra, entries, root=mirror)}
    return mirror, served


def run_block(block: str, folder: Path, data: Path, mirror: Path, timeout: int = 1800):
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("KAIST_KIT_") or k in ("KAIST_KIT_SHARED", "KAIST_KIT_REQUIRE_ENVS")
    }
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        XDG_DATA_HOME=str(data),
        KAIST_KIT_ZOO_URL=mirror.as_uri(),
        KAIST_KIT_SYNTH_FRAMES="4",
        **{variable: path.as_uri() for variable, path in PINNED.items()},
    )
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize("item", blocks(), ids=block_id)
def test_the_block_runs_as_written_in_an_empty_folder(item, tmp_path, zoo_mirror):
    title, block = item
    mirror, served = zoo_mirror
    if re.search(r"kaist-kit (train|test|infer|init-checkpoint) ", block):
        pytest.importorskip("mmdet", reason="the block trains a detector: it needs the mmdet extra (mmdetection)")
    for variable, path in PINNED.items():
        if not path.is_file():
            pytest.skip(f"{path} is not there to serve {variable}")
    missing = zoo_names(block) - served
    if missing:
        pytest.skip(f"the zoo's files of {sorted(missing)} are not in ../shared nor under $KAIST_KIT_ZOO_FILES")
    folder = tmp_path / "clone"
    folder.mkdir()
    (folder / "configs").symlink_to(ROOT / "configs")
    for name, source in BY_HAND.items():
        if re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w/.-])", block):
            if not source.is_file():
                pytest.skip(f"{source} is not there to stand for the download {name}")
            if source.name.endswith(".tar.gz"):
                with tarfile.open(source) as archive:
                    archive.extractall(folder, filter="data")
                assert (folder / name).is_dir(), f"{source} does not unpack to {name}/"
            else:
                shutil.copyfile(source, folder / name)
    proc = run_block(block, folder, tmp_path / "data", mirror)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    CHECKS.get(title, lambda proc, folder: None)(proc, folder)


# What each section's block must have done, besides exiting 0.


def _scoring(proc, folder):
    assert "downloading the leaderboard's ground truth" in proc.stderr
    assert "downloading zoo:MLPD " in proc.stderr
    assert re.search(r"MLPD\s+│\s+6\.95 │", proc.stdout)  # reasonable night, as MLPD's authors print it
    assert "AP50" in proc.stdout and "AP75" in proc.stdout and "AR" in proc.stdout
    assert (folder / "curves.pdf").read_bytes().startswith(b"%PDF")
    assert (folder / "test-all-20.leaderboard.json").is_file()


def _diagnosis(proc, folder):
    assert (folder / "mbnet-diagnosis" / "report.md").is_file()
    assert (folder / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _zoo(proc, folder):
    assert "downloading zoo:INSANet (INSANet_result.txt, " in proc.stderr
    assert re.search(r"INSANet\s+│ leaderboard │\s+5\.50 │", proc.stdout)
    assert re.search(r"INSANet\s+│ matlab\s+│\s+5\.76 │", proc.stdout)
    assert (folder / "related-work.pdf").is_file() and (folder / "related-work.png").is_file()


def _entries(proc, folder):
    for name in ("MLPD.json", "MLPD.manifest.json", "MLPD-2024.json"):
        assert (folder / name).is_file(), name
    assert "correct" in proc.stdout


def _other_benchmarks(proc, folder):
    from kaist_kit.data.groundtruth import read_ground_truth
    from kaist_kit.datasets.readers import read_benchmark

    for title in ("FLIR-aligned: Average precision", "M3FD: Average precision", "LLVIP: Log-average miss rate"):
        assert title in proc.stdout, title
    assert "benchmark: m3fd (recognised from the ground truth" in proc.stderr
    assert (
        read_ground_truth(folder / "llvip-test.json", "llvip").image_names
        == read_benchmark("llvip", folder / "LLVIP", "test").image_names
    )
    assert (folder / "llvip-190001.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = json.loads((folder / "cvc14.json").read_text())["results"]
    assert {r["category"] for r in rows} == {"person"} and {r["protocol"] for r in rows} == {"ms-detr", "matlab"}


def _training(proc, folder):
    if "kaist-synth" in proc.args[-1]:
        [results] = folder.glob("*_result.json")
        records = json.loads(results.read_text())
        test = json.loads((folder / "data" / "kaist-synth" / "test.json").read_text())
        assert {r["image_id"] for r in records} <= {image["id"] for image in test["images"]}
        assert "Log-average miss rate" in proc.stdout
    else:
        sets = folder / "data" / "kaist" / "annotations"
        assert len(json.loads((sets / "train-02.json").read_text())["images"]) > 0
        assert len(json.loads((sets / "val-02.json").read_text())["images"]) > 0
        assert len(json.loads((folder / "mbnet-8963.json").read_text())["images"]) > 0


CHECKS = {
    "Scoring a detector": _scoring,
    "Why a detector misses": _diagnosis,
    "Published results: the zoo": _zoo,
    "Challenge entries": _entries,
    "Other benchmarks": _other_benchmarks,
    "Training a fusion detector": _training,
}
