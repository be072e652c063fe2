"""A real HTTP proxy on 127.0.0.1 in front of a loopback engine, that faults the message requests.

Every kind of run opens its engine with GETs (``/version``, trackers, domains) and sends its
items as POSTs to ``/model/parse`` (NLU suites), ``/webhooks/rest/webhook`` (conversations,
DUT steps) or ``/model/predict`` (test stories). The proxy forwards everything to the upstream server, except those message POSTs
when a fault is set:

- ``"429"``: answers ``429 Too Many Requests`` with ``Retry-After: 3600``;
- ``"drip"``: answers the headers, then one byte of the body every 0.5 s, for a minute;
- ``None``: forwards them too.

It counts the message requests it saw per text (the ``text`` or ``message`` of the body; for a
story, the intent of its user event) and
the times they arrived, so a test can prove that nothing was sent twice and how long a run
waited between attempts.
"""

from __future__ import annotations

import asyncio
import collections
import json
import threading
import time
from typing import Any

MESSAGE_PATHS = ("/model/parse", "/webhooks/rest/webhook", "/model/predict")


class FaultProxy:
    """``with FaultProxy(upstream, fault="429") as proxy:`` then point the engine at proxy.url."""

    def __init__(self, upstream: str, *, fault: str | None = None, delay: float = 0.0) -> None:
        self.upstream = upstream.rstrip("/")
        self.fault = fault
        self.delay = delay
        """Seconds each forwarded message request waits before it is forwarded."""
        self.counts: collections.Counter[str] = collections.Counter()
        self.arrivals: list[tuple[float, str]] = []
        """(monotonic time, text) of every message request, in arrival order."""
        self.held: list[float] = []
        """Drip mode: seconds each client kept a dripping answer open before hanging up."""
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._lock = threading.Lock()

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("fault proxy did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        from aiohttp import ClientSession, web

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        session = ClientSession()

        async def handle(request: web.Request) -> web.StreamResponse:
            body = await request.read()
            if request.method == "POST" and request.path in MESSAGE_PATHS:
                text = _text_of(body)
                with self._lock:
                    self.counts[text] += 1
                    self.arrivals.append((time.monotonic(), text))
                if self.fault == "429":
                    return web.Response(
                        status=429, headers={"Retry-After": "3600"}, text='{"error": "slow down"}'
                    )
                if self.fault == "drip":
                    response = web.StreamResponse(
                        status=200,
                        headers={"Content-Type": "application/json", "Content-Length": "200"},
                    )
                    await response.prepare(request)
                    began = time.monotonic()
                    try:
                        for _ in range(120):
                            await response.write(b" ")
                            await asyncio.sleep(0.5)
                    except (ConnectionError, asyncio.CancelledError):
                        with self._lock:  # the client hung up: how long it kept listening
                            self.held.append(time.monotonic() - began)
                        raise
                    return response
                if self.delay:
                    await asyncio.sleep(self.delay)
            url = self.upstream + request.path_qs
            headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP}
            async with session.request(request.method, url, data=body, headers=headers) as up:
                data = await up.read()
                out = {k: v for k, v in up.headers.items() if k.lower() not in _HOP}
                return web.Response(status=up.status, body=data, headers=out)

        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", handle)
        runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.1)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        server: Any = site._server  # the bound port
        port = server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await session.close()
            await runner.cleanup()


_HOP = {"host", "content-length", "transfer-encoding", "connection", "content-encoding"}


def _text_of(body: bytes) -> str:
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        return ""
    if isinstance(data, list):  # /model/predict: a story's events; its (one) user intent
        for event in data:
            if isinstance(event, dict) and event.get("event") == "user":
                intent = (event.get("parse_data") or {}).get("intent") or {}
                return str(intent.get("name") or "")
        return ""
    if not isinstance(data, dict):
        return ""
    return str(data.get("text") or data.get("message") or "")
