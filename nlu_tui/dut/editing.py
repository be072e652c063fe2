"""Editing DUT test cases (the workbench's step editor), Textual-free: command completion from
the flows and slots, validation as the reader validates, and writing the edits back."""

from __future__ import annotations

from pathlib import Path

from nlu_tui.conversation_model import E2EFile, E2ETestCase, StepKind
from nlu_tui.dialogue_understanding.commands import CommandSet, detect_version, parse_commands
from nlu_tui.dialogue_understanding.flows import Flows

FIXED = (
    "cancel flow",
    "disambiguate flows ",
    "offtopic reply",
    "provide info",
    "hand over",
    "skip question",
    "repeat message",
)


def command_candidates(flows: Flows | None) -> list[str]:
    """What the command inputs complete to: a start and each slot of every flow, then the rest."""
    out: list[str] = []
    if flows is not None:
        for flow in flows.flows.values():
            out.append(f"start flow {flow.name}")
        for flow in flows.flows.values():
            out.extend(f"set slot {slot} " for slot in flow.slots)
    out.extend(FIXED)
    return list(dict.fromkeys(out))


def file_version(data: E2EFile) -> str:
    return detect_version(
        c for case in data.test_cases for s in case.steps for c in s.commands or []
    )


def check_commands(case: E2ETestCase, version: str, flows: Flows | None) -> list[tuple[int, str]]:
    """(step index, message) for every command the reader would refuse."""
    commands = CommandSet(version=version, flows=flows.ids if flows else None)
    problems = []
    for index, step in enumerate(case.steps):
        for text in step.commands or []:
            if not text.strip():
                problems.append((index, "an empty command"))
            elif not parse_commands(text, commands):
                problems.append((index, f"'{text}' is not a command in DSL {version}"))
    return problems


def apply_edits(case: E2ETestCase, texts: dict[int, str], commands: dict[int, list[str]]) -> None:
    """Put edited step texts and user-step commands into the test case."""
    for index, step in enumerate(case.steps):
        if index in texts:
            step.text = texts[index]
        if step.kind is StepKind.USER and index in commands:
            step.commands = [c.strip() for c in commands[index] if c.strip()] or None


def save(data: E2EFile, path: Path) -> None:
    from nlu_tui.formats.e2e_cases import write

    write(data, path)
