"""The prompt of the LLM command generator and the reading of its answer.

The prompt follows the layout of Rasa Pro's compact (V2 DSL) command prompt — the task, the
flows with their slots as JSON, the commands allowed, the current state, the conversation so
far and the last message — written in our own words. The answer is read with the V2 parser
(:func:`nlu_tui.dialogue_understanding.commands.parse_commands`), one command per line, like
Rasa Pro reads it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from nlu_tui.dialogue_understanding.commands import Command, command_syntax, parse_commands
from nlu_tui.dialogue_understanding.flows import Flows
from nlu_tui.engines.command_api import Turn

_ACTIONS = """\
* `start flow FLOW`: start one of the flows above, e.g. `start flow add_contact`.
* `set slot SLOT VALUE`: fill or correct a slot with what the user said, e.g. `set slot handle @maria`.
* `cancel flow`: stop the current flow, only when the user asks for it.
* `disambiguate flows FLOW1 FLOW2 ...`: the message could start several flows; list them.
* `provide info`: answer a question about the business or its services (FAQ, how-to).
* `offtopic reply`: reply to small talk that belongs to no flow.
* `hand over`: the user wants a human."""


def render_prompt(
    flows: Flows,
    conversation: Sequence[Turn],
    text: str,
    slots: Mapping[str, Any] | None = None,
) -> str:
    """The user prompt for one step (deterministic: same inputs, same text)."""
    flow_data = {
        "flows": [
            {
                "name": flow.name,
                "description": flow.description,
                **({"slots": [{"name": s} for s in flow.slots]} if flow.slots else {}),
            }
            for flow in flows.flows.values()
        ]
    }
    history = "\n".join(_line(turn) for turn in conversation) or "(nothing yet)"
    state = (
        "Slots already set: " + json.dumps(dict(slots), ensure_ascii=False, default=str)
        if slots
        else "No slot is set yet."
    )
    return (
        "## Task\n"
        "You read a conversation between a user and an assistant and write the commands the "
        "assistant must run for the user's last message: start business processes (flows), "
        "fill their slots, or answer small talk and questions.\n\n"
        "## Flows and their slots\n"
        f"```json\n{json.dumps(flow_data, ensure_ascii=False, separators=(',', ':'))}\n```\n\n"
        "## Commands\n"
        f"{_ACTIONS}\n\n"
        "## Rules\n"
        "* Write one command per line and nothing else.\n"
        "* Take slot values exactly as the user wrote them; map yes/no answers to True/False.\n"
        "* Do not start a flow that is already under way; do not cancel unless asked.\n"
        "* Use earlier turns only to understand the last message.\n\n"
        "## Current state\n"
        f"{state}\n\n"
        "## Conversation so far\n"
        f"{history}\n\n"
        "## Your answer\n"
        f'Commands for the user\'s last message: """{text}"""\n'
    )


def _line(turn: Turn) -> str:
    if turn.actor == "user":
        return f"USER: {turn.text}"
    return f"AI: {turn.text if turn.text else turn.template}"


def parse_answer(answer: str, flows: Flows | None = None, version: str = "v2") -> list[Command]:
    """The commands of an LLM answer (unknown flows dropped, as Rasa Pro's parser does), the
    run's custom commands included."""
    return parse_commands(answer, command_syntax(version, flows.ids if flows else None))
