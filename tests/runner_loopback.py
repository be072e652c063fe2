"""A real loopback NLU server (Rasa's /model/parse contract) and a tiny engine that talks to it.

Shared by the runner, store and CLI tests: fixed latency, faults on demand (500, 429 with
Retry-After, connection resets, garbage), and a per-utterance request count, so tests can
prove that no case is lost, duplicated or sent twice. Runs in its own thread and event loop.

``python tests/runner_loopback.py run ...`` runs a suite with the tiny engine in a child
process (used by the SIGKILL test before the real engines exist).
"""

from __future__ import annotations

import asyncio
import collections
import json
import random
import socket
import struct
import sys
import threading
from pathlib import Path
from typing import Any

import httpx

from nlu_tui.engines.base import Engine, ParseContext
from nlu_tui.errors import EngineError
from nlu_tui.model import ExpectedIntent, IntentScore, Prediction, Suite, TestCase

FAULTS = ("500", "429", "reset", "garbage", "badshape")


def intent_of(text: str) -> str | None:
    """What the server answers: the utterance's last word, or no intent for ``... none``."""
    last = text.split()[-1] if text.split() else "none"
    return None if last == "none" else last


class LoopbackNlu:
    """aiohttp server on 127.0.0.1 with a free port, answering like Rasa's ``/model/parse``."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        version_latency: float = 0.0,
        fault_rate: float = 0.0,
        faults: tuple[str, ...] = ("500", "429", "reset"),
        always: dict[str, str] | None = None,
        first: dict[str, tuple[str, int]] | None = None,
        retry_after: str = "0",
        echo_query: bool = False,
        rename: dict[str, str] | None = None,
        randomly: dict[str, tuple[str, ...]] | None = None,
        seed: int = 7,
    ) -> None:
        self.latency = latency
        self.version_latency = version_latency
        """Delay of ``GET /version`` (how long a run's engine takes to open)."""
        self.fault_rate = fault_rate
        self.faults = faults
        self.always = dict(always or {})
        self.first = dict(first or {})
        self.retry_after = retry_after
        self.echo_query = echo_query
        self.rename = dict(rename or {})
        self.randomly = dict(randomly or {})
        """Utterances answered with an intent drawn from these (and a random confidence),
        reproducibly: the draw depends on the seed, the text and the request's number only."""
        self.seed = seed
        self.given: dict[str, list[tuple[str | None, float]]] = collections.defaultdict(list)
        """Every (intent, confidence) answered, per utterance, in the order sent."""
        self.queries: collections.Counter[str] = collections.Counter()
        self.rng = random.Random(seed)
        self.counts: collections.Counter[str] = collections.Counter()
        self.answered: collections.Counter[str] = collections.Counter()
        self.faults_sent: collections.Counter[str] = collections.Counter()
        self.in_flight = 0
        self.max_in_flight = 0
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None

    # --- lifecycle --------------------------------------------------------------------------

    def __enter__(self) -> LoopbackNlu:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> str:
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("loopback server did not start")
        return self.url

    def stop(self) -> None:
        if self._loop and self._stop:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread:
            self._thread.join(10)

    def _serve(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        from aiohttp import web

        app = web.Application()
        app.router.add_get("/version", self._version)
        app.router.add_post("/model/parse", self._parse)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        site = web.SockSite(runner, sock)
        await site.start()
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._ready.set()
        await self._stop.wait()
        await runner.cleanup()

    # --- handlers ---------------------------------------------------------------------------

    async def _version(self, request: Any) -> Any:
        from aiohttp import web

        if self.version_latency:
            await asyncio.sleep(self.version_latency)
        return web.json_response({"version": "3.6.21"})

    async def _parse(self, request: Any) -> Any:
        from aiohttp import web

        body = await request.json()
        text = str(body.get("text", ""))
        self.counts[text] += 1
        number = self.counts[text]  # this request's number, before others arrive meanwhile
        self.queries[request.query_string] += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency:
                await asyncio.sleep(self.latency)
            fault = self.always.get(text)
            if text in self.first and self.counts[text] <= self.first[text][1]:
                fault = self.first[text][0]
            if fault is None and self.fault_rate and self.rng.random() < self.fault_rate:
                fault = self.rng.choice(self.faults)
            if fault:
                self.faults_sent[fault] += 1
            if fault == "500":
                echo = request.query_string if self.echo_query else ""
                return web.json_response(
                    {"status": "failure", "code": 500, "message": echo}, status=500
                )
            if fault == "429":
                return web.Response(
                    status=429, text="slow down", headers={"Retry-After": self.retry_after}
                )
            if fault == "reset":
                sock = request.transport.get_extra_info("socket")
                if sock is not None:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                request.transport.abort()
                raise asyncio.CancelledError
            if fault == "garbage":
                return web.Response(text="<html>oops</html>", content_type="text/html")
            if fault == "badshape":
                return web.json_response({"intent": "not-a-mapping", "entities": 3})
            name = self.rename.get(text, intent_of(text))
            confidence = 0.9 if name else 0.0
            if text in self.randomly:
                draw = random.Random(f"{self.seed}:{text}:{number}")
                name = draw.choice(self.randomly[text])
                confidence = round(draw.uniform(0.3, 0.95), 3)
            self.answered[text] += 1
            self.given[text].append((name, confidence))
            return web.json_response(
                {
                    "text": text,
                    "intent": {"name": name, "confidence": confidence},
                    "intent_ranking": [{"name": name, "confidence": confidence}] if name else [],
                    "entities": [],
                    **({"echo": request.query_string} if self.echo_query else {}),
                }
            )
        finally:
            self.in_flight -= 1


class LoopbackEngine(Engine):
    """The smallest HTTP engine: Rasa's parse contract over the run's shared client."""

    type_name = "loopback"

    def __init__(self, url: str, token: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.client: httpx.AsyncClient | None = None

    def _params(self) -> dict[str, str]:
        return {"token": self.token} if self.token else {}

    async def open(self, client: httpx.AsyncClient | None) -> None:
        assert client is not None
        self.client = client
        try:
            response = await client.get(self.url + "/version", params=self._params())
            response.raise_for_status()
        except httpx.HTTPError as exc:
            raise EngineError(f"cannot reach the engine: {type(exc).__name__}") from exc

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        assert self.client is not None
        response = await self.client.post(
            self.url + "/model/parse", json={"text": text}, params=self._params()
        )
        response.raise_for_status()
        data = response.json()
        intent = data["intent"]
        name = intent["name"]
        return Prediction(
            intent=name,
            confidence=float(intent["confidence"]),
            ranking=[
                IntentScore(r["name"], float(r["confidence"])) for r in data["intent_ranking"]
            ],
            raw=data,
        )

    def describe(self) -> dict[str, Any]:
        return {"type": self.type_name, "url": self.url}


class Resolved:
    """Stands in for engines.profiles.ResolvedEngine in tests of the runner alone."""

    def __init__(self, engine: Engine, name: str = "loopback") -> None:
        self.name = name
        self.engine = engine
        self.profile_public = engine.describe()
        self.settings = None


def make_suite(n: int, *, name: str = "loop", wrong_every: int = 0) -> Suite:
    """``n`` cases answered by the server's rule; every ``wrong_every``-th expects another intent."""
    intents = ["greet", "bye", "pay", "none"]
    cases = []
    for i in range(n):
        said = intents[i % len(intents)]
        expected = said
        if wrong_every and i % wrong_every == wrong_every - 1:
            expected = "other"
        cases.append(
            TestCase(
                utterance=f"utterance {i} {said}",
                intents=[] if expected == "none" else [ExpectedIntent(expected)],
                id=f"c{i:05d}",
            )
        )
    return Suite(name=name, cases=cases)


def _child(argv: list[str]) -> int:
    """``run URL N STORE [--resume ID]``: run a suite of N cases in this process."""
    from nlu_tui.runner import RunOptions, run_suite
    from nlu_tui.store import RunStore

    url, n, store_path = argv[1], int(argv[2]), Path(argv[3])
    resume = argv[5] if len(argv) > 5 and argv[4] == "--resume" else None
    store = RunStore(store_path)

    def progress(event: Any) -> None:
        print(json.dumps({"run_id": event.run_id, "done": event.done}), flush=True)

    record = asyncio.run(
        run_suite(
            make_suite(n),
            Resolved(LoopbackEngine(url)),
            store,
            options=RunOptions(concurrency=4),
            on_progress=progress,
            resume_run_id=resume,
        )
    )
    print(json.dumps({"final": record.status.value, "run_id": record.id}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))


def write_suite(path: Path, n: int, **kwargs: Any) -> Path:
    """``make_suite(n)`` as a native suite file."""
    from nlu_tui.formats.native import dump_suite

    path.write_text(dump_suite(make_suite(n, **kwargs)), encoding="utf-8")
    return path
