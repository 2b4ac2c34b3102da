"""The XML reader's fast path reads exactly what ElementTree (the reference, DTDs refused) reads, or
hands the file to it: compared on thousands of seeded mutations of real files of the official tree
(attributes, comments, CDATA, declared encodings, blank space, element orders, nesting, entities,
values), one file at a time and all of them in one chunk, and through a whole conversion."""

import json
import random
import tarfile

import pytest
from conftest import KAIST

from kaist_kit.converters import convert, kaist_xml
from kaist_kit.converters.problems import Problems
from kaist_kit.converters.records import ObjectColumns, ParseOptions

SEED = 20240917
DEFAULT_SIZE = (640, 512)


@pytest.fixture(scope="module")
def real_files():
    """A few hundred files of the official tree (the first of the archive with objects, and some
    without), read from the start of the archive."""
    archive = KAIST / "annotations-xml-original.tar.gz"
    if not archive.is_file():
        pytest.skip(f"real KAIST files not found at {KAIST}")
    with_objects, without = [], []
    with tarfile.open(archive, "r|gz") as tar:
        for member in tar:
            if not member.name.endswith(".xml"):
                continue
            data = tar.extractfile(member).read()
            (with_objects if b"<object>" in data else without).append(data)
            if len(with_objects) >= 300 and len(without) >= 60:
                break
    return with_objects + without


# ---------------------------------------------------------------------------------------------
# Mutations: each takes (rng, bytes) and returns bytes.

TAGS = [
    b"annotation",
    b"object",
    b"name",
    b"bndbox",
    b"x",
    b"y",
    b"w",
    b"h",
    b"occlusion",
    b"size",
    b"width",
    b"height",
    b"folder",
    b"filename",
    b"source",
    b"pose",
    b"difficult",
    b"truncated",
    b"segmented",
]


def _nth(rng, data, needle):
    places = [k for k in range(len(data)) if data.startswith(needle, k)]
    return rng.choice(places) if places else None


def add_attribute(rng, data):
    tag = rng.choice(TAGS)
    at = _nth(rng, data, b"<" + tag + b">")
    if at is None:
        return data
    attribute = rng.choice([b' id="1"', b" a='x'", b' xml:lang="en"', b' difficult="0"'])
    return data[: at + 1 + len(tag)] + attribute + data[at + 1 + len(tag) :]


def add_comment(rng, data):
    at = _nth(rng, data, b"<")
    comment = rng.choice([b"<!-- a note -->", b"<!---->", b"<!-- <object><name>person</name> -->"])
    return data[:at] + comment + data[at:]


def _span(rng, data, tag):
    """(start, end) of one <tag>...</tag> chosen at random, or None."""
    start = _nth(rng, data, b"<" + tag + b">")
    end = -1 if start is None else data.find(b"</" + tag + b">", start)
    return None if end < 0 else (start, end + len(tag) + 3)


def _an_object(rng, data):
    return _span(rng, data, b"object")


def comment_out_object(rng, data):
    found = _an_object(rng, data)
    if found is None:
        return data
    start, end = found
    return data[:start] + b"<!-- " + data[start:end] + b" -->" + data[end:]


def object_in_cdata(rng, data):
    found = _an_object(rng, data)
    if found is None:
        return data
    start, end = found
    return data[:start] + b"<![CDATA[" + data[start:end] + b"]]>" + data[end:]


def declare_encoding(rng, data):
    encoding = rng.choice(
        ["ISO-8859-1", "iso-8859-1", "UTF-8", "utf-8", "US-ASCII", "UTF-16", "cp1252", "windows-1252", "latin-1"]
    )
    quote = rng.choice(['"', "'"])
    declaration = f"<?xml version={quote}1.0{quote} encoding={quote}{encoding}{quote}?>".encode()
    text = data.decode("latin-1")
    if rng.random() < 0.6:  # a label with a letter beyond ASCII, in some encoding
        text = text.replace("<name>person</name>", "<name>persön</name>", 1)
    try:
        body = (declaration.decode() + rng.choice(["", "\n"]) + text).encode(
            rng.choice([encoding, "latin-1", "utf-8"]) if encoding.lower() != "utf-16" else "utf-16"
        )
    except (LookupError, UnicodeEncodeError):
        body = declaration + b"\n" + text.encode("utf-8")
    return body


def plain_declaration(rng, data):
    return (
        rng.choice(
            [
                b'<?xml version="1.0"?>\n',
                b'<?xml version="1.0" encoding="utf-8"?>',
                b' <?xml version="1.0"?>',
                b'<?xml version="1.0" standalone="yes"?>',
                b"\xef\xbb\xbf",
            ]
        )
        + data
    )


def change_blank_space(rng, data):
    choice = rng.randrange(6)
    if choice == 0:
        return data.replace(b"\n", b"\r\n")
    if choice == 1:
        return data.replace(b"\n", b"\r")
    if choice == 2:
        return data.replace(b"  ", b"\t")
    if choice == 3:
        return b"".join(part.strip() for part in data.split(b"\n"))
    if choice == 4:
        tag = rng.choice(TAGS)
        return data.replace(b"</" + tag + b">", b"</" + tag + b" >", 1)
    return data.replace(b"\n", b"\n\x0c", 1)


def reorder(rng, data):
    found = _an_object(rng, data)
    if found is None:
        return data
    start, end = found
    body = data[start:end]
    a, b = rng.sample([b"name", b"bndbox", b"pose", b"occlusion", b"x", b"y", b"w", b"h"], 2)
    sa, ea = body.find(b"<" + a + b">"), body.find(b"</" + a + b">") + len(a) + 3
    sb, eb = body.find(b"<" + b + b">"), body.find(b"</" + b + b">") + len(b) + 3
    if min(sa, sb) < 0 or ea < sa + len(a) + 2 or eb < sb + len(b) + 2:
        return data
    if not (ea <= sb or eb <= sa):
        return data
    (s1, e1), (s2, e2) = sorted([(sa, ea), (sb, eb)])
    body = body[:s1] + body[s2:e2] + body[e1:s2] + body[s1:e1] + body[e2:]
    return data[:start] + body + data[end:]


def nest(rng, data):
    found = _an_object(rng, data)
    if found is None:
        return data
    start, end = found
    obj = data[start:end]
    where = rng.choice([b"</bndbox>", b"</source>", b"</size>", b"<segmented>"])
    at = data.find(where)
    if at < 0:
        return data
    return data[:at] + obj + data[at:]


def duplicate_element(rng, data):
    found = _span(rng, data, rng.choice([b"name", b"x", b"occlusion", b"width", b"size", b"bndbox"]))
    if found is None:
        return data
    start, end = found
    return data[:end] + data[start:end] + data[end:]


def remove_element(rng, data):
    found = _span(
        rng, data, rng.choice([b"pose", b"occlusion", b"size", b"width", b"name", b"bndbox", b"segmented", b"source"])
    )
    if found is None:
        return data
    start, end = found
    return data[:start] + data[end:]


def entity(rng, data):
    choice = rng.randrange(7)
    if choice == 0:
        return data.replace(b">person<", b">per&#115;on<", 1)
    if choice == 1:
        return data.replace(b"<x>", b"<x>&#49;", 1)
    if choice == 2:
        return data.replace(b">person<", b">person&amp;<", 1)
    if choice == 3:
        return b'<!DOCTYPE annotation [<!ENTITY w "640">]>\n' + data.replace(b">640<", b">&w;<", 1)
    if choice == 4:
        return b'<!DOCTYPE annotation SYSTEM "http://example.invalid/a.dtd">\n' + data
    if choice == 5:
        return data.replace(b">person<", b">&undefined;<", 1)
    return data.replace(b">person<", b">&lt;person&gt;<", 1)


VALUES = [
    b"0",
    b"-3",
    b"007",
    b"1.5",
    b" 12 ",
    b"",
    b"nan",
    b"1e3",
    b"1_0",
    b"99999999999",
    b"9" * 5000,
    "\u0661\u0662".encode(),
    b"+4",
    b"\t5\n",
    b"-0",
    b"2147483648",
    b"0x10",
]
LABELS = [
    b"person",
    b"people",
    b"cyclist",
    b"person?",
    b"dog",
    b" person ",
    b"per son",
    b"",
    b"  ",
    b"Person",
    b"person\r",
    b"pe\rrson",
    b"person?a",
    b"unpaired",
    b"x]]>y",
    b"p>q",
    b"\tperson",
]


def change_value(rng, data):
    label = rng.random() < 0.4
    tag = b"name" if label else rng.choice([b"x", b"y", b"w", b"h", b"occlusion", b"width", b"height"])
    found = _span(rng, data, tag)
    if found is None:
        return data
    start, end = found
    value = rng.choice(LABELS if label else VALUES)
    return data[: start + len(tag) + 2] + value + data[end - len(tag) - 3 :]


def break_file(rng, data):
    choice = rng.randrange(6)
    if choice == 0:
        return data[: rng.randrange(len(data))]
    if choice == 1:
        return data.replace(b"</bndbox>", b"", 1)
    if choice == 2:
        return data.replace(b"<segmented>", b"junk<segmented>", 1)
    if choice == 3:
        return data.replace(b"<size>", b"<?pi data?><size>", 1)
    if choice == 4:
        return data.replace(b"</annotation>", b"</annotation><annotation/>", 1)
    at = rng.randrange(len(data))
    return data[:at] + rng.choice([b"\x00", b"\x01", b"\x7f", b"\xff", b"<", b"&", b"]]>"]) + data[at:]


def root_change(rng, data):
    return rng.choice(
        [
            data.replace(b"<annotation>", b"<annotations>", 1).replace(b"</annotation>\n", b"</annotations>\n", 1),
            data + b"<!-- after -->",
            data + b"\n\n  \t",
            data.rstrip(),
            b"\n" + data,
        ]
    )


MUTATIONS = [
    add_attribute,
    add_comment,
    comment_out_object,
    object_in_cdata,
    declare_encoding,
    plain_declaration,
    change_blank_space,
    reorder,
    nest,
    duplicate_element,
    remove_element,
    entity,
    change_value,
    break_file,
    root_change,
]


def mutants(files, n, seed=SEED):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        data = rng.choice(files)
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            data = rng.choice(MUTATIONS)(rng, data)
        out.append(data)
    return out


# ---------------------------------------------------------------------------------------------
# The two readings


def read_fast(contents):
    """What the reader gives for the files as one chunk: per file (size, objects) or None, and the
    problems in order."""
    problems = Problems()
    frames = [(k, f"set00/V000/I{k:05d}", f"f{k}.xml") for k in range(len(contents))]
    kept, objects = kaist_xml.parse_xml_files(
        frames, {f"f{k}.xml": data for k, data in enumerate(contents)}, str, problems, ParseOptions(DEFAULT_SIZE)
    )
    per_file = {k: ((w, h), []) for k, w, h in zip(kept.image_id, kept.width, kept.height)}
    for image_id, obj in objects.rows():
        per_file[image_id][1].append(obj)
    return [per_file.get(k) for k in range(len(contents))], problems.records


def read_reference(contents):
    problems = Problems()
    out = []
    for k, data in enumerate(contents):
        parsed = kaist_xml.parse_with_elementtree(data, f"f{k}.xml", problems, DEFAULT_SIZE)
        out.append(None if parsed is None else (parsed[1], parsed[0]))
    return out, problems.records


def test_real_files_fit_the_fast_path(real_files):
    """The comparison means something only if the fast path reads the usual files itself."""
    assert all(map(kaist_xml.fits_usual_layout, real_files))
    fits, *_ = kaist_xml._scan(real_files)
    assert all(fits)
    assert read_fast(real_files) == read_reference(real_files)


def test_mutated_files_read_as_elementtree_reads_them(real_files):
    files = mutants(real_files, 4000)
    fits, *_ = kaist_xml._scan(files)
    # The fast decision is the grammar's, file by file.
    assert fits == [kaist_xml.fits_usual_layout(data) for data in files]
    assert 0.1 < sum(fits) / len(files) < 0.9  # both ways are exercised
    fast, fast_problems = read_fast(files)
    reference, reference_problems = read_reference(files)
    for k, (mine, theirs) in enumerate(zip(fast, reference)):
        assert mine == theirs, (k, files[k][:2000])
    assert fast_problems == reference_problems
    # File by file too (a chunk of one), so that no file's reading leans on its neighbours.
    for data in files[:600]:
        assert read_fast([data]) == read_reference([data]), data[:2000]


def test_the_named_cases(real_files):
    """An attribute, objects inside a comment or CDATA, a declared ISO-8859-1 encoding, a DTD."""
    usual = next(data for data in real_files if data.count(b"<object>") == 1 and b">person<" in data)
    latin = (b'<?xml version="1.0" encoding="ISO-8859-1"?>\n' + usual).replace(
        b">person<", ">persön<".encode("latin-1")
    )
    cases = {
        "attribute": usual.replace(b"<object>", b'<object id="1">'),
        "comment": usual.replace(b"<object>", b"<!-- <object>").replace(b"</object>", b"</object> -->"),
        "cdata": usual.replace(b"<object>", b"<![CDATA[<object>").replace(b"</object>", b"</object>]]>"),
        "latin-1": latin,
        "dtd": b'<!DOCTYPE annotation [<!ENTITY w "640">]>\n' + usual.replace(b">640<", b">&w;<"),
    }
    expected = {"attribute": 1, "comment": 0, "cdata": 0, "latin-1": 1, "dtd": None}
    for name, data in cases.items():
        assert not kaist_xml.fits_usual_layout(data), name
        [read], problems = read_fast([data])
        assert ([read], problems) == read_reference([data]), name
        assert (None if read is None else len(read[1])) == expected[name], name
    [(_, [obj])], _ = read_fast([cases["latin-1"]])
    assert obj.label == "persön"
    [read], problems = read_fast([cases["dtd"]])
    assert read is None and "document type declaration" in problems[0][1]


def test_a_conversion_reads_what_the_reference_reads(real_files, tmp_path, monkeypatch):
    """Whole conversions of a tree of mutated files: with the fast path, and with every file read by
    the reference (the fast path told that nothing fits): the same output, the same problems."""
    files = mutants(real_files, 1500, seed=SEED + 1)
    for k, data in enumerate(files):
        path = tmp_path / "xml" / f"set0{k % 3}" / "V000" / f"I{k:05d}.xml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    fast = convert("xml", tmp_path / "xml", tmp_path / "fast.json", workers=1)

    def nothing_fits(contents):
        return [False] * len(contents), [], [None] * len(contents), [None] * len(contents)

    monkeypatch.setattr(kaist_xml, "_scan", nothing_fits)
    reference = convert("xml", tmp_path / "xml", tmp_path / "reference.json", workers=1)
    assert fast.problems.records == reference.problems.records and fast.problems.counts["malformed file"] > 100
    assert (
        json.loads((tmp_path / "fast.json").read_text())["annotations"]
        == json.loads((tmp_path / "reference.json").read_text())["annotations"]
    )
    assert (tmp_path / "fast.json").read_bytes() == (tmp_path / "reference.json").read_bytes()


def test_object_columns_round_trip():
    assert ObjectColumns.of([]) == ObjectColumns.empty()
