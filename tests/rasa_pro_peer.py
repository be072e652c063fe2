"""A loopback Rasa Pro server built from the shapes Rasa Pro 3.21 documents and records: the
HTTP API of ``rasa run --enable-api`` (``/version``, ``/webhooks/rest/webhook``,
``/conversations/{id}/tracker`` and ``.../tracker/events``), and in each user event's
``parse_data`` the ``commands`` it ran, the ``predicted_commands`` per component and the
``prompts`` (``component_name``, ``prompt_name``, ``user_prompt``, ``llm_response_metadata``
with ``latency_ms``, ``usage`` and ``choices``) that its DUT runner reads.

Answers are scripted per message (``RULES``); ``yes`` depends on the conversation so far, so a
test can see that each DUT step is sent after the earlier messages of its test case. As Rasa
Pro does, the server keeps a conversation's state in its tracker events only: a tracker
replaced or appended through ``/conversations/{id}/tracker/events`` is the conversation from
then on (``server.py``: ``replace_events``, ``append_events``), and ``and his name?`` answers
from the ``handle`` slot that the events hold. Every request is logged
(``RasaProState.requests``: method, path, JSON body).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.http_handler_server import QuietHandler, serving

COMPONENT = "CompactLLMCommandGenerator"

RULES: dict[str, tuple[list[dict[str, Any]], str, str]] = {
    # message: (commands, bot text, response name)
    "I want to add someone to my contact list": (
        [{"command": "start flow", "flow": "add_contact"}],
        "What's the handle of the user you want to add?",
        "utter_ask_handle",
    ),
    "it's @barts": (
        [{"command": "set slot", "name": "name", "value": "@barts", "extractor": "LLM"}],
        "What is the name of the contact you want to add?",
        "utter_ask_name",
    ),
    "just Bart": (
        [{"command": "set slot", "name": "name", "value": "Bart", "extractor": "LLM"}],
        "Added.",
        "utter_contact_added",
    ),
    "I want to add a friend": (
        [{"command": "start flow", "flow": "add_contact"}],
        "What's their handle?",
        "utter_ask_add_contact_handle",
    ),
    "which flows?": (
        [{"command": "clarify", "options": ["remove_contact", "add_contact"]}],
        "Add or remove?",
        "utter_clarify",
    ),
}


def _slots(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The slots a tracker's events set (the last value wins), as Rasa's tracker holds them."""
    slots: dict[str, Any] = {}
    for event in events:
        if event.get("event") == "slot":
            slots[str(event.get("name"))] = event.get("value")
    return slots


def _commands_for(
    text: str, history: list[str], events: list[dict[str, Any]] | None = None
) -> tuple[list[dict[str, Any]], str, str]:
    if text == "and his name?":
        handle = _slots(events or []).get("handle")
        if handle:
            return (
                [{"command": "set slot", "name": "name", "value": str(handle).lstrip("@")}],
                "Noted.",
                "utter_noted",
            )
        return [{"command": "cannot handle"}], "Whose?", "utter_cannot_handle"
    if text == "yes":
        if history:
            return (
                [{"command": "set slot", "name": "confirm", "value": True}],
                "Done.",
                "utter_done",
            )
        return [{"command": "chitchat"}], "Hm?", "utter_chitchat"
    return RULES.get(text, ([{"command": "cannot handle"}], "Sorry?", "utter_cannot_handle"))


class RasaProState:
    def __init__(self) -> None:
        self.slow: set[str] = set()
        """Messages answered only after a long pause (for cancel tests)."""
        self.lose_answer_once: set[str] = set()
        """Messages whose turn is processed and recorded on a simulated conversation (a sender
        ending in ``-sim``), but whose answer is a 502 once (a proxy that lost the response)."""
        self.lock = threading.Lock()
        self.trackers: dict[str, list[dict[str, Any]]] = {}
        self.messages: list[tuple[str, str]] = []
        self.replaced: list[tuple[str, int]] = []
        self.metadata: list[tuple[str, str, Any]] = []
        """Each REST message's sender, text and metadata."""
        self.requests: list[tuple[str, str, Any]] = []
        """Every request: method, path, JSON body (None without one)."""
        self.tracker_bodies: dict[str, list[dict[str, Any]]] = {}
        """The events each sender's tracker was last replaced with (PUT)."""


def handler_for(state: RasaProState, *, record: bool = True) -> type[QuietHandler]:
    class Handler(QuietHandler):
        def _tracker_id(self) -> str | None:
            parts = urllib.parse.urlsplit(self.path).path.split("/")
            if len(parts) >= 4 and parts[1] == "conversations" and parts[3] == "tracker":
                return urllib.parse.unquote(parts[2])
            return None

        def _log(self, body: Any = None) -> None:
            with state.lock:
                state.requests.append((self.command, urllib.parse.urlsplit(self.path).path, body))

        def do_GET(self) -> None:
            self._log()
            path = urllib.parse.urlsplit(self.path).path
            if path == "/version":
                self.send_json(json.dumps({"version": "3.21.0"}).encode())
                return
            sender = self._tracker_id()
            if sender is None:
                self.send_json(b"{}", 404)
                return
            with state.lock:
                events = list(state.trackers.setdefault(sender, []))
            self.send_json(json.dumps({"sender_id": sender, "events": events}).encode())

        def do_POST(self) -> None:
            path = urllib.parse.urlsplit(self.path).path
            body = self.read_json()
            self._log(body)
            if path == "/webhooks/rest/webhook":
                sender, text = body["sender"], body["message"]
                if text in state.slow:
                    time.sleep(3.0)
                with state.lock:
                    events = state.trackers.setdefault(sender, [])
                    history = [e["text"] for e in events if e.get("event") == "user"]
                    state.messages.append((sender, text))
                    state.metadata.append((sender, text, body.get("metadata")))
                    commands, reply, name = _commands_for(text, history, events)
                    parse: dict[str, Any] = {
                        "text": text,
                        "intent": {"name": None, "confidence": 1.0},
                        "entities": [],
                        "commands": commands,
                    }
                    if record:
                        dsl = "\n".join(_dsl(c) for c in commands)
                        parse["predicted_commands"] = {COMPONENT: commands}
                        parse["prompts"] = [
                            {
                                "component_name": COMPONENT,
                                "prompt_name": "command_generator_prompt",
                                "user_prompt": f"conversation so far: {history} / {text}",
                                "llm_response_metadata": {
                                    "id": "x",
                                    "choices": [dsl],
                                    "created": 0,
                                    "model": "loopback",
                                    "usage": {
                                        "prompt_tokens": 100 + 10 * len(history),
                                        "completion_tokens": 5,
                                        "total_tokens": 105 + 10 * len(history),
                                    },
                                    "latency_ms": 12.5,
                                },
                            }
                        ]
                    events.append({"event": "user", "text": text, "parse_data": parse})
                    for command in commands:  # the commands run: slots get set
                        if command["command"] == "set slot":
                            events.append(
                                {
                                    "event": "slot",
                                    "name": command["name"],
                                    "value": command["value"],
                                }
                            )
                    events.append({"event": "action", "name": name})
                    events.append(
                        {"event": "bot", "text": reply, "metadata": {"utter_action": name}}
                    )
                if text in state.lose_answer_once and sender.endswith("-sim"):
                    state.lose_answer_once.discard(text)
                    self.send_json(b'{"error": "bad gateway"}', 502)
                    return
                with contextlib.suppress(BrokenPipeError):  # the client gave up (canceled run)
                    self.send_json(json.dumps([{"recipient_id": sender, "text": reply}]).encode())
                return
            sender = self._tracker_id()
            if sender is not None and path.endswith("/tracker/events"):
                items = body if isinstance(body, list) else [body]
                with state.lock:
                    events = state.trackers.setdefault(sender, [])
                    events.extend(items)
                self.send_json(json.dumps({"sender_id": sender, "events": events}).encode())
                return
            self.send_json(b"{}", 404)

        def do_PUT(
            self,
        ) -> None:  # replace a tracker's events (Rasa's create_tracker_for_user_step)
            sender = self._tracker_id()
            path = urllib.parse.urlsplit(self.path).path
            if sender is None or not path.endswith("/tracker/events"):
                self.send_json(b"{}", 404)
                return
            body = self.read_json()
            self._log(body)
            with state.lock:
                state.trackers[sender] = list(body)
                state.tracker_bodies[sender] = list(body)
                state.replaced.append((sender, len(body)))
            self.send_json(json.dumps({"sender_id": sender, "events": body}).encode())

    return Handler


def _dsl(command: dict[str, Any]) -> str:
    kind = command["command"]
    if kind == "start flow":
        return f"start flow {command['flow']}"
    if kind == "set slot":
        return f"set slot {command['name']} {command['value']}"
    if kind == "clarify":
        return "disambiguate flows " + " ".join(command["options"])
    return kind


@contextmanager
def rasa_pro_server(*, record: bool = True) -> Iterator[tuple[str, RasaProState]]:
    state = RasaProState()
    with serving(handler_for(state, record=record)) as url:
        yield url, state
