"""The leaderboard page in a real headless Chromium (Debian's package; `.ci/run` installs it).

Chromium is driven through its DevTools protocol over --remote-debugging-pipe: JSON messages ending in a
NUL byte on file descriptors 3 (to the browser) and 4 (from it). That needs no websocket, no port and no
driver package, and gives what the test asserts: console messages and uncaught exceptions, the page's
DOM, and real mouse clicks.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from kaist_kit.hosting.leaderboard import build_site

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
]

# CI installs Chromium and sets KAIST_KIT_REQUIRE_BROWSER: there a missing browser fails the run, not skips it.
if CHROMIUM is None and os.environ.get("KAIST_KIT_REQUIRE_BROWSER"):
    raise RuntimeError("KAIST_KIT_REQUIRE_BROWSER is set but no chromium is on PATH")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium; .ci/run installs it)"
)


class Browser:
    def __init__(self, profile: str):
        to_browser, self._writer = os.pipe()
        self._reader, from_browser = os.pipe()

        def descriptors():  # the child's fds 3 and 4, as --remote-debugging-pipe expects
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self.process = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            preexec_fn=descriptors,
            pass_fds=(3, 4),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._id = 0
        self.events: list[dict] = []
        self.session = None

    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._reader, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, params: dict | None = None, timeout: float = 30) -> dict:
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self._writer, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        for k, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(k)
        while True:
            event = self._receive(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result["result"].get("value")

    def click(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._reader)
        os.close(self._writer)


@pytest.fixture
def browser():
    with tempfile.TemporaryDirectory(prefix="kaist-kit-chromium-") as profile:
        instance = Browser(profile)
        try:
            yield instance
        finally:
            instance.close()


def test_the_leaderboard_page_loads_shows_the_kits_numbers_and_sorts(kaist, tmp_path, browser):
    gt = kaist / "test-all-20.leaderboard.json"
    entries = tmp_path / "entries"
    entries.mkdir()
    for name in ("MLPD_result.json", "MBNet_result.txt", "MBNet-per-image.tar.gz"):
        shutil.copy(kaist / "results" / name, entries / name)
    (entries / "Broken_result.txt").write_text("garbage\n")
    build_site(entries, gt, tmp_path / "site", ("lamr", "ap50"))
    results = [entries / n for n in ("MLPD_result.json", "MBNet_result.txt", "MBNet-per-image.tar.gz")]
    printed = subprocess.run(
        [
            sys.executable,
            "-m",
            "kaist_kit",
            "eval",
            *map(str, results),
            "--gt",
            str(gt),
            "--protocol",
            "leaderboard",
            "--protocol",
            "matlab",
            "--metric",
            "lamr",
            "--metric",
            "ap50",
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "200"},
    ).stdout
    # eval's table: a row per method, protocol and metric, a column per split
    table_of_eval = {}
    for line in printed.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) == 6:
            table_of_eval[tuple(cells[:3])] = dict(zip(("all", "day", "night"), cells[3:]))
    assert len(table_of_eval) == 12

    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    browser.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log"):
        browser.send(f"{domain}.enable")
    browser.send("Page.navigate", {"url": (tmp_path / "site" / "index.html").as_uri()})
    browser.wait_for("Page.loadEventFired")

    table = browser.evaluate("""Array.from(document.querySelectorAll('#leaderboard tr')).map(
        row => Array.from(row.cells).map(cell => cell.textContent.trim()))""")
    header, rows = table[0], table[1:]
    assert header[:3] == ["#", "entry", "check"] and header[3] == "LAMR all (leaderboard)"
    # Every number of the table is the one `kaist-kit eval` prints for that method, protocol, metric and split.
    by_name = {row[1]: row for row in rows}
    assert set(by_name) == {"MLPD", "MBNet", "MBNet-per-image", "Broken"}
    # The kit refuses the file; the leaderboard's own loader would crash on it, as --check says.
    assert by_name["Broken"][3] == "refused" and by_name["Broken"][2] == "crash"
    protocols = {"leaderboard": "leaderboard", "devkit": "matlab"}
    compared = 0
    for name in ("MLPD", "MBNet", "MBNet-per-image"):
        for label, cell in zip(header[3:], by_name[name][3:]):
            metric, split, tag = label.replace("(", "").replace(")", "").split()
            assert cell == table_of_eval[(name, protocols[tag], metric)][split], (name, label)
            compared += 1
    assert compared == 36
    assert [row[1] for row in rows] == ["MLPD", "MBNet-per-image", "MBNet", "Broken"]  # ranked by LAMR all

    # Click the header of LAMR night (leaderboard): lowest first, the refused entry last; again: highest first.
    column = header.index("LAMR night (leaderboard)")
    box = browser.evaluate(f"""(() => {{ const r = document.querySelectorAll('#leaderboard th')[{column}]
        .getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()""")
    browser.click(*box)
    night = browser.evaluate(f"""Array.from(document.querySelectorAll('#leaderboard tbody tr')).map(
        row => [row.cells[1].textContent, row.cells[{column}].textContent])""")
    values = [float(v) for _, v in night[:3]]
    assert values == sorted(values) and night[-1][0] == "Broken"
    assert [n for n, _ in night[:3]] != [row[1] for row in rows[:3]]  # the order changed
    browser.click(*box)
    night = browser.evaluate(f"""Array.from(document.querySelectorAll('#leaderboard tbody tr')).map(
        row => row.cells[{column}].textContent)""")
    assert [float(v) for v in night[:3]] == sorted((float(v) for v in night[:3]), reverse=True)

    # Nothing went wrong on the page: no console error, no uncaught exception.
    browser.send("Runtime.evaluate", {"expression": "1"})
    errors = [
        e
        for e in browser.events
        if e.get("method") == "Runtime.exceptionThrown"
        or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert"))
        or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")
    ]
    assert errors == []


def open_page(browser, path, width: int) -> None:
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    browser.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime"):
        browser.send(f"{domain}.enable")
    metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False}
    browser.send("Emulation.setDeviceMetricsOverride", metrics)
    browser.send("Page.navigate", {"url": path.as_uri()})
    browser.wait_for("Page.loadEventFired")


def test_long_names_fit_and_entries_of_one_name_are_told_apart(kaist, tmp_path, browser):
    gt = kaist / "test-all-20.leaderboard.json"
    entries = tmp_path / "entries"
    entries.mkdir()
    shutil.copy(kaist / "results" / "MBNet_result.txt", entries)
    # The same results packaged by `kaist-kit submit`: its manifest names the method MBNet too.
    subprocess.run(
        [sys.executable, "-m", "kaist_kit", "submit", str(entries / "MBNet_result.txt"), "--gt", str(gt)]
        + ["--out", str(entries / "MBNet.json")],
        check=True,
        capture_output=True,
    )
    long_name = "A-fusion-detector-with-a-very-long-name-as-some-papers-give-theirs-v2-final_result.json"
    shutil.copy(kaist / "results" / "MLPD_result.json", entries / long_name)
    site = build_site(entries, gt, tmp_path / "site")
    names = sorted(e.name for e in site.entries)
    assert names == sorted(["MBNet (MBNet.json)", "MBNet (MBNet_result.txt)", long_name[: -len("_result.json")]])

    open_page(browser, tmp_path / "site" / "index.html", 1400)
    # Every legend lies within its plot, however long the name (the whole name is its tooltip).
    overflow = browser.evaluate("""Array.from(document.querySelectorAll('svg.curves')).map(svg => {
        const width = svg.viewBox.baseVal.width;
        return Array.from(svg.querySelectorAll('text.legend')).map(t => t.getBBox().x + t.getBBox().width - width);
    }).flat()""")
    assert len(overflow) == 3 and max(overflow) <= 0, overflow
    assert browser.evaluate("document.querySelector('svg.curves text.legend title') !== null")
    # At 1400 px no page runs off the screen: the entry page's descriptions wrap.
    for page in [tmp_path / "site" / "index.html", *(tmp_path / "site" / e.page for e in site.entries)]:
        open_page(browser, page, 1400)
        width = browser.evaluate("document.documentElement.scrollWidth")
        assert width <= 1400, (page.name, width)
