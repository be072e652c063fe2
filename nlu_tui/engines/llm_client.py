"""One chat-completions exchange with an OpenAI-compatible endpoint, over httpx.

``POST {base_url}/chat/completions`` with ``{"model", "messages", ...}``; the answer's
``choices[0].message.content`` is the text and ``usage`` the token counts (missing on some
local servers: then None). 429 and 5xx answers and dropped connections are retried with
exponential backoff (``Retry-After`` honoured, capped); anything else fails at once with one
clear :class:`LLMError`. No message carries the API key (every error text is redacted).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nlu_tui.engines import httpcall
from nlu_tui.engines.llm_config import LLMConfig, LLMError
from nlu_tui.engines.transport_errors import transport_reason

if TYPE_CHECKING:
    import httpx

Message = Mapping[str, str]
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})
MAX_RETRY_WAIT = 30.0


@dataclass(frozen=True)
class Usage:
    """Token counts as the endpoint reported them (None: not reported)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None


@dataclass(frozen=True)
class ChatReply:
    """The assistant's text, the token usage, the model that answered and how long it took."""

    text: str
    usage: Usage = field(default_factory=Usage)
    model: str | None = None
    finish_reason: str | None = None
    latency_ms: float = 0.0
    attempts: int = 1
    raw: Any = field(default=None, repr=False)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_reply(body: Any, where: str) -> ChatReply:
    """A chat-completions answer as a ChatReply (LLMError naming what is missing)."""
    if not isinstance(body, dict):
        raise LLMError(f"{where}: the answer is a JSON {type(body).__name__}, not an object")
    if isinstance(body.get("error"), (dict, str)):
        error = body["error"]
        text = error.get("message") if isinstance(error, dict) else error
        raise LLMError(f"{where}: the endpoint answered an error: {str(text)[:300]}")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise LLMError(f"{where}: the answer has no 'choices' (not a chat completion)")
    first = choices[0]
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if content is None and isinstance(first, dict) and isinstance(first.get("text"), str):
        content = first["text"]  # a completions-style answer from some local servers
    if not isinstance(content, str):
        raise LLMError(f"{where}: choices[0].message.content is missing or not text")
    usage_found = body.get("usage")
    usage_raw: dict[str, Any] = usage_found if isinstance(usage_found, dict) else {}
    usage = Usage(
        prompt_tokens=_int(usage_raw.get("prompt_tokens")),
        completion_tokens=_int(usage_raw.get("completion_tokens")),
        total_tokens=_int(usage_raw.get("total_tokens")),
    )
    finish = first.get("finish_reason") if isinstance(first, dict) else None
    model = body.get("model")
    return ChatReply(
        text=content,
        usage=usage,
        model=model if isinstance(model, str) else None,
        finish_reason=finish if isinstance(finish, str) else None,
        raw=body,
    )


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _error_text(response: httpx.Response) -> str:
    """The endpoint's own reason for a refusal, short (OpenAI: ``{"error": {"message"}}``)."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:200]
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])[:200]
        if isinstance(error, str):
            return error[:200]
        if isinstance(body.get("message"), str):
            return str(body["message"])[:200]
    return ""


_STATUS_HINTS = {
    401: "the API key (api_key) is missing or wrong",
    403: "the API key (api_key) may not use this model",
    404: "check base_url (it usually ends in /v1) and the model name",
}


class ChatClient:
    """Talks to one configured endpoint; reuse it for many requests (``async with``).

    ``client``: an httpx.AsyncClient to share (not closed here); else one is made.
    """

    def __init__(self, config: LLMConfig, client: httpx.AsyncClient | None = None) -> None:
        self.config = config
        self._client = client
        self._owned = client is None

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owned and self._client is not None:
            await self._client.aclose()
            self._client = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            self._client = httpx.AsyncClient(timeout=httpx.Timeout(self.config.timeout))
        return self._client

    def redact(self, text: str) -> str:
        return httpcall.redact(text, self.config.secrets)

    def _where(self) -> str:
        return f"LLM {httpcall.safe_url(self.config.chat_url)} (model {self.config.model})"

    def payload(self, messages: Sequence[Message], **options: Any) -> dict[str, Any]:
        """The request body: model, messages, the configured sampling, then ``options``."""
        body: dict[str, Any] = {"model": self.config.model, "messages": [dict(m) for m in messages]}
        if self.config.temperature is not None:
            body["temperature"] = self.config.temperature
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        body.update({k: v for k, v in options.items() if v is not None})
        return body

    async def chat(self, messages: Sequence[Message], **options: Any) -> ChatReply:
        """Send ``messages`` (``[{"role", "content"}]``); the reply's text and usage.

        ``options`` go into the body as they are (``temperature``, ``seed``,
        ``response_format``, ``stop``...). LLMError when the endpoint cannot be reached,
        refuses, times out or answers something that is not a chat completion.
        """
        try:
            return await self._chat(messages, options)
        except LLMError as exc:
            raise LLMError(self.redact(str(exc))) from None

    async def _chat(self, messages: Sequence[Message], options: Mapping[str, Any]) -> ChatReply:
        import httpx
        import orjson

        where = self._where()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        headers.update(self.config.headers)
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        content = orjson.dumps(self.payload(messages, **options))
        attempt = 0
        while True:
            attempt += 1
            started = time.perf_counter()
            wait: float | None = None
            reason = ""
            try:
                response = await self._http().post(
                    self.config.chat_url,
                    content=content,
                    headers=headers,
                    timeout=self.config.timeout,
                )
            except httpx.TimeoutException:
                reason = f"no answer within {self.config.timeout:g} s (timeout)"
                wait = self._backoff(attempt)
            except httpx.TransportError as exc:
                reason = transport_reason(exc, self.config.chat_url)
                wait = self._backoff(attempt)
            else:
                latency = (time.perf_counter() - started) * 1000
                if response.status_code in RETRY_STATUSES:
                    detail = _error_text(response)
                    reason = f"HTTP {response.status_code}" + (f": {detail}" if detail else "")
                    after = _retry_after(response)
                    wait = (
                        min(after, MAX_RETRY_WAIT) if after is not None else self._backoff(attempt)
                    )
                elif response.status_code >= 400:
                    detail = _error_text(response)
                    hint = _STATUS_HINTS.get(response.status_code)
                    raise LLMError(
                        f"{where}: HTTP {response.status_code}"
                        + (f": {detail}" if detail else "")
                        + (f" ({hint})" if hint else "")
                    )
                else:
                    try:
                        body = orjson.loads(response.content)
                    except orjson.JSONDecodeError:
                        snippet = response.text.strip()[:80]
                        raise LLMError(
                            f"{where}: the answer is not valid JSON (starts {snippet!r})"
                        ) from None
                    reply = parse_reply(body, where)
                    return ChatReply(
                        text=reply.text,
                        usage=reply.usage,
                        model=reply.model,
                        finish_reason=reply.finish_reason,
                        latency_ms=latency,
                        attempts=attempt,
                        raw=reply.raw,
                    )
            if attempt > self.config.retries:
                tries = f"{attempt} attempt{'s' if attempt != 1 else ''}"
                raise LLMError(f"{where}: {reason} (gave up after {tries})")
            await asyncio.sleep(wait or 0.0)

    def _backoff(self, attempt: int) -> float:
        return float(min(self.config.backoff * (2 ** (attempt - 1)), MAX_RETRY_WAIT))


def chat_once(config: LLMConfig, messages: Sequence[Message], **options: Any) -> ChatReply:
    """One request from synchronous code (the CLI): its own client and event loop."""

    async def run() -> ChatReply:
        async with ChatClient(config) as client:
            return await client.chat(messages, **options)

    return asyncio.run(run())
