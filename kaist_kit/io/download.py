"""Downloading a pinned file: read it whole into memory, check its size and checksum, and only then let
the caller keep it, so that a failed or altered transfer never leaves a file behind."""

from __future__ import annotations

import contextlib
import hashlib
import os
import typing

from ..errors import InputError
from .read import open_input

OFFLINE_ENV = "KAIST_KIT_OFFLINE"
TIMEOUT_S = 30.0
CHUNK_BYTES = 64 * 1024

Progress = typing.Callable[[int, int], None]  # typing's: the core runs on Python 3.7 too (docs/hosting.md)


class DownloadFailed(Exception):
    """The file could not be had, or not as pinned; the message says why, naming the URL."""


def downloads_forbidden() -> bool:
    """Whether $KAIST_KIT_OFFLINE forbids downloads (any value but empty, 0, false, no or off)."""
    return os.environ.get(OFFLINE_ENV, "").strip().lower() not in ("", "0", "false", "no", "off")


def download_verified(
    url: str,
    size: int,
    md5: str,
    progress: Progress | None = None,
    *,
    chunk_bytes: int = CHUNK_BYTES,
    timeout: float = TIMEOUT_S,
) -> bytes:
    """The ``size`` bytes at ``url`` (any URL urllib opens), if their MD5 is ``md5``.

    ``progress(done, size)`` is called once the source answers (``done`` 0) and after every chunk.
    Network trouble, a transfer that stops short and any other bytes than the pinned ones all raise
    `DownloadFailed`; a file that arrived whole (of the pinned length or longer, or of the length the
    source announced) but with other bytes is said to have changed at its source. A file:// URL is read
    through the kit's opener (regular files only: a FIFO is refused, never waited on).
    """
    data, whole = _transfer(url, size, progress, True, chunk_bytes, timeout)
    done = len(data)
    digest = hashlib.md5(data[:size]).hexdigest()
    if done == size and digest == md5:
        return data
    # The transfer ended without an error. A file of the pinned length, a longer one, or one whose whole
    # length the source gave and that arrived in full is the source's file: it changed, the network is
    # not to blame.
    if not (done >= size or (whole is not None and whole == done)):
        raise DownloadFailed(f"{url}: the transfer stopped after {done} of {size} bytes")
    length = whole if whole is not None else (f"more than {size}" if done > size else done)
    found = f"{length} bytes" + (f" with MD5 {digest}" if done <= size else "")
    raise DownloadFailed(
        f"{url} does not serve the pinned file: it arrived whole but differs ({found}, expected {size} "
        f"bytes with MD5 {md5}): the file changed at its source"
    )


def download_bytes(
    url: str,
    size: int,
    progress: Progress | None = None,
    *,
    exact: bool = True,
    chunk_bytes: int = CHUNK_BYTES,
    timeout: float = TIMEOUT_S,
) -> bytes:
    """The bytes at ``url``: ``size`` of them when ``exact`` (one more, if the source serves more, so
    that the caller can tell a longer file), at most ``size`` otherwise (more raise `DownloadFailed`).

    ``progress(done, total)`` is called once the source answers (``done`` 0) and after every chunk;
    the total is ``size``, or the length the source announces when not ``exact``. Network trouble and
    a transfer that stops short raise `DownloadFailed`.
    """
    data, whole = _transfer(url, size, progress, exact, chunk_bytes, timeout)
    done = len(data)
    announced = whole if not exact and whole is not None and whole <= size else size
    if exact and done < size:
        raise DownloadFailed(f"{url}: the transfer stopped after {done} of {size} bytes")
    if not exact and done > size:
        raise DownloadFailed(f"{url} serves more than the {size} bytes expected at most")
    if not exact and announced != size and done != announced:
        raise DownloadFailed(f"{url}: the transfer stopped after {done} of {announced} bytes")
    return data


def _transfer(
    url: str, size: int, progress: Progress | None, exact: bool, chunk_bytes: int, timeout: float
) -> tuple[bytes, int | None]:
    """At most ``size`` + 1 bytes from ``url``, and the whole file's length where the source says it."""
    # Imported here: they take longer to import than most commands take to run, and only a
    # download needs them.
    import http.client
    import urllib.error

    if downloads_forbidden():
        raise DownloadFailed(f"{OFFLINE_ENV}={os.environ[OFFLINE_ENV]} forbids downloads")
    chunks: list[bytes] = []
    done = 0
    whole = None
    try:
        with _open_source(url, timeout) as (response, whole):
            announced = whole if not exact and whole is not None and whole <= size else size
            if progress is not None:
                progress(0, announced)
            # Read at most one byte more than asked for: enough to tell a longer file, never a huge one.
            while done <= size:
                chunk = response.read(min(chunk_bytes, size + 1 - done))
                if not chunk:
                    break
                chunks.append(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(min(done, announced), announced)
    except urllib.error.HTTPError as exc:
        raise DownloadFailed(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise DownloadFailed(f"{url}: {_reason(exc.reason)}") from None
    except InputError as exc:  # a local file (file://) that the opener refuses: a FIFO, a folder, none
        raise DownloadFailed(f"{url}: {exc.reason}") from None
    except (OSError, http.client.HTTPException, ValueError) as exc:
        # OSError covers timeouts and dropped connections; ValueError an URL urllib cannot open.
        raise DownloadFailed(f"{url}: {_reason(exc)}") from None
    return b"".join(chunks), whole


@contextlib.contextmanager
def _open_source(url: str, timeout: float) -> typing.Iterator[tuple[typing.BinaryIO, int | None]]:
    """The source open for reading, and the whole file's length where the source says it. A local file
    (file://) is read through the kit's opener: a regular file only, so a FIFO never blocks."""
    import urllib.parse
    import urllib.request

    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() == "file":
        if parts.netloc not in ("", "localhost"):
            raise ValueError(f"a file:// URL names a file of this machine, not of {parts.netloc!r}")
        with open_input(urllib.request.url2pathname(parts.path)) as handle:
            yield handle, os.fstat(handle.fileno()).st_size
        return
    with urllib.request.urlopen(url, timeout=timeout) as response:
        declared = response.headers.get("Content-Length")
        yield response, int(declared) if declared and declared.strip().isdigit() else None


def _reason(reason: object) -> str:
    if isinstance(reason, TimeoutError):
        return "timed out"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason) or type(reason).__name__
