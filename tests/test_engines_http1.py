"""The run's own HTTP/1.1 client (:mod:`nlu_tui.engines.http1`) against real servers on
127.0.0.1 that write exactly the bytes each test needs: how an answer's end is found
(Content-Length, chunked, the connection's end; RFC 9112 section 6.3), interim ``1xx``
answers, which connections are kept, a kept connection the server had closed, the limits, and
failures named as for aiohttp (``transport_reason``)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import httpx
import pytest

from nlu_tui.engines.http1 import BodyTooLarge, Http1Pool, Http1Route
from nlu_tui.engines.transport_errors import transport_reason

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


@dataclass
class Server:
    url: str
    connections: int = 0
    closed: list[int] = field(default_factory=list)
    """Connections whose client end closed (the server read EOF), by number."""


async def read_request(reader: asyncio.StreamReader) -> bytes | None:
    """One request (head and Content-Length body), or None at EOF."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return head + await reader.readexactly(length)


def answer(body: bytes, *extra: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n%s" % (
        len(body),
        b"".join(h + b"\r\n" for h in extra),
        body,
    )


@pytest.fixture
async def serve() -> AsyncIterator[Callable[[Handler], Awaitable[Server]]]:
    servers: list[asyncio.Server] = []

    async def start(handler: Handler) -> Server:
        state = Server("")

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            state.connections += 1
            number = state.connections
            try:
                await handler(reader, writer, number)
                if await reader.read() == b"":
                    state.closed.append(number)
            except (ConnectionError, asyncio.IncompleteReadError):
                state.closed.append(number)
            finally:
                writer.close()

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        servers.append(server)
        state.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/parse?x=1"
        return state

    yield start
    for server in servers:
        server.close()


def route(url: str, pool: Http1Pool, read: float | None = 5.0) -> Http1Route:
    headers = [(b"Content-Type", b"application/json")]
    return Http1Route(pool, "POST", httpx.URL(url), headers, {"connect": 5.0, "read": read})


async def wait_for(check: Callable[[], bool]) -> None:
    deadline = asyncio.get_running_loop().time() + 60
    while not check():
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.01)


async def test_kept_connections_carry_the_next_requests(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    requests: list[bytes] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while (request := await read_request(reader)) is not None:
            requests.append(request)
            writer.write(answer(b'{"n": %d}' % n))

    server = await serve(handler)
    pool = Http1Pool(limit=3)
    one = route(server.url, pool)
    for _ in range(5):
        status, headers, body, reason = await one.send(b'{"text": "hi"}', 1000)
        assert (status, body, reason) == (200, b'{"n": 1}', "OK")
        assert headers == [(b"Content-Length", b"8")]
    assert server.connections == 1
    port = server.url.split(":")[2].split("/")[0]
    assert requests[0] == (
        b"POST /parse?x=1 HTTP/1.1\r\nHost: 127.0.0.1:" + port.encode() + b"\r\n"
        b"Content-Type: application/json\r\nContent-Length: 14\r\n\r\n"
        b'{"text": "hi"}'
    )
    # ten at once on a pool of three: never more than three connections
    answers = await asyncio.gather(*(one.send(b"{}", 1000) for _ in range(10)))
    assert all(a[0] == 200 for a in answers)
    assert server.connections <= 3
    await pool.aclose()
    await wait_for(lambda: len(server.closed) == server.connections)


async def test_chunked_answer_in_pieces_with_extensions_and_trailers(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    wire = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n"
    )

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while await read_request(reader) is not None:
            for i in range(0, len(wire), 3):  # three bytes at a time
                writer.write(wire[i : i + 3])
                await writer.drain()
                await asyncio.sleep(0)

    server = await serve(handler)
    pool = Http1Pool(limit=2)
    for _ in range(2):
        status, _headers, body, _reason = await route(server.url, pool).send(b"{}", 1000)
        assert (status, body) == (200, b"hello, world")
    assert server.connections == 1
    with pytest.raises(BodyTooLarge) as too_large:
        await route(server.url, pool).send(b"{}", 10)
    assert (too_large.value.limit, too_large.value.size) == (10, None)
    await wait_for(lambda: server.closed == [1])  # a refused answer's connection is closed
    await pool.aclose()


async def test_how_an_answer_ends_decides_whether_its_connection_is_kept(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    """HTTP/1.0 without a length ends with the connection; ``Connection: close`` and bytes
    after the answer close it; ``1xx`` answers are skipped; a 204 has no body."""
    script = [
        b"HTTP/1.1 100 Continue\r\n\r\n" + answer(b"after 100"),
        b"HTTP/1.1 204 No Content\r\n\r\n",
        answer(b"closing", b"Connection: close"),
        b"HTTP/1.0 200 OK\r\n\r\nto the end",
        answer(b"extra") + b"HTTP/1.1 200 OK\r\n",
        answer(b"last"),
    ]

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while script and await read_request(reader) is not None:
            wire = script.pop(0)
            writer.write(wire)
            await writer.drain()
            if b"HTTP/1.0" in wire:
                writer.write_eof()  # the end of the HTTP/1.0 answer
                return
            # after "Connection: close" this server would go on: the client must not

    server = await serve(handler)
    pool = Http1Pool(limit=1)
    got = [await route(server.url, pool).send(b"{}", 1000) for _ in range(6)]
    assert [(status, body) for status, _h, body, _r in got] == [
        (200, b"after 100"),
        (204, b""),
        (200, b"closing"),
        (200, b"to the end"),
        (200, b"extra"),
        (200, b"last"),
    ]
    # 100 and 204 kept the first connection; "closing", HTTP/1.0 and the extra bytes ended theirs
    assert server.connections == 4
    await pool.aclose()


async def test_a_kept_connection_the_server_closed_is_replaced_once(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    """Two kept connections, both closed by the server when the next request comes (as after
    a server restart): the request goes once more, on a new connection, not on the other
    kept one."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        if n <= 2:
            await read_request(reader)
            writer.write(answer(b"first"))
            await writer.drain()
            await read_request(reader)  # the next request on the kept connection:
            writer.transport.abort()  # closed without a byte of an answer
            return
        while await read_request(reader) is not None:
            writer.write(answer(b"fresh"))

    server = await serve(handler)
    pool = Http1Pool(limit=2)
    one = route(server.url, pool)
    first = await asyncio.gather(one.send(b"{}", 1000), one.send(b"{}", 1000))
    assert [a[2] for a in first] == [b"first", b"first"]
    assert server.connections == 2
    assert (await one.send(b"{}", 1000))[2] == b"fresh"
    assert server.connections == 3
    await pool.aclose()


async def test_a_server_that_closes_mid_answer_or_sends_no_http_is_a_transport_error(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await read_request(reader)
        if n == 1:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial")
        elif n == 2:
            pass  # a new connection closed before any answer
        elif n == 3:
            writer.write(b"SSH-2.0-OpenSSH\r\n\r\n")
        else:
            writer.write(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 70_000)
        await writer.drain()
        writer.transport.abort()

    server = await serve(handler)
    pool = Http1Pool(limit=1)
    for _ in range(2):
        with pytest.raises(httpx.RemoteProtocolError) as closed:
            await route(server.url, pool).send(b"{}", 1000)
        assert transport_reason(closed.value, server.url) == (
            f"connection to {server.url.split('/parse')[0]} failed "
            "(the server closed the connection)"
        )
    with pytest.raises(httpx.RemoteProtocolError, match=r"not an HTTP/1\.x answer"):
        await route(server.url, pool).send(b"{}", 1000)
    with pytest.raises(httpx.RemoteProtocolError, match="headers too long"):
        await route(server.url, pool).send(b"{}", 1000)
    assert server.connections == 4
    await pool.aclose()


async def test_refused_connection_silent_server_and_declared_size_over_the_limit(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    pool = Http1Pool(limit=2)
    with pytest.raises(httpx.ConnectError) as refused:
        await route(f"http://127.0.0.1:{port}/parse", pool).send(b"{}", 1000)
    assert isinstance(refused.value.__cause__, ConnectionRefusedError)
    assert transport_reason(refused.value, f"http://127.0.0.1:{port}/parse") == (
        f"cannot connect to http://127.0.0.1:{port} (connection refused)"
    )

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await read_request(reader)
        if n == 1:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + b"x" * 10)
            await writer.drain()
        await reader.read()  # then silence until the client goes

    server = await serve(handler)
    with pytest.raises(BodyTooLarge) as too_large:
        await route(server.url, pool).send(b"{}", 1000)
    assert (too_large.value.limit, too_large.value.size) == (1000, 5000)
    with pytest.raises(httpx.ReadTimeout) as silent:
        await route(server.url, pool, read=0.2).send(b"{}", 1000)
    assert transport_reason(silent.value, server.url).endswith("(timed out)")
    await wait_for(lambda: server.closed == [1, 2])  # neither connection is kept
    await pool.aclose()


async def test_an_attempt_cut_by_its_deadline_closes_its_connection(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    """The kernel's attempt deadline cancels the request: the connection (an answer may still
    come on it) is closed, never handed to the next request."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await read_request(reader)
        if n == 1:
            await asyncio.sleep(0.5)
        writer.write(answer(b"late" if n == 1 else b"next"))
        await writer.drain()

    server = await serve(handler)
    pool = Http1Pool(limit=1)
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.1):
            await route(server.url, pool).send(b"{}", 1000)
    assert (await route(server.url, pool).send(b"{}", 1000))[2] == b"next"
    assert server.connections == 2
    await wait_for(lambda: 1 in server.closed)
    await pool.aclose()


async def test_the_run_client_sends_plain_http_through_its_pool_and_closes_it(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    """``make_client`` (the run's client) carries the pool; an HTTP engine's request to an
    ``http://`` address goes through it, and closing the client closes its connections."""
    from nlu_tui.engines.base import ParseContext
    from nlu_tui.engines.httpcall import HttpEngine
    from nlu_tui.model import Prediction
    from nlu_tui.runner.client import make_client

    class Plain(HttpEngine):
        async def parse(self, text: str, context: ParseContext) -> Prediction:
            raise NotImplementedError

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while await read_request(reader) is not None:
            writer.write(answer(b'{"ok": true}', b"Content-Type: application/json"))

    server = await serve(handler)
    client = make_client(concurrency=2, timeout=5.0)
    engine = Plain({})
    await engine.open(client)
    endpoint = await engine.endpoint("POST", server.url)
    for _ in range(3):
        body, _latency = await engine.send_json(endpoint, b"{}")
        assert body == {"ok": True}
    pool = client._transport.http1_pool  # type: ignore[attr-defined]
    assert isinstance(pool, Http1Pool) and len(pool._open) == 1
    assert server.connections == 1
    await client.aclose()
    await wait_for(lambda: server.closed == [1])


async def test_a_server_that_speaks_first_gets_no_request(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    """Bytes before any request (not an HTTP server) close the connection; the request fails
    at once as a closed connection instead of waiting for its read timeout."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        writer.write(b"220 smtp.example ESMTP\r\n")
        await writer.drain()
        await asyncio.sleep(0.3)  # the client has read the greeting (and closed) by then

    server = await serve(handler)
    pool = Http1Pool(limit=1)
    loop = asyncio.get_running_loop()
    connection = await pool._connect(
        ("127.0.0.1", int(server.url.split(":")[2].split("/")[0])), 5.0, loop
    )
    await wait_for(lambda: connection.closed)
    began = loop.time()
    with pytest.raises(httpx.RemoteProtocolError):
        await pool._read(connection, b"GET / HTTP/1.1\r\n\r\n", 1000, False, 30.0)
    assert loop.time() - began < 5.0
    await pool.aclose()
