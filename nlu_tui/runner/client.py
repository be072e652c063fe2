"""The run's one shared HTTP client, on aiohttp's connection pool.

httpx's own pool managed about 220 requests/s at concurrency 50 against a 20 ms loopback server
on this machine; httpx on the aiohttp transport (``httpx-aiohttp``) keeps up with ``wrk``
(see ``bench/bench_runner_throughput.py``).

httpx logs every request's URL at INFO, query string included, and Rasa takes its token as
``?token=``: a filter on those loggers masks query strings and credentials before any handler
sees them.
"""

from __future__ import annotations

import functools
import logging
import ssl
from collections.abc import Callable
from typing import Any

import httpx

from nlu_tui.engines.redact import redact
from nlu_tui.textsafe import inert

HTTP_LOGGERS = ("httpx", "httpcore", "httpx_aiohttp", "aiohttp.client")
RUN_LOGGERS = ("nlu_tui.runner.run", "nlu_tui.runner.kernel")
"""The runner's own log quotes case ids and engine errors: untrusted text too."""


class RedactingFilter(logging.Filter):
    """Rewrites a record's message with URL query strings and ``token=``-like pairs masked,
    and escape sequences made inert (a log may end up on a terminal)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = inert(redact(message))
        if clean != message:
            record.msg, record.args = clean, ()
        return True


def guard_http_logs() -> None:
    """Install :class:`RedactingFilter` on the HTTP libraries' loggers (once)."""
    for name in (*HTTP_LOGGERS, *RUN_LOGGERS):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactingFilter) for f in logger.filters):
            logger.addFilter(RedactingFilter())


class _Preload:
    """The HTTP stack (aiohttp) and httpx's default SSL context, made in a thread.

    Both cost ~0.12 s, most of it loading CA bundles (aiohttp makes two SSL contexts when it
    is imported, httpx one for the transport), which OpenSSL does without the interpreter
    lock: started early, they are ready by the time the suite is read and the run stored.

    The thread is not a daemon: a command that fails on its input exits while the thread may
    still be importing aiohttp's C extensions, and a daemon thread importing during interpreter
    finalization can crash it (CI saw ``run --baseline nope`` end with SIGSEGV instead of exit 2).
    Exit waits for the import instead, at most its ~0.12 s.
    """

    def __init__(self) -> None:
        import threading

        self.context: ssl.SSLContext | None = None
        self._thread = threading.Thread(target=self._load, name="nlu-tui-http", daemon=False)
        self._thread.start()

    def _load(self) -> None:
        import httpx_aiohttp  # noqa: F401  (imports aiohttp)

        self.context = httpx.create_ssl_context()

    def ssl_context(self) -> ssl.SSLContext | None:
        self._thread.join()
        return self.context


_preload: _Preload | None = None


def preload_http() -> None:
    """Start importing the HTTP stack in the background (once; see :class:`_Preload`)."""
    global _preload
    if _preload is None:
        _preload = _Preload()


@functools.cache
def _run_transport() -> Callable[..., httpx.AsyncBaseTransport]:
    """The run's transport class: aiohttp's, carrying an HTTP/1.1 pool of its own that the
    HTTP engines send plain ``http://`` requests through (:mod:`nlu_tui.engines.http1`).
    Made on first use: aiohttp is imported only when a run starts."""
    from httpx_aiohttp import AiohttpTransport

    from nlu_tui.engines.http1 import Http1Pool

    class RunTransport(AiohttpTransport):
        """aiohttp's transport plus the run's HTTP/1.1 pool (``http1_pool``), closed with it."""

        def __init__(self, *, limits: httpx.Limits, **kwargs: Any) -> None:
            super().__init__(limits=limits, **kwargs)
            self.http1_pool: Http1Pool | None = Http1Pool(
                limits.max_connections, limits.keepalive_expiry
            )

        async def aclose(self) -> None:
            if self.http1_pool is not None:
                await self.http1_pool.aclose()
            await super().aclose()

    return RunTransport


def make_client(*, concurrency: int, timeout: float) -> httpx.AsyncClient:
    guard_http_logs()
    limits = httpx.Limits(
        max_connections=max(concurrency, 1), max_keepalive_connections=max(concurrency, 1)
    )
    context = _preload.ssl_context() if _preload is not None else None
    transport = _run_transport()(limits=limits, verify=context if context is not None else True)
    return httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(timeout), limits=limits)
