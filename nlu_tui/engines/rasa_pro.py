"""Rasa Pro (CALM) over its HTTP API, with the command capability for DUT.

Same API as :mod:`nlu_tui.engines.rasa` (``rasa run --enable-api``); each DUT step is a fresh
sender id whose conversation is rebuilt the way Rasa Pro's DUT runner simulates it: fixture
slots as tracker events, then every earlier user message of the test case sent through the
REST channel, then the step's message. Its user event in the tracker carries what Rasa Pro
records (``rasa/dialogue_understanding_test/du_test_runner.py``): ``parse_data.
predicted_commands`` (commands per component) and ``parse_data.prompts`` when the server
records them, else ``parse_data.commands`` (the commands it ran).
"""

from __future__ import annotations

import time
from typing import Any

from nlu_tui.dut.commands import command_from_json
from nlu_tui.engines.base import Capabilities, register
from nlu_tui.engines.command_api import CommandEngine, CommandOutput, CommandRequest
from nlu_tui.engines.httpcall import BadResponseError
from nlu_tui.engines.rasa import RasaEngine

DEFAULT_COMPONENT = "CommandGenerator"
"""The component named when the server reports only ``parse_data.commands``."""


@register("rasa-pro")
class RasaProEngine(RasaEngine, CommandEngine):
    """Settings as the ``rasa`` engine (``url``, ``token``, ``jwt``, ``timeout``)."""

    type_name = "rasa-pro"
    capabilities = Capabilities(entity_order=True, http=True, conversation=True, commands=True)

    async def predict_commands(self, request: CommandRequest) -> CommandOutput:
        started = time.perf_counter()
        conversation = self.conversation(request.conversation_id)
        await conversation.begin(request.slots)
        for turn in request.conversation:
            if turn.actor == "user" and turn.text:
                await conversation.send(turn.text, request.metadata)
        sent = time.perf_counter()
        observed = await conversation.send(request.text, request.metadata)
        latency = (time.perf_counter() - sent) * 1000.0
        for event in observed.events:
            if event.raw.get("event") == "user":
                return parse_user_event(event.raw, latency)
        raise BadResponseError(
            f"Rasa Pro tracker has no user event after the message ({time.perf_counter() - started:.1f}s)"
        )


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
