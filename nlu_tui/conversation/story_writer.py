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


def _wrong_user_lines(head: str, event: dict[str, Any], comment: str | None) -> list[str]:
    """A wrongly classified user message as ``YAMLStoryWriter.process_user_utterance`` writes
    a ``WronglyClassifiedUserUtterance`` (Rasa 3.6): its entities are the entity targets; each
    target with a value is written once per predicted entity that starts where it starts, with
    ``# predicted: ENTITY: VALUE`` on the entity line when the predicted entity type differs
    (a target no prediction starts at is left out, as Rasa does); the ``# predicted:`` comment
    goes on the intent line when the intent is wrong or no entity line was written."""
    predicted = event["predicted"]
    targets = event.get("targets")
    if targets is None:
        targets = (event.get("parse_data") or {}).get("entities") or []
    gold_intent = (event.get("parse_data") or {}).get("intent", {}).get("name")
    entity_lines: list[str] = []
    for entity in targets:
        if "value" not in entity:
            entity_lines.append(f"    - {_scalar(entity.get('entity'))}")
            continue
        for guess in predicted.get("entities") or []:
            if guess.get("start") != entity.get("start"):
                continue
            line = f"    - {_scalar(entity.get('entity'))}: {_scalar(entity.get('value'))}"
            if guess.get("entity") != entity.get("entity"):
                line += f"  # predicted: {guess.get('entity')}: {guess.get('value')}"
            entity_lines.append(line)
    show = comment and (predicted.get("intent") != gold_intent or not entity_lines)
    out = [head + (f"  # {comment}" if show else "")]
    if targets:
        out.extend(["    entities:", *entity_lines] if entity_lines else ["    entities: []"])
    return out


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
            if "predicted" in event:
                lines.extend(_wrong_user_lines(head, event, item.comment))
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
