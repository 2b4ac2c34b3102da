"""The one opener (kaist_kit.io.read, and kaist_kit.io.archives for archives) and the one writer
(kaist_kit.io.write): regular files only, bounded sizes and archives, never writing onto an input or a
non-regular file, nothing left behind, a full disk named."""

import gzip
import io
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
from test_inputs import run_cli

from kaist_kit.errors import InputError
from kaist_kit.io import archives, read, write

LINUX = sys.platform.startswith("linux")


def refused(call, *args):
    with pytest.raises(InputError) as caught:
        call(*args)
    assert "\n" not in str(caught.value)
    return caught.value


# ---------------------------------------------------------------------------------------------
# The opener


@pytest.fixture
def specials(tmp_path):
    """A FIFO, a socket, a folder, /dev/zero and links to them: each refused, none blocks."""
    os.mkfifo(tmp_path / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    (tmp_path / "folder").mkdir()
    (tmp_path / "to-zero").symlink_to("/dev/zero")
    (tmp_path / "to-fifo").symlink_to("fifo")
    (tmp_path / "nowhere").symlink_to("missing")
    yield {
        tmp_path / "fifo": "is a FIFO (named pipe), not a regular file",
        tmp_path / "sock": "is a socket, not a",
        tmp_path / "folder": "is a folder, expected a file",
        Path("/dev/zero"): "is a character device",
        tmp_path / "to-zero": "is a character device",
        tmp_path / "to-fifo": "is a FIFO",
        tmp_path / "nowhere": "a link that leads nowhere",
        tmp_path / "missing": "no such file",
    }
    sock.close()


@pytest.mark.skipif(not LINUX, reason="FIFOs, sockets and /dev/zero")
def test_only_regular_files_are_read_and_nothing_blocks(specials):
    for path, says in specials.items():
        for reader in (
            read.read_bytes,
            read.read_text,
            read.load_json,
            archives.read_archive,
            read.check_readable,
            lambda p: read.read_many([str(p)]),
            lambda p: read.read_ends(p, 16, 16),
        ):
            start = time.monotonic()
            error = refused(reader, path)
            assert says in error.reason and error.path == str(path), (reader, path, error)
            assert time.monotonic() - start < 1


@pytest.mark.skipif(not LINUX, reason="FIFOs")
def test_a_fifo_given_to_any_verb_is_refused_at_once(tmp_path):
    for name in ("result.json", "gt.json", "annotations.tar.gz", "list.txt"):
        os.mkfifo(tmp_path / name)
    (tmp_path / "real_result.json").write_text("[]")
    cases = [
        ["eval", tmp_path / "result.json", "--gt", tmp_path / "gt.json"],
        ["stats", tmp_path / "gt.json"],
        ["convert", "improved", tmp_path / "annotations.tar.gz", "--out", tmp_path / "x.json"],
        ["submit", "--check", tmp_path / "result.json"],
        ["convert", "improved", tmp_path, "--image-set", tmp_path / "list.txt", "--out", tmp_path / "y.json"],
    ]
    for args in cases:
        start = time.monotonic()
        proc = run_cli(*args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert "is a FIFO (named pipe), not a regular file" in proc.stderr, proc.stderr
        assert time.monotonic() - start < 10
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "y.json").exists()


def test_sizes_are_bounded_before_reading(tmp_path, monkeypatch):
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b"0," * 600 + b"0]")
    with read.limited(max_bytes=1000):
        error = refused(read.read_bytes, big)
        assert error.reason.startswith("is 1.17 KiB, more than the 1000 bytes the kit reads from one file")
        assert "set KAIST_KIT_MAX_INPUT_BYTES to raise the limit" in error.reason
        refused(read.read_many, [str(big)])
    assert len(read.read_bytes(big)) == 1203
    monkeypatch.setenv("KAIST_KIT_MAX_INPUT_BYTES", "1k")
    assert read.input_limits().max_bytes == 1024
    refused(read.load_json, big)
    monkeypatch.setenv("KAIST_KIT_MAX_INPUT_BYTES", "2G")
    assert read.input_limits().max_bytes == 2 << 30
    for wrong in ("lots", "-5", "0", "1e3x"):
        monkeypatch.setenv("KAIST_KIT_MAX_INPUT_BYTES", wrong)
        assert "KAIST_KIT_MAX_INPUT_BYTES" in str(refused(read.input_limits))
    monkeypatch.delenv("KAIST_KIT_MAX_INPUT_BYTES")
    proc = run_cli("stats", big, env={**os.environ, "KAIST_KIT_MAX_INPUT_BYTES": "100"})
    assert proc.returncode == 2 and proc.stderr.strip() == (
        f"error: {big}: is 1.17 KiB, more than the 100 bytes the kit reads from one file (set "
        "KAIST_KIT_MAX_INPUT_BYTES to raise the limit, e.g. KAIST_KIT_MAX_INPUT_BYTES=8G)"
    )


def test_the_ends_of_a_file_are_read_and_nothing_more(tmp_path, monkeypatch):
    """read_ends gives what slicing the whole file gives, and reads at most head + tail bytes."""
    import random

    rng = random.Random(7)
    asked = []
    os_read, pread = os.read, os.pread
    monkeypatch.setattr(os, "read", lambda fd, n: asked.append(n) or os_read(fd, n))
    monkeypatch.setattr(os, "pread", lambda fd, n, at: asked.append(n) or pread(fd, n, at))
    path = tmp_path / "picture.jpg"
    for size in (0, 1, 15, 16, 17, 31, 32, 33, 100, 4096, 100_000):
        data = rng.randbytes(size)
        path.write_bytes(data)
        for head, tail in ((16, 16), (16, 0), (0, 16), (0, 0), (2048, 64), (1, 1)):
            asked.clear()
            ends = read.read_ends(path, head, tail)
            assert (ends.size, ends.head, ends.tail) == (size, data[:head], data[max(0, size - tail) :])
            assert sum(asked) <= head + tail
    big = tmp_path / "big.bin"
    big.write_bytes(b"\xff\xd8" + bytes(5000) + b"\xff\xd9")
    with read.limited(max_bytes=1000):  # only the ends are read: the size limit does not apply
        assert read.read_ends(big, 2, 2) == read.FileEnds(5004, b"\xff\xd8", b"\xff\xd9")
    with pytest.raises(ValueError):
        read.read_ends(big, -1)
    with read.input_scope():
        read.read_ends(path, 8, note=False)
        write.write_bytes_atomic(path, b"not an input")
        read.read_ends(path, 8)
        assert refused(write.write_bytes_atomic, path, b"").reason.startswith("is one of this command's inputs")


# ---------------------------------------------------------------------------------------------
# Archives


class Newlines(io.RawIOBase):
    """``n`` newlines, made as they are read."""

    def __init__(self, n):
        self.left = n

    def readable(self):
        return True

    def readinto(self, buffer):
        k = min(len(buffer), self.left)
        buffer[:k] = b"\n" * k
        self.left -= k
        return k


def zip_of_newlines(path, n, declared=None):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("result.txt", "w", force_zip64=True) as entry:
            source = Newlines(n)
            while chunk := source.read(1 << 20):
                entry.write(chunk)
    if declared is not None:  # the central directory's size of the entry, rewritten to lie
        data = bytearray(path.read_bytes())
        at = data.rfind(b"PK\x01\x02")
        data[at + 24 : at + 28] = declared.to_bytes(4, "little")
        path.write_bytes(bytes(data))


def test_a_small_zip_of_a_gibibyte_of_newlines_is_refused_in_milliseconds(tmp_path):
    bomb = tmp_path / "bomb_result.zip"
    zip_of_newlines(bomb, 1 << 30)
    assert bomb.stat().st_size < 1.1e6
    start = time.monotonic()
    error = refused(archives.read_archive, bomb)
    assert time.monotonic() - start < 0.1
    assert error.reason.startswith("its entries declare 1 GiB, more than 100 times the archive's own size")
    assert "KAIST_KIT_MAX_ARCHIVE_RATIO" in error.reason
    with read.limited(max_ratio=2000, max_bytes=100 << 20):
        assert "more than the 100 MiB the kit reads" in refused(archives.read_archive, bomb).reason


def test_a_zip_whose_sizes_lie_is_bounded_while_it_unpacks(tmp_path):
    liar = tmp_path / "liar.zip"
    zip_of_newlines(liar, 200 << 20, declared=1000)  # says 1000 bytes, holds 200 MiB
    start = time.monotonic()
    error = refused(archives.read_archive, liar)
    assert time.monotonic() - start < 1
    assert error.reason.startswith("cannot read the archive")  # unpacking stops at the size declared


def tar_gz_of_newlines(path, n, declared=None):
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo("result.txt")
        info.size = n
        archive.addfile(info, io.BufferedReader(Newlines(n)))
    if declared is not None:  # the header's size, rewritten to lie
        raw = bytearray(gzip.decompress(path.read_bytes()))
        raw[124:136] = f"{declared:011o}\0".encode()
        raw[148:156] = b" " * 8
        raw[148:155] = f"{sum(raw[:512]):06o}\0".encode()
        path.write_bytes(gzip.compress(bytes(raw)))


def test_a_small_tar_gz_of_a_gibibyte_is_refused_in_milliseconds(tmp_path):
    bomb = tmp_path / "bomb.tar.gz"
    tar_gz_of_newlines(bomb, 1 << 30)
    start = time.monotonic()
    error = refused(archives.read_archive, bomb)
    assert time.monotonic() - start < 0.1 and error.reason.startswith("its entries declare 1 GiB")


def test_a_tar_gz_stream_is_counted_while_it_unpacks(tmp_path):
    """tarfile reads an extended (pax) header whole, before any member is seen: 100 MiB of one here,
    a few hundred KiB packed. The decompressed stream itself is bounded."""
    info = tarfile.TarInfo("././@PaxHeader")
    info.type, info.size = tarfile.XHDTYPE, 100 << 20
    header = info.tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape")
    (tmp_path / "stream.tar.gz").write_bytes(gzip.compress(header + b"\0" * (100 << 20), 1))
    start = time.monotonic()
    error = refused(archives.read_archive, tmp_path / "stream.tar.gz")
    assert error.reason.startswith("unpacks to more than 64 MiB, more than 100 times the archive's own size")
    assert time.monotonic() - start < 3


def test_archives_of_the_usual_kinds_read_whole(tmp_path):
    entries = {"a/set06_V000_I00019.txt": b"person 1 2 3 4 0.5\n", "b.json": b"[]"}
    with zipfile.ZipFile(tmp_path / "r.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    for mode, suffix in (("w", ".tar"), ("w:gz", ".tar.gz"), ("w:bz2", ".tgz"), ("w:xz", ".tar")):
        path = tmp_path / f"r{mode.replace(':', '')}{suffix}"
        with tarfile.open(path, mode) as archive:
            for name, data in entries.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
        assert archives.read_archive(path) == entries
    assert archives.read_archive(tmp_path / "r.zip") == entries


def test_a_hard_link_in_a_tar_reads_as_the_file_it_names(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "set06_V000_I00019.txt").write_text("person 1 2 3 4 0.5\n")
    (tmp_path / "a" / "set06_V000_I00039.txt").hardlink_to(tmp_path / "a" / "set06_V000_I00019.txt")
    with tarfile.open(tmp_path / "linked.tar.gz", "w:gz") as archive:
        archive.add(tmp_path / "a", "a")
    with tarfile.open(tmp_path / "linked.tar.gz") as archive:
        assert sum(member.islnk() for member in archive) == 1
    assert archives.read_archive(tmp_path / "linked.tar.gz") == {
        "a/set06_V000_I00019.txt": b"person 1 2 3 4 0.5\n",
        "a/set06_V000_I00039.txt": b"person 1 2 3 4 0.5\n",
    }


@pytest.mark.skipif(not LINUX, reason="FIFOs")
def test_a_fifo_in_an_annotation_tree_is_refused(tmp_path):
    from kaist_kit.converters import convert

    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / "set06_V000_I00019.txt").write_text("% bbGt version=3\n")
    os.mkfifo(tmp_path / "ann" / "set06_V000_I00039.txt")
    (tmp_path / "ann" / "set06_V000_I00059.txt").symlink_to("/dev/zero")
    error = refused(convert, "improved", tmp_path / "ann", None)
    assert error.path == str(tmp_path / "ann" / "set06_V000_I00039.txt")
    assert error.reason == "is a FIFO (named pipe), not a regular file: the kit reads only regular files"
    os.unlink(tmp_path / "ann" / "set06_V000_I00039.txt")
    error = refused(convert, "improved", tmp_path / "ann", None)
    assert error.path == str(tmp_path / "ann" / "set06_V000_I00059.txt") and "leads to a character device" in str(error)


def test_two_entries_of_one_name_are_refused(tmp_path):
    with pytest.warns(UserWarning):
        with zipfile.ZipFile(tmp_path / "twice.zip", "w") as archive:
            archive.writestr("set06_V000_I00019.txt", b"person 1 2 3 4 0.5\n")
            archive.writestr("set06_V000_I00019.txt", b"person 9 9 9 9 0.9\n")
    with tarfile.open(tmp_path / "twice.tar", "w") as archive:
        for data in (b"1", b"2"):
            info = tarfile.TarInfo("x/set06_V000_I00019.txt")
            info.size = 1
            archive.addfile(info, io.BytesIO(data))
    for path in (tmp_path / "twice.zip", tmp_path / "twice.tar"):
        assert "holds two entries named" in refused(archives.read_archive, path).reason


# ---------------------------------------------------------------------------------------------
# The writer


def test_the_writer_replaces_regular_files_and_writes_through_links(tmp_path):
    target = tmp_path / "out.json"
    write.write_json_atomic(target, {"a": 1})
    assert json.loads(target.read_text()) == {"a": 1}
    os.chmod(target, 0o600)
    write.write_text_atomic(target, "again")
    assert target.read_text() == "again" and stat.S_IMODE(target.stat().st_mode) == 0o600  # its mode kept
    link = tmp_path / "link.json"
    link.symlink_to("out.json")
    write.write_text_atomic(link, "through the link")
    assert link.is_symlink() and target.read_text() == "through the link"
    (tmp_path / "dangling.json").symlink_to("nowhere/x.json")
    assert "a link that leads nowhere" in refused(write.write_text_atomic, tmp_path / "dangling.json", "x").reason
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.json", "link.json", "out.json"]


@pytest.mark.skipif(not LINUX, reason="FIFOs, sockets, devices")
def test_the_writer_never_replaces_what_is_not_a_regular_file(specials, tmp_path):
    targets = {
        Path("/dev/null"): "is a character device, not a regular file: refusing to replace it",
        tmp_path / "fifo": "is a FIFO (named pipe), not a regular file",
        tmp_path / "sock": "is a socket",
        tmp_path / "folder": "is a folder; give a file name",
        tmp_path / "to-zero": "is a character device",
    }
    for path, says in targets.items():
        for writer in (lambda p: write.write_text_atomic(p, "x"), write.check_writable):
            assert says in refused(writer, path).reason
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and stat.S_ISFIFO(os.stat(tmp_path / "fifo").st_mode)


def test_the_writer_refuses_the_commands_inputs(tmp_path):
    source = tmp_path / "result.json"
    write.write_text_atomic(source, "[]")  # outside a command: nothing is an input
    write.write_text_atomic(source, "[]")
    (tmp_path / "hard.json").hardlink_to(source)
    (tmp_path / "soft.json").symlink_to("result.json")
    with read.input_scope():
        read.read_bytes(source)
        for name in ("result.json", "hard.json", "soft.json"):
            error = refused(write.write_text_atomic, tmp_path / name, "lost")
            assert error.reason.startswith("is one of this command's inputs")
            assert "refusing to overwrite it" in refused(write.check_writable, tmp_path / name).reason
        with read.input_scope():  # a library call within the command: the same inputs
            refused(write.write_bytes_atomic, source, b"")
        write.write_text_atomic(tmp_path / "other.json", "fine")
    write.write_text_atomic(tmp_path / "soft.json", "[1]")  # the scope has ended
    assert source.read_text() == "[1]"


def test_a_tree_read_by_a_conversion_is_among_its_inputs(tmp_path):
    from kaist_kit.converters import convert

    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / "set06_V000_I00019.txt").write_text("% bbGt version=3\nperson 1 2 3 4 0 0 0 0 0 0 0\n")
    error = refused(convert, "improved", tmp_path / "ann", tmp_path / "ann" / "set06_V000_I00019.txt")
    assert error.reason.startswith("is one of this command's inputs")
    assert convert("improved", tmp_path / "ann", tmp_path / "ann" / "gt.json").n_images == 1  # beside it: fine


WRITE_AND_STALL = """
import sys, time
from kaist_kit.io import write
write.NAMED_TEMPORARIES_ONLY = sys.argv[2] == "named"
with write.atomic_file(sys.argv[1]) as handle:
    handle.write(b"partial")
    handle.flush()
    print("writing", flush=True)
    time.sleep(60)
"""


@pytest.mark.skipif(not LINUX, reason="signals, /proc")
@pytest.mark.parametrize("temporary", ["unnamed", "named"])
def test_a_kill_during_a_write_leaves_nothing_that_lasts(tmp_path, temporary):
    target = tmp_path / "out" / "result.json"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITE_AND_STALL, str(target), temporary], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline() == "writing\n"
    left = sorted(p.name for p in target.parent.iterdir())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert sorted(p.name for p in target.parent.iterdir()) == left
    if temporary == "unnamed":
        assert left == []
    else:
        assert len(left) == 1 and left[0].startswith(f".result.json.{proc.pid}.") and left[0].endswith(".kaist-kit.tmp")
    # Another file's temporaries of live processes, and files that only look like them, are kept.
    mine = target.parent / f".other.json.{os.getpid()}.0123456789.kaist-kit.tmp"
    mine.write_text("being written")
    lookalike = target.parent / ".notes.1.kaist-kit.tmp"
    lookalike.write_text("not the kit's")
    write.write_text_atomic(target, "{}")
    assert sorted(p.name for p in target.parent.iterdir()) == sorted([lookalike.name, mine.name, "result.json"])


def test_stale_temporaries_of_a_reused_process_number_are_removed(tmp_path):
    """A temporary written before its process number's current holder started is stale."""
    old = tmp_path / f".x.json.{os.getppid()}.0123456789.kaist-kit.tmp"
    old.write_text("left by a process long gone")
    os.utime(old, (1_000_000, 1_000_000))
    assert write.remove_stale_temporaries(tmp_path) == ([old] if write._started(os.getppid()) else [])


def test_a_full_disk_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(write, "_create_temporary", lambda folder, name: (os.open("/dev/full", os.O_RDWR), None))
    error = refused(write.write_bytes_atomic, tmp_path / "gt.json", b"x" * 100_000)
    assert error.path == str(tmp_path / "gt.json") and error.reason == "cannot write: No space left on device"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not LINUX or os.geteuid() != 0, reason="mounts a small tmpfs, as root")
def test_a_full_tmpfs_names_the_file_for_each_verb(tmp_path):
    small = tmp_path / "small"
    small.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(small)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        kaist = Path(__file__).resolve().parents[2] / "shared" / "data" / "kaist"
        if not kaist.is_dir():
            pytest.skip("real KAIST files not found")
        for args, out in [
            (["convert", "improved", kaist / "test-improved-bbgt.tar.gz", "--out"], "gt.json"),
            (["submit", kaist / "results" / "MLPD_result.txt", "--out"], "MLPD.json"),
        ]:
            proc = run_cli(*args, small / out)
            assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1] == (
                f"error: {small / out}: cannot write: No space left on device"
            ), proc.stderr
            assert list(small.iterdir()) == []
    finally:
        subprocess.run(["umount", str(small)])


@pytest.mark.skipif(not LINUX, reason="RLIMIT_FSIZE")
def test_a_file_size_limit_names_the_file(tmp_path):
    """Without root: the process may write no more than 64 KiB to any file (EFBIG)."""
    import resource

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))

    data = tmp_path / "big_result.json"
    data.write_text(json.dumps([{"image_id": 0, "category_id": 1, "bbox": [1, 2, 3, 4], "score": 0.5}] * 3000))
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from kaist_kit.io import read, write; "
            "write.write_bytes_atomic(sys.argv[2], read.read_bytes(sys.argv[1]))",
            str(data),
            str(tmp_path / "copy.json"),
        ],
        capture_output=True,
        text=True,
        preexec_fn=limited,
    )
    assert "copy.json: cannot write: File too large" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big_result.json"]


def test_a_folder_is_staged_whole(tmp_path):
    with pytest.raises(RuntimeError):
        with write.atomic_folder(tmp_path / "new") as staging:
            (staging / "a.txt").write_text("a")
            raise RuntimeError("stopped halfway")
    assert list(tmp_path.iterdir()) == []
    made = []
    with write.recording_outputs(made.append):
        with write.atomic_folder(tmp_path / "new") as staging:
            (staging / "sub").mkdir()
            (staging / "sub" / "a.txt").write_text("a")
            assert made == []  # told before it is made, once it is known
        write.write_text_atomic(tmp_path / "more" / "deeper" / "b.txt", "b")
    real = Path(os.path.realpath(tmp_path))
    new, more = real / "new", real / "more"
    assert made == [
        [("folder", new), ("folder", new / "sub"), ("file", new / "sub" / "a.txt")],
        [("folder", more), ("folder", more / "deeper"), ("file", more / "deeper" / "b.txt")],
    ]
    assert "not empty" in refused(lambda: write.atomic_folder(tmp_path / "new").__enter__()).reason


def test_outputs_a_command_recorded_are_removed_and_nothing_else(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "made.txt").write_text("")
    (tmp_path / "a" / "theirs.txt").write_text("")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "made.txt").symlink_to("../a/theirs.txt")
    write.remove_outputs(tmp_path, ["a/made.txt", "b/made.txt", "../escape", "/etc/passwd"], ["a", "b"])
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == ["a", "a/theirs.txt", "b", "b/made.txt"]


SCRATCH_AND_STALL = """
import sys, time
from kaist_kit.io import write
with write.scratch_folder("stalled") as folder:
    (folder / "work.txt").write_text("half done")
    print(folder, flush=True)
    time.sleep(60)
"""


@pytest.mark.skipif(not LINUX, reason="signals, /proc")
def test_a_scratch_folder_goes_whatever_ends_its_block(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with write.scratch_folder("work") as folder:
        assert folder.parent == tmp_path and list(folder.iterdir()) == []
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and folder.name.endswith(".kaist-kit.tmp")
        write.write_text_atomic(folder / "deep" / "list.txt", "set00/V000/I00001\n")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(RuntimeError), write.scratch_folder() as folder:
        (folder / "partial").write_text("")
        raise RuntimeError("stopped halfway")
    assert list(tmp_path.iterdir()) == []
    # What was read from it is no input once it is gone: its files' numbers may be given to outputs.
    with read.input_scope() as scope:
        kept = tmp_path / "kept.json"
        kept.write_text("[]")
        read.read_bytes(kept)
        with write.scratch_folder() as folder:
            write.write_text_atomic(folder / "a.json", "[]")
            read.load_json(folder / "a.json")
            read.note_input_tree(folder, ["a.json"])
            assert len(scope.files) == 2 and len(scope.trees) == 1
        assert list(scope.files.values()) == [str(kept)] and scope.trees == []
    # A killed process's scratch folder is removed by the next one made there.
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", SCRATCH_AND_STALL], stdout=subprocess.PIPE, text=True, env=env)
    left = Path(proc.stdout.readline().strip())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert left.parent == tmp_path and (left / "work.txt").is_file()
    with write.scratch_folder() as folder:
        assert set(tmp_path.iterdir()) == {kept, folder}
