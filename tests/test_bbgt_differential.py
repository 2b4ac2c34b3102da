"""The bbGt reader reads what a plain str.split reader reads, or refuses the file: compared on seeded
mutations of the real improved test annotations (line endings, blank space of every kind, numbers
written in every way float() takes or refuses, headers, comments, field counts, encodings)."""

import math
import random
import re
import tarfile

import pytest
from conftest import KAIST

from kaist_kit.converters.bbgt import BadFile, parse_bbgt
from kaist_kit.converters.problems import Problems
from kaist_kit.converters.sources import text_of

SEED = 20240918
COUNTS = {0: 4, 1: 9, 2: 10, 3: 11}
LABELS = {"person", "people", "person?", "cyclist", "person?a", "unpaired"}


def plain_reader(text: str):
    """The plain reading: lines split at LF, CR or CRLF; fields by str.split(); numbers by float();
    the header the first line with a field, its fields joined by single spaces. Returns the objects
    (label, x, y, w, h, occlusion, visible box or None, ignore flag, line) or None: refused."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    rows = [(number, line.split()) for number, line in enumerate(lines, 1) if line.split()]
    if not rows:
        return None
    version = 3
    header = re.fullmatch(r"% ?bbGt version ?= ?([0-9]{1,9})", " ".join(rows[0][1]))
    if header:
        version = int(header[1])
        if version not in COUNTS:
            return None
        rows = rows[1:]
    objects = []
    for number, fields in rows:
        if fields[0].startswith("%"):
            continue
        if len(fields) != 1 + COUNTS[version]:
            return None
        try:
            values = [float(field) for field in fields[1:]]
        except ValueError:
            return None
        if not all(math.isfinite(v) for v in values):
            return None
        x, y, w, h = values[:4]
        occlusion = values[4] if version >= 1 else 0
        if occlusion not in (0, 1, 2):
            return None
        if w <= 0 or h <= 0:
            continue
        visible = tuple(values[5:9]) if version >= 1 and values[7] > 0 and values[8] > 0 else None
        ignore = int(values[9] != 0) if version >= 2 else 0
        objects.append((fields[0], x, y, w, h, occlusion, visible, ignore, number))
    return objects


def kit_reader(text: str):
    try:
        found = parse_bbgt(text, "f.txt", Problems())
    except BadFile:
        return None
    return [(o.label, o.x, o.y, o.w, o.h, o.occlusion, o.visible, o.ign, o.line) for o in found]


def same(mine, theirs) -> bool:
    """Equal readings; numbers compared as float64, as the evaluator reads them."""
    if mine is None or theirs is None:
        return mine is theirs

    def floats(rows):
        return [(r[0], *map(float, r[1:6]), None if r[6] is None else tuple(map(float, r[6])), *r[7:]) for r in rows]

    return floats(mine) == floats(theirs)


@pytest.fixture(scope="module")
def real_texts():
    archive = KAIST / "test-improved-bbgt.tar.gz"
    if not archive.is_file():
        pytest.skip(f"real KAIST files not found at {KAIST}")
    with tarfile.open(archive) as tar:
        texts = [tar.extractfile(m).read() for m in tar if m.isfile()]
    return [t for t in texts if t.count(b"\n") > 1][:300] + [t for t in texts if t.count(b"\n") <= 1][:30]


NUMBERS = [
    "0",
    "-3",
    "007",
    "1.5",
    "12.",
    ".5",
    "1e3",
    "1E-2",
    "+4",
    "-0",
    "1_0",
    "nan",
    "inf",
    "-Infinity",
    "0x10",
    "\u0661\u0662",
    "\uff11",
    "1,5",
    "",
    "99999999999999999999",
    "9" * 5000,
    "1e400",
    "2",
    "1",
]
BLANKS = [" ", "  ", "\t", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000", "\r", "\r\n", "\n"]
HEADERS = [
    "% bbGt version=3",
    "%bbGt version=3",
    "% bbGt version = 2",
    "% bbGt  version=1",
    "% bbGt version=0",
    "% bbGt version=4",
    "% bbGt version=\u0663",
    "% bbGt version=3 extra",
    "%% bbGt version=3",
    "% bbgt version=3",
    "% bbGt\tversion=3",
    "% bbGt version=03",
    "% bbGt version=" + "9" * 20,
    "",
]


def mutate(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    k = rng.randrange(len(lines))
    choice = rng.randrange(9)
    if choice == 0:  # a field's number
        fields = lines[k].split(" ")
        if len(fields) > 1:
            fields[rng.randrange(1, len(fields))] = rng.choice(NUMBERS)
        lines[k] = " ".join(fields)
    elif choice == 1:  # blank space between fields or in place of a line end
        at = [m.start() for m in re.finditer(" ", lines[k])]
        if at:
            spot = rng.choice(at)
            lines[k] = lines[k][:spot] + rng.choice(BLANKS) + lines[k][spot + 1 :]
        else:
            lines[k] += rng.choice(BLANKS)
    elif choice == 2:
        lines[0] = rng.choice(HEADERS)
    elif choice == 3:  # a field more or fewer
        lines[k] = lines[k] + " 0" if rng.random() < 0.5 else lines[k].rsplit(" ", 1)[0]
    elif choice == 4:  # comments and blank lines
        lines.insert(k, rng.choice(["% a note", "%", "   ", "", "%person 1 2 3 4 0 0 0 0 0 0 0"]))
    elif choice == 5:
        return text.replace("\n", rng.choice(["\r\n", "\r", "\n\n", "\x0c", "\u2028", "\x85"]))
    elif choice == 6:  # labels
        fields = lines[k].split(" ")
        fields[0] = rng.choice(["dog", "Person", "person?", "per\u00a0son", "%person", "people", "\ufeffperson", "p"])
        lines[k] = " ".join(fields)
    elif choice == 7:  # a line cut short
        lines[k] = lines[k][: rng.randrange(len(lines[k]) + 1)]
    else:  # leading and trailing blank space
        lines[k] = rng.choice(BLANKS) + lines[k] + rng.choice(BLANKS)
    return "\n".join(lines)


def test_the_real_files_read_alike(real_texts):
    readings = [kit_reader(text_of(data)) for data in real_texts]
    assert all(r is not None for r in readings) and sum(map(len, readings)) > 500
    assert all(same(mine, plain_reader(text_of(data))) for mine, data in zip(readings, real_texts))


def test_mutated_files_read_as_the_plain_reader_reads_them(real_texts):
    rng = random.Random(SEED)
    refused = kept = 0
    for _ in range(6000):
        text = text_of(rng.choice(real_texts))
        for _ in range(rng.choice([1, 1, 2, 3])):
            text = mutate(rng, text)
        mine, theirs = kit_reader(text), plain_reader(text)
        assert same(mine, theirs), repr(text[:400])
        refused += mine is None
        kept += mine is not None
    assert refused > 500 and kept > 500  # both outcomes are exercised


def test_the_encodings_read_alike(real_texts):
    """Bytes are decoded as UTF-8 (with or without a byte-order mark), else Latin-1, for both."""
    rng = random.Random(SEED + 1)
    for _ in range(300):
        data = rng.choice(real_texts)
        data = rng.choice(
            [
                b"\xef\xbb\xbf" + data,
                data.replace(b"person", "pers\u00f6n".encode("latin-1"), 1),
                data.replace(b"person", "pers\u00f6n".encode(), 1),
                data.replace(b" ", b"\xa0", 1),
            ]
        )
        assert same(kit_reader(text_of(data)), plain_reader(text_of(data)))
