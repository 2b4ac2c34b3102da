"""``zoo:NAME`` wherever a result file goes: the one place that turns it into the entry's kept file (fetched
on first use) and the entry's reading.

`kaist_kit.data.results.load_detections` asks `zoo_name` of every result it is given and hands a zoo
entry to `resolve_result`; `kaist-kit submit --check`, which judges a file's bytes as uploaded, asks
`published_file` for the file itself. Nothing here imports the readers: a reading is handed back as
the fields of the caller's `ReadOptions` to replace, and, for the one quirk no option covers (frame
names as image ids), the file's text rewritten with the ground truth's ids.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
from pathlib import Path

from ..errors import InputError
from ..io.read import read_bytes
from ..io.text import decode_text, json_line, parse_json
from . import entries as registry
from .names import zoo_name
from .specs import Entry, Reading
from .store import fetch, is_kept, local_path


def all_entries() -> tuple[Entry, ...]:
    """Every entry of the zoo (`entries.ENTRIES`, looked up when asked, so that a test can give its own)."""
    return registry.ENTRIES


def find_entry(name: str, entries: tuple[Entry, ...] | None = None) -> Entry:
    """The entry named ``name`` (case-insensitively when no name matches exactly)."""
    entries = all_entries() if entries is None else entries
    by_name = {e.name: e for e in entries}
    if name in by_name:
        return by_name[name]
    folded = [e for e in entries if e.name.lower() == name.lower()]
    if len(folded) == 1:
        return folded[0]
    close = [e.name for e in entries if name.lower() in e.name.lower()] or [e.name for e in entries]
    raise InputError(f"no zoo entry named {name!r}; `kaist-kit zoo` lists them ({', '.join(close[:8])}, ...)")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def kept_file(entry: Entry, gt=None) -> Path:
    """The entry's kept file (a folder for per-image files), fetched first when it is not on this machine
    (a folder's files named by ``gt``'s frames). A file the kit does not read is refused."""
    if not entry.readable:
        raise InputError(f"zoo:{entry.name} is listed but not read: {entry.refused}")
    if is_kept(entry.file):
        return local_path(entry.file)

    def frame_files() -> list[str]:
        if gt is None:
            raise InputError(
                f"zoo:{entry.name} is a folder of per-image files: its files are named by the ground truth"
            )
        return [name.replace("/", "_") + ".txt" for name in gt.image_names]

    return fetch(entry, frame_files, echo=_stderr).path


def resolve_result(result: str | os.PathLike, gt, options):
    """``zoo:NAME`` as the readers take it: (the kept file, ``options`` with the entry's reading, the
    file's text rewritten for the readers or None). ``options`` may say ``as_is``; a reading option of
    its own (an id offset, corners, a format) is refused, since the entry says how its file is read."""
    entry = find_entry(zoo_name(result))
    path = kept_file(entry, gt)
    defaults = type(options)()
    for name, option in (("format", "a format"), ("id_offset", "--id-offset"), ("corners", "--corners")):
        if getattr(options, name) != getattr(defaults, name):
            raise InputError(f"zoo:{entry.name} is read as its entry says; {option} does not apply to it")
    reading = entry.reading
    read = dataclasses.replace(
        options, format=reading.format, devkit_shift=reading.devkit_shift, id_offset=period_offset(reading, gt)
    )
    text = frame_ids_as_gt_ids(path, gt) if reading.frame_ids else None
    return path, read, text


def period_offset(reading: Reading, gt) -> int:
    """What moves the ids of a file of one period onto the ground truth's positions: the number of images
    before that period's, which must follow each other."""
    if not reading.period:
        return 0
    periods = list(gt.image_periods)
    where = [k for k, p in enumerate(periods) if p == reading.period]
    if not where or where != list(range(where[0], where[0] + len(where))):
        raise InputError(
            f"the ground truth's {reading.period} images do not follow each other, so a file of them alone, "
            "numbered within them, cannot be placed"
        )
    return where[0]


def frame_ids_as_gt_ids(path: Path, gt) -> bytes:
    """A COCO result whose image_id is a frame's name, as the same records with the ground truth's ids."""
    try:
        import msgspec
    except ImportError:  # a platform's worker (kaist_kit.hosting.bundle), which reads no zoo entry
        msgspec = None
    data = read_bytes(path)
    text = decode_text(data, path)
    records = None
    if msgspec is not None:  # what json.loads reads, in a tenth of the time; anything else json.loads reads
        with contextlib.suppress(msgspec.DecodeError):
            records = msgspec.json.decode(data)
    if records is None:
        records = parse_json(text, path)
    if not isinstance(records, list):
        raise InputError("not a list of detections", path)
    for k, record in enumerate(records):
        name = record.get("image_id") if isinstance(record, dict) else None
        index = gt.index_of_name.get(name) if isinstance(name, str) else None
        if index is None:
            raise InputError(
                f"image_id {name!r} is not a frame of the ground truth", path, json_line(text, k, "image_id")
            )
        record["image_id"] = int(gt.image_ids[index])
    if msgspec is None:
        return json.dumps(records).encode()
    return msgspec.json.encode(records)  # every float written as the shortest text that reads back the same


def published_file(result: str | os.PathLike) -> Path:
    """``result`` itself, or for ``zoo:NAME`` the entry's file as its repository publishes it (fetched
    first if need be): what an evaluator would be given."""
    name = zoo_name(result)
    return Path(result) if name is None else kept_file(find_entry(name))
