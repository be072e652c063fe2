"""A loopback OpenAI-compatible chat-completions server that answers from a script.

Reused by every test of an LLM feature (generation, the ``llm`` engine, the DUT command
generator)::

    peer = LLMPeer([Reply("first answer"), Reply(status=429), Reply("after the retry")])
    with peer.serving() as base_url:          # http://127.0.0.1:PORT/v1
        ...
    peer.requests[0].body["messages"]         # what the client sent, in order

A script step is a :class:`Reply`: text (wrapped in a chat completion with ``usage``), an
error status, a delay (a slow answer), raw bytes (malformed JSON), or a whole JSON body. A
callable script (``lambda request: Reply(...)``) answers from the request itself (e.g. from
the last user message); when a list runs out the server answers 500 "script exhausted", so
an unexpected extra request fails the test instead of passing silently.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.http_handler_server import QuietHandler, serving


@dataclass
class Reply:
    """One answer. ``text`` → a chat completion; ``status`` ≠ 200 → an OpenAI-style error;
    ``raw`` → these bytes as they are; ``body`` → this JSON; ``delay`` seconds before it."""

    text: str | None = None
    status: int = 200
    delay: float = 0.0
    raw: bytes | None = None
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass
class Request:
    """What the server received: the path, the headers (lower-case names) and the JSON body."""

    path: str
    headers: dict[str, str]
    body: Any

    @property
    def messages(self) -> list[dict[str, str]]:
        return list(self.body.get("messages") or []) if isinstance(self.body, dict) else []

    @property
    def last_user(self) -> str:
        users = [m["content"] for m in self.messages if m.get("role") == "user"]
        return users[-1] if users else ""


Script = Sequence[Reply] | Callable[[Request], Reply]


def completion(text: str, model: str, prompt_tokens: int, completion_tokens: int) -> bytes:
    """An OpenAI chat-completion answer holding ``text``."""
    return json.dumps(
        {
            "id": "chatcmpl-loopback",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    ).encode()


class LLMPeer:
    """The scripted server's state: the script, the position in it, the requests received."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._next = 0

    def _step(self, request: Request) -> Reply | None:
        with self._lock:
            self.requests.append(request)
            if callable(self.script):
                return self.script(request)
            if self._next >= len(self.script):
                return None
            reply = self.script[self._next]
            self._next += 1
            return reply

    @contextlib.contextmanager
    def serving(self) -> Iterator[str]:
        """Serve on a free loopback port; yields the base URL ending in ``/v1``."""
        peer = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length)
                try:
                    body = json.loads(data)
                except ValueError:
                    body = None
                request = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self.send_json(b'{"error": {"message": "no such route"}}', 404)
                    return
                reply = peer._step(request)
                if reply is None:
                    self.send_json(b'{"error": {"message": "script exhausted"}}', 500)
                    return
                if reply.delay:
                    time.sleep(reply.delay)
                self._answer(reply, body)

            def _answer(self, reply: Reply, body: Any) -> None:
                if reply.raw is not None:
                    data = reply.raw
                elif reply.body is not None:
                    data = json.dumps(reply.body).encode()
                elif reply.status != 200:
                    message = reply.text or f"loopback error {reply.status}"
                    data = json.dumps({"error": {"message": message}}).encode()
                else:
                    model = body.get("model", "") if isinstance(body, dict) else ""
                    prompt = sum(
                        len(str(m.get("content", "")).split())
                        for m in (body or {}).get("messages", [])
                    )
                    data = completion(
                        reply.text or "",
                        str(model),
                        reply.prompt_tokens if reply.prompt_tokens is not None else prompt,
                        reply.completion_tokens
                        if reply.completion_tokens is not None
                        else len((reply.text or "").split()),
                    )
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                with contextlib.suppress(OSError):
                    self.wfile.write(data)

        with serving(Handler) as url:
            yield url + "/v1"
