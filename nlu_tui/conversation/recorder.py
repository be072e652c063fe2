"""Recording a conversation with a bot as an E2E test case ("talk to the bot").

A tester chats with any conversation engine (``rasa:URL``, ``rasa-pro:URL`` or a profile);
each message's turn is kept with what the bot answered (its texts and response names), the
actions it ran and the slots it set. The transcript becomes a test case in Rasa's E2E format:

- each message a ``user:`` step, then, in the order they happened, one step per bot message
  (``bot: TEXT``) and one ``slot_was_set`` per slot the bot set (Rasa's internal slots left out);
- a bot text with a **volatile** part (a date, an order number: marked by the tester) is checked
  by its response name instead (``utter: utter_x``), which any wording of that response passes;
  a volatile text with no response name makes the test case use Rasa Pro's assertions (1.12+):
  each user step asserts ``bot_uttered`` with ``text_matches`` (the volatile parts as ``.*``)
  and the slots it set, which ``test e2e`` checks against the tracker's events.

The test case is appended to a test file of the workspace in that file's own layout
(:func:`nlu_tui.formats.e2e_splice.append_test_case`).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui.conversation_model import EventKind, ObservedEvent, Turn
from nlu_tui.errors import InputError

INTERNAL_SLOTS = frozenset(
    {"session_started_metadata", "requested_slot", "dialogue_stack", "flow_hashes", "return_value"}
)
"""Slots Rasa sets for itself, never written as ``slot_was_set`` steps."""


@dataclass
class RecordedTurn:
    """One message and what followed; ``volatile`` maps a bot message's index (among the
    turn's bot messages) to the parts of its text that change from one chat to the next."""

    user: str
    turn: Turn
    volatile: dict[int, list[str]] = field(default_factory=dict)

    def bot_messages(self) -> list[ObservedEvent]:
        return self.turn.bot_events()


class Recorder:
    """A chat with one conversation engine, kept as a test case to be."""

    def __init__(self, spec: str, workspace: Path | None = None) -> None:
        from nlu_tui.engines.conversation import ConversationEngine
        from nlu_tui.engines.profiles import resolve_engine

        resolved = resolve_engine(spec, None, workspace=workspace)
        engine = resolved.engine
        if not engine.capabilities.conversation or not isinstance(engine, ConversationEngine):
            raise InputError(
                f"engine {resolved.name!r} ({engine.type_name}) cannot hold a conversation",
                field="engine",
            )
        self.name = resolved.name
        self.engine = engine
        self.timeout = float(resolved.settings.timeout)
        self.sender_id = f"nlu-tui-talk-{uuid.uuid4().hex[:12]}"
        self.turns: list[RecordedTurn] = []
        self._conversation: Any = None
        self._client: Any = None

    async def start(self) -> Turn:
        """Open the engine and the conversation (its session start's events)."""
        from nlu_tui.runner.client import make_client

        self._client = make_client(concurrency=1, timeout=self.timeout)
        await self.engine.open(self._client)
        self._conversation = self.engine.conversation(self.sender_id)
        begun: Turn = await self._conversation.begin()
        return begun

    async def say(self, text: str) -> RecordedTurn:
        """Send ``text`` as the user; the turn is kept."""
        if self._conversation is None:
            await self.start()
        if not text.strip():
            raise InputError("say something: the message is empty", field="message")
        turn: Turn = await self._conversation.send(text)
        recorded = RecordedTurn(text, turn)
        self.turns.append(recorded)
        return recorded

    async def close(self) -> None:
        try:
            await self.engine.close()
        finally:
            if self._client is not None:
                await self._client.aclose()
                self._client = None

    def mark_volatile(self, turn: int, message: int, part: str) -> None:
        """Mark ``part`` of a bot message's text as volatile (ignored when compared)."""
        recorded = self.turns[turn]
        messages = recorded.bot_messages()
        if not 0 <= message < len(messages):
            raise InputError("no such bot message in that turn", field="message")
        text = messages[message].text or ""
        if not part or part not in text:
            raise InputError(f"{part!r} is not part of the bot's text {text!r}", field="volatile")
        recorded.volatile.setdefault(message, []).append(part)

    # --- the test case ---------------------------------------------------------------------

    def test_case(self, name: str) -> dict[str, Any]:
        """The transcript as one test case, as data in Rasa's E2E format (see the module)."""
        if not name.strip():
            raise InputError("give the test case a name", field="test_case")
        if not self.turns:
            raise InputError("nothing was said yet: chat first, then save", field="test_case")
        unnamed_volatile = any(
            i in t.volatile and not m.name
            for t in self.turns
            for i, m in enumerate(t.bot_messages())
        )
        if unnamed_volatile:
            return {"test_case": name, "steps": [self._asserted(t) for t in self.turns]}
        steps: list[dict[str, Any]] = []
        for t in self.turns:
            steps.append({"user": t.user})
            bot_index = 0
            for event in t.turn.events:
                if event.kind is EventKind.BOT:
                    if bot_index in t.volatile and event.name:
                        steps.append({"utter": event.name})
                    elif event.text:
                        steps.append({"bot": event.text})
                    elif event.name:
                        steps.append({"utter": event.name})
                    bot_index += 1
                elif event.kind is EventKind.SLOT and _recorded_slot(event):
                    steps.append({"slot_was_set": [{event.name: event.value}]})
        return {"test_case": name, "steps": steps}

    def _asserted(self, t: RecordedTurn) -> dict[str, Any]:
        assertions: list[dict[str, Any]] = []
        for i, message in enumerate(t.bot_messages()):
            text = message.text or ""
            if text:
                assertions.append(
                    {"bot_uttered": {"text_matches": _pattern(text, t.volatile.get(i, []))}}
                )
            elif message.name:
                assertions.append({"bot_uttered": {"utter_name": message.name}})
        slots = [
            {"name": e.name, "value": e.value}
            for e in t.turn.events
            if e.kind is EventKind.SLOT and _recorded_slot(e)
        ]
        if slots:
            assertions.append({"slot_was_set": slots})
        step: dict[str, Any] = {"user": t.user}
        if assertions:
            step["assertions"] = assertions
        return step


def _recorded_slot(event: ObservedEvent) -> bool:
    return bool(event.name) and event.name not in INTERNAL_SLOTS


def _pattern(text: str, volatile: list[str]) -> str:
    """A regex matching ``text`` whole, each volatile part matching anything."""
    if not volatile:
        return "^" + re.escape(text) + "$"
    alternatives = "|".join(
        re.escape(part) for part in sorted(set(volatile), key=len, reverse=True)
    )
    pieces = re.split(f"(?:{alternatives})", text)
    return "^" + ".*".join(re.escape(piece) for piece in pieces) + "$"
