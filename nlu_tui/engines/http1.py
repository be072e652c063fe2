"""A small HTTP/1.1 keep-alive client for the run's usual request: plain ``http://``, one
request at a time per connection, the whole answer read into memory.

A run sends thousands of near-identical requests, and on a 2-core machine the client's CPU per
request is taken from the engine (``bench/bench_runner_throughput.py``). aiohttp's
``ClientSession.request`` costs about 170 µs of CPU per request there (request and response
objects, a stream reader, timers per read, connector bookkeeping); writing the request's bytes
on an ``asyncio.Protocol`` and cutting the answer out of the received bytes costs about 35 µs.
So :mod:`nlu_tui.engines.httpcall` sends the usual request (``http://``, no proxy, no cookie,
no auth, no redirects) through :class:`Http1Pool`, which the run's transport carries
(:mod:`nlu_tui.runner.client`); ``https://`` and everything else go through aiohttp as before.

What it does, as RFC 9112 says and aiohttp does: the body's end is the ``Content-Length``, the
chunked encoding's last chunk, or (neither) the connection's end; ``1xx`` answers before the
real one are skipped; ``HEAD``, ``204`` and ``304`` answers have no body; a connection is kept
for the next request unless the answer says ``Connection: close`` (or is HTTP/1.0 without
``keep-alive``), its body ran to the connection's end, or bytes came after it. Limits: a head
over :data:`MAX_HEAD_BYTES` is refused, and a body over the caller's limit is refused before it
is read on (declared) or as it arrives (:class:`BodyTooLarge`); that connection is closed.

Failures are httpx's exceptions with the OS error as their cause, so
:func:`nlu_tui.engines.transport_errors.transport_reason` names them as it names aiohttp's:
``httpx.ConnectError`` (refused, host not found), ``httpx.ConnectTimeout``,
``httpx.ReadTimeout`` (no byte for the read timeout), ``httpx.RemoteProtocolError`` (the server
closed the connection, or sent something that is not HTTP/1.x). A request on a kept connection
that the server had closed meanwhile (no byte of an answer came back) is sent once more on a
new connection, as HTTP clients do for idle connections.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

import httpx

MAX_HEAD_BYTES = 64 * 1024
"""The largest status line plus headers read from an answer (aiohttp: 8190 per line)."""

Answer = tuple[int, list[tuple[bytes, bytes]], bytes, str | None]
"""(status, raw headers, body, reason phrase): what :meth:`Http1Route.send` returns."""

_NO_BODY_STATUS = frozenset({204, 304})
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class BodyTooLarge(Exception):
    """An answer's body is over the read limit (``size`` when its length was declared)."""

    def __init__(self, limit: int, size: int | None) -> None:
        super().__init__(limit, size)
        self.limit = limit
        self.size = size


class _Stale(Exception):
    """A kept connection ended before any byte of the answer: the server had closed it."""


class _Connection(asyncio.Protocol):
    """One TCP connection and the answer it is reading (at most one at a time)."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.idle_since = 0.0
        self.used = False
        """It has carried a request before (a kept connection)."""
        self._waiter: asyncio.Future[Answer] | None = None
        self._buffer = bytearray()
        self._got_bytes = False
        self._last_read = 0.0
        self._limit = 0
        self._no_body = False
        # the answer being read
        self._head: tuple[int, list[tuple[bytes, bytes]], str | None] | None = None
        self._keep = True
        self._mode = ""  # "length", "chunked" or "eof" once the head is read; then "done"
        self._need = 0
        self._body = bytearray()

    # --- asyncio.Protocol ----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        waiter = self._waiter
        if waiter is None or waiter.done():
            return
        if self._mode == "eof" and self._head is not None:
            self._keep = False
            self._done(bytes(self._body))
            return
        if not self._got_bytes and self.used:
            waiter.set_exception(_Stale())
            return
        error = httpx.RemoteProtocolError("Server disconnected")
        if exc is not None:
            error.__cause__ = exc
        waiter.set_exception(error)

    def data_received(self, data: bytes) -> None:
        waiter = self._waiter
        if waiter is None or waiter.done():  # bytes nobody asked for: never reuse this one
            self.close()
            return
        self._got_bytes = True
        self._last_read = time.monotonic()
        self._buffer += data
        try:
            self._parse()
        except Exception as exc:
            self.close()
            if not waiter.done():
                waiter.set_exception(exc)

    # --- one exchange --------------------------------------------------------------------

    def start(
        self, request: bytes, limit: int, no_body: bool, loop: asyncio.AbstractEventLoop
    ) -> asyncio.Future[Answer]:
        """Write ``request``; the future is the answer."""
        assert self.transport is not None
        self._waiter = loop.create_future()
        self._buffer.clear()
        self._body = bytearray()
        self._got_bytes = False
        self._last_read = time.monotonic()
        self._limit = limit
        self._no_body = no_body
        self._head, self._keep, self._mode, self._need = None, True, "", 0
        if self.closed:  # the server closed it, or sent bytes before any request
            self._waiter.set_exception(httpx.RemoteProtocolError("Server disconnected"))
            return self._waiter
        self.transport.write(request)
        return self._waiter

    def finished_cleanly(self) -> bool:
        """The last answer was read whole and the connection may carry another request."""
        return not self.closed and self._keep and not self._buffer

    def last_read(self) -> float:
        return self._last_read

    def fail(self, error: Exception) -> None:
        """End the awaited answer with ``error`` (the connection is closed by its user)."""
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(error)

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _done(self, body: bytes) -> None:
        assert self._head is not None and self._waiter is not None
        status, headers, reason = self._head
        self.used = True
        if not self._waiter.done():
            self._waiter.set_result((status, headers, body, reason))

    def _parse(self) -> None:
        buffer = self._buffer
        while self._head is None:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > MAX_HEAD_BYTES:
                    raise httpx.RemoteProtocolError("answer headers too long")
                return
            if end > MAX_HEAD_BYTES:
                raise httpx.RemoteProtocolError("answer headers too long")
            head = bytes(buffer[:end])
            del buffer[: end + 4]
            self._read_head(head)
        if self._mode == "length":
            if len(buffer) >= self._need:
                body = bytes(buffer[: self._need])
                del buffer[: self._need]
                self._mode = "done"
                self._done(body)
        elif self._mode == "done":
            return
        elif self._mode == "chunked":
            self._read_chunks()
        else:  # "eof": the connection's end is the body's
            self._body += buffer
            buffer.clear()
            if len(self._body) > self._limit:
                raise BodyTooLarge(self._limit, None)

    def _read_head(self, head: bytes) -> None:
        lines = head.split(b"\r\n")
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise httpx.RemoteProtocolError(f"not an HTTP/1.x answer: {lines[0][:40]!r}")
        status = int(parts[1])
        reason = parts[2].decode("latin-1") if len(parts) > 2 else None
        headers: list[tuple[bytes, bytes]] = []
        length: int | None = None
        chunked = False
        keep = parts[0] != b"HTTP/1.0"
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep or not name or name != name.strip():
                raise httpx.RemoteProtocolError(f"malformed answer header: {line[:40]!r}")
            value = value.strip()
            headers.append((name, value))
            lower = name.lower()
            if lower == b"content-length":
                if not value.isdigit() or (length is not None and length != int(value)):
                    raise httpx.RemoteProtocolError("malformed Content-Length in the answer")
                length = int(value)
            elif lower == b"transfer-encoding":
                chunked = value.lower().endswith(b"chunked")
            elif lower == b"connection":
                tokens = value.lower()
                if b"close" in tokens:
                    keep = False
                elif b"keep-alive" in tokens:
                    keep = True
        if 100 <= status < 200:
            return  # an interim answer (100 Continue...): the real one follows
        self._head = (status, headers, reason)
        self._keep = keep
        if self._no_body or status in _NO_BODY_STATUS:
            self._mode = "done"
            self._done(b"")
        elif chunked:
            self._mode = "chunked"
        elif length is not None:
            if length > self._limit:
                raise BodyTooLarge(self._limit, length)
            self._mode, self._need = "length", length
        else:
            self._mode, self._keep = "eof", False

    def _read_chunks(self) -> None:
        buffer = self._buffer
        while True:
            if self._need > 0:  # inside a chunk's data (+ its CRLF)
                if len(buffer) < self._need:
                    return
                self._body += buffer[: self._need - 2]
                if buffer[self._need - 2 : self._need] != b"\r\n":
                    raise httpx.RemoteProtocolError("malformed chunked answer")
                del buffer[: self._need]
                self._need = 0
                continue
            if self._need < 0:  # after the last chunk: trailer fields up to an empty line
                end = buffer.find(b"\r\n")
                if end < 0:
                    if len(buffer) > MAX_HEAD_BYTES:
                        raise httpx.RemoteProtocolError("answer trailers too long")
                    return
                del buffer[: end + 2]  # a trailer field is ignored
                if end == 0:
                    self._mode = "done"
                    self._done(bytes(self._body))
                    return
                continue
            end = buffer.find(b"\r\n")
            if end < 0:
                if len(buffer) > 1024:
                    raise httpx.RemoteProtocolError("malformed chunked answer")
                return
            size_text = bytes(buffer[:end]).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise httpx.RemoteProtocolError("malformed chunked answer") from None
            del buffer[: end + 2]
            if size == 0:
                self._need = -1
                continue
            if len(self._body) + size > self._limit:
                raise BodyTooLarge(self._limit, None)
            self._need = size + 2


class Http1Pool:
    """Kept connections per origin for one client, at most ``limit`` at once (as aiohttp's
    connector), dropped after ``keepalive_expiry`` seconds idle. Close it with the client.

    The read timeout costs no timer per request: one watcher task, while answers are awaited,
    looks every quarter of the shortest read timeout (at most every second) for a connection
    that has had no byte for its timeout, and fails that request with ``httpx.ReadTimeout``.
    """

    def __init__(self, limit: int | None, keepalive_expiry: float | None = 5.0) -> None:
        self._limit = limit
        self._expiry = keepalive_expiry
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._open: set[_Connection] = set()
        self._active = 0
        self._queue: deque[asyncio.Future[None]] = deque()
        self._reading: dict[_Connection, float] = {}
        """Connections awaiting an answer, and their read timeouts."""
        self._tick = 1.0
        self._watcher: asyncio.Task[None] | None = None
        self.closed = False

    def usable(self) -> bool:
        """False on another event loop than the first (a pool's connections belong to one)."""
        if self.closed:
            return False
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        return self._loop is None or self._loop is loop

    async def aclose(self) -> None:
        self.closed = True
        if self._watcher is not None:
            self._watcher.cancel()
            self._watcher = None
        for connection in list(self._open):
            connection.close()
        self._open.clear()
        self._idle.clear()

    def _take(self, key: tuple[str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        now = time.monotonic()
        while idle:
            connection = idle.pop()
            if not connection.closed and (
                self._expiry is None or now - connection.idle_since < self._expiry
            ):
                return connection
            connection.close()
            self._open.discard(connection)
        return None

    def _give_back(self, key: tuple[str, int], connection: _Connection) -> None:
        if self.closed or not connection.finished_cleanly():
            connection.close()
            self._open.discard(connection)
            return
        connection.idle_since = time.monotonic()
        self._idle.setdefault(key, []).append(connection)

    async def _connect(
        self, key: tuple[str, int], timeout: float | None, loop: asyncio.AbstractEventLoop
    ) -> _Connection:
        try:
            async with asyncio.timeout(timeout):
                _transport, connection = await loop.create_connection(_Connection, *key)
        except TimeoutError as exc:
            raise httpx.ConnectTimeout("connect timed out") from exc
        except OSError as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__) from exc
        self._open.add(connection)
        return connection

    async def _acquire(self, loop: asyncio.AbstractEventLoop) -> None:
        """One of ``limit`` places (a counter: the run's workers rarely wait here)."""
        while self._limit and self._active >= self._limit:
            waiter: asyncio.Future[None] = loop.create_future()
            self._queue.append(waiter)
            try:
                await waiter
            except BaseException:
                if waiter.done() and not waiter.cancelled():
                    self._wake()  # woken, then canceled: hand the place on
                raise
        self._active += 1

    def _release(self) -> None:
        self._active -= 1
        self._wake()

    def _wake(self) -> None:
        while self._queue:
            waiter = self._queue.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    async def exchange(
        self,
        key: tuple[str, int],
        request: bytes,
        *,
        limit: int,
        no_body: bool,
        connect_timeout: float | None,
        read_timeout: float | None,
    ) -> Answer:
        """Send ``request`` (whole bytes) to ``key`` (host, port) and read its answer."""
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
        await self._acquire(loop)
        try:
            for attempt in range(2):  # again, on a new connection, when a kept one was stale
                connection = (self._take(key) if not attempt else None) or await self._connect(
                    key, connect_timeout, loop
                )
                try:
                    answer = await self._read(connection, request, limit, no_body, read_timeout)
                except _Stale:
                    connection.close()
                    self._open.discard(connection)
                    continue
                except BaseException:
                    connection.close()
                    self._open.discard(connection)
                    raise
                self._give_back(key, connection)
                return answer
            raise httpx.RemoteProtocolError("Server disconnected")
        finally:
            self._release()

    async def _read(
        self,
        connection: _Connection,
        request: bytes,
        limit: int,
        no_body: bool,
        read_timeout: float | None,
    ) -> Answer:
        waiter = connection.start(request, limit, no_body, asyncio.get_running_loop())
        if read_timeout is None:
            return await waiter
        reading = self._reading
        reading[connection] = read_timeout
        if read_timeout / 4 < self._tick:
            self._tick = max(read_timeout / 4, 0.01)
        if self._watcher is None:
            self._watcher = asyncio.get_running_loop().create_task(self._watch())
        try:
            return await waiter
        finally:
            del reading[connection]

    async def _watch(self) -> None:
        """Fail the requests whose connection has had no byte for its read timeout."""
        try:
            while self._reading:
                await asyncio.sleep(self._tick)
                now = time.monotonic()
                for connection, read_timeout in list(self._reading.items()):
                    if now - connection.last_read() >= read_timeout:
                        connection.fail(httpx.ReadTimeout("read timed out"))
        finally:
            self._watcher = None


class Http1Route:
    """One endpoint's request head, made once: ``send`` adds the length and the body."""

    def __init__(
        self,
        pool: Http1Pool,
        method: str,
        url: httpx.URL,
        headers: Sequence[tuple[bytes, bytes]],
        timeout: dict[str, Any],
    ) -> None:
        self.pool = pool
        self.method = method
        port = url.port or 80
        self.key = (url.host, port)
        lines = [f"{method} ".encode() + (url.raw_path or b"/") + b" HTTP/1.1"]
        names = {name.lower() for name, _value in headers}
        if b"host" not in names:
            lines.append(b"Host: " + url.netloc)
        lines.extend(name + b": " + value for name, value in headers)
        self._has_type = b"content-type" in names
        self._head = b"\r\n".join(lines) + b"\r\n"
        self._connect = timeout.get("connect")
        self._read = timeout.get("read")

    async def send(self, content: bytes, limit: int) -> Answer:
        """The answer to one request with ``content`` as its body."""
        extra = b""
        if content or self.method in _BODY_METHODS:
            if content and not self._has_type:  # what aiohttp adds to a body without a type
                extra = b"Content-Type: application/octet-stream\r\n"
            extra += b"Content-Length: %d\r\n" % len(content)
        return await self.pool.exchange(
            self.key,
            self._head + extra + b"\r\n" + content,
            limit=limit,
            no_body=self.method == "HEAD",
            connect_timeout=self._connect,
            read_timeout=self._read,
        )
