"""The run's one shared HTTP client, on aiohttp's connection pool.

httpx's own pool managed about 220 requests/s at concurrency 50 against a 20 ms loopback server
on this machine; httpx on the aiohttp transport (``httpx-aiohttp``) keeps up with ``wrk``
(see ``bench/bench_runner_throughput.py``).
"""

from __future__ import annotations

import httpx


def make_client(*, concurrency: int, timeout: float) -> httpx.AsyncClient:
    from httpx_aiohttp import AiohttpTransport

    limits = httpx.Limits(
        max_connections=max(concurrency, 1), max_keepalive_connections=max(concurrency, 1)
    )
    transport = AiohttpTransport(limits=limits)
    return httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(timeout), limits=limits)
