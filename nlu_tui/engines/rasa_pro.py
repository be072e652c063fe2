"""Rasa Pro (CALM) over its HTTP API, with the command capability for DUT.

Same API as :mod:`nlu_tui.engines.rasa` (``rasa run --enable-api``). Each test case's
conversation is simulated once, as Rasa Pro's DUT runner does
(``TestCaseTrackerSimulator``): fixture slots as tracker events, then its user messages
through the REST channel. For each step, a new sender gets the tracker events as they were
just before that step's message (``PUT /conversations/{id}/tracker/events``, Rasa's
``create_tracker_for_user_step``), and the message is sent there. Its user event carries what
Rasa Pro records: ``parse_data.predicted_commands`` (per component) and ``parse_data.prompts``
when the server records them, else ``parse_data.commands`` (the commands it ran).
"""

from __future__ import annotations

import asyncio
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from nlu_tui.dut.commands import command_from_json
from nlu_tui.engines.base import Capabilities, register
from nlu_tui.engines.command_api import CommandEngine, CommandOutput, CommandRequest
from nlu_tui.engines.httpcall import BadResponseError
from nlu_tui.engines.rasa import RasaEngine

DEFAULT_COMPONENT = "CommandGenerator"
"""The component named when the server reports only ``parse_data.commands``."""


@dataclass
class _Simulation:
    """One test case's conversation as simulated so far."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    conversation: Any = None
    sent: list[str] = field(default_factory=list)
    before_user: list[int] = field(default_factory=list)
    """Number of tracker events before each user message sent."""
    events: list[dict[str, Any]] = field(default_factory=list)


@register("rasa-pro")
class RasaProEngine(RasaEngine, CommandEngine):
    """Settings as the ``rasa`` engine (``url``, ``token``, ``jwt``, ``timeout``)."""

    type_name = "rasa-pro"
    capabilities = Capabilities(entity_order=True, http=True, conversation=True, commands=True)

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        self._simulations: dict[str, _Simulation] = {}

    async def _events_before(self, request: CommandRequest) -> list[dict[str, Any]]:
        """The simulated tracker events before this step's message (simulating as needed)."""
        key = request.case_key or request.conversation_id
        sim = self._simulations.setdefault(key, _Simulation())
        earlier = [t.text for t in request.conversation if t.actor == "user" and t.text]
        async with sim.lock:
            if sim.conversation is None:
                sim.conversation = self.conversation(f"{key}-sim")
                await sim.conversation.begin(request.slots)
                sim.events = await self._tracker(sim.conversation.sender_id)
            for text in earlier[len(sim.sent) :]:
                sim.before_user.append(len(sim.events))
                await sim.conversation.send(text, request.metadata)
                sim.sent.append(text)
                sim.events = await self._tracker(sim.conversation.sender_id)
            if sim.sent[: len(earlier)] != earlier:
                raise BadResponseError("steps of one test case disagree on its conversation")
            if len(earlier) < len(sim.sent):
                return sim.events[: sim.before_user[len(earlier)]]
            return list(sim.events)

    async def _tracker(self, sender: str) -> list[dict[str, Any]]:
        url = f"{self.base_url}/conversations/{urllib.parse.quote(sender, safe='')}/tracker"
        body, _ = await self.request_json("GET", url, params=self._params, headers=self._headers)
        events = body.get("events") if isinstance(body, dict) else None
        if not isinstance(events, list):
            raise BadResponseError("Rasa tracker answer has no 'events' list")
        return [e for e in events if isinstance(e, dict)]

    async def predict_commands(self, request: CommandRequest) -> CommandOutput:
        events = await self._events_before(request)
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
                return parse_user_event(event.raw, observed.latency_ms)
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
