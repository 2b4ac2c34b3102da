"""Downloading a pinned file: read it whole into memory, check its size and checksum, and only then let
the caller keep it, so that a failed or altered transfer never leaves a file behind."""

from __future__ import annotations

import hashlib
import os
import typing

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
    `DownloadFailed`.
    """
    data = download_bytes(url, size, progress, chunk_bytes=chunk_bytes, timeout=timeout)
    digest = hashlib.md5(data).hexdigest()
    if len(data) > size or digest != md5:
        what = f"more than {size} bytes" if len(data) > size else f"MD5 {digest}"
        raise DownloadFailed(f"{url} does not serve the pinned file: {what}, expected {size} bytes with MD5 {md5}")
    return data


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
    # Imported here: they take longer to import than most commands take to run, and only a
    # download needs them.
    import http.client
    import urllib.error
    import urllib.request

    if downloads_forbidden():
        raise DownloadFailed(f"{OFFLINE_ENV}={os.environ[OFFLINE_ENV]} forbids downloads")
    chunks: list[bytes] = []
    done = 0
    announced = size
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            if not exact:
                length = response.headers.get("Content-Length", "")
                announced = int(length) if length.isdigit() and int(length) <= size else size
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
    except (OSError, http.client.HTTPException, ValueError) as exc:
        # OSError covers timeouts and dropped connections; ValueError an URL urllib cannot open.
        raise DownloadFailed(f"{url}: {_reason(exc)}") from None
    if exact and done < size:
        raise DownloadFailed(f"{url}: the transfer stopped after {done} of {size} bytes")
    if not exact and done > size:
        raise DownloadFailed(f"{url} serves more than the {size} bytes expected at most")
    if not exact and announced != size and done != announced:
        raise DownloadFailed(f"{url}: the transfer stopped after {done} of {announced} bytes")
    return b"".join(chunks)


def _reason(reason: object) -> str:
    if isinstance(reason, TimeoutError):
        return "timed out"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason) or type(reason).__name__
