"""What the HTTP engines share: one request with redacted errors, and a malformed-answer error.

Errors raised from ``parse`` keep the exception types the runner retries on
(``httpx.TransportError``, ``httpx.HTTPStatusError`` with ``.response`` for the status and
``Retry-After``), but their messages never carry a secret: a profile's resolved ``${ENV}``
values and the request URL's query (``?token=``) are replaced by ``***``.

A run sends thousands of near-identical requests, and on a small machine the client's CPU per
request is what caps its rate (``bench/bench_runner_throughput.py``). So an engine may work out
an :class:`Endpoint` once (URL parsed, query and the client's headers merged, timeout) and send
each request straight to the client's transport, skipping the cookie, auth, redirect and
event-hook layers of ``AsyncClient.send`` whenever the client uses none of them.
"""

from __future__ import annotations

import datetime
import json
import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from nlu_tui.engines.base import Engine

if TYPE_CHECKING:
    import httpx

SECRET_VALUES_KEY = "_secret_values"
"""Settings key under which profiles hand engines the resolved secrets to redact."""

_HTTPX_LOG = logging.getLogger("httpx")
_PER_REQUEST_HEADERS = frozenset({b"content-length", b"transfer-encoding", b"cookie"})
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class BadResponseError(Exception):
    """The engine answered, but not with JSON of the expected shape: that case is an ERROR."""


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (longest first) replaced by ``***``."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


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


class HttpEngine(Engine):
    """Base of engines that answer over HTTP: owns a client only when the runner gives none."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.secrets: list[str] = [str(s) for s in settings.get(SECRET_VALUES_KEY, []) if s]
        self.client: httpx.AsyncClient | None = None
        self._own_client = False
        self.request_timeout = float(settings.get("timeout", 30.0) or 30.0)

    def _redact(self, text: str) -> str:
        return redact(text, self.secrets)

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

    async def send_json(self, endpoint: Endpoint, content: bytes = b"") -> tuple[Any, float]:
        """Send ``content`` to ``endpoint``; the decoded JSON answer and the latency in ms."""
        import httpx

        # What Request(content=...) would add, set directly (its header merging costs more).
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
        return await self._exchange(endpoint.client, request)

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
            response = await _send(client, request)
        except httpx.TransportError as exc:
            from nlu_tui.engines.transport_errors import transport_reason

            message = self._redact(transport_reason(exc, request.url))
            # Keep the underlying cause: the runner reads it to tell timeouts from refusals
            # (httpx-aiohttp reports every connection error as ConnectTimeout).
            raise type(exc)(message, request=exc.request) from (exc.__cause__ or exc)
        latency = (time.perf_counter() - started) * 1000.0
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


async def _send(client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
    """``client.send(request)``, minus the layers this client does not use.

    Same exceptions (with ``.request`` set), same cookie handling, same log line; the response
    is read in full.
    """
    import httpx

    transport = _direct_transport(client, request.url)
    if transport is None:
        return await client.send(request)
    if client.cookies:
        client.cookies.set_cookie_header(request)
    started = time.perf_counter()
    try:
        response = await transport.handle_async_request(request)
    except httpx.RequestError as exc:
        exc.request = request
        raise
    response.request = request
    try:
        await response.aread()
    except BaseException:
        await response.aclose()
        raise
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
