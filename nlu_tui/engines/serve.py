"""``nlu-tui serve``: the embedded engine behind Rasa's HTTP contract, on aiohttp.

It lets the HTTP path (runner, Rasa engine, generic engine, benchmarks) be tried with no bot at
hand: ``POST /model/parse`` answers like Rasa 3.6, ``GET /version``, ``GET /`` and ``GET /domain`` (the training data's intents and entities) too.
An optional fixed latency makes it a stand-in for a slow remote engine. One extension: the
request may carry ``"parent_intents": [...]`` to exercise the engine's context scoping.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui import __version__
from nlu_tui.engines.base import ParseContext
from nlu_tui.engines.embedded.engine import EmbeddedEngine

if TYPE_CHECKING:
    from aiohttp import web

RASA_COMPATIBLE = "3.6.21"


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
    engine: EmbeddedEngine, *, latency_ms: float = 0.0, token: str | None = None
) -> web.Application:
    """The aiohttp application; ``engine`` must already be open (trained or loaded)."""
    from aiohttp import web

    delay = max(0.0, latency_ms) / 1000.0

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
            payload: Any = json.loads(await request.read() or b"null")
        except ValueError:
            return _failure(400, "BadRequest", "The request body is not JSON.")
        if not isinstance(payload, dict) or not isinstance(payload.get("text"), str):
            return _failure(400, "BadRequest", "The request must be a JSON object with 'text'.")
        parents = payload.get("parent_intents") or []
        if isinstance(parents, str):
            parents = [parents]
        if not isinstance(parents, list):
            return _failure(400, "BadRequest", "'parent_intents' must be a list of intent names.")
        if delay:
            await asyncio.sleep(delay)
        prediction = await engine.parse(
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

    app = web.Application(client_max_size=1024 * 1024)
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
) -> RunningServer:
    """Train or load the model, then listen; ``port=0`` picks a free port (see ``.url``)."""
    from aiohttp import web

    settings: dict[str, Any] = {"nlu": str(nlu)}
    if threshold is not None:
        settings["threshold"] = threshold
    engine = EmbeddedEngine(settings)
    await engine.open(None)
    runner = web.AppRunner(build_app(engine, latency_ms=latency_ms, token=token), access_log=None)
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
) -> None:
    """Serve until SIGINT or SIGTERM, calling ``ready(url)`` once the socket listens."""
    import signal

    server = await start_server(
        nlu, host=host, port=port, latency_ms=latency_ms, token=token, threshold=threshold
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
