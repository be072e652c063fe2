"""A scripted conversation server over real HTTP, speaking the slice of Rasa's HTTP API the
conversation engine uses (``/version``, ``/webhooks/rest/webhook``,
``/conversations/{id}/tracker`` and ``.../tracker/events``), for the runner's mechanics
(fixtures, metadata, retries, resume, cancel) where a trained Rasa would be slow. Its answers
are written by hand below; it records every message it receives, per sender id."""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any, ClassVar

from tests.http_handler_server import QuietHandler


class BotState:
    """The server's memory: trackers by sender, every message received, and knobs."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.trackers: dict[str, list[dict[str, Any]]] = {}
        self.messages: list[tuple[str, str, dict[str, Any]]] = []
        self.posted: list[tuple[str, list[dict[str, Any]]]] = []
        self.delay = 0.0
        self.greeting = "Hey!"
        self.fail_once: set[str] = set()
        """Texts answered once with HTTP 503 (then normally)."""
        self.reply: Callable[[list[dict[str, Any]], str], list[dict[str, Any]]] | None = None
        """Another hand-written bot (events so far, text → new events); None: :func:`reply`."""

    def tracker(self, sender: str) -> list[dict[str, Any]]:
        if sender not in self.trackers:
            self.trackers[sender] = [
                {"event": "action", "name": "action_session_start"},
                {"event": "session_started"},
                {"event": "action", "name": "action_listen"},
            ]
        return self.trackers[sender]

    def senders_saying(self, text: str) -> list[str]:
        return [s for s, t, _ in self.messages if t == text]


def _bot(name: str, text: str) -> list[dict[str, Any]]:
    return [
        {"event": "action", "name": name, "policy": "RulePolicy", "confidence": 1.0},
        {"event": "bot", "text": text, "metadata": {"utter_action": name}},
    ]


def _slot(name: str, value: Any) -> dict[str, Any]:
    return {"event": "slot", "name": name, "value": value}


def reply(events: list[dict[str, Any]], text: str, greeting: str = "Hey!") -> list[dict[str, Any]]:
    """The hand-written bot: greets (differently when ``logged_in``), books a table."""
    slots = {e["name"]: e["value"] for e in events if e.get("event") == "slot"}
    words = text.lower().split()
    intent = "inform"
    out: list[dict[str, Any]] = []
    if {"hi", "hello"} & set(words):
        intent = "greet"
        greeting = "Welcome back!" if slots.get("logged_in") is True else greeting
        out += _bot("utter_greet", greeting)
    elif "book" in words:
        intent = "book_table"
        out += [_slot("requested_slot", "cuisine"), *_bot("utter_ask_cuisine", "What food?")]
    elif {"italian", "chinese"} & set(words):
        food = next(w for w in words if w in ("italian", "chinese"))
        out += [_slot("cuisine", food), *_bot("utter_ask_people", "How many?")]
    elif words and words[0].isdigit():
        out += [_slot("people", int(words[0])), *_bot("utter_booked", f"Booked for {words[0]}.")]
    elif "silence" in words:
        intent = "silence"
    else:
        intent = "nlu_fallback"
        out += _bot("utter_default", "Sorry?")
    user = {
        "event": "user",
        "text": text,
        "parse_data": {"intent": {"name": intent, "confidence": 0.9}, "entities": []},
    }
    return [user, *out, {"event": "action", "name": "action_listen"}]


class ConversationHandler(QuietHandler):
    """Serves one :class:`BotState` (set on a subclass as ``state``)."""

    state: ClassVar[BotState]

    def _sender(self) -> str:
        parts = urllib.parse.urlsplit(self.path).path.split("/")
        return urllib.parse.unquote(parts[2])

    def do_GET(self) -> None:
        path = urllib.parse.urlsplit(self.path).path
        if path == "/version":
            self.send_json(b'{"version": "3.6.21", "minimum_compatible_version": "3.6.21"}')
        elif path.startswith("/conversations/") and path.endswith("/tracker"):
            with self.state.lock:
                events = list(self.state.tracker(self._sender()))
            self.send_json(json.dumps({"events": events}).encode())
        else:
            self.send_json(b'{"error": "not found"}', 404)

    def do_POST(self) -> None:
        path = urllib.parse.urlsplit(self.path).path
        body = self.read_json()
        if path == "/webhooks/rest/webhook":
            text = str(body["message"])
            sender = str(body["sender"])
            with self.state.lock:
                if text in self.state.fail_once:
                    self.state.fail_once.discard(text)
                    self.send_json(b'{"error": "busy"}', 503)
                    return
                self.state.messages.append((sender, text, dict(body.get("metadata") or {})))
            if self.state.delay:
                time.sleep(self.state.delay)
            with self.state.lock:
                events = self.state.tracker(sender)
                if self.state.reply is not None:
                    events.extend(self.state.reply(events, text))
                else:
                    events.extend(reply(events, text, self.state.greeting))
                bots = [
                    {"recipient_id": sender, "text": e["text"]}
                    for e in events
                    if e.get("event") == "bot"
                ]
            self.send_json(json.dumps(bots).encode())
        elif path.startswith("/conversations/") and path.endswith("/tracker/events"):
            sender = self._sender()
            with self.state.lock:
                self.state.posted.append((sender, list(body)))
                self.state.tracker(sender).extend(body)
            self.send_json(b"{}")
        else:
            self.send_json(b'{"error": "not found"}', 404)


def handler_for(state: BotState) -> type[ConversationHandler]:
    return type("BoundHandler", (ConversationHandler,), {"state": state})
