"""Every file the kit pins by a repository, a commit and a checksum is that file at that commit.

A pin names a commit in its URL (or its comment); a checksum taken from another commit's version of the
file makes every download fail (M3FD's ground truth was once pinned at e3cb432 with the size and MD5 of
the version at 20239ca). The pins are checked against the repositories themselves: a local snapshot of
each (a git clone, bare or not) in $KAIST_KIT_SNAPSHOTS/OWNER+NAME (or OWNER+NAME/repo), skipped where
there is none; nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path

import pytest

from kaist_kit.datasets import BENCHMARKS
from kaist_kit.trainsets.lists import PINNED_SHA256
from kaist_kit.trainsets.specs import MBNET_CACHE_SHA256

SNAPSHOTS = os.environ.get("KAIST_KIT_SNAPSHOTS", "")
_RAW = re.compile(r"https://raw\.githubusercontent\.com/([^/]+)/([^/]+)/([0-9a-f]{40})/(.+)")

# Pins written as a comment beside a checksum: (repository, commit, path, algorithm, checksum).
OTHER_PINS = [
    ("luzhang16/AR-CNN", "dd1d8d5", "splits/trainval.txt", "sha256", PINNED_SHA256["paired-8892"]),
    ("CalayZhou/MBNet", "18674e3", "data/cache/kaist_train_data.npy", "sha256", MBNET_CACHE_SHA256),
]


def _url_pins():
    for bench in BENCHMARKS.values():
        pinned = bench.ground_truth
        if pinned is not None:
            yield pytest.param(bench.name, pinned, id=bench.name)


URL_PINS = list(_url_pins())


def _snapshot(repo: str) -> Path:
    if not SNAPSHOTS:
        pytest.skip("no repository snapshots ($KAIST_KIT_SNAPSHOTS names a folder of git clones OWNER+NAME)")
    base = Path(SNAPSHOTS) / repo.replace("/", "+")
    for candidate in (base / "repo", base):
        if (candidate / "HEAD").is_file() or (candidate / ".git").exists():
            return candidate
    pytest.skip(f"no snapshot of {repo} in {SNAPSHOTS}")


def _file_at(repo: str, commit: str, path: str) -> bytes:
    snapshot = _snapshot(repo)
    shown = subprocess.run(["git", "-C", str(snapshot), "show", f"{commit}:{path}"], capture_output=True, check=False)
    assert shown.returncode == 0, f"{repo} has no {path} at {commit}: {shown.stderr.decode(errors='replace')}"
    return shown.stdout


@pytest.mark.parametrize("name, pinned", URL_PINS)
def test_every_pinned_url_names_a_full_commit(name, pinned):
    assert _RAW.fullmatch(pinned.url), f"{name}'s ground truth is not pinned to a commit: {pinned.url}"


@pytest.mark.parametrize("name, pinned", URL_PINS)
def test_every_pinned_url_is_its_size_and_md5_at_its_commit(name, pinned):
    owner, repo, commit, path = _RAW.fullmatch(pinned.url).groups()
    data = _file_at(f"{owner}/{repo}", commit, path)
    assert (len(data), hashlib.md5(data).hexdigest()) == (pinned.size, pinned.md5), (
        f"{name}: {pinned.url} is {len(data)} bytes with MD5 {hashlib.md5(data).hexdigest()}, "
        f"pinned as {pinned.size} bytes with MD5 {pinned.md5}"
    )


@pytest.mark.parametrize("repo, commit, path, algorithm, checksum", OTHER_PINS, ids=[p[0] for p in OTHER_PINS])
def test_every_pinned_list_and_cache_is_its_checksum_at_its_commit(repo, commit, path, algorithm, checksum):
    assert hashlib.new(algorithm, _file_at(repo, commit, path)).hexdigest() == checksum
