"""The run's one shared HTTP client: its own HTTP/1.1 pool for plain ``http://``, aiohttp's
connection pool for the rest (made on first need).

httpx's own pool managed about 220 requests/s at concurrency 50 against a 20 ms loopback server
on this machine; httpx on the aiohttp transport (``httpx-aiohttp``) keeps up with ``wrk``
(see ``bench/bench_runner_throughput.py``).

httpx logs every request's URL at INFO, query string included, and Rasa takes its token as
``?token=``: a filter on those loggers masks query strings and credentials before any handler
sees them.
"""

from __future__ import annotations

import logging
import ssl

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


def http_stack_needed(engine: str | None) -> bool:
    """Whether a run on ``--engine engine`` may need aiohttp (and an SSL context), so that
    :func:`preload_http` is worth starting: not for the embedded engine (no HTTP at all) nor
    for ``rasa:``/``http:`` on a plain ``http://`` URL (the run transport's HTTP/1.1 pool
    carries every request of those); anything else (``https://``, a profile, a vendor) may."""
    spec = (engine or "").strip()
    kind, _, rest = spec.partition(":")
    if kind == "embedded":
        return False
    return not (kind in ("rasa", "http") and rest.strip().lower().startswith("http://"))


class RunTransport(httpx.AsyncBaseTransport):
    """The run's transport: its own HTTP/1.1 pool (``http1_pool``), which the HTTP engines
    send plain ``http://`` requests through (:mod:`nlu_tui.engines.http1`, routed by
    :mod:`nlu_tui.engines.httpcall`), and aiohttp's transport (``httpx_aiohttp``) for
    everything else, made on first need: a run that only speaks plain HTTP (or none, the
    embedded engine) never imports aiohttp (about a fifth of a second of a one-case run).
    Both carry the run's limits; both are closed with it."""

    def __init__(self, *, limits: httpx.Limits, verify: ssl.SSLContext | bool = True) -> None:
        from nlu_tui.engines.http1 import Http1Pool

        self.limits = limits
        self.verify = verify
        self.http1_pool: Http1Pool | None = Http1Pool(
            limits.max_connections, limits.keepalive_expiry
        )
        self._aiohttp: httpx.AsyncBaseTransport | None = None

    @property
    def aiohttp_made(self) -> bool:
        return self._aiohttp is not None

    def aiohttp_transport(self) -> httpx.AsyncBaseTransport:
        """aiohttp's transport, made (and aiohttp imported) the first time it is asked for."""
        if self._aiohttp is None:
            from httpx_aiohttp import AiohttpTransport

            verify = self.verify
            if verify is True and _preload is not None:
                verify = _preload.ssl_context() or True
            self._aiohttp = AiohttpTransport(limits=self.limits, verify=verify)
        return self._aiohttp

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.aiohttp_transport().handle_async_request(request)

    async def aclose(self) -> None:
        if self.http1_pool is not None:
            await self.http1_pool.aclose()
        if self._aiohttp is not None:
            await self._aiohttp.aclose()


def make_client(*, concurrency: int, timeout: float) -> httpx.AsyncClient:
    guard_http_logs()
    limits = httpx.Limits(
        max_connections=max(concurrency, 1), max_keepalive_connections=max(concurrency, 1)
    )
    context = _preload.ssl_context() if _preload is not None else None
    transport = RunTransport(limits=limits, verify=context if context is not None else True)
    if _preload is not None:
        transport.aiohttp_transport()  # preloaded for this run: made now, as before
    return httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(timeout), limits=limits)
