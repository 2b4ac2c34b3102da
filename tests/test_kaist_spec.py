"""KAIST is one benchmark spec among the others: its constants are spelled in `kaist_kit.datasets`
alone, and every module that needs one reads the spec.

The scan reads the kit's code as Python tokens (numbers and string literals, comments and docstrings
aside from the numbers), so that a number in a sentence does not count and a constant in code does.
"""

import io
import re
import tokenize
from pathlib import Path

import pytest

from kaist_kit.datasets import KAIST, KAIST_LABELS, KAIST_PAIRED_LABELS

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kaist_kit", "submission", "converters")
SPEC = Path("kaist_kit/datasets/kaist.py")
# The other datasets' specs: their numbers are their own (FLIR-aligned's frames are 640 x 512 too); a
# KAIST pattern spelled in them is still found.
OTHER_SPECS = {Path(f"kaist_kit/datasets/{name}.py") for name in ("flir_aligned", "llvip", "cvc14", "m3fd")}

# KAIST's numbers: the frame's width and height, the test split's images (all, day, night) and boxes.
NUMBERS = {640, 512, 2252, 1455, 797, 4254}
# KAIST's frame-name patterns, and its pinned ground truth, as string literals spell them.
PATTERNS = [
    r"set\\d\\d",
    r"V\\d\\d\\d",
    r"I\\d\{5\}",
    KAIST.ground_truth.md5,
    "KAIST_annotation.json",
    "sejong-rcv/MLPD",
]
# Numbers that are not KAIST's although they are equal to one, each with what it is.
NOT_KAIST = {
    ("kaist_kit/tools/datacheck.py", "512"): "how many pictures a thread checks at a time",
    ("kaist_kit/zoo/entries.py", '"sejong-rcv/MLPD-Multi-Label-Pedestrian-Detection"'): (
        "the repository of published results the zoo pins (the ground truth's pin is the spec's)"
    ),
}


def literals(path: Path):
    """(line, kind, text) of every number and string literal of a module."""
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type in (tokenize.NUMBER, tokenize.STRING):
            yield token.start[0], token.type, token.string


def spelled_outside_the_spec() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative == SPEC:
                continue
            for line, kind, text in literals(path):
                if kind == tokenize.NUMBER and relative not in OTHER_SPECS:
                    try:
                        value = int(text.replace("_", ""), 0)
                    except ValueError:
                        continue
                    if value in NUMBERS and (relative.as_posix(), text) not in NOT_KAIST:
                        found.append(f"{relative}:{line}: {text}")
                elif (
                    any(re.search(pattern, text) for pattern in PATTERNS)
                    and (relative.as_posix(), text) not in NOT_KAIST
                ):
                    found.append(f"{relative}:{line}: {text[:60]}")
    return found


def test_no_kaist_constant_is_spelled_outside_the_spec():
    assert spelled_outside_the_spec() == []


def test_the_scan_finds_a_constant_spelled_again(tmp_path, monkeypatch):
    """The scan is not blind: a module that spells the frame size or the frame pattern again is found."""
    package = tmp_path / "kaist_kit"
    package.mkdir()
    (package / "datasets").mkdir()
    (package / "datasets" / "kaist.py").write_text("SIZE = (640, 512)\n")
    (package / "spelled.py").write_text(
        '"""640 x 512 in a sentence is fine."""\nimport re\n\n'
        'SIZE = (640, 512)\nFRAME = re.compile(r"(set\\d\\d)_(V\\d\\d\\d)")\n'
        "COUNT = 2_252\n"
    )
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    found = spelled_outside_the_spec()
    assert found == [
        "kaist_kit/spelled.py:4: 640",
        "kaist_kit/spelled.py:4: 512",
        'kaist_kit/spelled.py:5: r"(set\\d\\d)_(V\\d\\d\\d)"',
        "kaist_kit/spelled.py:6: 2_252",
    ]


def test_modules_read_the_spec():
    from converters import bbgt, coco
    from kaist_kit.data import frames, imagesets, results
    from kaist_kit.data.groundtruth import ground_truth_from_coco
    from kaist_kit.datasets import kaist_truth as groundtruth
    from kaist_kit.metrics import settings
    from kaist_kit.submission import checks, evaluators

    assert settings.KAIST_FRAME_SIZE is KAIST.image_size and settings.BORDER_MARGIN == KAIST.border
    assert frames.FRAME_IN_TEXT is KAIST.frames.pattern
    assert results._frame_file(ground_truth_from_coco({"images": []})).pattern.startswith(KAIST.flat_pattern.pattern)
    assert checks.TEST_IMAGES == evaluators.TEST_IMAGES == KAIST.test_images == 2252
    assert evaluators.DAY_IMAGES == KAIST.split("day").images == 1455
    assert KAIST.split("day").images + KAIST.split("night").images == KAIST.test_images
    assert groundtruth.LEADERBOARD_GT_MD5 == KAIST.ground_truth.md5
    assert coco.CATEGORIES[1:] + coco.EXTRA_CATEGORIES == [*KAIST_LABELS, *KAIST_PAIRED_LABELS]
    assert bbgt.KNOWN_LABELS == set(KAIST.labels) and KAIST.ignore_labels < set(KAIST.labels)
    frames_all = [f"set{s:02d}/V000/I{n:05d}" for s in range(12) for n in range(40)]
    assert imagesets.standard_list("test-all-20", frames_all) == [
        f"set{s:02d}/V000/I{n:05d}" for s in range(6, 12) for n in (19, 39)
    ]
    assert imagesets.standard_list("train-night-02", frames_all)[:2] == ["set03/V000/I00001", "set03/V000/I00003"]


@pytest.mark.parametrize(
    "text",
    [
        "set06/V000/I00019",
        "set06_V000_I00019.txt",
        "images/set06/V000/lwir/I00019.jpg",
        "a/set11/V002/visible/I01279.png",
        "set6/V000/I00019",
        "I00019.jpg",
    ],
)
def test_frame_names_are_the_specs(text):
    from kaist_kit.data.frames import find_frame

    assert find_frame(text) == KAIST.frame(text)
