"""Rasa Pro (CALM) over its HTTP API, with the command capability for DUT.

Same API as :mod:`nlu_tui.engines.rasa` (``rasa run --enable-api``). Each test case's
conversation is simulated once, as Rasa Pro's DUT runner does (``TestCaseTrackerSimulator``
in ``rasa/dialogue_understanding_test/test_case_simulation/``):

- fixture slots as tracker events (``POST /conversations/{sim}/tracker/events``);
- every user message but the last, in order, through the REST channel
  (``POST /webhooks/rest/webhook``); the bot's responses that follow are checked against the
  test's ``utter:`` / ``bot:`` steps after that message as Rasa's ``_do_bot_responses_match``
  checks them (same count; an ``utter`` matches a response of that name, a response without
  ``utter_action`` metadata or ``placeholder_generated_answer``; a ``bot`` text matches a
  response of that text). On a mismatch the simulation stops and no later user step is
  evaluated (the step answers :attr:`CommandOutput.not_evaluated`), as Rasa stops;
- the user event of each replayed message records the test's **expected** commands in
  ``parse_data`` (Rasa's ``_create_user_message``: ``{"intent": {}, "entities": [],
  "commands": [Command.as_dict() ...]}``), whatever the bot predicted there;
- for each step, a new sender gets the simulated events up to that step's user event
  (``PUT /conversations/{id}/tracker/events``, Rasa's ``create_tracker_for_user_step``), and
  the step's message is sent there through the REST channel. Its user event carries what Rasa
  Pro records: ``parse_data.predicted_commands`` (per component) and ``parse_data.prompts``
  when the server records them, else ``parse_data.commands``.

Rasa's runner hands the simulator's message to ``agent.handle_message`` with the expected
commands as ``parse_data``, so the server executes *those* commands. Rasa Pro 3.21's HTTP API
has no endpoint that does this: ``POST /conversations/{id}/messages`` accepts ``parse_data``
but only logs the message and extracts slots (``server.py``, ``add_message``: "ignoring
prediction loop run"), ``POST .../tracker/events`` only appends events, and the REST channel
takes text and metadata only. So the replayed turns run the server's own command prediction;
when it differs from the expected commands but the bot's responses still match the test's bot
steps (Rasa would go on), the slots and flow stack of the history are the server's, and the
step that follows says so in :attr:`CommandOutput.history_note`.
"""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nlu_tui.dialogue_understanding.commands import SET_SLOT, command_from_json
from nlu_tui.engines.answer_shapes import RASA_PRO_PARSE
from nlu_tui.engines.base import Capabilities, register
from nlu_tui.engines.command_api import CommandEngine, CommandOutput, CommandRequest, Turn
from nlu_tui.engines.httpcall import BadResponseError
from nlu_tui.engines.rasa import RasaEngine

if TYPE_CHECKING:
    from nlu_tui.dialogue_understanding.commands import Command

DEFAULT_COMPONENT = "CommandGenerator"
"""The component named when the server reports only ``parse_data.commands``."""
PLACEHOLDER_GENERATED_ANSWER = "placeholder_generated_answer"
"""Rasa's ``PLACEHOLDER_GENERATED_ANSWER_TEMPLATE``: an ``utter`` step matching any response."""


def rasa_as_dict(command: Command) -> dict[str, Any]:
    """``Command.as_dict()`` as Rasa's simulator puts it in ``parse_data`` (a ``SetSlotCommand``
    also carries its ``extractor``, ``LLM`` by default)."""
    data = command.as_json()
    if command.name == SET_SLOT and command.compared_as is None:
        data["extractor"] = "LLM"
    return data


def user_and_bot_steps(turns: Sequence[Turn]) -> list[tuple[Turn, list[Turn]]]:
    """Rasa's ``get_next_user_and_bot_steps`` walked over a conversation: each user message
    with the bot steps that follow it (bot steps before the first user message count with
    it, as there)."""
    pairs: list[tuple[Turn, list[Turn]]] = []
    leading: list[Turn] = []
    for turn in turns:
        if turn.actor == "user":
            pairs.append((turn, leading if not pairs else []))
            leading = []
        elif pairs:
            pairs[-1][1].append(turn)
        else:
            leading.append(turn)
    return pairs


def bot_responses_match(events: Sequence[dict[str, Any]], bot_steps: Sequence[Turn]) -> bool:
    """Rasa's ``_do_bot_responses_match``: the bot events after the latest user event against
    the test's bot steps."""
    bot_events: list[dict[str, Any]] = []
    for event in reversed(events):
        if event.get("event") == "bot":
            bot_events.append(event)
        if event.get("event") == "user":
            break
    if len(bot_events) != len(bot_steps):
        return False
    for step in bot_steps:
        if step.template:
            if not _template_matches(step.template, bot_events):
                return False
        elif step.text and not any(e.get("text") == step.text for e in bot_events):
            return False
    return True


def _template_matches(template: str, bot_events: Sequence[dict[str, Any]]) -> bool:
    """Rasa's ``_does_template_match`` (its first event without ``utter_action`` matches)."""
    for event in bot_events:
        metadata = event.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        if template == PLACEHOLDER_GENERATED_ANSWER or "utter_action" not in metadata:
            return True
        if metadata["utter_action"] == template:
            return True
    return False


@dataclass
class _Simulation:
    """One test case's conversation as simulated so far."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    conversation: Any = None
    sent: list[str] = field(default_factory=list)
    before_user: list[int] = field(default_factory=list)
    """Index of each replayed message's user event among the tracker events."""
    events: list[dict[str, Any]] = field(default_factory=list)
    stopped: str | None = None
    """Why the simulation stopped (the bot's responses differed from the test's)."""
    diverged: dict[int, str] = field(default_factory=dict)
    """By replayed message: where the server ran other commands than the expected ones."""
    expected: dict[int, dict[str, Any]] = field(default_factory=dict)
    """The ``parse_data`` each replayed user event carries, by event index."""

    attempt: int = 0
    """How many times the simulation failed and was started again (on a new sender)."""

    def reset(self) -> None:
        """Forget a simulation that failed half-way: the next attempt starts it again on a
        new sender, so no message is in its tracker twice."""
        self.conversation, self.sent, self.before_user, self.events = None, [], [], []
        self.stopped, self.diverged, self.expected = None, {}, {}
        self.attempt += 1

    def apply_expected(self, events: list[dict[str, Any]]) -> None:
        """The server's events with each replayed user event's ``parse_data`` as Rasa's
        simulator sends it."""
        self.events = events
        for index, parse in self.expected.items():
            if index < len(events):
                events[index] = {**events[index], "parse_data": parse}


@dataclass(frozen=True)
class _History:
    events: list[dict[str, Any]]
    not_evaluated: str | None = None
    note: str | None = None


@register("rasa-pro")
class RasaProEngine(RasaEngine, CommandEngine):
    """Settings as the ``rasa`` engine (``url``, ``token``, ``jwt``, ``timeout``)."""

    type_name = "rasa-pro"
    answer_shape = RASA_PRO_PARSE
    capabilities = Capabilities(entity_order=True, http=True, conversation=True, commands=True)

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        self._simulations: dict[str, _Simulation] = {}

    async def _history(self, request: CommandRequest) -> _History:
        """The simulated tracker events before this step's message (simulating as needed)."""
        key = request.case_key or request.conversation_id
        sim = self._simulations.setdefault(key, _Simulation())
        earlier = user_and_bot_steps(request.conversation)
        texts = [u.text or "" for u, _ in earlier]
        async with sim.lock:
            try:
                if sim.conversation is None:
                    retry = f"-retry{sim.attempt}" if sim.attempt else ""
                    sim.conversation = self.conversation(f"{key}{retry}-sim")
                    await sim.conversation.begin(request.slots)
                    sim.events = await self._tracker(sim.conversation.sender_id)
                while len(sim.sent) < len(earlier) and sim.stopped is None:
                    await self._replay(sim, *earlier[len(sim.sent)])
            except BaseException:
                sim.reset()
                raise
            shared = min(len(sim.sent), len(texts))
            if sim.sent[:shared] != texts[:shared]:
                raise BadResponseError("steps of one test case disagree on its conversation")
            step = len(earlier)
            notes = [n for i, n in sorted(sim.diverged.items()) if i < step]
            note = "; ".join(notes) if notes else None
            if step < len(sim.sent):
                return _History(sim.events[: sim.before_user[step]], note=note)
            if sim.stopped is not None:
                return _History([], not_evaluated=sim.stopped)
            return _History(list(sim.events), note=note)

    async def _replay(self, sim: _Simulation, user: Turn, bots: list[Turn]) -> None:
        """Send one earlier user message, record the expected commands in its user event and
        check the bot's responses against the test's bot steps."""
        from nlu_tui.dialogue_understanding.compare import are_command_lists_equal

        text = user.text or ""
        await sim.conversation.send(text, dict(user.metadata) or None)
        sim.sent.append(text)
        sim.apply_expected(await self._tracker(sim.conversation.sender_id))
        start = sim.before_user[-1] + 1 if sim.before_user else 0
        index = next(
            (
                i
                for i in range(len(sim.events) - 1, start - 1, -1)
                if sim.events[i].get("event") == "user"
            ),
            None,
        )
        if index is None:
            raise BadResponseError("Rasa Pro tracker has no user event after the message")
        sim.before_user.append(index)
        event = sim.events[index]
        parse = event.get("parse_data")
        executed = parse.get("commands") if isinstance(parse, dict) else None
        ran = [
            c
            for c in (command_from_json(i) for i in executed or [] if isinstance(i, dict))
            if c is not None
        ]
        if not are_command_lists_equal(list(user.commands), ran):
            sim.diverged[len(sim.sent) - 1] = (
                f"the server ran other commands than the test's at '{text}', so the history "
                "holds its slots and flows (Rasa Pro's DUT runner executes the test's)"
            )
        sim.expected[index] = {
            "intent": {},
            "entities": [],
            "commands": [rasa_as_dict(c) for c in user.commands],
        }
        sim.apply_expected(sim.events)
        if not bot_responses_match(sim.events, bots):
            sim.stopped = (
                f"not evaluated: the bot's responses after '{text}' differ from the test's "
                "bot steps, so Rasa Pro stops simulating this test case there"
            )

    async def _tracker(self, sender: str) -> list[dict[str, Any]]:
        url = f"{self.base_url}/conversations/{urllib.parse.quote(sender, safe='')}/tracker"
        body, _ = await self.request_json("GET", url, params=self._params, headers=self._headers)
        events = body.get("events") if isinstance(body, dict) else None
        if not isinstance(events, list):
            raise BadResponseError("Rasa tracker answer has no 'events' list")
        return [e for e in events if isinstance(e, dict)]

    async def predict_commands(self, request: CommandRequest) -> CommandOutput:
        history = await self._history(request)
        if history.not_evaluated is not None:
            return CommandOutput(not_evaluated=history.not_evaluated)
        events = history.events
        sender = request.conversation_id
        url = f"{self.base_url}/conversations/{urllib.parse.quote(sender, safe='')}/tracker/events"
        await self.request_json(
            "PUT", url, params=self._params, headers=self._headers, json_body=events
        )
        conversation = self.conversation(sender)
        conversation.cursor = len(events)  # type: ignore[attr-defined]
        observed = await conversation.send(request.text, request.metadata)
        for event in observed.events:
            if event.raw.get("event") == "user":
                output = parse_user_event(event.raw, observed.latency_ms)
                output.history_note = history.note
                return output
        raise BadResponseError("Rasa Pro tracker has no user event after the message")


def parse_user_event(event: dict[str, Any], latency_ms: float | None = None) -> CommandOutput:
    """Commands and prompts of one tracker user event, as Rasa Pro's DUT runner reads them."""
    parse = event.get("parse_data") or {}
    if not isinstance(parse, dict):
        raise BadResponseError("Rasa Pro user event has no parse_data mapping")
    by_component = parse.get("predicted_commands")
    commands: dict[str, list[Any]] = {}
    if isinstance(by_component, dict):
        for component, items in by_component.items():
            parsed = [command_from_json(i) for i in items or [] if isinstance(i, dict)]
            commands[str(component)] = [c for c in parsed if c is not None]
    elif isinstance(parse.get("commands"), list):
        parsed = [command_from_json(i) for i in parse["commands"] if isinstance(i, dict)]
        commands[DEFAULT_COMPONENT] = [c for c in parsed if c is not None]
    prompts = [p for p in parse.get("prompts") or [] if isinstance(p, dict)]
    return CommandOutput(commands, prompts, latency_ms)
