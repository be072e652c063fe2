"""The embedded command generator: commands derived from an intent classifier and entity
extractor (the embedded engine, or any engine that parses an utterance) plus a flows file.

Rules, in order, for one user message (flows: :mod:`nlu_tui.dialogue_understanding.flows`):

- a cancel intent gives ``cancel flow``; chitchat, knowledge and handoff intents give
  ``offtopic reply``, ``provide info`` and ``hand over``;
- an intent of a flow gives ``start flow`` unless that flow is already active (the last flow
  started in the conversation so far, by classifying its earlier user messages); when the top
  intent is below the disambiguation threshold and the runner-up intent belongs to another
  flow within the margin, ``disambiguate flows a b`` instead;
- each entity named like a slot of the started or active flow gives ``set slot``;
- with no command yet, an answer to ``utter_ask_<slot>`` of the active flow sets that slot to
  the whole message (as a collect step would).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from nlu_tui.dialogue_understanding.commands import (
    CANCEL_FLOW,
    CHITCHAT,
    HUMAN_HANDOFF,
    KNOWLEDGE,
    START_FLOW,
    Command,
    clarify,
    set_slot,
    start_flow,
)
from nlu_tui.engines.base import Capabilities, Engine, ParseContext
from nlu_tui.engines.command_api import CommandEngine, CommandOutput, CommandRequest

if TYPE_CHECKING:
    import httpx

    from nlu_tui.dialogue_understanding.flows import Flow, Flows
    from nlu_tui.model import Prediction

COMPONENT = "NLUCommandAdapter"
"""Named after Rasa Pro's component that turns intents and entities into commands."""


class NluCommandGenerator(Engine, CommandEngine):
    """Wraps an engine that parses utterances; predicts commands from its answers."""

    type_name = "nlu-commands"

    def __init__(self, inner: Engine, flows: Flows) -> None:
        self.inner = inner
        self.flows = flows
        self.capabilities = Capabilities(commands=True, training=inner.capabilities.training)
        self._cache: dict[str, Prediction] = {}

    async def open(self, client: httpx.AsyncClient | None) -> None:
        await self.inner.open(client)

    async def close(self) -> None:
        await self.inner.close()

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        return await self.inner.parse(text, context)

    async def _classify(self, text: str) -> Prediction:
        cached = self._cache.get(text)
        if cached is None:
            cached = await self.inner.parse(text, ParseContext())
            if cached.error:
                raise RuntimeError(cached.error)
            self._cache[text] = cached
        return cached

    async def _active_flow(self, request: CommandRequest) -> Flow | None:
        """The flow active before this message. As in Rasa Pro's DUT runner, which replays
        earlier user messages with the test's expected commands
        (``TestCaseTrackerSimulator._create_user_message``), a user turn that carries expected
        commands moves the flow by them (``start flow``, ``cancel flow``); only a turn
        without them is classified."""
        active: Flow | None = None
        for turn in request.conversation:
            if turn.actor != "user" or not turn.text:
                continue
            if turn.commands:
                for command in turn.commands:
                    if command.name == START_FLOW and command.args:
                        active = self.flows.flows.get(str(command.args[0]), active)
                    elif command.name == CANCEL_FLOW:
                        active = None
                continue
            prediction = await self._classify(turn.text)
            if prediction.intent in self.flows.cancel_intents:
                active = None
            elif (flow := self.flows.flow_of_intent(prediction.intent)) is not None:
                active = flow
        return active

    async def predict_commands(self, request: CommandRequest) -> CommandOutput:
        started = time.perf_counter()
        prediction = await self.inner.parse(request.text, ParseContext())
        if prediction.error:
            raise RuntimeError(prediction.error)
        active = await self._active_flow(request)
        commands = self._commands(prediction, active, request)
        latency = prediction.latency_ms
        if latency is None:
            latency = (time.perf_counter() - started) * 1000.0
        return CommandOutput(commands={COMPONENT: commands} if commands else {}, latency_ms=latency)

    def _commands(
        self, prediction: Prediction, active: Flow | None, request: CommandRequest
    ) -> list[Command]:
        flows = self.flows
        intent = prediction.intent
        out: list[Command] = []
        simple = {
            **dict.fromkeys(flows.cancel_intents, CANCEL_FLOW),
            **dict.fromkeys(flows.chitchat_intents, CHITCHAT),
            **dict.fromkeys(flows.knowledge_intents, KNOWLEDGE),
            **dict.fromkeys(flows.handoff_intents, HUMAN_HANDOFF),
        }
        target = active
        if intent in simple:
            out.append(Command(simple[intent]))
        elif (flow := flows.flow_of_intent(intent)) is not None:
            rival = self._rival(prediction, flow)
            if rival is not None:
                out.append(clarify(sorted([flow.name, rival.name])))
            elif active is None or flow.name != active.name:
                out.append(start_flow(flow.name))
                target = flow
        if target is not None:
            for entity in prediction.entities:
                if entity.name in target.slots:
                    out.append(set_slot(entity.name, _value(entity.value)))
        if not out and active is not None:
            asked = _asked_slot(request)
            if asked in active.slots:
                out.append(set_slot(asked, request.text.strip()))
        return out

    def _rival(self, prediction: Prediction, flow: Flow) -> Flow | None:
        top = prediction.confidence
        if top is None or top >= self.flows.disambiguation_threshold:
            return None
        for score in prediction.ranking:
            other = self.flows.flow_of_intent(score.name)
            if other is None or other.name == flow.name:
                continue
            if top - score.confidence <= self.flows.disambiguation_margin:
                return other
            break
        return None

    def describe(self) -> dict[str, Any]:
        info = dict(self.inner.describe())
        info["command_generator"] = "nlu"
        if self.flows.path is not None:
            info["flows"] = str(self.flows.path)
        return info


def _value(value: Any) -> str:
    if isinstance(value, dict) and "value" in value:
        value = value["value"]
    return str(value)


def _asked_slot(request: CommandRequest) -> str | None:
    for turn in reversed(request.conversation):
        if turn.actor == "user":
            return None
        if turn.template and turn.template.startswith("utter_ask_"):
            return turn.template.removeprefix("utter_ask_")
    return None
