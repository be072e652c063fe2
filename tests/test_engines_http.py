"""The generic HTTP engine and its JSON paths, against a real aiohttp server on loopback."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from aiohttp import web

from nlu_tui.engines.base import ParseContext, create_engine
from nlu_tui.engines.http_generic import GenericHttpEngine
from nlu_tui.engines.httpcall import SECRET_VALUES_KEY, BadResponseError
from nlu_tui.engines.jsonpath import JsonPath, PathError
from nlu_tui.errors import EngineError

SECRET = "s3cr3t-Token-value"


@dataclass
class Peer:
    """A loopback NLU service answering in a LUIS-like shape, recording what it received."""

    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    mode: str = "ok"


@pytest.fixture
async def peer() -> AsyncIterator[Peer]:
    state = Peer(url="")

    async def predict(request: web.Request) -> web.Response:
        raw = await request.read()
        state.requests.append(
            {
                "method": request.method,
                "query": dict(request.query),
                "headers": dict(request.headers),
                "body": raw.decode(),
            }
        )
        if state.mode == "500":
            return web.json_response({"error": f"boom {SECRET}"}, status=500)
        if state.mode == "429":
            return web.json_response(
                {"error": "slow down"}, status=429, headers={"Retry-After": "2"}
            )
        if state.mode == "garbage":
            return web.Response(text="<html>oops</html>", content_type="text/html")
        if state.mode == "bad-intent":
            return web.json_response({"prediction": {"topIntent": 42}})
        text = json.loads(raw)["query"] if raw else request.query.get("q", "")
        top = "None" if "gibberish" in text else "transfer"
        start = text.find("Anna")
        body = {
            "query": text,
            "prediction": {
                "topIntent": top,
                "intents": {top: {"score": 0.91}, "greet": {"score": 0.05}},
                "entities": [
                    {
                        "category": "payee",
                        "text": "Anna",
                        "offset": start,
                        "length": 4,
                        "resolved": "ANNA",
                    }
                ]
                if start >= 0
                else [],
            },
        }
        return web.json_response(body)

    app = web.Application()
    app.router.add_route("*", "/predict", predict)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    state.url = f"http://{host}:{port}/predict"
    yield state
    await runner.cleanup()


def _luis_like(url: str, **extra: Any) -> dict[str, Any]:
    return {
        "url": url,
        "headers": {"Ocp-Apim-Subscription-Key": SECRET},
        SECRET_VALUES_KEY: [SECRET],
        "body": '{"query": "{text}", "context": {parent}, "path": {parents}}',
        "intent": "prediction.topIntent",
        "confidence": "prediction.intents[*].score",
        "ranking": {"path": "prediction.intents", "name": "@key", "score": "score"},
        "entities": {
            "path": "prediction.entities",
            "name": "category",
            "value": "resolved",
            "start": "offset",
            "text": "text",
        },
        **extra,
    }


async def test_post_template_paths_and_context(peer: Peer) -> None:
    engine = create_engine("http", _luis_like(peer.url))
    await engine.open(None)
    try:
        text = 'Send "50" to Anna\nnow — ünïcode ✓'
        p = await engine.parse(text, ParseContext(parent_intents=["banking", "transfer"]))
    finally:
        await engine.close()
    sent = json.loads(peer.requests[0]["body"])  # valid JSON despite quotes, newline, unicode
    assert sent == {"query": text, "context": "transfer", "path": ["banking", "transfer"]}
    assert peer.requests[0]["headers"]["Ocp-Apim-Subscription-Key"] == SECRET
    assert p.intent == "transfer" and p.confidence == pytest.approx(0.91)
    assert [(s.name, s.confidence) for s in p.ranking] == [("transfer", 0.91), ("greet", 0.05)]
    [entity] = p.entities
    start = text.find("Anna")
    assert (entity.name, entity.value, entity.text, entity.start) == (
        "payee",
        "ANNA",
        "Anna",
        start,
    )
    assert p.raw["query"] == text
    assert p.latency_ms is not None and p.latency_ms >= 0


async def test_no_intent_names_and_missing_parent(peer: Peer) -> None:
    engine = create_engine("http", _luis_like(peer.url))
    p = await engine.parse("gibberish words", ParseContext())
    await engine.close()
    assert json.loads(peer.requests[0]["body"])["context"] is None
    assert p.intent is None
    assert [s.name for s in p.ranking] == ["greet"]  # "None" is not a candidate intent


async def test_get_with_query_placeholders(peer: Peer) -> None:
    engine = create_engine(
        "http", _luis_like(peer.url, method="GET", body=None, query={"q": "{text}", "lang": "en"})
    )
    p = await engine.parse("pay Anna & co?", ParseContext())
    await engine.close()
    assert peer.requests[0]["method"] == "GET"
    assert peer.requests[0]["query"] == {"q": "pay Anna & co?", "lang": "en"}
    assert p.intent == "transfer" and p.entities[0].start == 4


async def test_structured_body_template(peer: Peer) -> None:
    body = {"query": "{text}", "meta": {"parent": "{parent}", "note": "about {text}"}}
    engine = create_engine("http", _luis_like(peer.url, body=body))
    await engine.parse("hi Anna", ParseContext(parent_intents=["greet"]))
    await engine.close()
    assert json.loads(peer.requests[0]["body"]) == {
        "query": "hi Anna",
        "meta": {"parent": "greet", "note": "about hi Anna"},
    }


@pytest.mark.parametrize("mode,status", [("500", 500), ("429", 429)])
async def test_http_errors_raise_status_errors_without_secrets(
    peer: Peer, mode: str, status: int
) -> None:
    peer.mode = mode
    engine = create_engine("http", _luis_like(peer.url + f"?key={SECRET}"))
    with pytest.raises(httpx.HTTPStatusError) as caught:
        await engine.parse("hello", ParseContext())
    await engine.close()
    assert caught.value.response.status_code == status
    assert SECRET not in str(caught.value)
    if status == 429:
        assert caught.value.response.headers["Retry-After"] == "2"


async def test_malformed_answers_are_bad_responses(peer: Peer) -> None:
    engine = create_engine("http", _luis_like(peer.url))
    peer.mode = "garbage"
    with pytest.raises(BadResponseError, match="not JSON"):
        await engine.parse("hello", ParseContext())
    peer.mode = "bad-intent"
    with pytest.raises(BadResponseError, match="not a string"):
        await engine.parse("hello", ParseContext())
    await engine.close()


async def test_unreachable_server_raises_transport_error() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    engine = create_engine("http", {"url": f"http://127.0.0.1:{port}/parse?token={SECRET}"})
    with pytest.raises(httpx.TransportError) as caught:
        await engine.parse("hello", ParseContext())
    await engine.close()
    assert SECRET not in str(caught.value)


async def test_shared_client_is_used_and_not_closed(peer: Peer) -> None:
    async with httpx.AsyncClient() as client:
        engine = create_engine("http", _luis_like(peer.url))
        await engine.open(client)
        await engine.parse("hi", ParseContext())
        await engine.close()
        assert not client.is_closed
    assert len(peer.requests) == 1


def test_bad_settings() -> None:
    with pytest.raises(EngineError, match="url"):
        create_engine("http", {"url": "ftp://x"})
    with pytest.raises(EngineError, match="method"):
        create_engine("http", {"url": "http://x", "method": "DELETE"})
    with pytest.raises(EngineError, match="intent"):
        create_engine("http", {"url": "http://x", "intent": "a..b"})
    with pytest.raises(EngineError, match="unknown key"):
        create_engine("http", {"url": "http://x", "ranking": {"path": "r", "nme": "n"}})


def test_default_paths_read_a_rasa_shaped_answer() -> None:
    engine = create_engine("http", {"url": "http://127.0.0.1:1/x"})
    assert isinstance(engine, GenericHttpEngine)
    body = {
        "intent": {"name": "greet", "confidence": 0.8},
        "intent_ranking": [
            {"name": "greet", "confidence": 0.8},
            {"name": "bye", "confidence": 0.2},
        ],
        "entities": [
            {"entity": "name", "value": "Ann", "start": 3, "end": 6, "confidence_entity": 0.9}
        ],
    }
    p = engine.read_answer(body, "hi Ann")
    assert (p.intent, p.confidence, [s.name for s in p.ranking]) == ("greet", 0.8, ["greet", "bye"])
    assert (p.entities[0].text, p.entities[0].confidence) == ("Ann", 0.9)


def test_json_paths() -> None:
    doc = {
        "a": {"b": [{"c": 1}, {"c": 2}], "x y": 5},
        "m": {"k1": {"s": 0.5}, "k2": {"s": 0.25}},
    }
    assert JsonPath.parse("a.b[0].c").find(doc) == 1
    assert JsonPath.parse("a.b[-1].c").find(doc) == 2
    assert JsonPath.parse("$.a.b[*].c").find_all(doc) == [1, 2]
    assert JsonPath.parse('a["x y"]').find(doc) == 5
    assert JsonPath.parse("a.missing.c").find(doc) is None
    assert JsonPath.parse("a.b[7]").find(doc) is None
    items = JsonPath.parse("m").items(doc)
    assert [JsonPath.parse("@key").find_in_item(i) for i in items] == ["k1", "k2"]
    assert [JsonPath.parse("s").find_in_item(i) for i in items] == [0.5, 0.25]
    assert len(JsonPath.parse("a.b[*]").items(doc)) == 2 == len(JsonPath.parse("a.b").items(doc))
    for bad in ("a..b", "a.", "a[x", ".a", "a b.c]"):
        with pytest.raises(PathError):
            JsonPath.parse(bad)
