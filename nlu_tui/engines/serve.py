"""``nlu-tui serve``: the embedded engine behind Rasa's HTTP contract, on aiohttp.

It lets the HTTP path (runner, Rasa engine, generic engine, benchmarks) be tried with no bot at
hand: ``POST /model/parse`` answers like Rasa 3.6, ``GET /version``, ``GET /`` and ``GET /domain`` (the training data's intents and entities) too.
An optional fixed latency makes it a stand-in for a slow remote engine. One extension: the
request may carry ``"parent_intents": [...]`` to exercise the engine's context scoping.

Hostile requests cannot stall it: the model runs on a worker thread with its own event loop (so
``GET /version`` answers while a long text is classified), a text longer than
``max_text_length`` characters is refused with 413 before any work, a body that is not JSON or is
nested too deep for the decoder gets 400, and at most ``max_pending`` parses wait at once (503
beyond). It refuses to listen on a non-loopback address without a token unless told ``no_auth``.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import socket
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui import __version__
from nlu_tui.engines.base import ParseContext
from nlu_tui.engines.embedded.engine import EmbeddedEngine
from nlu_tui.errors import InputError
from nlu_tui.model import Prediction

if TYPE_CHECKING:
    from aiohttp import web

RASA_COMPATIBLE = "3.6.21"
MAX_TEXT_LENGTH = 10_000
"""Default cap on the characters of one ``/model/parse`` text (``serve --max-text-length``)."""
MAX_PENDING = 256
"""Parses that may wait for the model at once; more get 503 (the server is saturated)."""
_BODY_SLACK = 64 * 1024
SWITCH_INTERVAL_S = 0.001


def is_loopback(host: str) -> bool:
    """True when every address ``host`` names is a loopback one (127.0.0.0/8, ::1, localhost).

    ``0.0.0.0``, ``::``, a LAN address or a name resolving to one is not: others can reach it.
    """
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    addresses = {str(info[4][0]) for info in infos}
    return bool(addresses) and all(ipaddress.ip_address(a).is_loopback for a in addresses)


class ParseWorker:
    """The model on its own thread and event loop, so the server's loop never classifies.

    The embedded engine batches every utterance queued in one turn of *its* loop; running that
    loop on a worker thread keeps the batching while the server's loop keeps answering (the GIL
    is handed over every few milliseconds, and scikit-learn releases it in its numeric parts).
    """

    def __init__(self, engine: EmbeddedEngine, *, max_pending: int = MAX_PENDING) -> None:
        self.engine = engine
        self.max_pending = max_pending
        self.pending = 0
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="nlu-tui-serve-parse", daemon=True
        )
        self._thread.start()

    @property
    def full(self) -> bool:
        return self.pending >= self.max_pending

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        """Classify ``text`` on the worker; the caller's loop stays free meanwhile."""
        work: Coroutine[Any, Any, Prediction] = self.engine.parse(text, context)
        self.pending += 1
        try:
            return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self.loop))
        finally:
            self.pending -= 1

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self.loop.close()


def _failure(status: int, reason: str, message: str) -> web.Response:
    from aiohttp import web

    body: dict[str, Any] = {
        "version": RASA_COMPATIBLE,
        "status": "failure",
        "message": message,
        "reason": reason,
        "details": {},
        "help": None,
        "code": status,
    }
    return web.json_response(body, status=status)


def build_app(
    engine: EmbeddedEngine,
    *,
    latency_ms: float = 0.0,
    token: str | None = None,
    max_text_length: int = MAX_TEXT_LENGTH,
    max_pending: int = MAX_PENDING,
) -> web.Application:
    """The aiohttp application; ``engine`` must already be open (trained or loaded).

    Parses run on a :class:`ParseWorker` started here and stopped with the application.
    """
    from aiohttp import web

    delay = max(0.0, latency_ms) / 1000.0
    worker = ParseWorker(engine, max_pending=max_pending)
    # Room for the longest text with every character escaped (a surrogate pair is 12 bytes).
    app_max_size = max(1024 * 1024, 12 * max_text_length + _BODY_SLACK)

    def authorised(request: web.Request) -> bool:
        if not token:
            return True
        given = request.query.get("token", "")
        return hmac.compare_digest(given.encode(), token.encode())

    async def hello(request: web.Request) -> web.Response:
        return web.Response(text=f"Hello from nlu-tui {__version__} (Rasa {RASA_COMPATIBLE} API)")

    async def version(request: web.Request) -> web.Response:
        return web.json_response(
            {
                "version": RASA_COMPATIBLE,
                "minimum_compatible_version": RASA_COMPATIBLE,
                "server": f"nlu-tui {__version__}",
            }
        )

    async def status(request: web.Request) -> web.Response:
        if not authorised(request):
            return _failure(401, "NotAuthenticated", "User is not authenticated.")
        model = engine.model
        return web.json_response(
            {
                "model_file": engine.path.name,
                "model_id": model.digest if model else None,
                "num_active_training_jobs": 0,
            }
        )

    async def parse(request: web.Request) -> web.Response:
        if not authorised(request):
            return _failure(401, "NotAuthenticated", "User is not authenticated.")
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return _failure(
                413, "PayloadTooLarge", f"The request body is over {app_max_size} bytes."
            )
        try:
            payload: Any = json.loads(body or b"null")
        except ValueError:
            return _failure(400, "BadRequest", "The request body is not JSON.")
        except RecursionError:
            return _failure(400, "BadRequest", "The request body is nested too deep.")
        if not isinstance(payload, dict) or not isinstance(payload.get("text"), str):
            return _failure(400, "BadRequest", "The request must be a JSON object with 'text'.")
        if len(payload["text"]) > max_text_length:
            return _failure(
                413,
                "TextTooLong",
                f"The text has {len(payload['text'])} characters; this server takes at most "
                f"{max_text_length} (serve --max-text-length).",
            )
        parents = payload.get("parent_intents") or []
        if isinstance(parents, str):
            parents = [parents]
        if not isinstance(parents, list):
            return _failure(400, "BadRequest", "'parent_intents' must be a list of intent names.")
        if worker.full:
            return _failure(503, "ServiceUnavailable", "Too many parses are waiting; retry.")
        if delay:
            await asyncio.sleep(delay)
        prediction = await worker.parse(
            payload["text"], ParseContext(parent_intents=[str(p) for p in parents])
        )
        return web.json_response(prediction.raw)

    domain: dict[str, Any] | None = None

    async def get_domain(request: web.Request) -> web.Response:
        """The intents and entities of the training data, in Rasa's ``Domain.as_dict`` shape
        (no responses, actions or slots: this server understands, it does not converse)."""
        nonlocal domain
        if not authorised(request):
            return _failure(401, "NotAuthenticated", "User is not authenticated.")
        if domain is None:
            from nlu_tui.formats.rasa_yaml import load_training_data

            data = await asyncio.to_thread(load_training_data, engine.path)
            domain = {
                "version": "3.1",
                "intents": list(data.intents),
                "entities": list(data.entity_names),
                "slots": {},
                "responses": {},
                "actions": [],
                "forms": {},
                "e2e_actions": [],
            }
        accepts = request.headers.get("Accept", "application/json")
        if accepts.endswith("json"):
            return web.json_response(domain)
        if accepts.endswith(("yml", "yaml")):
            import yaml

            text = yaml.safe_dump(domain, sort_keys=False, allow_unicode=True)
            return web.Response(text=text, content_type="application/x-yml")
        return _failure(
            406,
            "NotAcceptable",
            'Invalid Accept header. Domain can be provided as json ("Accept: application/json") '
            'or yml ("Accept: application/x-yml").',
        )

    async def stop_worker(app: web.Application) -> None:
        await asyncio.to_thread(worker.stop)

    app = web.Application(client_max_size=app_max_size)
    app.on_cleanup.append(stop_worker)
    app.router.add_get("/", hello)
    app.router.add_get("/version", version)
    app.router.add_get("/status", status)
    app.router.add_get("/domain", get_domain)
    app.router.add_post("/model/parse", parse)
    return app


class RunningServer:
    """A started server: its URL, and ``stop()`` to close it (tests and benchmarks use it)."""

    def __init__(self, runner: web.AppRunner, url: str) -> None:
        self.runner = runner
        self.url = url

    async def stop(self) -> None:
        await self.runner.cleanup()


async def start_server(
    nlu: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    latency_ms: float = 0.0,
    token: str | None = None,
    threshold: float | None = None,
    max_text_length: int = MAX_TEXT_LENGTH,
    no_auth: bool = False,
) -> RunningServer:
    """Train or load the model, then listen; ``port=0`` picks a free port (see ``.url``).

    Refuses (:class:`InputError`) a non-loopback ``host`` without a ``token`` unless ``no_auth``:
    anyone on the network could otherwise query the model.
    """
    from aiohttp import web

    if not token and not no_auth and not is_loopback(host):
        raise InputError(
            f"{host} is reachable from other machines and no token is set: give "
            "--auth-token-env VAR, or --no-auth to serve without one",
            field="--host",
        )
    if max_text_length < 1:
        raise InputError("the text length cap must be at least 1", field="--max-text-length")
    settings: dict[str, Any] = {"nlu": str(nlu)}
    if threshold is not None:
        settings["threshold"] = threshold
    engine = EmbeddedEngine(settings)
    await engine.open(None)
    app = build_app(engine, latency_ms=latency_ms, token=token, max_text_length=max_text_length)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port, backlog=1024)
    await site.start()
    address = runner.addresses[0]
    bound_host, bound_port = address[0], address[1]
    shown = f"[{bound_host}]" if ":" in str(bound_host) else bound_host
    return RunningServer(runner, f"http://{shown}:{bound_port}")


async def serve_forever(
    nlu: Path,
    *,
    host: str,
    port: int,
    latency_ms: float,
    token: str | None,
    threshold: float | None,
    ready: Callable[[str], None],
    max_text_length: int = MAX_TEXT_LENGTH,
    no_auth: bool = False,
) -> None:
    """Serve until SIGINT or SIGTERM, calling ``ready(url)`` once the socket listens.

    The process is the server's alone, so it shortens the GIL switch interval (5 ms by default) to
    1 ms: the event loop then waits at most that long for the parse worker to hand the GIL over.
    """
    import signal
    import sys

    sys.setswitchinterval(SWITCH_INTERVAL_S)
    server = await start_server(
        nlu,
        host=host,
        port=port,
        latency_ms=latency_ms,
        token=token,
        threshold=threshold,
        max_text_length=max_text_length,
        no_auth=no_auth,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        ready(server.url)
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        await server.stop()
