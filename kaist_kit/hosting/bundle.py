"""The pieces every bundle is made of: the kit's core copied for the worker, deterministic zips, files.

A platform's worker has numpy and no network, and not the kit: the bundle carries the part of the kit
that scoring needs, the closure of `kaist_kit.hosting.scoring` under the package's relative imports,
as it is in this installation. `core_modules` checks that nothing in it imports more than the standard
library and numpy, nor uses what the workers' Python 3.7 lacks (`portable`). Zips are written with fixed
times and in name order, so that the same input gives the same bytes.
"""

from __future__ import annotations

import ast
import io
import os
import struct
import sys
import zipfile
import zlib
from pathlib import Path

from ..io.read import read_bytes
from ..io.write import atomic_file, atomic_folder, check_writable, write_bytes_atomic
from . import portable

PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # the kaist_kit folder
ENTRY_MODULE = "kaist_kit.hosting.scoring"
ALLOWED_THIRD_PARTY = {"numpy"}
# Parts of the kit a worker never reaches, though a reader names them: the published results of
# `kaist-kit zoo` are named on the command line (``zoo:NAME``), never in an upload. Their names module
# (what ``zoo:NAME`` is) goes with the core; the zoo itself does not. A dataset's module names the
# writer of its synthetic set (`kaist-kit synth`), which no scoring calls.
NOT_ON_WORKERS = ("kaist_kit.zoo.resolve", "kaist_kit.datasets.synth")
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _module_path(name: str) -> Path:
    parts = name.split(".")[1:]  # below kaist_kit
    folder = PACKAGE_ROOT.joinpath(*parts)
    return folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")


def _imports(name: str, path: Path) -> tuple[set[str], set[str]]:
    """(kit modules, top-level third-party or standard modules) a module imports, at any depth; an
    import guarded by ``except ImportError`` (msgspec's fast path) is not needed, and left out."""
    tree = ast.parse(read_bytes(path), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    guarded = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.Try) and any(_catches_import_error(handler) for handler in node.handlers)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    kit, outside = set(), set()
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                (kit if alias.name.split(".")[0] == "kaist_kit" else outside).add(alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
                kit.add(target)
                for alias in node.names:  # `from . import module`, `from .pkg import module`
                    if _module_path(f"{target}.{alias.name}").is_file():
                        kit.add(f"{target}.{alias.name}")
            elif node.module and node.module.split(".")[0] == "kaist_kit":
                kit.add(node.module)
            elif node.module:
                outside.add(node.module.split(".")[0])
    return kit, outside


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(c, ast.Name) and c.id in ("ImportError", "ModuleNotFoundError") for c in caught)


def core_modules(entry: str = ENTRY_MODULE) -> dict[str, Path]:
    """Every kit module that importing ``entry`` may import (the packages' ``__init__`` included),
    by dotted name; a RuntimeError when one imports more than the standard library and numpy."""
    seen: dict[str, Path] = {}
    todo = [entry]
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for k in range(1, len(parts)):  # importing a module runs its packages' __init__
            package = ".".join(parts[:k])
            if package not in seen:
                todo.append(package)
        if name in seen:
            continue
        path = _module_path(name)
        if not path.is_file():
            raise RuntimeError(f"{name} is imported by the scorer but is not a module of the kit")
        seen[name] = path
        kit, outside = _imports(name, path)
        stray = {
            m
            for m in outside
            if m not in sys.stdlib_module_names and m not in ALLOWED_THIRD_PARTY and m != "__future__"
        }
        if stray:
            raise RuntimeError(
                f"{name} imports {', '.join(sorted(stray))}: the scorer copied into a bundle may "
                "need only the standard library and numpy"
            )
        newer = portable.problems(read_bytes(path), path.relative_to(PACKAGE_ROOT.parent).as_posix())
        if newer:
            raise RuntimeError(
                f"the scorer copied into a bundle runs on the platforms' workers, Python 3.7 to 3.12: {newer[0]}"
                + (f" (and {len(newer) - 1} more)" if len(newer) > 1 else "")
            )
        todo += [m for m in kit if m not in seen and m not in NOT_ON_WORKERS]
    return dict(sorted(seen.items()))


def core_files(prefix: str = "") -> dict[str, bytes]:
    """The copied core as zip members: ``prefix`` + ``kaist_kit/...py``, by name."""
    return {
        prefix + path.relative_to(PACKAGE_ROOT.parent).as_posix(): read_bytes(path) for path in core_modules().values()
    }


def zip_bytes(members: dict[str, bytes]) -> bytes:
    """A zip of ``members`` in name order with fixed times and modes: the same members, the same bytes
    (in memory, for a zip inside a bundle; `write_zip` writes one as a file)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        _add_members(archive, members)
    return buffer.getvalue()


def write_zip(path: str | os.PathLike, members: dict[str, bytes]) -> int:
    """The zip of ``members`` that `zip_bytes` makes, written at ``path`` by the writer; its size."""
    with atomic_file(path) as handle:
        with zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as archive:
            _add_members(archive, members)
        return handle.tell()


def _add_members(archive: zipfile.ZipFile, members: dict[str, bytes]) -> None:
    for name in sorted(members):
        info = zipfile.ZipInfo(name, ZIP_TIME)
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        archive.writestr(info, members[name], compresslevel=9)


def write_tree(out: str | os.PathLike, members: dict[str, bytes]) -> dict[str, int]:
    """Write ``members`` as the new folder ``out`` (absent or empty), or as one zip when ``out`` ends in
    .zip: built aside and moved into place whole, so that a kill or a full disk leaves no half-written
    bundle. Returns the sizes written, by name (the zip's alone for a zip)."""
    out = Path(out)
    if out.suffix.lower() == ".zip":
        check_writable(out)
        return {out.name: write_zip(out, members)}
    with atomic_folder(out) as staging:
        for name, data in sorted(members.items()):
            write_bytes_atomic(staging / name, data)
    return {name: len(data) for name, data in sorted(members.items())}


def logo_png(size: int = 128) -> bytes:
    """A plain logo, half visible (grey-blue), half thermal (amber), as a PNG: platforms require one."""
    rows = []
    for y in range(size):
        row = bytearray([0])  # filter: none
        for x in range(size):
            edge = abs(x - size // 2) < 2
            colour = (40, 40, 40) if edge else (96, 120, 150) if x < size // 2 else (230, 140 + y // 4, 40)
            row += bytes(colour)
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + chunk(b"IEND", b"")
    )
