"""What the HTTP engines share: one request with redacted errors, and a malformed-answer error.

Errors raised from ``parse`` keep the exception types the runner retries on
(``httpx.TransportError``, ``httpx.HTTPStatusError`` with ``.response`` for the status and
``Retry-After``), but their messages never carry a secret: a profile's resolved ``${ENV}``
values and the request URL's query (``?token=``) are replaced by ``***``.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from nlu_tui.engines.base import Engine

if TYPE_CHECKING:
    import httpx

SECRET_VALUES_KEY = "_secret_values"
"""Settings key under which profiles hand engines the resolved secrets to redact."""


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


class _QueryScrubber(logging.Filter):
    """httpx logs every request URL at INFO; ``?token=`` must not reach a log that way."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(
                safe_url(arg) if type(arg).__name__ == "URL" else arg for arg in record.args
            )
        return True


def _install_log_scrubber() -> None:
    logger = logging.getLogger("httpx")
    if not any(isinstance(f, _QueryScrubber) for f in logger.filters):
        logger.addFilter(_QueryScrubber())


_install_log_scrubber()


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
        import httpx

        client = await self._client()
        started = time.perf_counter()
        try:
            response = await client.request(
                method,
                url,
                params=params,
                headers=headers,
                json=json_body,
                content=content,
            )
        except httpx.TransportError as exc:
            message = self._redact(str(exc) or "connection failed")
            # Keep the underlying cause: the runner reads it for the real reason (httpx-aiohttp
            # reports every connection error as ConnectTimeout).
            raise type(exc)(f"{message} ({safe_url(url)})", request=exc.request) from (
                exc.__cause__ or exc
            )
        latency = (time.perf_counter() - started) * 1000.0
        if response.status_code >= 400:
            snippet = self._redact(response.text[:200].strip())
            message = f"HTTP {response.status_code} from {safe_url(url)}"
            if snippet:
                message += f": {snippet}"
            raise httpx.HTTPStatusError(message, request=response.request, response=response)
        try:
            body = json.loads(response.content)
        except (ValueError, UnicodeDecodeError):
            snippet = self._redact(response.text[:80].strip())
            raise BadResponseError(
                f"answer is not JSON (HTTP {response.status_code}): {snippet!r}"
            ) from None
        return body, latency
