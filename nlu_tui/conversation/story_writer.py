"""Writing evaluated stories as Rasa's ``YAMLStoryWriter`` does: ``failed_test_stories.yml``
and ``stories_with_warnings.yml`` of ``rasa test core``.

A story is named ``NAME (SOURCE FILE)``; correctly predicted ``action_listen`` events are left
out; a wrong prediction keeps the expected action with an end-of-line ``# predicted: ACTION``
comment (two spaces before ``#``, as ruamel writes it); user messages show their intent and
entities; slots and active loops are written as in the stories.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml

from nlu_tui.conversation.story_eval import (
    ACTION_LISTEN,
    ACTION_SESSION_START,
    StoryResult,
)
from nlu_tui.conversation.story_eval import format_message as format_message

RASA_FORMAT_VERSION = "3.1"
NO_FAILED = "None of the test stories failed - all good!"
NO_WARNINGS = "No warnings for test stories"
NO_SUCCESS = "None of the test stories succeeded :("


def _scalar(value: Any) -> str:
    """A YAML scalar on one line, quoted only where YAML needs it."""
    if value is None:
        return "null"
    text = yaml.safe_dump(value, default_flow_style=True, width=4096, allow_unicode=True)
    text = text.rstrip("\n")
    if text.endswith("\n..."):
        text = text[: -len("\n...")]
    return text.strip()


def _step_lines(result: StoryResult) -> list[str]:
    lines: list[str] = []
    for item in result.written:
        event = item.event
        kind = event.get("event")
        comment = f"  # {item.comment}" if item.comment else ""
        if kind == "action":
            name = event.get("name")
            if item.plain_action and name in (ACTION_LISTEN, ACTION_SESSION_START):
                continue
            if name:
                lines.append(f"  - action: {_scalar(name)}{comment}")
            elif event.get("action_text") is not None:
                lines.append(f"  - bot: {_scalar(event['action_text'])}{comment}")
        elif kind == "user":
            intent = (event.get("parse_data") or {}).get("intent", {}).get("name")
            entities = (event.get("parse_data") or {}).get("entities") or []
            head = f"  - intent: {_scalar(intent)}" if intent else None
            if head is None:  # an end-to-end user message without intent
                lines.append(f"  - user: {_scalar(event.get('text'))}{comment}")
                continue
            lines.append(head + comment)
            if entities:
                lines.append("    entities:")
                for entity in entities:
                    if "value" in entity:
                        lines.append(
                            f"    - {_scalar(entity['entity'])}: {_scalar(entity['value'])}"
                        )
                    else:
                        lines.append(f"    - {_scalar(entity['entity'])}")
        elif kind == "slot":
            lines.append("  - slot_was_set:")
            lines.append(f"    - {_scalar(event.get('name'))}: {_scalar(event.get('value'))}")
        elif kind == "active_loop":
            lines.append(f"  - active_loop: {_scalar(event.get('name'))}")
    return lines


def dumps(results: Sequence[StoryResult], empty_message: str) -> str:
    """The YAML file of these stories (or Rasa's one-line comment when there are none)."""
    if not results:
        return f"# {empty_message}"
    lines = [f'version: "{RASA_FORMAT_VERSION}"', "stories:"]
    for result in results:
        name = f"{result.story.name} ({result.story.file})"
        lines.append(f"- story: {_scalar(name)}")
        lines.append("  steps:")
        lines.extend(_step_lines(result))
    return "\n".join(lines) + "\n"
