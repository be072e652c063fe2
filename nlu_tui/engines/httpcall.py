"""What the HTTP engines share: one request with redacted errors, and a malformed-answer error.

Errors raised from ``parse`` keep the exception types the runner retries on
(``httpx.TransportError``, ``httpx.HTTPStatusError`` with ``.response`` for the status and
``Retry-After``), but their messages never carry a secret: a profile's resolved ``${ENV}``
values and the request URL's query (``?token=``) are replaced by ``***``.

A run sends thousands of near-identical requests, and on a small machine the client's CPU per
request is what caps its rate (``bench/bench_runner_throughput.py``). So an engine may work out
an :class:`Endpoint` once (URL parsed, query and the client's headers merged, timeout) and send
each request straight to the client's transport, skipping the cookie, auth, redirect and
event-hook layers of ``AsyncClient.send`` whenever the client uses none of them. When that
transport is ``httpx_aiohttp``'s, the usual answer (2xx JSON, no cookie, no compression) is
fetched from aiohttp's session directly, without building an ``httpx.Request``/``Response``
or their stream adapters; every other answer goes through httpx as before.
"""

from __future__ import annotations

import datetime
import json
import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from nlu_tui.engines.base import Engine
from nlu_tui.errors import EngineError

if TYPE_CHECKING:
    import httpx

SECRET_VALUES_KEY = "_secret_values"
"""Settings key under which profiles hand engines the resolved secrets to redact."""

_HTTPX_LOG = logging.getLogger("httpx")
_PER_REQUEST_HEADERS = frozenset({b"content-length", b"transfer-encoding", b"cookie"})
_PER_REQUEST_LENGTH = frozenset({b"content-length", b"transfer-encoding"})
"""What the HTTP/1.1 pool's route adds itself to a request it sends (see ``Http1Route``)."""
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


MAX_ANSWER_BYTES = 16 * 1024 * 1024
"""The largest answer read from an engine; above it the case is an ERROR and the read stops,
so a runaway engine cannot fill the memory (what is stored is capped lower: ``cap_raw``)."""


class BadResponseError(Exception):
    """The engine answered, but not with JSON of the expected shape: that case is an ERROR."""


class AnswerTooLargeError(BadResponseError):
    """The answer is above :data:`MAX_ANSWER_BYTES`: refused, not read to its end."""


def _too_large(limit: int, size: int | None = None) -> AnswerTooLargeError:
    told = f"{size} bytes" if size is not None else f"more than {limit} bytes"
    return AnswerTooLargeError(f"answer too large: {told} (the limit is {limit} bytes)")


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret replaced by ``***``, in every form it may come back in
    (URL-encoded, JSON-escaped, another case: see :mod:`nlu_tui.engines.redact`)."""
    from nlu_tui.engines.redact import mask_secrets  # errors only: keep it off the import path

    return mask_secrets(text, secrets)


def safe_url(url: Any) -> str:
    """A URL fit for a message: no user info, no query string."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(str(url))
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    text = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    return text + ("?…" if parts.query else "")


def decode_json(content: bytes) -> Any:
    """Decode an answer (orjson; the standard library for what only it reads, e.g. UTF-16)."""
    try:
        return orjson.loads(content)
    except orjson.JSONDecodeError:
        return json.loads(content)


class _QueryScrubber(logging.Filter):
    """httpx logs every request URL at INFO; ``?token=`` must not reach a log that way."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(
                safe_url(arg) if type(arg).__name__ == "URL" else arg for arg in record.args
            )
        return True


def _install_log_scrubber() -> None:
    if not any(isinstance(f, _QueryScrubber) for f in _HTTPX_LOG.filters):
        _HTTPX_LOG.addFilter(_QueryScrubber())


_install_log_scrubber()


@dataclass(frozen=True)
class Endpoint:
    """A request target worked out once for one client (see the module docstring).

    ``headers`` are the client's defaults merged with the engine's, as ``client.build_request``
    merges them, minus what belongs to each request (length, cookies).
    """

    client: httpx.AsyncClient
    method: str
    url: httpx.URL
    headers: httpx.Headers
    extensions: dict[str, Any]
    routes: list[_AiohttpRoute | _Http1Route] = field(
        default_factory=list, compare=False, repr=False
    )
    """The aiohttp route worked out on first use (see :func:`_aiohttp_route`)."""


def required_setting(settings: Mapping[str, Any], key: str, engine: str) -> str:
    """A setting a vendor engine cannot work without (EngineError naming it: exit 2)."""
    value = settings.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise EngineError(f"{engine} engine: missing required setting {key!r}")
    if isinstance(value, Mapping | list):
        raise EngineError(f"{engine} engine: setting {key!r} must be a string")
    return str(value).strip()


def required_url(settings: Mapping[str, Any], key: str, engine: str) -> str:
    """A required base URL (``http(s)://``), without its trailing slash."""
    url = required_setting(settings, key, engine)
    if not url.startswith(("http://", "https://")):
        raise EngineError(f"{engine} engine: {key} must start with https://, got {url!r}")
    return url.rstrip("/")


def vendor_message(response: httpx.Response) -> str:
    """The service's own error text (``error.message``, ``message``, ``error``,
    ``errors[0].msg``), or ''."""
    try:
        body = decode_json(response.content)
    except (ValueError, UnicodeDecodeError):
        return response.text[:200].strip()
    if isinstance(body, dict):
        errors = body.get("errors")  # Kore.ai: {"errors": [{"msg": ..., "code": ...}]}
        if isinstance(errors, list) and errors and isinstance(errors[0], dict):
            said = errors[0].get("msg") or errors[0].get("message")
            if isinstance(said, str):
                return said[:200].strip()
        error = body.get("error")
        if isinstance(error, dict):
            error = error.get("message") or error.get("code")
        found = error if isinstance(error, str) else body.get("message") or body.get("Message")
        if isinstance(found, str):
            return found[:200].strip()
    return ""


class HttpEngine(Engine):
    """Base of engines that answer over HTTP: owns a client only when the runner gives none."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.secrets: list[str] = [str(s) for s in settings.get(SECRET_VALUES_KEY, []) if s]
        self.client: httpx.AsyncClient | None = None
        self._own_client = False
        self.request_timeout = float(settings.get("timeout", 30.0) or 30.0)
        self.max_answer_bytes = MAX_ANSWER_BYTES

    def _redact(self, text: str) -> str:
        return redact(text, self.secrets)

    def refused(
        self, exc: httpx.HTTPStatusError, vendor: str, hints: Mapping[int, str]
    ) -> Exception:
        """A vendor's refusal (401/403: bad key, signature or quota) as a clear case error that
        names the problem and never the secret; other statuses are left for the runner (429
        and 5xx are retried, ``Retry-After`` honoured)."""
        status = exc.response.status_code
        hint = hints.get(status)
        if hint is None:
            return exc
        message = f"{vendor} refused the request (HTTP {status}): {hint}"
        said = self._redact(vendor_message(exc.response))
        if said:
            message += f"; the service said: {said}"
        return EngineError(message)

    async def _client(self) -> httpx.AsyncClient:
        if self.client is None:
            import httpx

            self.client = httpx.AsyncClient(timeout=self.request_timeout)
            self._own_client = True
        return self.client

    async def open(self, client: httpx.AsyncClient | None) -> None:
        if client is not None:
            self.client = client
            self._own_client = False

    async def close(self) -> None:
        if self._own_client and self.client is not None:
            await self.client.aclose()
        self.client = None
        self._own_client = False

    async def endpoint(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Endpoint:
        """Merge URL, query and headers with the current client's settings, once."""
        import httpx

        client = await self._client()
        template = client.build_request(method, url, params=params, headers=headers)
        kept = [(k, v) for k, v in template.headers.raw if k.lower() not in _PER_REQUEST_HEADERS]
        return Endpoint(
            client, template.method, template.url, httpx.Headers(kept), template.extensions
        )

    def _request(self, endpoint: Endpoint, content: bytes) -> httpx.Request:
        """The ``httpx.Request`` that ``send_json`` sends (built directly: merging costs more)."""
        import httpx

        headers = httpx.Headers(endpoint.headers)
        if content or endpoint.method in _BODY_METHODS:
            headers["Content-Length"] = str(len(content))
        request = httpx.Request(
            endpoint.method,
            endpoint.url,
            headers=headers,
            stream=httpx.ByteStream(content),
            extensions=endpoint.extensions,
        )
        request.read()
        return request

    async def _exchange_aiohttp(
        self, endpoint: Endpoint, route: _AiohttpRoute | _Http1Route, content: bytes
    ) -> tuple[Any, float]:
        """``_exchange`` over aiohttp's session itself, for the usual answer (2xx, JSON, no
        cookie, no compression): no ``httpx.Request``/``Response`` and no stream adapters are
        built for it. Anything else becomes the ``httpx.Response`` the transport would have
        made and takes ``_exchange``'s own path: same errors, cookies and messages."""
        started = time.perf_counter()
        # an engine's cap on answers, where engines have one (the same as on the httpx path)
        limit: int = self.max_answer_bytes
        try:
            status, raw_headers, body, reason = await route.send(endpoint.method, content, limit)
        except Exception as exc:  # (imported here: the usual answer pays for no import)
            import httpx

            from nlu_tui.engines.http1 import BodyTooLarge

            if isinstance(exc, BodyTooLarge):
                raise _too_large(exc.limit, exc.size) from None
            if not isinstance(exc, httpx.TransportError):
                raise
            request = self._request(endpoint, content)  # mapped as the transport maps them
            message = self._redact(str(exc) or "connection failed")
            raise type(exc)(f"{message} ({safe_url(request.url)})", request=request) from (
                exc.__cause__ or exc
            )
        latency = (time.perf_counter() - started) * 1000.0
        if status < 400 and not any(k.lower() in _SLOW_ANSWER for k, _v in raw_headers):
            try:
                return decode_json(body), latency
            except (ValueError, UnicodeDecodeError):
                pass  # the error message is _exchange's
        import httpx

        request = self._request(endpoint, content)
        extensions: dict[str, Any] = {"http_version": b"HTTP/1.1"}
        if reason:
            extensions["reason_phrase"] = reason.encode()
        response = httpx.Response(
            status_code=status,
            headers=raw_headers,
            stream=httpx.ByteStream(body),
            request=request,
            extensions=extensions,
        )
        await _read_bounded(response, limit)  # decodes Content-Encoding as httpx does, capped
        if "set-cookie" in response.headers:
            endpoint.client.cookies.extract_cookies(response)
        return self._answer(response, request, latency)

    async def send_json(self, endpoint: Endpoint, content: bytes = b"") -> tuple[Any, float]:
        """Send ``content`` to ``endpoint``; the decoded JSON answer and the latency in ms."""
        route = _aiohttp_route(endpoint)
        if route is not None:
            return await self._exchange_aiohttp(endpoint, route, content)
        return await self._exchange(endpoint.client, self._request(endpoint, content))

    async def request_json(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        json_body: Any = None,
        content: bytes | None = None,
    ) -> tuple[Any, float]:
        """Send one request; return the decoded JSON answer and the latency in milliseconds."""
        client = await self._client()
        request = client.build_request(
            method, url, params=params, headers=headers, json=json_body, content=content
        )
        return await self._exchange(client, request)

    async def _exchange(
        self, client: httpx.AsyncClient, request: httpx.Request
    ) -> tuple[Any, float]:
        import httpx

        started = time.perf_counter()
        try:
            response = await _send(client, request, self.max_answer_bytes)
        except httpx.TransportError as exc:
            from nlu_tui.engines.transport_errors import transport_reason

            message = self._redact(transport_reason(exc, request.url))
            # Keep the underlying cause: the runner reads it to tell timeouts from refusals
            # (httpx-aiohttp reports every connection error as ConnectTimeout).
            raise type(exc)(message, request=exc.request) from (exc.__cause__ or exc)
        latency = (time.perf_counter() - started) * 1000.0
        return self._answer(response, request, latency)

    def _answer(
        self, response: httpx.Response, request: httpx.Request, latency: float
    ) -> tuple[Any, float]:
        """The decoded JSON of a read answer, or the error an engine raises for it."""
        import httpx

        if response.status_code >= 400:
            snippet = self._redact(response.text[:200].strip())
            message = f"HTTP {response.status_code} from {safe_url(request.url)}"
            if snippet:
                message += f": {snippet}"
            raise httpx.HTTPStatusError(message, request=response.request, response=response)
        try:
            body = decode_json(response.content)
        except (ValueError, UnicodeDecodeError):
            snippet = self._redact(response.text[:80].strip())
            raise BadResponseError(
                f"answer is not JSON (HTTP {response.status_code}): {snippet!r}"
            ) from None
        return body, latency


_SLOW_ANSWER = frozenset({b"set-cookie", b"content-encoding"})
"""Answer headers that send an answer through httpx (cookie jar, decompression)."""


class _AiohttpRoute:
    """What ``send_json`` hands aiohttp for one endpoint: the transport's session, the URL,
    the headers and the timeouts, converted once as ``httpx_aiohttp`` converts them per call."""

    def __init__(self, transport: Any, endpoint: Endpoint) -> None:
        from aiohttp import ClientTimeout
        from multidict import CIMultiDict

        self.transport = transport
        self.owner: Any = transport
        """The client's transport this route was worked out for (``transport`` or its owner)."""
        self.url = str(endpoint.url)
        self.headers = CIMultiDict(endpoint.headers.multi_items())
        timeout = endpoint.extensions.get("timeout", {})
        self.timeout = ClientTimeout(
            sock_connect=timeout.get("connect"),
            sock_read=timeout.get("read"),
            connect=timeout.get("pool"),
        )
        self.server_hostname = endpoint.extensions.get("sni_hostname")

    async def send(
        self, method: str, content: bytes, limit: int | None = None
    ) -> tuple[int, Any, bytes, str | None]:
        """(status, raw headers, body, reason) of one request, read in full; aiohttp's errors
        mapped to httpx's as the transport maps them. With ``limit``, a body over that many
        bytes (declared or as it arrives) raises :class:`BodyTooLarge` and is not read on."""
        from aiohttp import ClientSession
        from httpx_aiohttp.transport import map_aiohttp_exceptions

        transport = self.transport
        if not isinstance(transport.client, ClientSession):
            transport.client = transport.get_client()
        with map_aiohttp_exceptions():
            async with transport.client.request(
                method,
                self.url,
                headers=self.headers,
                data=content or None,
                allow_redirects=False,
                auto_decompress=False,
                compress=False,
                timeout=self.timeout,
                server_hostname=self.server_hostname,
            ) as response:
                if limit is None:
                    body = await response.read()
                else:
                    body = await _read_limited(response, limit)
                return response.status, response.raw_headers, body, response.reason


async def _read_limited(response: Any, limit: int) -> bytes:
    """An aiohttp response's body, refused past ``limit`` bytes without reading it all."""
    from nlu_tui.engines.http1 import BodyTooLarge

    declared = response.content_length
    if declared is not None and declared > limit:
        raise BodyTooLarge(limit, declared)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_chunked(64 * 1024):
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(limit, None)
        chunks.append(chunk)
    return b"".join(chunks)


class _Http1Route:
    """:class:`_AiohttpRoute`'s ``send`` on the run transport's own HTTP/1.1 pool
    (:mod:`nlu_tui.engines.http1`: plain ``http://``, a fifth of aiohttp's CPU per request)."""

    def __init__(self, transport: Any, pool: Any, endpoint: Endpoint) -> None:
        from nlu_tui.engines.http1 import Http1Route

        self.transport = transport
        self.owner: Any = transport
        self.pool = pool
        self.route = Http1Route(
            pool,
            endpoint.method,
            endpoint.url,
            endpoint.headers.raw,
            endpoint.extensions.get("timeout", {}),
        )

    async def send(
        self, method: str, content: bytes, limit: int | None = None
    ) -> tuple[int, Any, bytes, str | None]:
        return await self.route.send(content, MAX_ANSWER_BYTES if limit is None else limit)


def _aiohttp_route(endpoint: Endpoint) -> _AiohttpRoute | _Http1Route | None:
    """The direct route of ``endpoint``, or None when httpx has work to do for this request:
    another transport (a proxy, a mount), cookies to send, auth, redirects, hooks, or the
    ``HTTP Request`` log line. A plain ``http://`` endpoint on the run's transport, which
    carries an HTTP/1.1 pool (``http1_pool``), takes that pool; any other, aiohttp's session."""
    client = endpoint.client
    if client.cookies or _HTTPX_LOG.isEnabledFor(logging.INFO):
        return None
    transport = _direct_transport(client, endpoint.url)
    if transport is None:
        return None
    routes = endpoint.routes
    if not routes or routes[0].owner is not transport:
        pool = _plain_http_pool(transport, endpoint.url)
        route: _AiohttpRoute | _Http1Route
        if pool is not None:
            route = _Http1Route(transport, pool, endpoint)
        else:
            aiohttp_transport = _aiohttp_of(transport)
            if aiohttp_transport is None:
                return None
            route = _AiohttpRoute(aiohttp_transport, endpoint)
            route.owner = transport
        routes[:] = [route]
    route = routes[0]
    if isinstance(route, _Http1Route) and not route.pool.usable():
        return None  # another event loop than the pool's, or a closed pool: httpx's path
    return route


async def _send_on_pool(pool: Any, request: httpx.Request, limit: int) -> httpx.Response:
    """``request`` sent on the run transport's HTTP/1.1 pool, its answer (read in full, up to
    ``limit`` bytes) as the ``httpx.Response`` a transport returns: a plain ``http://`` engine
    is asked (e.g. its ``GET /version`` probe) on the same pool as its parses, without aiohttp."""
    import httpx

    from nlu_tui.engines.http1 import BodyTooLarge, Http1Route

    content = await request.aread()
    headers = [(k, v) for k, v in request.headers.raw if k.lower() not in _PER_REQUEST_LENGTH]
    route = Http1Route(
        pool, request.method, request.url, headers, request.extensions.get("timeout", {})
    )
    try:
        status, raw_headers, body, reason = await route.send(content, limit)
    except BodyTooLarge as exc:
        raise _too_large(exc.limit, exc.size) from None
    extensions: dict[str, Any] = {"http_version": b"HTTP/1.1"}
    if reason:
        extensions["reason_phrase"] = reason.encode()
    return httpx.Response(
        status_code=status,
        headers=raw_headers,
        stream=httpx.ByteStream(body),
        request=request,
        extensions=extensions,
    )


def _plain_http_pool(transport: Any, url: httpx.URL) -> Any:
    """The run transport's HTTP/1.1 pool (``http1_pool``) for a plain ``http://`` URL without
    credentials, or None (another transport, another scheme)."""
    if url.scheme != "http" or url.userinfo:
        return None
    return getattr(transport, "http1_pool", None)


def _aiohttp_of(transport: Any) -> Any:
    """The aiohttp transport (``httpx_aiohttp``) behind ``transport``, or None (another kind,
    or one with a proxy). The run's transport makes its own on first need, so that only a
    run that needs aiohttp imports it (:class:`nlu_tui.runner.client.RunTransport`)."""
    make = getattr(transport, "aiohttp_transport", None)
    if callable(make):
        transport = make()
    from httpx_aiohttp import AiohttpTransport

    if not isinstance(transport, AiohttpTransport) or transport.proxy is not None:
        return None
    return transport


def _direct_transport(client: httpx.AsyncClient, url: httpx.URL) -> httpx.AsyncBaseTransport | None:
    """The transport to hand ``url`` to directly, or None when ``client.send`` has work to do."""
    hooks = client.event_hooks
    if (
        client.is_closed
        or client.auth is not None
        or client.follow_redirects
        or hooks["request"]
        or hooks["response"]
        or url.userinfo
    ):
        return None
    pick = getattr(client, "_transport_for_url", None)  # httpx's mounts and proxies
    return pick(url) if callable(pick) else None


async def _read_bounded(response: httpx.Response, limit: int) -> None:
    """Read the (decoded) body like ``response.aread()``, refusing it past ``limit`` bytes.

    A declared ``Content-Length`` above the limit is refused before anything is read; a body
    that grows past it (chunked, or a small gzip that unpacks big) is refused as it streams.
    """
    try:
        declared = response.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise _too_large(limit, int(declared))
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise _too_large(limit)
            chunks.append(chunk)
        response._content = b"".join(chunks)  # what aread() sets (httpx is pinned)
    finally:
        await response.aclose()


async def _send(
    client: httpx.AsyncClient, request: httpx.Request, limit: int = MAX_ANSWER_BYTES
) -> httpx.Response:
    """``client.send(request)``, minus the layers this client does not use.

    Same exceptions (with ``.request`` set), same cookie handling, same log line; the response
    is read in full, up to ``limit`` bytes (:class:`AnswerTooLargeError` above).
    """
    import httpx

    transport = _direct_transport(client, request.url)
    if transport is None:
        response = await client.send(request, stream=True)
        await _read_bounded(response, limit)
        return response
    if client.cookies:
        client.cookies.set_cookie_header(request)
    pool = _plain_http_pool(transport, request.url)
    if pool is not None and not pool.usable():
        pool = None  # another event loop than the pool's, or a closed pool: the transport's
    started = time.perf_counter()
    try:
        if pool is not None:
            response = await _send_on_pool(pool, request, limit)
        else:
            response = await transport.handle_async_request(request)
    except httpx.RequestError as exc:
        exc.request = request
        raise
    response.request = request
    await _read_bounded(response, limit)
    response.elapsed = datetime.timedelta(seconds=time.perf_counter() - started)
    if "set-cookie" in response.headers:
        client.cookies.extract_cookies(response)
    if _HTTPX_LOG.isEnabledFor(logging.INFO):
        _HTTPX_LOG.info(
            'HTTP Request: %s %s "%s %d %s"',
            request.method,
            request.url,
            response.http_version,
            response.status_code,
            response.reason_phrase,
        )
    return response
