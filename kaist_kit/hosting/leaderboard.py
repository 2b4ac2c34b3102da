"""`kaist-kit leaderboard`: every result of a folder scored with the kit, as a static site.

Each entry is a result file (or per-image folder, or archive) of the folder, one per team or
method; a manifest from `kaist-kit submit` beside it (NAME.manifest.json) or inside its zip names the
method. Each is scored under both protocols on all / day / night (and AP or AR when asked), checked
as `kaist-kit submit --check` checks it, and its curves kept. What was scored is cached in the site
folder, keyed by the entry's content, the kit's version, the ground truth and the columns, so that a
second run rescores only the entries that changed.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__
from ..data.detections import method_name
from ..data.groundtruth import GroundTruth
from ..data.results import SUBMISSION_MANIFEST
from ..datasets.kaist_truth import load_ground_truth
from ..errors import InputError
from ..io.archives import read_archive
from ..io.read import load_json, read_bytes
from ..io.text import decode_text, parse_json
from ..io.write import check_outputs, check_writable, recording_outputs, remove_outputs, write_json_atomic
from ..metrics.evaluate import ResultFiles
from ..metrics.settings import SPLITS
from ..metrics.spec import LAMR
from ..scoring.findings import evaluate_inspected
from ..zoo.names import PREFIX
from ..zoo.resolve import find_entry
from .columns import ColumnSpec
from .entry import Entry
from .options import printable
from .site import write_pages
from .svg import decimate

CACHE_NAME = "kaist-kit-cache.json"
CACHE_FORMAT = 2  # 2: each entry with the checksum of its record
PROTOCOLS = ("leaderboard", "matlab")
RESULT_SUFFIXES = (".json", ".txt", ".zip", ".tar", ".tar.gz", ".tgz")
MANIFEST_SUFFIX = ".manifest.json"


MAX_TOP = 50  # curves on one plot (the CLI's `--top` says it too)


@dataclass
class Site:
    out: Path
    gt: GroundTruth
    spec: ColumnSpec
    entries: list[Entry]
    rescored: list[str]  # scored or refused by this run
    reused: list[str]
    skipped: list[str]

    @property
    def refused(self) -> list[str]:
        """The entries the kit did not score (this run or an earlier one), by their file's name."""
        return [e.source for e in self.entries if e.refused]

    @property
    def scored(self) -> list[str]:
        """The entries this run scored (not those it refused)."""
        refused = set(self.refused)
        return [name for name in self.rescored if name not in refused]


def entry_paths(folder: Path) -> tuple[list[Path], list[str]]:
    """The result files and per-image folders of ``folder`` in name order, and what was left out."""
    if not folder.is_dir():
        raise InputError("is not a folder of results", folder)
    entries, skipped = [], []
    for path in sorted(folder.iterdir(), key=lambda p: p.name):
        name = path.name
        if name.startswith(".") or name == SUBMISSION_MANIFEST or name.endswith(MANIFEST_SUFFIX):
            continue
        if path.is_dir() or (path.is_file() and name.lower().endswith(RESULT_SUFFIXES)):
            entries.append(path)
        else:
            skipped.append(name)
    return entries, skipped


def _content(path: Path) -> tuple[bytes, dict | None]:
    """What identifies an entry (its bytes, a folder's files, the manifest beside it), and its manifest."""
    digest = hashlib.sha256()
    manifest = None
    if path.is_dir():
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            name = file.relative_to(path).as_posix().encode()
            digest.update(name + b"\0" + hashlib.sha256(read_bytes(file)).digest())
    else:
        data = read_bytes(path)
        digest.update(data)
        beside = path.with_name(path.name[: -len(".json")] + MANIFEST_SUFFIX) if path.name.endswith(".json") else None
        if beside is not None and beside.is_file():
            digest.update(b"\0manifest\0" + read_bytes(beside))
            manifest = _manifest(load_json, beside)
        elif path.name.lower().endswith(".zip"):
            members = read_archive(path)
            if SUBMISSION_MANIFEST in members:
                manifest = _manifest(lambda _: json.loads(members[SUBMISSION_MANIFEST]), path)
    return digest.digest(), manifest


def _manifest(read, where) -> dict | None:
    try:
        data = read(where)
    except (InputError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def score_entry(
    path: Path, gt: GroundTruth, spec: ColumnSpec, name: str, digest: str, page: str, reference: str = ""
) -> Entry:
    """One entry: its verdict as `kaist-kit submit --check` gives it, its numbers, findings and curves. A
    ``reference`` (a published result, where it is) is scored but not checked as an upload."""
    from ..submission import check
    from ..submission.report import VERDICTS

    entry = Entry(name, printable(path.name), digest, page)
    try:
        if reference:
            entry.verdict, entry.verdict_text = "reference", f"a published result, not an entry: {reference}"
        else:
            verdict = check(path, gt)
            target = verdict.target.description if verdict.target is not None else "no evaluator"
            entry.verdict, entry.verdict_text = verdict.verdict, f"{target}: {VERDICTS[verdict.verdict]}"
        inspected = evaluate_inspected(ResultFiles((path,), (name,)), gt, spec.grid())
    except InputError as exc:
        entry.refused = printable(str(exc).replace(str(path.parent) + os.sep, ""))
        entry.verdict = entry.verdict or "refused"
        return entry
    by_cell = {(r.protocol, r.setting, r.split): r for r in inspected.results}
    for column in spec.columns():
        value = by_cell[(column.protocol, column.setting, column.split)].value(column.metric)
        entry.values[column.label] = None if value != value else value  # nan: nothing counts
    entry.findings = [printable(f"{f.level}: {f.line(with_source=False)}") for f in inspected.findings]
    for result in inspected.results:
        if result.setting == spec.settings[0]:
            entry.curves[f"{result.protocol}/{result.split}"] = decimate(result.curve.fppi, result.curve.miss_rate)
    return entry


def build_site(
    submissions: str | os.PathLike,
    gt_path: str | os.PathLike,
    out: str | os.PathLike,
    metrics: tuple[str, ...] = (LAMR.name,),
    title: str = "KAIST multispectral pedestrian detection",
    top: int = 5,
    references: tuple[str, ...] = (),
) -> Site:
    """Score every entry of ``submissions`` (reusing the cache in ``out`` for those that did not change)
    and write the site: ``out/index.html``, a page per entry under ``out/entries/``, and the cache. The
    ``references`` (zoo entries' names, see `kaist-kit zoo`) are ranked among them, marked as published
    results."""
    out = Path(out)
    if not 1 <= top <= MAX_TOP:
        raise ValueError(f"the curves of 1 to {MAX_TOP} leading entries are drawn, not {top}")
    title = printable(title)
    check_writable(out, folder=True)
    _check_site_folder(out, Path(submissions))
    spec = ColumnSpec(metrics, ("reasonable",), SPLITS, PROTOCOLS)
    gt = load_ground_truth(gt_path)
    paths, skipped = entry_paths(Path(submissions))
    cache_path = out / CACHE_NAME
    cached, owned = _read_cache(cache_path, [c.label for c in spec.columns()])
    context = hashlib.sha256(f"{__version__}\0{gt.md5}\0{sorted(spec.to_dict().items())}".encode()).hexdigest()
    entries, rescored, reused, pages = [], [], [], set()
    published = {PREFIX + e.name: e for e in map(find_entry, references)}
    for path in paths + [Path(name) for name in published]:
        reference = published.get(str(path))
        source = printable(path.name)
        page = _page_name(source, pages)
        if reference is not None:  # a published file, known by its git object id
            content, manifest = reference.file.object_id.encode(), {"method": f"{reference.label} (published)"}
        else:
            try:
                content, manifest = _content(path)
            except InputError as exc:  # unreadable, or an archive beyond the limits: this entry alone is refused
                entry = Entry(printable(method_name(path))[:100], source, "", page, verdict="refused")
                entry.refused = printable(str(exc).replace(str(path.parent) + os.sep, ""))
                rescored.append(source)
                entries.append(entry)
                continue
        digest = hashlib.sha256(content + context.encode()).hexdigest()
        name = printable(str((manifest or {}).get("method") or method_name(path)))[:100]
        if digest in cached:
            entry = Entry(**{**cached[digest], "name": name, "source": source, "page": page})
            reused.append(source)
        else:
            entry = score_entry(path, gt, spec, name, digest, page, reference.file.where if reference else "")
            rescored.append(source)
        entries.append(entry)
    _tell_apart(entries)
    check_outputs([out / "index.html", cache_path, *(out / e.page for e in entries)])  # every input read
    # What the site writes is recorded in its cache before it is written (so that a run stopped halfway
    # still owns its pages), and the pages an earlier run recorded but this one did not write are
    # removed: nothing else in the folder ever is.
    planned = _Outputs({"index.html", *(e.page for e in entries)})
    planned.folders = {f for f in map(_parent, planned.files) if f and not (out / f).is_dir()}
    _write_cache(cache_path, entries, owned | planned)
    made = _Outputs.of(out)
    with recording_outputs(made.record):
        write_pages(out, title, gt, spec, entries, top)
    remove_outputs(out, owned.files - made.files, owned.folders - made.folders)
    made.folders |= {f for f in owned.folders if (out / f).is_dir() and not (out / f).is_symlink()}
    _write_cache(cache_path, entries, made)
    return Site(out, gt, spec, entries, rescored, reused, skipped)


@dataclass
class _Outputs:
    """Files and folders the site wrote, relative to its folder ('/'-separated)."""

    files: set[str] = field(default_factory=set)
    folders: set[str] = field(default_factory=set)
    real: Path | None = None  # the site's folder, for `record`

    @classmethod
    def of(cls, out: Path) -> _Outputs:
        return cls(real=Path(os.path.realpath(out)))

    def record(self, made: list[tuple[str, Path]]) -> None:
        """Told by the writer what each write is about to make."""
        for kind, path in made:
            try:
                rel = Path(path).relative_to(self.real).as_posix()
            except ValueError:
                continue  # not under the site's folder
            if rel != ".":
                (self.files if kind == "file" else self.folders).add(rel)

    def __or__(self, other: _Outputs) -> _Outputs:
        return _Outputs(self.files | other.files, self.folders | other.folders)

    def to_dict(self) -> dict:
        return {"files": sorted(self.files), "folders": sorted(self.folders)}


def _parent(rel: str) -> str:
    return rel.rpartition("/")[0]


def _write_cache(path: Path, entries: list[Entry], outputs: _Outputs) -> None:
    write_json_atomic(
        path,
        {
            "kaist_kit_leaderboard_cache": CACHE_FORMAT,
            "kit_version": __version__,
            "entries": {e.digest: {"entry": e.to_dict(), "sha256": _checksum(e.to_dict())} for e in entries},
            "outputs": outputs.to_dict(),
        },
    )


def _checksum(record: dict) -> str:
    """What an entry's record must hash to: a cache edited by hand (a number changed) is told from the one
    the site wrote, and that entry is scored again."""
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def _check_site_folder(out: Path, submissions: Path) -> None:
    """Refuse a site folder whose pages would be taken for entries (the submissions' folder, or one
    inside it), that would hold the submissions among its pages, or that holds pages this kit did not
    write (an index.html or entries/ without the site's cache): they would be replaced."""
    site, folder = Path(os.path.realpath(out)), Path(os.path.realpath(submissions))
    if site == folder or folder in site.parents or site / "entries" in (folder, *folder.parents):
        raise InputError(
            f"is the folder of the results or shares it ({submissions}): the site's pages would be "
            "scored as entries; write the site to a folder of its own",
            out,
        )
    if not (site / CACHE_NAME).is_file():
        theirs = [name for name in ("index.html", "entries") if os.path.lexists(site / name)]
        if theirs:
            raise InputError(
                f"holds {' and '.join(theirs)}, which no leaderboard of the kit wrote there (it has no "
                f"{CACHE_NAME}): give a new folder, or the site's own",
                out,
            )


def _tell_apart(entries: list[Entry]) -> None:
    """Entries of one name (a txt file and the JSON `kaist-kit submit` packaged it as, both "MBNet") are
    named with their file too."""
    names = [e.name for e in entries]
    for entry in entries:
        if names.count(entry.name) > 1:
            entry.name = f"{entry.name} ({entry.source})"


def _page_name(source: str, taken: set[str]) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", source).strip("._") or "entry"
    page, k = f"entries/{stem}.html", 2
    while page in taken:
        page, k = f"entries/{stem}-{k}.html", k + 1
    taken.add(page)
    return page


def _read_cache(path: Path, labels: list[str]) -> tuple[dict[str, dict], _Outputs]:
    """The entries an earlier run scored, by digest, and the files and folders it recorded writing: the
    site's own file, read as any input is, against its schema. An entry of another shape, of other columns
    than ``labels`` or whose record does not hash to its checksum is scored again; a cache of another shape
    is rebuilt (and the pages it listed are left alone)."""
    if not path.is_file():
        return {}, _Outputs()
    try:
        # Not one of the command's inputs: the site's own file, which the run replaces.
        data = parse_json(decode_text(read_bytes(path, note=False), path), path)
    except InputError:
        return {}, _Outputs()
    if not isinstance(data, dict) or data.get("kaist_kit_leaderboard_cache") != CACHE_FORMAT:
        return {}, _Outputs()
    entries = {}
    for digest, item in (data.get("entries") if isinstance(data.get("entries"), dict) else {}).items():
        record = item.get("entry") if isinstance(item, dict) else None
        if (
            _cached_entry(record)
            and record["digest"] == digest
            and (not record["values"] or list(record["values"]) == labels)
            and item.get("sha256") == _checksum(record)
        ):
            entries[digest] = record
    outputs = data.get("outputs") if isinstance(data.get("outputs"), dict) else {}
    owned = [
        set(names) if isinstance(names, list) and all(isinstance(n, str) for n in names) else set()
        for names in (outputs.get("files"), outputs.get("folders"))
    ]
    return entries, _Outputs(*owned)


_TEXT_FIELDS = ("name", "source", "digest", "page", "verdict", "verdict_text", "refused")


def _cached_entry(value: object) -> bool:
    """Whether a cache's entry has the shape `Entry.to_dict` writes (texts, numbers, lists of texts, curves
    of pairs of numbers)."""
    if not isinstance(value, dict) or set(value) != set(Entry.__dataclass_fields__):
        return False
    if not all(_text(value[key]) for key in _TEXT_FIELDS):
        return False
    values, findings, curves = value["values"], value["findings"], value["curves"]
    return (
        isinstance(values, dict)
        and all(_text(k) and (v is None or _number(v)) for k, v in values.items())
        and isinstance(findings, list)
        and all(_text(f) for f in findings)
        and isinstance(curves, dict)
        and all(
            _text(k)
            and isinstance(points, list)
            and all(isinstance(p, list) and len(p) == 2 and all(_number(x) for x in p) for p in points)
            for k, points in curves.items()
        )
    )


def _text(value: object) -> bool:
    """A text the pages can be written with (JSON can spell a lone surrogate, which UTF-8 cannot write)."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
