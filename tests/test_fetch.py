"""The leaderboard's ground truth on first use: downloaded, verified, cached atomically, or a one-line
error naming the other ways to provide it. Sources are file:// copies and a local HTTP server: no
test reaches the network."""

import hashlib
import http.server
import math
import os
import threading
from pathlib import Path

import pytest
from test_inputs import run_cli

from kaist_kit.datasets.kaist_truth import (
    GT_URL,
    LEADERBOARD_GT_BYTES,
    LEADERBOARD_GT_MD5,
    GroundTruthUnavailable,
    default_ground_truth,
    default_gt_path,
    fetch_gt,
    find_gt,
    load_ground_truth,
)
from kaist_kit.io.download import DownloadFailed, download_verified, downloads_forbidden

ATTRIBUTION = "KAIST Multispectral Pedestrian Detection Benchmark (Hwang et al., CVPR 2015), CC BY-NC-SA 4.0"


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty cache and no ground truth configured; downloads allowed (from file:// sources)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("KAIST_KIT_GT", raising=False)
    monkeypatch.delenv("KAIST_KIT_OFFLINE", raising=False)
    monkeypatch.setenv("KAIST_KIT_GT_URL", (tmp_path / "nowhere.json").as_uri())
    return tmp_path


@pytest.fixture
def source(kaist, home, monkeypatch):
    """The shared leaderboard file, served through file:// as the download source."""
    path = kaist / "test-all-20.leaderboard.json"
    monkeypatch.setenv("KAIST_KIT_GT_URL", path.as_uri())
    return path


def serve(tmp_path, monkeypatch, data: bytes, name="copy.json"):
    copy = tmp_path / name
    copy.write_bytes(data)
    monkeypatch.setenv("KAIST_KIT_GT_URL", copy.as_uri())
    return copy


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


class Recorder:
    def __init__(self):
        self.lines, self.progress = [], []

    def echo(self, line):
        self.lines.append(line)

    def report(self, done, total):
        self.progress.append((done, total))


def test_the_pinned_source_is_the_shared_file(kaist):
    data = (kaist / "test-all-20.leaderboard.json").read_bytes()
    assert len(data) == LEADERBOARD_GT_BYTES and hashlib.md5(data).hexdigest() == LEADERBOARD_GT_MD5
    assert GT_URL.startswith(
        "https://raw.githubusercontent.com/sejong-rcv/MLPD-Multi-Label-Pedestrian-Detection/"
        "a0ebdc62717f52b05b75407683d51cd43a119749/"
    )


def test_first_use_downloads_into_the_cache_says_so_and_then_reads_the_cache(source, home, monkeypatch):
    seen = Recorder()
    path = default_ground_truth(echo=seen.echo, progress=seen.report)
    assert path == default_gt_path() == home / "data" / "kaist-kit" / "test-all-20.leaderboard.json"
    assert path.read_bytes() == source.read_bytes()
    assert files_under(home / "data") == ["kaist-kit", "kaist-kit/test-all-20.leaderboard.json"]
    assert oct(path.stat().st_mode & 0o777) == "0o644"
    [line] = seen.lines
    assert source.as_uri() in line and str(path) in line and ATTRIBUTION in line and "1.6 MB" in line
    assert seen.progress[0] == (0, LEADERBOARD_GT_BYTES) and seen.progress[-1] == (LEADERBOARD_GT_BYTES,) * 2
    assert [d for d, _ in seen.progress] == sorted(d for d, _ in seen.progress)

    # Found in the cache from now on, even with the source gone and downloads forbidden.
    monkeypatch.setenv("KAIST_KIT_GT_URL", (home / "gone.json").as_uri())
    monkeypatch.setenv("KAIST_KIT_OFFLINE", "1")
    again = Recorder()
    assert find_gt(None, echo=again.echo, progress=again.report) == path
    assert again.lines == [] and again.progress == []
    gt = load_ground_truth()
    assert gt.is_leaderboard_file and gt.path == str(path) and gt.n_images == 2252


def test_the_lookup_order_is_gt_then_environment_then_cache(home, monkeypatch):
    monkeypatch.setenv("KAIST_KIT_OFFLINE", "1")
    assert find_gt("given.json") == Path("given.json")
    monkeypatch.setenv("KAIST_KIT_GT", str(home / "env.json"))
    assert find_gt(None) == default_ground_truth() == home / "env.json"  # not looked at, not downloaded
    assert find_gt("given.json") == Path("given.json")


def test_progress_is_reported_chunk_by_chunk(source):
    calls = []
    data = download_verified(
        source.as_uri(),
        LEADERBOARD_GT_BYTES,
        LEADERBOARD_GT_MD5,
        lambda done, total: calls.append((done, total)),
        chunk_bytes=100_000,
    )
    assert data == source.read_bytes()
    chunks = math.ceil(LEADERBOARD_GT_BYTES / 100_000)
    assert [done for done, _ in calls] == [0] + [min(k * 100_000, LEADERBOARD_GT_BYTES) for k in range(1, chunks + 1)]
    assert {total for _, total in calls} == {LEADERBOARD_GT_BYTES}


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda data: data[:1000] + bytes([data[1000] ^ 1]) + data[1001:], "arrived whole but differs (1595993 bytes"),
        (lambda data: data + b"\n", "arrived whole but differs (1595994 bytes, expected 1595993 bytes"),
        (lambda data: data[:-10], "arrived whole but differs (1595983 bytes with MD5 "),
    ],
)
def test_a_bad_copy_leaves_nothing_and_the_next_call_tries_again(source, home, monkeypatch, damage, reason):
    bad = serve(home, monkeypatch, damage(source.read_bytes()))
    with pytest.raises(GroundTruthUnavailable) as caught:
        find_gt(None)
    message = str(caught.value)
    assert bad.as_uri() in message and reason in message and "\n" not in message
    assert files_under(home / "data") == []
    monkeypatch.setenv("KAIST_KIT_GT_URL", source.as_uri())
    assert find_gt(None).read_bytes() == source.read_bytes()


def test_any_other_bytes_are_refused_without_the_shared_files(home, monkeypatch):
    serve(home, monkeypatch, b"{}" + b" " * (LEADERBOARD_GT_BYTES - 2))
    with pytest.raises(
        GroundTruthUnavailable,
        match=f"does not serve the pinned file: it arrived whole but differs \\({LEADERBOARD_GT_BYTES} bytes with "
        f"MD5 [0-9a-f]{{32}}, expected {LEADERBOARD_GT_BYTES} bytes with MD5 {LEADERBOARD_GT_MD5}\\): the file changed",
    ):
        default_ground_truth()
    assert files_under(home) == ["copy.json"]


def test_offline_names_the_three_ways_and_announces_nothing(home, monkeypatch):
    seen = Recorder()
    for url in ((home / "missing.json").as_uri(), "http://127.0.0.1:9/test-all-20.json", "nonsense://x"):
        monkeypatch.setenv("KAIST_KIT_GT_URL", url)
        with pytest.raises(GroundTruthUnavailable) as caught:
            default_ground_truth(echo=seen.echo, progress=seen.report)
        message = str(caught.value)
        assert message.startswith(f"cannot download the leaderboard's ground truth ({url}")
        assert message.endswith(f"; pass --gt FILE, set KAIST_KIT_GT=FILE, or place the file at {default_gt_path()}")
    monkeypatch.setenv("KAIST_KIT_OFFLINE", "1")
    monkeypatch.setenv("KAIST_KIT_GT_URL", GT_URL)  # never reached: the variable forbids it first
    with pytest.raises(GroundTruthUnavailable, match=r"\(KAIST_KIT_OFFLINE=1 forbids downloads\); pass --gt"):
        load_ground_truth()
    assert seen.lines == [] and seen.progress == [] and files_under(home) == []


def test_which_values_forbid_downloads(tmp_path, monkeypatch):
    here = tmp_path / "here.txt"
    here.write_bytes(b"abc")
    md5 = hashlib.md5(b"abc").hexdigest()
    for value, forbidden in (
        ("1", True),
        ("yes", True),
        ("TRUE", True),
        ("0", False),
        ("", False),
        ("false", False),
        ("off", False),
    ):
        monkeypatch.setenv("KAIST_KIT_OFFLINE", value)
        assert downloads_forbidden() is forbidden, value
        if forbidden:
            with pytest.raises(DownloadFailed, match=f"KAIST_KIT_OFFLINE={value} forbids downloads"):
                download_verified(here.as_uri(), 3, md5)
        else:
            assert download_verified(here.as_uri(), 3, md5) == b"abc"
    monkeypatch.delenv("KAIST_KIT_OFFLINE")
    assert not downloads_forbidden()


def test_an_unwritable_cache_is_said_and_leaves_nothing(source, home, monkeypatch):
    (home / "data").write_text("a file where the cache folder should be")
    with pytest.raises(GroundTruthUnavailable, match="cannot save the leaderboard's ground truth to "):
        default_ground_truth()
    assert files_under(home) == ["data"]


class _Handler(http.server.BaseHTTPRequestHandler):
    body = b""
    length = None  # the Content-Length said, when not the body's own

    def do_GET(self):  # noqa: N802 (the name http.server calls)
        if self.path != "/KAIST_annotation.json":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(self.length or len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


@pytest.fixture
def local_server(source):
    """A mirror over HTTP on localhost: the right bytes at /KAIST_annotation.json, 404 elsewhere."""
    _Handler.body = source.read_bytes()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_mirror_over_http(local_server, home, monkeypatch):
    monkeypatch.setenv("KAIST_KIT_GT_URL", f"{local_server}/missing.json")
    with pytest.raises(GroundTruthUnavailable, match=r"missing.json: HTTP 404 Not Found\); pass --gt"):
        fetch_gt()
    assert files_under(home / "data") == []
    monkeypatch.setenv("KAIST_KIT_GT_URL", f"{local_server}/KAIST_annotation.json")
    assert hashlib.md5(fetch_gt().read_bytes()).hexdigest() == LEADERBOARD_GT_MD5


def test_a_transfer_cut_short_is_the_network_and_a_whole_other_file_a_change(local_server, source, home, monkeypatch):
    """A source that announces the pinned length and sends less was cut in transfer; one that sends the
    whole of what it announces, of another length (M3FD's file at the wrong commit: 1,063,857 bytes for
    1,073,215), changed at its source."""
    url = f"{local_server}/KAIST_annotation.json"
    data = source.read_bytes()
    monkeypatch.setattr(_Handler, "body", data[:-1000])
    monkeypatch.setattr(_Handler, "length", len(data))
    with pytest.raises(DownloadFailed) as caught:
        download_verified(url, LEADERBOARD_GT_BYTES, LEADERBOARD_GT_MD5)
    assert str(caught.value) == f"{url}: the transfer stopped after {len(data) - 1000} of {len(data)} bytes"
    monkeypatch.setattr(_Handler, "length", None)
    changed = r"arrived whole but differs \(1594993 bytes with MD5 .*: the file changed"
    with pytest.raises(DownloadFailed, match=changed):
        download_verified(url, LEADERBOARD_GT_BYTES, LEADERBOARD_GT_MD5)


def test_a_fifo_as_the_source_is_refused_without_waiting(home, monkeypatch):
    fifo = home / "gt.json"
    os.mkfifo(fifo)
    monkeypatch.setenv("KAIST_KIT_GT_URL", fifo.as_uri())
    with pytest.raises(GroundTruthUnavailable, match="is a FIFO \\(named pipe\\), not a regular file"):
        default_ground_truth()
    assert files_under(home) == ["gt.json"]


def test_fetch_into_a_folder_keeps_a_good_copy_and_replaces_a_bad_one(source, home):
    folder = home / "elsewhere"
    seen = Recorder()
    path = fetch_gt(folder, echo=seen.echo)
    assert path == folder / "test-all-20.leaderboard.json" and path.read_bytes() == source.read_bytes()
    assert len(seen.lines) == 1 and files_under(home / "data") == []
    stamp = path.stat().st_mtime_ns
    assert fetch_gt(folder, echo=seen.echo) == path and path.stat().st_mtime_ns == stamp and len(seen.lines) == 1
    path.write_text("[]")
    fetch_gt(folder, echo=seen.echo)
    assert seen.lines[1] == f"{path} is not the leaderboard's ground truth: replacing it"
    assert path.read_bytes() == source.read_bytes() and files_under(folder) == ["test-all-20.leaderboard.json"]


# --- the commands -----------------------------------------------------------------------------------


def cli_env(**values):
    env = {k: v for k, v in os.environ.items() if k not in ("KAIST_KIT_GT", "KAIST_KIT_OFFLINE")}
    env.update({k: str(v) for k, v in values.items()})
    return env


@pytest.fixture
def env(home, kaist):
    return cli_env(
        XDG_DATA_HOME=home / "data",
        HOME=home / "home",
        KAIST_KIT_GT_URL=(kaist / "test-all-20.leaderboard.json").as_uri(),
    )


def test_eval_without_gt_fetches_on_first_use(env, kaist, home):
    result = kaist / "results" / "MLPD_result.txt"
    proc = run_cli("eval", result, "--split", "night", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "│ MLPD   │  6.95 │" in proc.stdout and "(the leaderboard's test-all-20)" in proc.stdout
    line, *findings = proc.stderr.splitlines()
    assert line.startswith("downloading the leaderboard's ground truth (1.6 MB) from file://") and ATTRIBUTION in line
    assert all(f.startswith("warning: [") for f in findings)  # what the inspector finds in MLPD's file
    assert (home / "data" / "kaist-kit" / "test-all-20.leaderboard.json").is_file()
    again = run_cli("eval", result, "--split", "night", env=env)
    assert again.returncode == 0 and again.stderr.splitlines() == findings and "│ MLPD   │  6.95 │" in again.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["eval", "R"],
        ["diagnose", "R"],
        ["compare", "R", "R", "--name", "a", "--name", "b"],
        ["show", "set06/V000/I00019"],
    ],
)
def test_every_verb_without_network_says_the_three_ways_in_one_line(env, kaist, home, args):
    args = [str(kaist / "results" / "MLPD_result.txt") if a == "R" else a for a in args]
    cache = home / "data" / "kaist-kit" / "test-all-20.leaderboard.json"
    for extra in ({"KAIST_KIT_OFFLINE": "1"}, {"KAIST_KIT_GT_URL": "http://127.0.0.1:9/KAIST_annotation.json"}):
        proc = run_cli(*args, env={**env, **extra})
        assert proc.returncode == 2 and proc.stdout == ""
        [line] = proc.stderr.splitlines()
        assert line.startswith("error: cannot download the leaderboard's ground truth (")
        assert line.endswith(f"; pass --gt FILE, set KAIST_KIT_GT=FILE, or place the file at {cache}")
    assert files_under(home) == []


def test_fetch_command(env, kaist, home):
    cache = home / "data" / "kaist-kit" / "test-all-20.leaderboard.json"
    proc = run_cli("fetch", env=env)
    assert proc.returncode == 0, proc.stderr
    announced, where = proc.stderr.splitlines()
    assert announced.startswith("downloading") and ATTRIBUTION in announced
    assert where == f"the leaderboard's ground truth is at {cache}" and cache.is_file()
    proc = run_cli("fetch", env=env)
    assert proc.returncode == 0 and proc.stderr.splitlines() == [where]

    folder = home / "models"
    proc = run_cli("fetch", "--to", folder, env={**env, "KAIST_KIT_GT": "/x.json"})
    target = folder / "test-all-20.leaderboard.json"
    assert proc.returncode == 0 and proc.stderr.splitlines()[1:] == [
        f"the leaderboard's ground truth is at {target}",
        f"use it with --gt {target} or KAIST_KIT_GT={target}",
    ]
    assert target.read_bytes() == cache.read_bytes()
    proc = run_cli("fetch", env={**env, "KAIST_KIT_GT": str(target)})
    assert proc.stderr.splitlines()[1] == f"note: KAIST_KIT_GT is set, so the other verbs read {target} instead"

    proc = run_cli("fetch", "--to", home / "offline", env={**env, "KAIST_KIT_OFFLINE": "1"})
    assert proc.returncode == 2 and proc.stderr.splitlines() == [
        "error: cannot download the leaderboard's ground truth (KAIST_KIT_OFFLINE=1 forbids downloads); try again "
        "with the network, set KAIST_KIT_GT_URL=URL to a mirror serving the same file, or copy the file to "
        f"{home / 'offline' / 'test-all-20.leaderboard.json'}"
    ]
    assert "--gt" not in proc.stderr  # fetch has no --gt
    assert not (home / "offline").exists()


def test_a_changed_cache_is_refused_on_every_use_and_fetch_replaces_it(env, kaist, home):
    cache = home / "data" / "kaist-kit" / "test-all-20.leaderboard.json"
    assert run_cli("fetch", env=env).returncode == 0
    original = cache.read_bytes()
    result = kaist / "results" / "MLPD_result.txt"
    for changed in (original.replace(b"505", b"506", 1), original[:-1], original + b"\n"):
        assert changed != original
        cache.write_bytes(changed)
        for args in (["eval", result], ["eval", result, "--gt", cache], ["stats", cache]):
            proc = run_cli(*args, env=env)
            assert proc.returncode == 2 and proc.stdout == "", proc.stderr
            [line] = proc.stderr.splitlines()
            assert line.startswith(f"error: {cache}: the cached ground truth is not the leaderboard's (")
            assert line.endswith("run `kaist-kit fetch` to download it again")
    proc = run_cli("fetch", env=env)
    assert proc.returncode == 0 and "is not the leaderboard's ground truth: replacing it" in proc.stderr
    assert cache.read_bytes() == original and run_cli("eval", result, env=env).returncode == 0


def test_submit_packages_without_labels_when_offline_and_says_why(env, kaist, home):
    result = kaist / "results" / "MLPD_result.txt"
    out = home / "entry.zip"
    unreachable = "http://127.0.0.1:9/KAIST_annotation.json"
    proc = run_cli("submit", result, "--out", out, env={**env, "KAIST_KIT_GT_URL": unreachable})
    assert proc.returncode == 0 and out.is_file()
    assert proc.stderr.splitlines() == [
        f"note: cannot download the leaderboard's ground truth ({unreachable}: "
        "Connection refused); packaging without it"
    ]
    assert "note: [no-ground-truth] no ground truth: only the ids (by their range)" in proc.stdout
    assert "self-evaluated log-average miss rate" not in proc.stdout
    # Downloads forbidden on purpose: the report's own note is enough.
    proc = run_cli("submit", "--check", result, env={**env, "KAIST_KIT_OFFLINE": "1"})
    assert proc.returncode == 0 and proc.stderr == "" and "pass --gt FILE for the predicted score" in proc.stdout
    # With the network, the entry is scored against the downloaded ground truth.
    proc = run_cli("submit", result, "--out", out, env=env)
    assert proc.returncode == 0 and proc.stderr.startswith("downloading")
    assert "reasonable            7.58    7.96    6.95" in proc.stdout
