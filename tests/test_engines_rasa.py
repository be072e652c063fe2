"""The Rasa engine against our own Rasa-compatible server (``nlu-tui serve``), on loopback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from nlu_tui.engines.base import ParseContext, create_engine
from nlu_tui.engines.httpcall import SECRET_VALUES_KEY, BadResponseError
from nlu_tui.engines.rasa import RasaEngine, parse_rasa_answer
from nlu_tui.engines.serve import RunningServer, start_server
from nlu_tui.errors import EngineError

MINI = Path(__file__).parent / "fixtures" / "engines" / "mini.nlu.yml"
TOKEN = "rasa-Token-4711"


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    running = await start_server(MINI, port=0, token=TOKEN)
    yield running
    await running.stop()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_parse_over_http_with_token(server: RunningServer) -> None:
    engine = create_engine("rasa", {"url": server.url, "token": TOKEN, SECRET_VALUES_KEY: [TOKEN]})
    assert isinstance(engine, RasaEngine)
    async with httpx.AsyncClient() as client:
        await engine.open(client)
        p = await engine.parse("send 200 dollars to Mario Rossi", ParseContext())
        await engine.close()
    assert engine.server_version == "3.6.21"
    assert p.intent == "transfer_money" and p.confidence is not None and p.confidence > 0.3
    assert p.ranking[0].name == "transfer_money"
    payee = next(e for e in p.entities if e.name == "payee")
    assert (payee.value, payee.text, payee.start, payee.end) == (
        "Mario Rossi",
        "Mario Rossi",
        20,
        31,
    )
    assert p.raw["text"] == "send 200 dollars to Mario Rossi"
    assert engine.describe() == {
        "type": "rasa",
        "url": server.url,
        "server_version": "3.6.21",
        "auth": "token",
    }


async def test_wrong_token_is_a_401_that_does_not_show_the_token(server: RunningServer) -> None:
    wrong = "wrong-Token-0815"
    engine = create_engine("rasa", {"url": server.url, "token": wrong, SECRET_VALUES_KEY: [wrong]})
    await engine.open(None)  # /version needs no auth, as on Rasa
    with pytest.raises(httpx.HTTPStatusError) as caught:
        await engine.parse("hi", ParseContext())
    await engine.close()
    assert caught.value.response.status_code == 401
    assert wrong not in str(caught.value) and TOKEN not in str(caught.value)


async def test_unreachable_server_fails_open() -> None:
    engine = create_engine("rasa", {"url": f"http://127.0.0.1:{_free_port()}"})
    with pytest.raises(EngineError, match="unreachable"):
        await engine.open(None)
    await engine.close()


async def test_jwt_is_sent_as_bearer() -> None:
    from aiohttp import web

    seen: list[str] = []

    async def version(request: web.Request) -> web.Response:
        return web.json_response({"version": "3.6.21"})

    async def parse(request: web.Request) -> web.Response:
        seen.append(request.headers.get("Authorization", ""))
        return web.json_response({"text": "x", "intent": {"name": None, "confidence": 0.0}})

    app = web.Application()
    app.router.add_get("/version", version)
    app.router.add_post("/model/parse", parse)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        engine = create_engine("rasa", {"url": f"http://{host}:{port}/", "jwt": "aaa.bbb.ccc"})
        await engine.open(None)
        p = await engine.parse("x", ParseContext())
        await engine.close()
    finally:
        await runner.cleanup()
    assert seen == ["Bearer aaa.bbb.ccc"]
    assert p.intent is None  # null name means no intent


def test_fallback_maps_to_no_intent_and_keeps_the_real_ranking() -> None:
    body = {
        "text": "hm",
        "intent": {"name": "nlu_fallback", "confidence": 0.3},
        "intent_ranking": [
            {"name": "nlu_fallback", "confidence": 0.3},
            {"name": "greet", "confidence": 0.22},
            {"name": "affirm", "confidence": 0.2},
        ],
        "entities": [
            {
                "entity": "city",
                "start": 0,
                "end": 2,
                "value": "Hamburg",
                "role": "destination",
                "group": "1",
                "confidence_entity": 0.7,
                "extractor": "DIETClassifier",
            },
            {
                "entity": "time",
                "start": 0,
                "end": 1,
                "text": "h",
                "value": {"v": 1},
                "confidence": 1.0,
            },
        ],
    }
    p = parse_rasa_answer(body, "hm")
    assert p.intent is None
    assert [s.name for s in p.ranking] == ["greet", "affirm"]
    assert p.confidence == 0.22
    city, time = p.entities
    assert (city.text, city.value, city.role, city.group, city.confidence) == (
        "hm",
        "Hamburg",
        "destination",
        "1",
        0.7,
    )
    assert (time.text, time.value, time.confidence) == ("h", {"v": 1}, 1.0)
    assert p.raw is body


@pytest.mark.parametrize(
    "body", [[], "x", {"intent": "greet"}, {"intent": {"name": 3}}, {"entities": [{"value": 1}]}]
)
def test_malformed_answers(body: object) -> None:
    with pytest.raises(BadResponseError):
        parse_rasa_answer(body, "x")


def test_bad_url() -> None:
    with pytest.raises(EngineError, match="http"):
        create_engine("rasa", {"url": "localhost:5005"})


def test_serve_command_prints_url_and_answers(tmp_path: Path) -> None:
    """The real CLI in a subprocess: ready line with the URL, Rasa contract, SIGTERM stops it."""
    env = {**os.environ, "SERVE_TOKEN": TOKEN}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "nlu_tui",
            "serve",
            "--nlu",
            str(MINI),
            "--port",
            "0",
            "--latency-ms",
            "30",
            "--auth-token-env",
            "SERVE_TOKEN",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("nlu-tui serve: listening on http://127.0.0.1:"), line
        url = line.split("listening on ", 1)[1].split(" ", 1)[0]
        assert httpx.get(f"{url}/").text.startswith("Hello from nlu-tui")
        assert httpx.get(f"{url}/version").json()["version"] == "3.6.21"
        assert httpx.post(f"{url}/model/parse", json={"text": "hi"}).status_code == 401
        r = httpx.post(f"{url}/model/parse", params={"token": TOKEN}, json={"text": "hello"})
        assert r.status_code == 200 and r.json()["intent"]["name"] == "greet"
        assert r.elapsed.total_seconds() >= 0.03  # the artificial latency
        r = httpx.post(
            f"{url}/model/parse",
            params={"token": TOKEN},
            json={"text": "yes go ahead", "parent_intents": ["transfer_money"]},
        )
        assert r.json()["intent"]["name"] == "confirm_transfer"
        bad = httpx.post(f"{url}/model/parse", params={"token": TOKEN}, content=b"{nope")
        assert bad.status_code == 400 and bad.json()["reason"] == "BadRequest"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    assert proc.returncode == 0
    assert proc.stderr is not None and TOKEN not in proc.stderr.read()


def test_serve_rejects_missing_training_file(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nlu_tui", "serve", "--nlu", str(tmp_path / "none.yml")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert "training data not found" in result.stderr


async def test_profile_secret_never_shows(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ${ENV} token reaches the server but not describe(), the public profile, errors or logs."""
    import json
    import logging

    from nlu_tui.engines.profiles import resolve_engine

    monkeypatch.setenv("BANK_RASA_TOKEN", TOKEN)
    running = await start_server(MINI, port=0, token=TOKEN)
    (tmp_path / "engines.yaml").write_text(
        f"engines:\n  bank:\n    type: rasa\n    url: {running.url}\n    token: ${{BANK_RASA_TOKEN}}\n"
    )
    resolved = resolve_engine("bank", workspace=tmp_path)
    caplog.set_level(logging.DEBUG)
    messages: list[str] = []
    try:
        await resolved.engine.open(None)
        ok = await resolved.engine.parse("hello", ParseContext())
        assert ok.intent == "greet"  # the token was sent and accepted
    finally:
        await running.stop()
    with pytest.raises(httpx.TransportError) as caught:
        await resolved.engine.parse("hello", ParseContext())
    messages.append(str(caught.value))
    await resolved.engine.close()
    reopened = create_engine(
        "rasa", {"url": running.url, "token": TOKEN, SECRET_VALUES_KEY: [TOKEN]}
    )
    with pytest.raises(EngineError) as failed:
        await reopened.open(None)
    messages.append(str(failed.value))
    shown = [
        *messages,
        json.dumps(resolved.profile_public),
        json.dumps(resolved.engine.describe()),
        caplog.text,
    ]
    assert "HTTP Request" in caplog.text  # httpx did log the requests...
    for text in shown:
        assert TOKEN not in text  # ...but never the token


async def test_the_domain_lists_the_intents_and_entities(server: RunningServer) -> None:
    """``GET /domain`` (JSON, with the token) is the bot's inventory for coverage."""
    engine = create_engine("rasa", {"url": server.url, "token": TOKEN, SECRET_VALUES_KEY: [TOKEN]})
    async with httpx.AsyncClient() as client:
        await engine.open(client)
        intents = await engine.list_intents()
        entities = await engine.list_entities()
        await engine.close()
        yaml_answer = await client.get(
            f"{server.url}/domain", params={"token": TOKEN}, headers={"Accept": "application/x-yml"}
        )
        refused = await client.get(f"{server.url}/domain", params={"token": TOKEN},
                                   headers={"Accept": "text/html"})  # fmt: skip
        no_token = await client.get(f"{server.url}/domain")
    from nlu_tui.formats.rasa_yaml import load_training_data

    data = load_training_data(MINI)
    assert intents == [(name, []) for name in data.intents] and len(data.intents) >= 4
    assert entities == data.entity_names and {"amount", "payee", "account"} <= set(entities)
    assert yaml_answer.status_code == 200 and "intents:" in yaml_answer.text
    assert refused.status_code == 406 and no_token.status_code == 401


async def test_a_rasa_domain_in_its_documented_shapes() -> None:
    """Rasa 3 writes an intent or entity as a name or as ``{name: {properties}}``; a missing
    Accept header or a 409 (no model loaded) is an error, not an empty inventory."""
    from vendor_peer import Seen, VendorPeer

    def answer(seen: Seen) -> tuple[int, dict[str, str], object]:
        if seen.path == "/version":
            return 200, {}, {"version": "3.6.21", "minimum_compatible_version": "3.6.21"}
        assert seen.path == "/domain" and seen.header("Accept") == "application/json"
        assert seen.header("Authorization") == "Bearer jwt-0000"
        return 200, {}, {
            "version": "3.1",
            "intents": ["greet", {"inform": {"use_entities": ["city"]}}, {"bye": {}}, "greet"],
            "entities": ["city", {"account": {"roles": ["source", "destination"]}}],
            "slots": {}, "responses": {}, "actions": [], "forms": {}, "e2e_actions": [],
        }  # fmt: skip

    with VendorPeer(answer) as peer:
        engine = create_engine("rasa", {"url": peer.url, "jwt": "jwt-0000"})
        await engine.open(None)
        assert await engine.list_intents() == [("greet", []), ("inform", []), ("bye", [])]
        assert await engine.list_entities() == ["city", "account"]
        await engine.close()
    conflict = {"version": "3.6.21", "status": "failure", "reason": "Conflict", "code": 409,
                "message": "No agent loaded. To continue processing, a model of a trained agent "
                "needs to be loaded."}  # fmt: skip
    with VendorPeer(answer, script=[(200, {}, {"version": "3.6.21"}), (409, {}, conflict)]) as peer:
        engine = create_engine("rasa", {"url": peer.url, "jwt": "jwt-0000"})
        await engine.open(None)
        with pytest.raises(httpx.HTTPStatusError) as caught:
            await engine.list_intents()
        await engine.close()
    assert caught.value.response.status_code == 409
