"""The run's one shared HTTP client, on aiohttp's connection pool.

httpx's own pool managed about 220 requests/s at concurrency 50 against a 20 ms loopback server
on this machine; httpx on the aiohttp transport (``httpx-aiohttp``) keeps up with ``wrk``
(see ``bench/bench_runner_throughput.py``).

httpx logs every request's URL at INFO, query string included, and Rasa takes its token as
``?token=``: a filter on those loggers masks query strings and credentials before any handler
sees them.
"""

from __future__ import annotations

import logging

import httpx

from nlu_tui.runner.redact import redact
from nlu_tui.textsafe import inert

HTTP_LOGGERS = ("httpx", "httpcore", "httpx_aiohttp", "aiohttp.client")
RUN_LOGGERS = ("nlu_tui.runner.run",)
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


def make_client(*, concurrency: int, timeout: float) -> httpx.AsyncClient:
    from httpx_aiohttp import AiohttpTransport

    guard_http_logs()
    limits = httpx.Limits(
        max_connections=max(concurrency, 1), max_keepalive_connections=max(concurrency, 1)
    )
    transport = AiohttpTransport(limits=limits)
    return httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(timeout), limits=limits)
