"""Transport failures as one clean reason: ``cannot connect to http://127.0.0.1:1 (connection
refused)`` instead of the client library's text (``Cannot connect to host 127.0.0.1:1
ssl:default [Connect call failed ('127.0.0.1', 1)]``).

The run's client is httpx on aiohttp (``httpx-aiohttp``), which reports every aiohttp connection
error as ``ConnectTimeout`` with the real error as its cause; an engine's own client is plain
httpx, whose errors wrap httpcore's and the OS error. :func:`transport_reason` reads the whole
chain of causes, so both give the same reason. Only a URL's origin is named (no path, no query,
no user info), so a reason never carries a ``?token=``.
"""

from __future__ import annotations

import contextlib
import errno
from typing import Any

from nlu_tui.errors import EngineError


class EngineUnreachableError(EngineError):
    """The engine could not be reached when the run opened it; the message is the whole reason
    (``engine unreachable: cannot connect to http://127.0.0.1:1 (connection refused)``)."""


def origin(url: Any) -> str:
    """``scheme://host[:port]`` of a URL: where a connection goes, without path, query or user."""
    from urllib.parse import urlsplit

    parts = urlsplit(str(url))
    netloc = parts.hostname or ""
    if ":" in netloc:  # an IPv6 address
        netloc = f"[{netloc}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    if port:
        netloc += f":{port}"
    return f"{parts.scheme}://{netloc}" if parts.scheme else netloc


_ERRNO_TEXT = {
    errno.ECONNREFUSED: "connection refused",
    errno.ECONNRESET: "connection reset by the server",
    errno.ECONNABORTED: "connection aborted",
    errno.EHOSTUNREACH: "host unreachable",
    errno.ENETUNREACH: "network unreachable",
    errno.ETIMEDOUT: "timed out",
    errno.EPIPE: "connection closed by the server",
}


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc``, its causes and contexts, and aiohttp's wrapped ``os_error``: every layer once."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo and len(seen) < 16:
        item = todo.pop(0)
        if item is None or any(item is s for s in seen):
            continue
        seen.append(item)
        wrapped = getattr(item, "os_error", None)
        todo.extend([wrapped if isinstance(wrapped, BaseException) else None])
        todo.extend([item.__cause__, item.__context__])
    return seen


def _problem(exc: BaseException) -> tuple[str, str]:
    """(what failed, why) for a transport failure: ("connect", "connection refused")."""
    import socket
    import ssl

    layers = _chain(exc)
    names = [type(e).__name__ for e in layers]
    for e, name in zip(layers, names, strict=True):
        if isinstance(e, socket.gaierror) or "DNSError" in name:
            return "connect", "host not found"
        if isinstance(e, ssl.SSLCertVerificationError) or "Certificate" in name:
            return "connect", "TLS certificate not accepted"
        if isinstance(e, ssl.SSLError) or name in ("ClientSSLError", "ClientConnectorSSLError"):
            return "connect", "TLS handshake failed"
        if isinstance(e, ConnectionRefusedError):
            return "connect", "connection refused"
        if isinstance(e, OSError) and e.errno in _ERRNO_TEXT:
            return ("connect" if e.errno != errno.ECONNRESET else "talk"), _ERRNO_TEXT[e.errno]
        if name in ("ServerDisconnectedError", "RemoteProtocolError"):
            return "talk", "the server closed the connection"
    # httpx-aiohttp reports every aiohttp connection error as ConnectTimeout: a timeout is
    # believed only when no layer gave a better reason.
    if any(
        "Timeout" in n or isinstance(e, TimeoutError) for e, n in zip(layers, names, strict=True)
    ):
        return ("connect" if "Connect" in names[0] else "talk"), "timed out"
    for e in layers:
        if isinstance(e, OSError) and e.strerror:
            return "connect", e.strerror.lower()
    if any("Connect" in n for n in names):
        return "connect", "connection failed"
    return "talk", "connection failed"


def transport_reason(exc: BaseException, url: Any = None) -> str:
    """A transport failure as one clean line, without the client library's noise.

    ``cannot connect to http://127.0.0.1:1 (connection refused)``, ``cannot connect to
    http://nlu.invalid (host not found)``, ``no answer from http://h:5005 (timed out)``,
    ``connection to http://h:5005 failed (the server closed the connection)``. Only the URL's
    origin is named (no path, no query, no user info).
    """
    if url is None and isinstance(exc, Exception):
        with contextlib.suppress(Exception):
            url = exc.request.url  # type: ignore[attr-defined]  # httpx.RequestError
    what, why = _problem(exc)
    where = origin(url) if url is not None else "the engine"
    if why == "timed out" and what == "talk":
        return f"no answer from {where} ({why})"
    if what == "connect":
        return f"cannot connect to {where} ({why})"
    return f"connection to {where} failed ({why})"
