"""A loopback stand-in for a vendor NLU service: records each request, answers from a script.

It runs in a thread (``http.server``) so the same server serves an engine in the test's event
loop and an ``nlu-tui run`` subprocess. ``answer`` decides the usual answer; ``script`` holds
answers to give first, in order (a 429 with ``Retry-After``, a 401, a 500...), except to the
requests ``unscripted`` picks (a token endpoint on the same server).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers.items() if k.lower() == name.lower()), None)

    def json(self) -> Any:
        return json.loads(self.body)


Answer = tuple[int, dict[str, str], Any]
"""(status, headers, JSON body)."""


@dataclass
class VendorPeer:
    answer: Callable[[Seen], Answer]
    script: list[Answer] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    unscripted: Callable[[Seen], bool] = lambda _seen: False
    url: str = ""
    _server: ThreadingHTTPServer | None = None

    def __enter__(self) -> VendorPeer:
        peer = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                parts = urlsplit(self.path)
                seen = Seen(
                    self.command,
                    parts.path,
                    parse_qs(parts.query, keep_blank_values=True),
                    dict(self.headers.items()),
                    self.rfile.read(length) if length else b"",
                )
                peer.seen.append(seen)
                scripted = peer.script and not peer.unscripted(seen)
                status, headers, body = peer.script.pop(0) if scripted else peer.answer(seen)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _any

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        host, port = self._server.server_address[:2]
        self.url = f"http://{host}:{port}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
