"""The VOC reader reads exactly what ElementTree reads, or refuses: a differential test against a plain
reading of ElementTree's tree, on generated files and thousands of mutations of them (entities,
document type declarations, reordered and missing elements, odd numbers, other encodings, truncation)."""

import random
import xml.etree.ElementTree as ET
import xml.parsers.expat

import pytest

from kaist_kit.datasets.voc import parse_voc, read_voc
from kaist_kit.errors import InputError

REFUSED = "refused"


def reference(data: bytes):
    """(filename, size, objects) as a plain reading of ``ET.fromstring`` gives them, or REFUSED.

    A document type declaration (seen by expat itself) is refused, as is anything ElementTree cannot
    parse and every value the rules of kaist_kit/datasets/voc.py do not accept."""
    seen = []
    probe = xml.parsers.expat.ParserCreate()
    probe.StartDoctypeDeclHandler = lambda *args: seen.append(args)
    try:
        probe.Parse(data, True)
    except xml.parsers.expat.ExpatError:
        pass
    if seen:
        return REFUSED
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return REFUSED
    if root.tag != "annotation":
        return REFUSED

    class Ambiguous(Exception):
        pass

    def child(element, tag):
        found = [c for c in element if c.tag == tag]
        if len(found) > 1:
            raise Ambiguous
        return found[0] if found else None

    def text(element, *path):
        for tag in path:
            element = child(element, tag) if element is not None else None
        if element is None:
            return None
        return element.text or ""

    try:
        return read(root, text)
    except Ambiguous:
        return REFUSED


def read(root, text):
    size = None
    width, height = text(root, "size", "width"), text(root, "size", "height")
    if width is not None or height is not None:
        try:
            size = (int((width or "").strip()), int((height or "").strip()))
        except ValueError:
            return REFUSED
        if min(size) <= 0:
            return REFUSED
    objects = []
    for element in root:
        if element.tag != "object":
            continue
        name = (text(element, "name") or "").strip()
        if not name:
            return REFUSED
        corners = []
        for tag in ("xmin", "ymin", "xmax", "ymax"):
            value = text(element, "bndbox", tag)
            if value is None:
                return REFUSED
            try:
                number = float(value)
            except ValueError:
                return REFUSED
            if number != number or number in (float("inf"), float("-inf")):
                return REFUSED
            corners.append(number)
        if corners[2] < corners[0] or corners[3] < corners[1]:
            return REFUSED
        flags = []
        for tag in ("difficult", "truncated"):
            value = text(element, tag)
            if value is None or not value.strip():
                flags.append(0)
                continue
            try:
                flags.append(int(value.strip()))
            except ValueError:
                return REFUSED
        objects.append((name, *corners, *flags, (text(element, "pose") or "").strip()))
    return ((text(root, "filename") or "").strip(), size, objects)


def ours(data: bytes):
    try:
        voc = parse_voc(data, "f.xml")
    except InputError as exc:
        assert str(exc).startswith("f.xml"), exc  # every refusal names the file
        return REFUSED
    return (
        voc.filename,
        voc.size,
        [(o.name, o.xmin, o.ymin, o.xmax, o.ymax, o.difficult, o.truncated, o.pose) for o in voc.objects],
    )


def voc_text(rnd: random.Random) -> str:
    objects = []
    for _ in range(rnd.choice([0, 1, 2, 4])):
        x, y = rnd.randint(0, 600), rnd.randint(0, 480)
        w, h = rnd.randint(0, 80), rnd.randint(0, 120)
        objects.append(
            f"\t<object>\n\t\t<name>{rnd.choice(['person', 'car', 'bicycle', 'dog'])}</name>\n"
            "\t\t<pose>Unspecified</pose>\n"
            f"\t\t<truncated>0</truncated>\n\t\t<difficult>{rnd.choice([0, 1])}</difficult>\n\t\t<bndbox>\n"
            f"\t\t\t<xmin>{x}</xmin>\n\t\t\t<ymin>{y}</ymin>\n\t\t\t<xmax>{x + w}</xmax>\n\t\t\t<ymax>{y + h}</ymax>\n"
            "\t\t</bndbox>\n\t</object>\n"
        )
    return (
        "<annotation>\n\t<folder>f</folder>\n\t<filename>FLIR_00001.jpeg</filename>\n\t<size>\n"
        "\t\t<width>640</width>\n\t\t<height>512</height>\n\t\t<depth>3</depth>\n\t</size>\n"
        "\t<segmented>0</segmented>\n" + "".join(objects) + "</annotation>\n"
    )


MUTATIONS = [
    lambda t, r: '<!DOCTYPE annotation [<!ENTITY w "640">]>\n' + t.replace("<width>640</width>", "<width>&w;</width>"),
    lambda t, r: '<!DOCTYPE annotation [<!ENTITY a "b">]>\n' + t,
    lambda t, r: '<!DOCTYPE annotation SYSTEM "http://example.invalid/x.dtd">\n' + t,
    lambda t, r: (
        '<!DOCTYPE l [<!ENTITY l0 "ha"><!ENTITY l1 "&l0;&l0;&l0;&l0;">]>\n'
        + t.replace("<folder>f</folder>", "<folder>&l1;</folder>")
    ),
    lambda t, r: t.replace("<width>640</width>", "<width>&w;</width>"),  # an undefined entity
    lambda t, r: t.replace("<width>640</width>", "<width>&#54;40</width>"),  # a character reference
    lambda t, r: t.replace("<name>person</name>", "<name>per&amp;son</name>"),
    lambda t, r: t.replace("<name>car</name>", "<name><![CDATA[car]]></name>"),
    lambda t, r: t.replace("<xmin>", "<xmin> ").replace("</ymax>", "\n</ymax>"),
    lambda t, r: t.replace("<xmax>", "<xmax>1e2").replace("</xmax>", "</xmax>") if r.random() < 0.5 else t,
    lambda t, r: t.replace("<ymin>", "<ymin>-").replace("<ymax>", "<ymax>+"),
    lambda t, r: t.replace("<xmin>", "<xmin>nan", 1),
    lambda t, r: t.replace("<ymax>", "<ymax>inf", 1),
    lambda t, r: t.replace("<xmin>", "<xmin>1_0", 1),  # float() reads an underscore between digits
    lambda t, r: t.replace("<xmax>", "<xmax>0.5", 1),
    lambda t, r: t.replace("\t\t\t<xmax>", "\t\t\t<xmaxx>").replace("</xmax>", "</xmaxx>"),  # a missing field
    lambda t, r: t.replace("<name>dog</name>", "<name>  </name>"),
    lambda t, r: t.replace("<difficult>0</difficult>", "<difficult>yes</difficult>"),
    lambda t, r: t.replace("<difficult>1</difficult>", "<difficult></difficult>"),
    lambda t, r: t.replace("<height>512</height>", "<height>0</height>"),
    lambda t, r: t.replace("<height>512</height>", "<height>512.0</height>"),
    lambda t, r: t.replace("\t\t<width>640</width>\n", ""),
    lambda t, r: t.replace("\t<size>", "\t<sizes>").replace("</size>", "</sizes>"),  # no size at all
    lambda t, r: t.replace("<annotation>", "<annotations>").replace("</annotation>", "</annotations>"),
    lambda t, r: t.replace("\t<object>", "\t<part><object>", 1).replace("</object>", "</object></part>", 1),
    lambda t, r: t.replace("<bndbox>", "<bndbox><!-- a comment --><?pi x?>"),
    lambda t, r: t.replace("</name>", "</name><bndbox><xmin>1</xmin></bndbox>", 1),  # two bndboxes: ambiguous
    lambda t, r: t.replace("<height>512</height>", "<height>512</height><width>320</width>"),
    lambda t, r: t[: r.randint(0, len(t))],  # truncated
    lambda t, r: t.replace("<annotation>", "<annotation xmlns='urn:x'>"),  # a namespace renames every tag
    lambda t, r: "\ufeff" + t,
    lambda t, r: t.replace("</annotation>", "</annotation><extra/>"),
    lambda t, r: t.replace("<folder>", "<folder a='1' a='2'>"),  # a duplicated attribute
]


def encoded(text: str, rnd: random.Random) -> bytes:
    choice = rnd.random() if "\ufeff" not in text else 1.0  # a byte-order mark: UTF-8
    if choice < 0.1:
        return ('<?xml version="1.0" encoding="UTF-16"?>\n' + text).encode("utf-16")
    if choice < 0.2:
        return ('<?xml version="1.0" encoding="ISO-8859-1"?>\n' + text.replace("person", "persön")).encode("latin-1")
    if choice < 0.25:
        return text.replace("person", "persön").encode("latin-1")  # not UTF-8, undeclared
    return text.encode()


@pytest.mark.parametrize("seed", range(4))
def test_mutations_read_as_elementtree_reads_them_or_are_refused(seed):
    rnd = random.Random(seed)
    outcomes = {"read": 0, "refused": 0}
    for case in range(600):
        text = voc_text(rnd)
        for _ in range(rnd.choice([0, 1, 1, 2, 3])):
            text = rnd.choice(MUTATIONS)(text, rnd)
        data = encoded(text, rnd)
        want, got = reference(data), ours(data)
        assert got == want, (seed, case, data[:400])
        outcomes["refused" if got == REFUSED else "read"] += 1
    assert min(outcomes.values()) > 100, outcomes


def test_a_dtd_is_refused_before_its_entities_are_expanded():
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY a "aaaaaaaaaa">'
        + "".join(f'<!ENTITY {c}{i} "' + f"&{c}{i - 1};" * 10 + '">' if i else "" for c in "b" for i in range(1, 9))
        + "]><annotation><folder>&b8;</folder></annotation>"
    ).replace('"&b0;', '"&a;')
    with pytest.raises(InputError, match="refused: a document type declaration"):
        parse_voc(bomb.encode(), "bomb.xml")


def test_errors_name_the_file_and_the_line(tmp_path):
    path = tmp_path / "FLIR_00001_PreviewData.xml"
    path.write_text("<annotation>\n<object>\n<name>car</name>\n</annotation>\n")
    with pytest.raises(InputError) as caught:
        read_voc(path)
    assert str(caught.value).startswith(f"{path}:4: invalid XML")
    path.write_text(
        "<annotation><object><name>car</name><bndbox><xmin>3</xmin><ymin>1</ymin><xmax>2</xmax>"
        "<ymax>9</ymax></bndbox></object></annotation>"
    )
    with pytest.raises(InputError, match="object 1 \\(car\\) has xmax < xmin"):
        read_voc(path)
    with pytest.raises(InputError, match="no such file"):
        read_voc(tmp_path / "missing.xml")
