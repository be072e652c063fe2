"""The embedded command generator's rules: intent -> start flow, entity -> set slot, cancel
intents -> cancel flow, two close flows below the threshold -> disambiguate flows, and the
active flow taken from the conversation so far."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nlu_tui.dialogue_understanding.commands import (
    CANCEL_FLOW,
    Command,
    clarify,
    set_slot,
    start_flow,
)
from nlu_tui.dialogue_understanding.flows import load_flows
from nlu_tui.engines.command_api import CommandRequest, Turn
from nlu_tui.engines.command_nlu import NluCommandGenerator
from nlu_tui.engines.embedded.engine import EmbeddedEngine
from nlu_tui.model import IntentScore, PredictedEntity, Prediction

SAMPLES = Path(__file__).parents[1] / "sample_suites"
FLOWS = load_flows(SAMPLES / "contacts.flows.yml")


def generator() -> NluCommandGenerator:
    return NluCommandGenerator(EmbeddedEngine({"nlu": str(SAMPLES / "contacts.nlu.yml")}), FLOWS)


def rules(
    prediction: Prediction, active: str | None = None, asked: str | None = None
) -> list[Command]:
    conversation = (Turn("bot", template=f"utter_ask_{asked}"),) if asked else ()
    request = CommandRequest("just Bart", conversation)
    flow = FLOWS.flows[active] if active else None
    return generator()._commands(prediction, flow, request)


def test_rules() -> None:
    ranking = [IntentScore("add_contact", 0.30), IntentScore("remove_contact", 0.25)]
    assert rules(Prediction("add_contact", 0.30, ranking)) == [
        clarify(["add_contact", "remove_contact"])
    ]
    far = [IntentScore("add_contact", 0.30), IntentScore("remove_contact", 0.10)]
    assert rules(Prediction("add_contact", 0.30, far)) == [start_flow("add_contact")]
    handle = PredictedEntity("handle", "@b")
    assert rules(Prediction("add_contact", 0.9, entities=[handle])) == [
        start_flow("add_contact"),
        set_slot("handle", "@b"),
    ]
    # a slot of no started or active flow is not set
    assert rules(Prediction("check_balance", 0.9, entities=[handle])) == [
        start_flow("check_balance")
    ]
    assert rules(Prediction("add_contact", 0.9), active="add_contact") == []
    assert rules(Prediction("cancel", 0.9), active="add_contact") == [Command(CANCEL_FLOW)]
    # nothing recognised: the answer to utter_ask_name fills name
    assert rules(Prediction(None, None), active="add_contact", asked="name") == [
        set_slot("name", "just Bart")
    ]


def test_active_flow_from_the_conversation() -> None:
    async def go() -> tuple[list[Command], list[Command]]:
        gen = generator()
        await gen.open(None)
        fresh = await gen.predict_commands(CommandRequest("add a new contact"))
        again = await gen.predict_commands(
            CommandRequest(
                "add a new contact", (Turn("user", "I want to add someone to my contact list"),)
            )
        )
        return fresh.all_commands(), again.all_commands()

    fresh, again = asyncio.run(go())
    assert fresh == [start_flow("add_contact")]
    assert again == []  # add_contact is already active
