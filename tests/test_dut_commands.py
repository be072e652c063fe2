"""Parsing the three command DSLs as Rasa Pro 3.21's regular expressions do."""

from __future__ import annotations

import pytest

from nlu_tui.dialogue_understanding.commands import (
    CommandSet,
    CustomCommand,
    clarify,
    command_from_json,
    detect_version,
    parse_commands,
    remember_custom,
    set_slot,
    start_flow,
)
from nlu_tui.dialogue_understanding.compare import are_command_lists_equal

V1, V2, V3 = CommandSet(version="v1"), CommandSet(version="v2"), CommandSet(version="v3")


@pytest.mark.parametrize(
    ("text", "version", "names"),
    [
        ("StartFlow(add_contact)", V1, ["start flow"]),
        ("SetSlot(handle, @barts)", V1, ["set slot"]),
        ("CancelFlow()", V1, ["cancel flow"]),
        ("Clarify(a, b)", V1, ["clarify"]),
        ("ChitChat()", V1, ["chitchat"]),
        ("SearchAndReply()", V1, ["knowledge"]),
        ("HumanHandoff()", V1, ["human handoff"]),
        ("start flow add_contact", V2, ["start flow"]),
        ("set slot handle @barts", V2, ["set slot"]),
        ("cancel flow", V2, ["cancel flow"]),
        ("disambiguate flows a b", V2, ["clarify"]),
        ("offtopic reply", V2, ["chitchat"]),
        ("provide info", V2, ["knowledge"]),
        ("hand over", V2, ["human handoff"]),
        ("search and reply", V3, ["knowledge"]),
        ("provide info", V3, []),
        ("search and reply", V2, []),
        ("StartFlow(x)", V2, []),
        ("start flow x", V1, []),
    ],
)
def test_each_dsl(text: str, version: CommandSet, names: list[str]) -> None:
    assert [cmd.name for cmd in parse_commands(text, version)] == names


def test_values_are_cleaned_as_rasa_does() -> None:
    assert parse_commands("set slot amount 50$", V2) == [set_slot("amount", "50")]
    assert parse_commands("set slot handle '@barts'", V2) == [set_slot("handle", "@barts")]
    assert parse_commands("SetSlot(name, None)", V1) == [set_slot("name", None)]
    assert parse_commands("1. start flow `add_contact`", V2) == [start_flow("add_contact")]
    assert parse_commands("disambiguate flows b, a", V2) == [clarify(["a", "b"])]
    assert parse_commands("set slot flow_name add_contact", V2) == [start_flow("add_contact")]


def test_round_trip_to_each_dsl() -> None:
    commands = [start_flow("f"), set_slot("s", "v"), clarify(["a", "b"])]
    assert [x.to_dsl("v1") for x in commands] == ["StartFlow(f)", "SetSlot(s, v)", "Clarify(a, b)"]
    assert [x.to_dsl("v2") for x in commands] == [
        "start flow f",
        "set slot s v",
        "disambiguate flows a b",
    ]
    assert parse_commands("provide info", V2)[0].to_dsl("v3") == "search and reply"


def test_known_flows_are_checked_like_rasas_parser() -> None:
    flows = CommandSet(version="v2", flows=frozenset({"a", "b"}))
    assert parse_commands("start flow nope", flows) == []
    # one valid option left: Rasa turns the clarify into a start flow
    assert parse_commands("disambiguate flows a nope", flows) == [start_flow("a")]
    assert parse_commands("disambiguate flows a b nope", flows) == [clarify(["a", "b"])]


def test_custom_and_removed_commands() -> None:
    custom = CustomCommand(
        "CustomCancelFlow",
        "cancel flow",
        {"v2": r"^stop everything(?: (\w+))?$"},
        {"v2": "stop everything {1}"},
    )
    remember_custom([custom])
    commands = CommandSet(version="v2", removed=frozenset({"CancelFlow"}), custom=(custom,))
    assert parse_commands("cancel flow", commands) == []
    parsed = parse_commands("stop everything now", commands)
    assert [(x.name, x.args, x.custom) for x in parsed] == [
        ("cancel flow", ("now",), "CustomCancelFlow")
    ]
    assert parsed[0].to_dsl("v2") == "stop everything now"
    assert parsed[0].metric_name == "cancel_flow"
    # a CancelFlowCommand subclass compares as CancelFlow: its __eq__ is an isinstance check
    # (Rasa Pro 3.21, cancel_flow_command.py, CancelFlowCommand.__eq__; issue 24, D2)
    assert are_command_lists_equal(parsed, parse_commands("cancel flow", V2))


def test_commands_from_rasa_tracker_json() -> None:
    assert command_from_json({"command": "set slot", "name": "x", "value": True}) == set_slot(
        "x", "True"
    )
    assert are_command_lists_equal(
        [set_slot("x", "true")],
        [
            command_from_json(
                {"command": "set slot", "name": "x", "value": True, "extractor": "LLM"}
            )
        ],  # type: ignore[list-item]
    )
    assert command_from_json({"command": "clarify", "options": ["b", "a"]}) == clarify(["b", "a"])


def test_detect_version() -> None:
    assert detect_version(["StartFlow(a)", "SetSlot(b, c)"]) == "v1"
    assert detect_version(["start flow a", "search and reply"]) == "v3"
    assert detect_version(["start flow a"]) == "v2"
