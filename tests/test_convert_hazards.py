"""Converters: the mistakes people make with them, odd trees, output paths and interrupts. Each ends
in a finding or a one-line error with exit code 2, never in a traceback or a half-written file."""

import json
import re

import pytest
from typer.testing import CliRunner

from kaist_kit.cli import app
from kaist_kit.converters import convert

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def flat(output):
    """Output as one line: typer boxes and wraps usage errors."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", output).split())


def write_flat(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


FRAME = "% bbGt version=3\nperson 1 2 30 60 0 0 0 0 0 0 0\n"


@pytest.mark.parametrize("size", ["0x0", "-3x5", "640x0", "640x-512"])
def test_sizes_that_are_not_positive_are_refused(tmp_path, size):
    folder = write_flat(tmp_path / "ann", {"set06_V000_I00019.txt": FRAME})
    result = invoke("convert", "improved", folder, "--out", tmp_path / "gt.json", f"--image-size={size}")
    assert result.exit_code == 2 and f"--image-size: '{size}': the width and the height must be positive" in flat(
        result.output
    )
    assert not (tmp_path / "gt.json").exists()
    result = invoke("synth", tmp_path / "synth", f"--size={size}")
    assert result.exit_code == 2 and f"--size: '{size}': the width and the height must be positive" in flat(
        result.output
    )
    assert not (tmp_path / "synth").exists()
    with pytest.raises(ValueError, match="must be positive"):
        convert("improved", folder, None, image_size=tuple(int(v) for v in size.split("x")))


def run_cli(*args):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "kaist_kit", *map(str, args)], capture_output=True, text=True)


def error_line(proc):
    """The error that ends a command (after the problems it echoed), with exit code 2."""
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("error: "), proc.stderr
    return line


def one_error_line(proc):
    line = error_line(proc)
    assert proc.stderr.strip() == line, proc.stderr
    return line


def test_out_that_cannot_be_written_is_refused_before_the_work(tmp_path):
    source = write_flat(tmp_path / "ann", {"set06_V000_I00019.txt": FRAME})
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "a-file").write_text("")
    long_name = "x" * 300 + ".json"
    cases = {
        tmp_path: "is a folder; give a file name to write",
        tmp_path / "a-file" / "gt.json": "a-file is not a folder",
        tmp_path / long_name: "File name too long",
        "/proc/kaist-kit-test.json": "cannot write the file there",
        "/proc/self/status": "cannot write the file there",
    }
    for out, message in cases.items():
        # The output is checked first: the source (no annotation files) would fail only after a walk.
        line = one_error_line(run_cli("convert", "improved", empty, "--out", out))
        assert line.startswith(f"error: {out}: ") and message in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "ann", "empty"]
    assert convert("improved", source, tmp_path / "new" / "folders" / "gt.json").n_images == 1


def test_a_failure_while_writing_is_an_input_error(tmp_path, monkeypatch):
    import os

    import kaist_kit.io.write as write
    from kaist_kit.errors import InputError

    source = write_flat(tmp_path / "ann", {"set06_V000_I00019.txt": FRAME})
    # The temporary is /dev/full, where every write fails as on a full disk.
    monkeypatch.setattr(write, "_create_temporary", lambda folder, name: (os.open("/dev/full", os.O_RDWR), None))
    with pytest.raises(InputError, match="gt.json: cannot write: No space left on device"):
        convert("improved", source, tmp_path / "gt.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ann"]


def test_an_empty_bbgt_file_is_a_problem_a_header_only_file_is_not(tmp_path):
    from kaist_kit.errors import InputError

    folder = write_flat(
        tmp_path / "ann",
        {
            "set06_V000_I00019.txt": FRAME,
            "set06_V000_I00039.txt": "",
            "set06_V000_I00059.txt": "% bbGt version=3\n",
            "set06_V000_I00079.txt": "\r\n  \n",
        },
    )
    lines = []
    result = convert("improved", folder, tmp_path / "gt.json", echo=lines.append)
    assert result.problems.counts == {"empty file": 2} and result.n_images == 2
    assert lines == [
        f"problem: {folder}/set06_V000_I000{n}.txt: nothing in it, not even the '% bbGt version=N' "
        "header; frame left out"
        for n in (39, 79)
    ]
    with pytest.raises(InputError, match="--strict: 2 empty files; nothing written"):
        convert("improved", folder, tmp_path / "strict.json", strict=True)
    assert not (tmp_path / "strict.json").exists()
    # Paired files: an empty file in one modality leaves the frame out too.
    for modality in ("visible", "lwir"):
        write_flat(tmp_path / "paired" / "set00" / "V000" / modality, {"I00001.txt": FRAME, "I00003.txt": FRAME})
    (tmp_path / "paired" / "set00" / "V000" / "lwir" / "I00003.txt").write_text("")
    paired = convert("paired", tmp_path / "paired", None)
    assert paired.problems.counts == {"empty file": 1} and paired.n_images == 1


XML = """<annotation>
  <size><width>{width}</width><height>512</height></size>
  {objects}
</annotation>
"""
USUAL = (
    "<object><name>{name}</name><bndbox><x>{x}</x><y>20</y><w>30</w><h>60</h></bndbox>"
    "<occlusion>{occ}</occlusion></object>"
)
# Another element order: read by ElementTree rather than the fast path.
REORDERED = (
    "<object><occlusion>{occ}</occlusion><bndbox><h>60</h><w>30</w><y>20</y><x>{x}</x></bndbox>"
    "<name>{name}</name></object>"
)


def xml_tree(root, files):
    for frame, text in files.items():
        path = root / f"{frame}.xml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def xml_file(width=640, name="person", x=10, occ=0, layout=USUAL, prolog=""):
    return prolog + XML.format(width=width, objects=layout.format(name=name, x=x, occ=occ))


def test_xml_non_numbers_are_called_non_numbers_on_both_paths(tmp_path):
    files = {
        "set06/V000/I00019": xml_file(x="abc"),
        "set06/V000/I00039": xml_file(x="abc", layout=REORDERED),
        "set06/V000/I00059": xml_file(occ="partly"),
        "set06/V000/I00079": xml_file(width="wide"),
        "set06/V000/I00099": xml_file(width="640.5"),
        "set06/V000/I00119": xml_file(width=0),
        "set06/V000/I00139": xml_file(x="nan"),
        "set06/V000/I00159": xml_file(),
    }
    root = xml_tree(tmp_path / "xml", files)
    lines = []
    result = convert("xml", root, None, echo=lines.append)
    assert result.n_images == 1 and result.problems.counts == {"malformed file": 7}
    text = "\n".join(lines)
    for frame, message in [
        ("I00019", "x 'abc' of object 'person' is not a number"),
        ("I00039", "x 'abc' of object 'person' is not a number"),
        ("I00059", "occlusion 'partly' of object 'person' is not a number"),
        ("I00079", "the image width 'wide' is not a number"),
        ("I00099", "the image width '640.5' is not an integer"),
        ("I00119", "the image width 0 is not positive"),
        ("I00139", "non-finite number in object 'person'"),
    ]:
        assert f"problem: {root}/set06/V000/{frame}.xml: {message}" in text


def test_xml_references_read_the_same_on_both_paths(tmp_path):
    """Character references and the predefined entities are XML itself: read as ElementTree reads them."""
    with_references = {
        "set06/V000/I00059": xml_file(name="person&amp;bike"),
        "set06/V000/I00079": xml_file(x="&#49;0"),
        "set06/V000/I00099": xml_file(x="1&#48;", name="&#112;erson", layout=REORDERED),
    }
    expanded = {
        "set06/V000/I00059": xml_file(name="person&bike".replace("&", "&amp;")),
        "set06/V000/I00079": xml_file(),
        "set06/V000/I00099": xml_file(layout=REORDERED),
    }
    mine = convert("xml", xml_tree(tmp_path / "refs", with_references), None)
    plain = convert("xml", xml_tree(tmp_path / "plain", expanded), None)
    assert mine.problems.counts == plain.problems.counts == {"unknown label": 1}
    assert mine.labels == plain.labels == {"person": 2, "person&bike": 1}
    a, b = json.loads(mine.text), json.loads(plain.text)
    assert a["images"] == b["images"] and a["annotations"] == b["annotations"]
    assert [ann["bbox"] for ann in a["annotations"]] == [[10, 20, 30, 60]] * 3


def test_xml_document_type_declarations_are_refused(tmp_path):
    """No entity is ever declared, expanded or fetched: internal ones, ones that reach out to a file,
    and the billion laughs alike make the file malformed, named with the declaration's line."""
    internal = '<?xml version="1.0"?>\n<!DOCTYPE annotation [<!ENTITY w "640"><!ENTITY p "person">]>\n'
    external = '<!DOCTYPE annotation [<!ENTITY e SYSTEM "file:///etc/hostname">]>\n'
    laughs = (
        '<!DOCTYPE annotation [<!ENTITY a0 "lol">'
        + "".join(f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 10))
        + "]>\n"
    )
    root = xml_tree(
        tmp_path / "xml",
        {
            "set06/V000/I00019": xml_file(width="&e;", prolog=external),
            "set06/V000/I00039": xml_file(name="&a9;", prolog=laughs),
            "set06/V000/I00059": xml_file(width="&w;", prolog=internal),
            "set06/V000/I00079": xml_file(prolog="<!DOCTYPE annotation>\n"),
            "set06/V000/I00099": xml_file(),
        },
    )
    lines = []
    result = convert("xml", root, None, echo=lines.append)
    assert result.n_images == 1 and result.problems.counts == {"malformed file": 4}
    refused = "a document type declaration (<!DOCTYPE ...>), whose entities the reader refuses to expand"
    assert lines == [
        f"problem: {root}/set06/V000/I000{n}.xml:{line}: {refused}" for n, line in ((19, 1), (39, 1), (59, 2), (79, 1))
    ]


def test_links_in_a_tree_are_noted_and_never_walked_round(tmp_path, monkeypatch):
    import kaist_kit.converters.engine as engine

    root = xml_tree(tmp_path / "xml", {"set06/V000/I00019": xml_file(), "set06/V000/I00039": xml_file(x=50)})
    video = root / "set06" / "V000"
    (video / "loop").symlink_to("loop")
    (video / "up").symlink_to("..")
    (root / "set06" / "V001").symlink_to(tmp_path)  # a folder link to an ancestor of the tree
    (video / "gone.xml").symlink_to("nowhere.xml")
    (video / "I00059.xml").symlink_to("I00019.xml")  # a link to a file is read
    expected = [
        f"note: {root}/set06/V001: a link to a folder, not followed",
        f"note: {video}/gone.xml: a link that leads nowhere (to itself, or to nothing), skipped",
        f"note: {video}/loop: a link that leads nowhere (to itself, or to nothing), skipped",
        f"note: {video}/up: a link to a folder, not followed",
    ]
    monkeypatch.setattr(engine, "PARALLEL_FROM", 1)
    for workers in (1, 2):  # planned in one process; streamed to worker processes
        lines = []
        result = convert("xml", root, None, echo=lines.append, strict=True, workers=workers)
        assert result.n_images == 3 and result.problems.counts == {"broken link": 2, "folder link": 2}
        assert lines == expected
    proc = run_cli("convert", "xml", root, "--out", tmp_path / "gt.json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr and "3 images" in proc.stderr
    (tmp_path / "self").symlink_to("self")
    line = one_error_line(run_cli("convert", "xml", tmp_path / "self", "--out", tmp_path / "x.json"))
    assert line == f"error: {tmp_path / 'self'}: a link that leads nowhere"


DETECTIONS = "person 10 20 40 80 0.93\nperson 300 200 320 260 0.41\n"


def findings(result):
    return {finding.code: str(finding) for finding in result.findings}


def test_detection_results_converted_as_annotations_are_named(tmp_path):
    from kaist_kit.errors import InputError

    folder = write_flat(
        tmp_path / "det", {f"set06_V000_I{n:05d}.txt": DETECTIONS if n % 40 else "" for n in range(19, 800, 20)}
    )
    result = convert("improved", folder, tmp_path / "gt.json")
    assert result.n_annotations == 0
    assert findings(result) == {
        "wrong-format": f"[wrong-format] {folder}: these files look like per-image detection results (label x1 y1 "
        "x2 y2 score), not improved annotations (frames of the test sets, set06-11): score them "
        "with `kaist-kit eval`",
        "no-boxes": f"[no-boxes] {folder}: the output holds no box: 0 frames written, none with an object",
    }
    with pytest.raises(InputError, match=r"--strict: .*\[wrong-format\] these files look like per-image detection"):
        convert("improved", folder, tmp_path / "strict.json", strict=True)
    assert not (tmp_path / "strict.json").exists()
    proc = run_cli("convert", "improved", folder, "--out", tmp_path / "cli.json")
    assert proc.returncode == 0 and proc.stderr.strip().splitlines()[-2:] == [
        f"warning: {text}" for text in findings(result).values()
    ]
    line = error_line(run_cli("convert", "improved", folder, "--out", tmp_path / "cli.json", "--strict"))
    assert "[wrong-format]" in line and "score them with `kaist-kit eval`" in line and line.endswith("nothing written")
    # Given as a tree format, nothing is found, and the error says what the files look like.
    line = one_error_line(run_cli("convert", "xml", folder, "--out", tmp_path / "cli.json"))
    assert line == (
        f"error: {folder}: no xml annotation files found (expected names like set06/V000/I00019.xml); "
        "the files look like per-image detection results (label x1 y1 x2 y2 score): score them with "
        "`kaist-kit eval`"
    )


def test_the_real_detection_folder_converted_as_improved_is_named(kaist, tmp_path):
    archive = kaist / "results" / "MBNet-per-image.tar.gz"
    result = convert("improved", archive, None)
    assert set(findings(result)) == {"wrong-format", "no-boxes"}
    assert "per-image detection results" in findings(result)["wrong-format"]


def test_sanitized_and_improved_files_are_told_apart_by_their_sets(tmp_path):
    training = {f"set00_V000_I{n:05d}.txt": FRAME for n in range(1, 40, 2)}
    test = {f"set06_V000_I{n:05d}.txt": FRAME for n in range(19, 400, 20)}
    for given, files, other, sets in [
        ("sanitized", test, "improved", "the test sets, set06-11"),
        ("improved", training, "sanitized", "the training sets, set00-05"),
    ]:
        folder = write_flat(tmp_path / given, files)
        result = convert(given, folder, None)
        assert result.n_annotations == 20 and not result.problems.counts
        assert findings(result) == {
            "wrong-format": f"[wrong-format] {folder}: these files look like {other} "
            f"annotations (frames of {sets}), not {given} annotations (frames of "
            f"{SETS[given]}): convert them with `kaist-kit convert {other}`"
        }
        assert not convert(other, folder, None).findings
    # A few frames of other sets among many: said as such.
    mixed = write_flat(tmp_path / "mixed", {**training, "set06_V000_I00019.txt": FRAME})
    assert findings(convert("sanitized", mixed, None)) == {
        "other-sets": f"[other-sets] {mixed}: 1 of 21 frames (first: set06/V000/I00019) are not of the training "
        "sets, set00-05, which sanitized annotations cover"
    }


SETS = {"sanitized": "the training sets, set00-05", "improved": "the test sets, set06-11"}


def test_a_source_without_any_box_is_said_so(tmp_path):
    from kaist_kit.errors import InputError

    folder = write_flat(tmp_path / "ann", {f"set06_V000_I000{n}.txt": "% bbGt version=3\n" for n in (19, 39)})
    result = convert("improved", folder, None)
    assert result.n_images == 2 and not result.problems.counts
    assert findings(result) == {
        "no-boxes": f"[no-boxes] {folder}: the output holds no box: 2 frames written, none with an object"
    }
    with pytest.raises(InputError, match=r"--strict: \[no-boxes\] the output holds no box"):
        convert("improved", folder, None, strict=True)


def test_a_tree_given_as_another_format_is_named(tmp_path):
    from kaist_kit.tools.synth import SynthConfig, generate

    root = tmp_path / "kaist"
    generate(root, SynthConfig(seed=1, train_frames=4, test_frames=4, width=96, height=64))
    for given, folder, other in [
        ("xml", "annotations", "original annotations"),
        ("original", "annotations-xml-new", "xml annotations"),
        ("original", "annotations-paired", "paired annotations"),
        ("paired", "annotations-improved", "improved annotations (frames of the test sets, set06-11)"),
    ]:
        line = one_error_line(run_cli("convert", given, root / folder, "--out", tmp_path / "x.json"))
        assert f"the files look like {other}: convert them with `kaist-kit convert {other.split()[0]}`" in line


# A conversion whose workers take a minute per chunk, run as the CLI: the interrupt tests stop it
# while its workers are busy.
SLOW_CONVERT = """
import os, sys, time
import kaist_kit.converters.engine as engine
parent = os.getpid()
read = engine._process
def slow(src, job):
    if os.getpid() != parent:
        time.sleep(60)
    return read(src, job)
engine._process, engine.PARALLEL_FROM, engine._STREAMED_CHUNK = slow, 1, 1
from kaist_kit.cli import main
sys.argv = ["kaist-kit", "convert", "xml", *sys.argv[1:]]
main()
"""


def children_of(pid):
    """The live (not zombie) processes whose parent is ``pid``, from /proc."""
    from pathlib import Path

    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def alive(pids):
    from pathlib import Path

    def running(pid):
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    return [pid for pid in pids if running(pid)]


def as_from_a_terminal():
    """Ctrl-C handled as in a command started from a terminal: a shell without job control starts
    background commands with SIGINT ignored, and the test suite may run in one (CI)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_slow_conversion(tmp_path, *args):
    import subprocess
    import sys
    import time

    root = xml_tree(tmp_path / "xml", {f"set06/V000/I{n:05d}": xml_file() for n in range(19, 200, 20)})
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_CONVERT, str(root), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_from_a_terminal,
    )
    deadline = time.monotonic() + 60
    while len(children_of(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # the workers are in their chunk by now
    return proc, children_of(proc.pid)


def wait_until_gone(pids, seconds=5):
    import time

    deadline = time.monotonic() + seconds
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive(pids)


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="reads processes from /proc")
@pytest.mark.parametrize(
    "signal_name, code, said", [("SIGKILL", -9, ""), ("SIGINT", 130, ""), ("SIGTERM", 143, "terminated")]
)
def test_workers_never_outlive_the_converter(tmp_path, signal_name, code, said):
    import os
    import signal

    proc, workers = start_slow_conversion(tmp_path, "--out", tmp_path / "gt.json")
    try:
        assert len(workers) >= 2, "the conversion's workers did not start"
        os.kill(proc.pid, getattr(signal, signal_name))
        assert proc.wait(timeout=10) == code
        assert wait_until_gone(workers) == []
        assert proc.stderr.read().strip() == said
    finally:
        proc.kill()
        for pid in alive(workers):
            os.kill(pid, signal.SIGKILL)
    assert not (tmp_path / "gt.json").exists()


# A conversion that stops in the middle of writing its output, run as the CLI.
STALLED_WRITE = """
import sys, time
import kaist_kit.converters.engine as engine
import kaist_kit.io.write as write
pieces, writing = engine.coco_pieces, sys.argv[1]
write.NAMED_TEMPORARIES_ONLY = sys.argv[2] == "named"
def stalled(*args):
    first, *rest = pieces(*args)
    yield first
    open(writing, "w").close()  # now writing
    time.sleep(60)
    yield from rest
engine.coco_pieces = stalled
from kaist_kit.cli import main
sys.argv = ["kaist-kit", "convert", *sys.argv[3:]]
main()
"""


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="POSIX signals")
@pytest.mark.parametrize("signal_name, code", [("SIGTERM", 143), ("SIGINT", 130), ("SIGKILL", -9)])
@pytest.mark.parametrize("temporary", ["unnamed", "named"])
def test_an_interrupted_write_leaves_no_temporary_file(tmp_path, signal_name, code, temporary):
    """Unnamed temporaries leave nothing whatever ends the process; named ones are removed on an
    interrupt, and after a kill by the next write into their folder."""
    import os
    import signal
    import subprocess
    import sys
    import time

    source = write_flat(tmp_path / "ann", {"set06_V000_I00019.txt": FRAME})
    out, writing = tmp_path / "out" / "gt.json", tmp_path / "writing"
    proc = subprocess.Popen(
        [sys.executable, "-c", STALLED_WRITE, str(writing), temporary, "improved", str(source), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_from_a_terminal,
    )
    try:
        deadline = time.monotonic() + 60
        while not writing.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert writing.exists(), "the write did not start"
        during = [p.name for p in out.parent.iterdir()]
        if temporary == "unnamed":
            assert during == []
        else:
            assert len(during) == 1 and during[0].startswith(f".gt.json.{proc.pid}.")
        os.kill(proc.pid, getattr(signal, signal_name))
        assert proc.wait(timeout=10) == code
        assert "Traceback" not in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
    left = [p.name for p in out.parent.iterdir()]
    assert left == (during if signal_name == "SIGKILL" else [])
    assert convert("improved", source, out).n_images == 1  # removes what a killed run left
    assert [p.name for p in out.parent.iterdir()] == ["gt.json"]


def processes_in_group(group):
    """The live (not zombie) processes of a process group, from /proc."""
    from pathlib import Path

    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="POSIX signals, /proc")
def test_interrupts_at_random_moments_end_a_large_conversion_at_once(tmp_path):
    """SIGINT or SIGTERM at a random moment of a conversion large enough for worker processes (their
    start, the walk, chunks in flight, the output being written) ends it within a second, with its exit
    code, no temporary file and no process left; seeded, spread over a whole run."""
    import random
    import signal
    import subprocess
    import sys
    import time

    files = {f"set{6 + k % 3:02d}/V{k % 10:03d}/I{k:05d}": xml_file(x=10 + k % 50) for k in range(9000)}
    root = xml_tree(tmp_path / "xml", files)
    command = [sys.executable, "-m", "kaist_kit", "convert", "xml", str(root), "--out"]
    start = time.monotonic()
    assert subprocess.run([*command, str(tmp_path / "whole.json")], capture_output=True).returncode == 0
    whole = time.monotonic() - start
    rng = random.Random(17)
    slowest = 0.0
    for trial in range(10):
        out = tmp_path / f"out{trial}"
        out.mkdir()
        name = rng.choice(["SIGINT", "SIGTERM"])
        proc = subprocess.Popen(
            [*command, str(out / "gt.json")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=as_from_a_terminal,
            start_new_session=True,
        )
        time.sleep(rng.uniform(0.0, whole))
        sent = time.monotonic()
        proc.send_signal(getattr(signal, name))
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError(f"{name} after {sent - start:.2f} s: still running 10 s later") from None
        slowest = max(slowest, time.monotonic() - sent)
        stderr = proc.stderr.read()
        finished = proc.returncode == 0 and (out / "gt.json").is_file()
        # 130 and 143 from the command; death by the signal itself while Python starts, before the
        # command runs.
        codes = {"SIGINT": (130, -2), "SIGTERM": (143, -15)}[name]
        assert finished or proc.returncode in codes, (name, proc.returncode, stderr)
        assert proc.returncode < 0 or "Traceback" not in stderr, stderr
        # No temporary file; the output whole or not at all (an interrupt that comes as the output
        # takes its name is answered once it has).
        assert [p.name for p in out.iterdir()] in ([], ["gt.json"])
        whole_output = (tmp_path / "whole.json").read_bytes()
        assert not (out / "gt.json").exists() or (out / "gt.json").read_bytes() == whole_output
        deadline = time.monotonic() + 2
        while processes_in_group(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert processes_in_group(proc.pid) == [], "a worker outlived the conversion"
    assert slowest < 1.0, f"the slowest interrupted conversion took {slowest:.2f} s to end"


def test_two_files_for_one_frame_are_an_error_in_folders_and_archives(tmp_path):
    """Which one is meant cannot be told: no file silently wins, in any format or place."""
    import tarfile
    import zipfile

    from kaist_kit.errors import InputError

    flat = tmp_path / "flat"
    write_flat(flat / "a", {"set06_V000_I00019.txt": FRAME})
    write_flat(flat / "b", {"set06_V000_I00019.txt": FRAME.replace("30 60", "31 61")})
    tree = tmp_path / "tree"
    for part in ("copy1", "copy2"):
        xml_tree(tree / part, {"set06/V000/I00019": xml_file()})
    paired = tmp_path / "paired"
    for part in ("x", "y"):
        write_flat(paired / part / "set00" / "V000" / "lwir", {"I00001.txt": FRAME})
    write_flat(paired / "x" / "set00" / "V000" / "visible", {"I00001.txt": FRAME})
    with zipfile.ZipFile(tmp_path / "both.zip", "w") as archive:
        archive.writestr("a/set06_V000_I00019.txt", FRAME)
        archive.writestr("b/set06_V000_I00019.txt", FRAME)
    with tarfile.open(tmp_path / "both.tar.gz", "w:gz") as archive:
        archive.add(flat / "a", "a")
        archive.add(flat / "b", "b")
    cases = [
        ("improved", flat, f"{flat}/b/set06_V000_I00019.txt", f"{flat}/a/set06_V000_I00019.txt"),
        ("xml", tree, f"{tree}/copy2/set06/V000/I00019.xml", f"{tree}/copy1/set06/V000/I00019.xml"),
        ("paired", paired, f"{paired}/y/set00/V000/lwir/I00001.txt", f"{paired}/x/set00/V000/lwir/I00001.txt"),
        ("improved", tmp_path / "both.zip", f"{tmp_path}/both.zip/b/set06_V000_I00019.txt", "a/set06_V000"),
        ("improved", tmp_path / "both.tar.gz", f"{tmp_path}/both.tar.gz/b/set06_V000_I00019.txt", "a/set06"),
    ]
    for fmt, source, second, first in cases:
        for workers in (1, 2):
            with pytest.raises(InputError) as caught:
                convert(fmt, source, tmp_path / "gt.json", workers=workers)
            assert caught.value.path == second and "a second annotation file for the frame" in caught.value.reason
            assert first in caught.value.reason and "which one is meant cannot be told" in caught.value.reason
        line = one_error_line(run_cli("convert", fmt, source, "--out", tmp_path / "gt.json"))
        assert line.startswith(f"error: {second}: a second annotation file")
    assert not (tmp_path / "gt.json").exists()
