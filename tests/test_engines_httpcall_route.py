"""``send_json`` on the run's client (httpx over aiohttp's pool): the direct aiohttp route.

The usual answer (2xx JSON, no cookie, no compression) goes to aiohttp's session without an
``httpx.Request`` or ``httpx.Response`` (a third of the client's CPU per case); anything else
must behave exactly as through httpx: compressed bodies, cookies, HTTP errors with their
headers, connection errors with the aiohttp cause, non-JSON answers. Real server on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from aiohttp import web

from nlu_tui.engines.base import ParseContext
from nlu_tui.engines.httpcall import BadResponseError, HttpEngine
from nlu_tui.model import Prediction
from nlu_tui.runner.client import make_client

ANSWER = {"intent": {"name": "greet", "confidence": 0.9}, "text": "hi"}


class Plain(HttpEngine):
    """The least an HTTP engine needs; the tests call ``send_json`` themselves."""

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        raise NotImplementedError


@pytest.fixture
async def server() -> AsyncIterator[tuple[str, list[dict[str, str]]]]:
    seen: list[dict[str, str]] = []

    async def answer(request: web.Request) -> web.Response:
        seen.append({"body": (await request.read()).decode(), **request.headers})
        kind = request.match_info["kind"]
        if kind == "gzip":
            body = gzip.compress(json.dumps(ANSWER).encode())
            return web.Response(body=body, headers={"Content-Encoding": "gzip"})
        if kind == "cookie":
            response = web.json_response(ANSWER)
            response.set_cookie("session", "s1")
            return response
        if kind == "busy":
            return web.Response(status=429, text="slow down", headers={"Retry-After": "7"})
        if kind == "big":
            return web.json_response({"text": "x" * 5000})
        if kind == "bigchunked":
            response = web.StreamResponse(headers={"Content-Type": "application/json"})
            response.enable_chunked_encoding()
            await response.prepare(request)
            await response.write(b'{"text": "')
            for _ in range(10):
                await response.write(b"x" * 1000)
            await response.write(b'"}')
            await response.write_eof()
            return response
        if kind == "html":
            return web.Response(text="<html>oops</html>", content_type="text/html")
        return web.json_response(ANSWER)

    app = web.Application()
    app.router.add_post("/{kind}", answer)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    site = web.SockSite(runner, sock)
    await site.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", seen
    finally:
        await runner.cleanup()


@pytest.fixture(params=["http1", "aiohttp"])
def route(request: pytest.FixtureRequest) -> str:
    """Both direct routes: the run transport's HTTP/1.1 pool (plain http://) and aiohttp's
    session (https://, or a transport without the pool)."""
    return str(request.param)


async def _engine(route: str) -> Plain:
    engine = Plain({})
    client = make_client(concurrency=4, timeout=5.0)
    if route == "aiohttp":
        client._transport.http1_pool = None  # type: ignore[attr-defined]
    await engine.open(client)
    return engine


async def _send(engine: Plain, url: str) -> tuple[Any, float]:
    endpoint = await engine.endpoint("POST", url, headers={"Content-Type": "application/json"})
    return await engine.send_json(endpoint, b'{"text": "hi"}')


async def test_usual_answer_builds_no_httpx_request_or_response(
    server: tuple[str, list[dict[str, str]]], route: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, seen = server
    engine = await _engine(route)
    built: list[str] = []
    for cls in (httpx.Request, httpx.Response):
        original = cls.__init__

        def counting(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> None:
            built.append(type(self).__name__)
            _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", counting)
    endpoint = await engine.endpoint(
        "POST", url + "/json", headers={"Content-Type": "application/json"}
    )
    built.clear()
    for _ in range(3):
        body, latency = await engine.send_json(endpoint, b'{"text": "hi"}')
        assert body == ANSWER and latency > 0
    assert built == []
    assert seen[-1]["body"] == '{"text": "hi"}'
    assert seen[-1]["Content-Type"] == "application/json"
    assert seen[-1]["Content-Length"] == "14"
    assert seen[-1]["User-Agent"].startswith("python-httpx/")
    assert engine.client is not None
    await engine.client.aclose()


async def test_compressed_answer_and_cookies_behave_as_through_httpx(
    server: tuple[str, list[dict[str, str]]],
    route: str,
) -> None:
    url, seen = server
    engine = await _engine(route)
    assert (await _send(engine, url + "/gzip"))[0] == ANSWER
    assert (await _send(engine, url + "/cookie"))[0] == ANSWER
    assert engine.client is not None and engine.client.cookies.get("session") == "s1"
    assert (await _send(engine, url + "/json"))[0] == ANSWER
    assert "session=s1" in seen[-1].get("Cookie", "")
    await engine.client.aclose()


async def test_errors_keep_httpx_types_status_headers_and_cause(
    server: tuple[str, list[dict[str, str]]],
    route: str,
) -> None:
    url, _seen = server
    engine = await _engine(route)
    with pytest.raises(httpx.HTTPStatusError) as busy:
        await _send(engine, url + "/busy?token=sekrit")
    assert busy.value.response.status_code == 429
    assert busy.value.response.headers["Retry-After"] == "7"
    assert "HTTP 429" in str(busy.value) and "slow down" in str(busy.value)
    assert "sekrit" not in str(busy.value)
    with pytest.raises(BadResponseError, match="not JSON"):
        await _send(engine, url + "/html")

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    with pytest.raises(httpx.TransportError) as refused:
        await _send(engine, f"http://127.0.0.1:{port}/json?token=sekrit")
    assert refused.value.request.url.port == port
    assert f"127.0.0.1:{port}/json?…" in str(refused.value)
    assert "sekrit" not in str(refused.value)
    assert refused.value.__cause__ is not None
    assert engine.client is not None
    await engine.client.aclose()
    await asyncio.sleep(0)


async def test_an_answer_cap_is_kept_on_the_direct_route(
    server: tuple[str, list[dict[str, str]]],
    route: str,
) -> None:
    """An engine's ``max_answer_bytes`` (where engines have one) bounds this route too: a
    declared or streamed body over it is refused, and a body under it is read as usual."""
    url, _seen = server
    engine = await _engine(route)
    # set through vars(): the attribute is not declared on every branch of HttpEngine
    vars(engine)["max_answer_bytes"] = 2000
    with pytest.raises(BadResponseError, match=r"answer too large: 50\d\d bytes"):
        await _send(engine, url + "/big")
    with pytest.raises(BadResponseError, match="answer too large: more than 2000 bytes"):
        await _send(engine, url + "/bigchunked")
    assert (await _send(engine, url + "/json"))[0] == ANSWER
    vars(engine)["max_answer_bytes"] = 20000
    assert len((await _send(engine, url + "/bigchunked"))[0]["text"]) == 10000
    assert engine.client is not None
    await engine.client.aclose()
