"""Evaluating test stories as ``rasa test core --stories`` does (``rasa/core/test.py``).

A story becomes Rasa's event list (``StoryStep.explicit_events``: an ``action_listen`` before
each user message and at the end, slots filled from entities by ``from_entity`` mappings).
Then, event by event, the policy is asked for each action given the story's own events so far
(teacher forcing: after a wrong prediction the story goes on with the expected action, as in
Rasa), with Rasa's emulated form rejection and its ``action_unlikely_intent`` handling. A story
fails when any action (or, with ``e2e``, any user message's intent or entities) is predicted
wrong; the annotated story is what ``failed_test_stories.yml`` shows.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nlu_tui.conversation_model import Story, StoryStep, StoryStepKind
from nlu_tui.engines.conversation import DialogueDomain, DialogueProbe

ACTION_LISTEN = "action_listen"
ACTION_SESSION_START = "action_session_start"
ACTION_UNLIKELY_INTENT = "action_unlikely_intent"
CIRCUIT_BREAKER = "circuit breaker tripped"
DEFAULT_VALUE_TEXT_SLOTS = "filled"
DEFAULT_VALUE_LIST_SLOTS = ["filled"]


@dataclass
class Written:
    """One event of the evaluated story as the writer shows it: Rasa's event dict, whether it is
    a plain (correctly predicted) action, and the ``# predicted:`` comment where wrong."""

    event: dict[str, Any]
    comment: str | None = None
    plain_action: bool = False
    entity_comments: dict[int, str] = field(default_factory=dict)


@dataclass
class ActionPair:
    expected: str
    predicted: str
    policy: str | None = None
    confidence: float | None = None


@dataclass
class StoryResult:
    """The outcome of one story."""

    story: Story
    passed: bool
    written: list[Written]
    actions: list[ActionPair]
    intents: list[tuple[str | None, str | None]] = field(default_factory=list)
    entity_targets: list[dict[str, Any]] = field(default_factory=list)
    entity_predictions: list[dict[str, Any]] = field(default_factory=list)
    """With ``e2e``: the user messages' entities as Rasa's evaluation store keeps them."""
    policy_entities: list[dict[str, Any]] = field(default_factory=list)
    """Rasa's ``EntityEvaluationResult`` of each action predicted right after a user message
    with entities: its text, the expected entities, the policy's and the message's tokens
    (``TEDPolicy_report.json`` / ``_errors.json``, see :func:`policy_entity_result`)."""
    warning: bool = False
    first_failure: str | None = None
    """The first wrong prediction, e.g. ``utter_happy (predicted utter_cheer_up)``."""
    first_failure_line: int | None = None


def _entity_dicts(step: StoryStep) -> list[dict[str, Any]]:
    out = []
    for e in step.entities:
        item: dict[str, Any] = {"entity": e.entity, "value": e.value}
        if e.start is not None:
            item["start"], item["end"] = e.start, e.end
        if e.role is not None:
            item["role"] = e.role
        if e.group is not None:
            item["group"] = e.group
        out.append(item)
    return out


def _slots_for_entities(
    domain: DialogueDomain, entities: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Rasa's ``Domain.slots_for_entities`` (the slots a user message's entities fill)."""
    if not domain.store_entities_as_slots:
        return []
    events = []
    by_slot: dict[str, list[Any]] = {}
    order: list[str] = []
    for slot, mapping in domain.entity_slots:
        for entity in entities:
            if (
                entity.get("entity") == mapping.get("entity")
                and entity.get("role") == mapping.get("role")
                and entity.get("group") == mapping.get("group")
            ):
                if slot not in by_slot:
                    order.append(slot)
                by_slot.setdefault(slot, []).append(entity.get("value"))
    for slot in order:
        values = by_slot[slot]
        value = values if domain.slot_types.get(slot) == "list" else values[-1]
        events.append({"event": "slot", "name": slot, "value": value})
    return events


def _slot_default(domain: DialogueDomain, slot: str) -> Any:
    kind = domain.slot_types.get(slot)
    if kind == "text":
        return DEFAULT_VALUE_TEXT_SLOTS
    if kind == "list":
        return list(DEFAULT_VALUE_LIST_SLOTS)
    return None


def _is_listen(event: dict[str, Any]) -> bool:
    return event.get("event") == "action" and event.get("name") == ACTION_LISTEN


def story_events(story: Story, domain: DialogueDomain) -> list[tuple[dict[str, Any], int | None]]:
    """Rasa's event list of a story (``explicit_events``), each with its story line."""
    events: list[tuple[dict[str, Any], int | None]] = []

    def listen() -> None:
        if not events or not _is_listen(events[-1][0]):
            events.append(({"event": "action", "name": ACTION_LISTEN}, None))

    for step in story.steps:
        if step.kind is StoryStepKind.INTENT:
            listen()
            entities = _entity_dicts(step)
            user: dict[str, Any] = {
                "event": "user",
                "text": step.text,
                "parse_data": {
                    "intent": {"name": step.name, "confidence": 1.0},
                    "entities": entities,
                },
            }
            events.append((user, step.line))
            events.extend((slot, step.line) for slot in _slots_for_entities(domain, entities))
        elif step.kind is StoryStepKind.ACTION:
            events.append(({"event": "action", "name": step.name}, step.line))
        elif step.kind is StoryStepKind.BOT:
            events.append(({"event": "action", "action_text": step.text}, step.line))
        elif step.kind is StoryStepKind.SLOT_WAS_SET:
            assert step.slot is not None
            value = step.value if step.has_value else _slot_default(domain, step.slot)
            events.append(({"event": "slot", "name": step.slot, "value": value}, step.line))
        elif step.kind is StoryStepKind.ACTIVE_LOOP:
            events.append(({"event": "active_loop", "name": step.name}, step.line))
    if not story.steps or story.steps[-1].kind is not StoryStepKind.CHECKPOINT:
        listen()
    if not events or not _is_listen(events[0][0]):
        events.insert(0, ({"event": "action", "name": ACTION_LISTEN}, None))
    return events


def _max_predictions() -> int:
    try:
        return int(os.environ.get("MAX_NUMBER_OF_PREDICTIONS", "10"))
    except ValueError:
        return 10


def _limit_reached(partial: list[dict[str, Any]]) -> bool:
    """Rasa's ``is_action_limit_reached`` (the circuit breaker)."""
    count = 0
    latest: str | None = None
    for event in reversed(partial):
        if event.get("event") == "action":
            name = event.get("name")
            if latest is None:
                latest = name or event.get("action_text") or ""
            if name in (ACTION_LISTEN, ACTION_SESSION_START):
                break
            count += 1
    return count >= _max_predictions() and latest != ACTION_LISTEN


def _active_loop(partial: list[dict[str, Any]]) -> str | None:
    loop: str | None = None
    for event in partial:
        if event.get("event") == "active_loop":
            loop = event.get("name")
        elif event.get("event") == "restart":
            loop = None
    return loop


def _clean_entities(
    text: str, entities: list[dict[str, Any]], *, stringify: bool
) -> list[dict[str, Any]]:
    """Rasa's ``_clean_entity_results``: text, start, end, entity and value, in that order
    (a value found by an extractor as text, since written ones are text)."""
    out = []
    for entity in entities:
        if not isinstance(entity, dict):
            continue
        clean: dict[str, Any] = {"text": text}
        for key in ("start", "end", "entity", "value"):
            if key in entity:
                value = entity[key]
                if key == "value" and stringify and "extractor" in entity:
                    value = str(value)
                clean[key] = value
        out.append(clean)
    return out


POLICIES_THAT_EXTRACT_ENTITIES = ("TEDPolicy",)
"""``rasa.shared.core.constants.POLICIES_THAT_EXTRACT_ENTITIES``: the extractors ``rasa test
core`` evaluates entities for (whatever the model's policies are)."""


def _policy_entity_source(
    partial: Sequence[dict[str, Any]], wrong: Mapping[int, list[dict[str, Any]]]
) -> tuple[str, list[dict[str, Any]]] | None:
    """Rasa's ``_get_e2e_entity_evaluation_result``, the event it looks at: the tracker's last
    event, or after slot events the last user message or action; a user message with text and
    expected entities (the entities a policy predicts never reach an HTTP client: Rasa's
    ``/model/predict`` answers scores, policy and confidence only, not the prediction's
    ``EntitiesAdded`` events, so here a policy predicts none, as ``TEDPolicy`` does for a model
    not trained end to end). Returns the text and the expected entities: with ``--e2e``, a
    message the NLU got wrong is Rasa's ``WronglyClassifiedUserUtterance``, whose entities are
    the cleaned targets (``wrong``, by the event's id)."""
    last: dict[str, Any] | None = partial[-1] if partial else None
    if last is not None and last.get("event") == "slot":
        last = next((e for e in reversed(partial) if e.get("event") in ("user", "action")), None)
    if last is None or last.get("event") != "user" or not last.get("text"):
        return None
    if id(last) in wrong:
        targets = wrong[id(last)]
    else:
        targets = [_rasa_entity(e) for e in (last.get("parse_data") or {}).get("entities") or []]
    return (str(last["text"]), targets) if targets else None


def _rasa_entity(entity: dict[str, Any]) -> dict[str, Any]:
    """A story's entity in the key order of Rasa's reader (``build_entity``)."""
    from nlu_tui.scoring.rasa_entities import target_dict

    if "start" not in entity:
        return dict(entity)
    return target_dict(
        str(entity.get("entity")),
        entity.get("start"),
        entity.get("end"),
        entity.get("value"),
        entity.get("role"),
        entity.get("group"),
    )


async def policy_entity_result(
    partial: Sequence[dict[str, Any]],
    probe: DialogueProbe,
    wrong: Mapping[int, list[dict[str, Any]]] | None = None,
) -> dict[str, Any] | None:
    """The ``EntityEvaluationResult`` Rasa collects before predicting an action: the last user
    message's text, expected entities, the policy's entities (none over HTTP) and the tokens
    of the message as the model's NLU parses it (``text_tokens``; none when the answer has
    none, as Rasa's ``parsed_message.get(TOKENS_NAMES[TEXT], [])``)."""
    source = _policy_entity_source(partial, wrong or {})
    if source is None:
        return None
    text, targets = source
    parsed = await probe.parse_message(text)
    tokens = [
        [int(t[0]), int(t[1])]
        for t in parsed.get("text_tokens") or []
        if isinstance(t, list | tuple) and len(t) == 2
    ]
    return {
        "text": text,
        "entities": targets,
        "predicted_entities": [],
        "tokens": tokens,
    }


async def evaluate_story(
    story: Story, probe: DialogueProbe, domain: DialogueDomain, *, e2e: bool = False
) -> StoryResult:
    """Evaluate one story (``_predict_tracker_actions``)."""
    events = story_events(story, domain)
    partial: list[dict[str, Any]] = [events[0][0]]
    written: list[Written] = [Written(events[0][0], plain_action=True)]
    pairs: list[ActionPair] = []
    intents: list[tuple[str | None, str | None]] = []
    result = StoryResult(story=story, passed=True, written=written, actions=pairs, intents=intents)
    misread: dict[int, list[dict[str, Any]]] = {}
    failed = False

    async def predict() -> tuple[str, str | None, float | None]:
        if _limit_reached(partial):
            return CIRCUIT_BREAKER, None, None
        p = await probe.predict_action(partial)
        return p.action, p.policy, p.confidence

    def fail(text: str, line: int | None) -> None:
        nonlocal failed
        if not failed:
            result.first_failure, result.first_failure_line = text, line
        failed = True

    for event, line in events[1:]:
        if event.get("event") == "action":
            expected = event.get("name") or event.get("action_text") or ""
            # Rasa collects it with the first prediction (none when the circuit breaker trips)
            entity_result = (
                None
                if _limit_reached(partial)
                else await policy_entity_result(partial, probe, misread)
            )
            predicted, policy, confidence = await predict()
            if (
                policy
                and predicted != expected
                and predicted == _active_loop(partial)
                and predicted in domain.forms
            ):
                partial.append({"event": "action_execution_rejected", "name": predicted})
                predicted, policy, confidence = await predict()
            unlikely_before = False
            if predicted == ACTION_UNLIKELY_INTENT and predicted != expected:
                wrong = {"event": "action", "name": predicted, "policy": policy}
                partial.append(wrong)
                written.append(Written(wrong, comment=f"predicted: {predicted}"))
                unlikely_before = True
                # Rasa predicts again and keeps that prediction's entity result: none, the
                # tracker's last event being the action_unlikely_intent
                entity_result = None
                predicted, policy, confidence = await predict()
            if entity_result is not None:
                result.policy_entities.append(entity_result)
            pairs.append(ActionPair(expected, predicted, policy, confidence))
            if predicted != expected:
                done = dict(event)
                partial.append(done)
                comment = f"predicted: {predicted}"
                if unlikely_before:
                    comment += f" after {ACTION_UNLIKELY_INTENT}"
                written.append(Written(done, comment=comment))
                if predicted != ACTION_UNLIKELY_INTENT:
                    fail(f"{expected} (predicted {predicted})", line)
            elif unlikely_before:
                warn = {"event": "action", "name": ACTION_UNLIKELY_INTENT, "policy": policy}
                partial.append(warn)
                written.append(Written(warn, comment=f"predicted: {predicted}"))
                result.warning = True
            else:
                done = {"event": "action", "name": predicted, "policy": policy}
                if "action_text" in event and not event.get("name"):
                    done = {"event": "action", "action_text": predicted, "policy": policy}
                if confidence is not None:
                    done["confidence"] = confidence
                partial.append(done)
                written.append(Written(done, plain_action=True))
        elif e2e and event.get("event") == "user":
            gold = event["parse_data"]
            gold_intent = gold["intent"]["name"]
            if event.get("text"):
                parsed = await probe.parse_message(event["text"])
            else:
                parsed = gold
            got_intent = (parsed.get("intent") or {}).get("name")
            intents.append((gold_intent, got_intent))
            got_entities = [
                {k: e.get(k) for k in ("entity", "value", "start", "end")}
                for e in parsed.get("entities") or []
                if isinstance(e, dict)
            ]
            text = event.get("text") or ""
            gold_clean = _clean_entities(text, gold["entities"], stringify=False)
            got_clean = _clean_entities(text, parsed.get("entities") or [], stringify=True)
            if gold_clean or got_clean:
                result.entity_targets.extend(gold_clean)
                result.entity_predictions.extend(got_clean)
            wrong_entities = {tuple(e.items()) for e in gold_clean} != {
                tuple(e.items()) for e in got_clean
            }
            partial.append(event)
            if got_intent != gold_intent or wrong_entities:
                misread[id(event)] = gold_clean
                shown = dict(event)
                shown["predicted"] = {"intent": got_intent, "entities": got_entities}
                # Rasa's WronglyClassifiedUserUtterance carries the entity targets as its
                # entities (``eval_store.entity_targets``); the writer pairs them by start
                shown["targets"] = gold_clean
                written.append(
                    Written(shown, comment=_intent_comment(event, got_intent, got_entities))
                )
                fail(f"intent {gold_intent} (predicted {got_intent})", line)
            else:
                written.append(Written(event))
        else:
            partial.append(event)
            written.append(Written(event))
    result.passed = not failed
    if failed:
        result.warning = False
    return result


def _intent_comment(
    event: dict[str, Any], intent: str | None, entities: list[dict[str, Any]]
) -> str:
    """``WronglyClassifiedUserUtterance.inline_comment``: the predicted intent and the text
    with the predicted entities marked up."""
    text = event.get("text") or ""
    return f"predicted: {intent}: {format_message(text, intent, entities)}"


def entity_attributes(span: str, entity: dict[str, Any]) -> str:
    """Rasa's entity attributes after ``[span]``: ``(name)``, or the JSON of the non-default ones."""
    value = entity.get("value")
    if value and value == span:
        value = None
    role, group = entity.get("role"), entity.get("group")
    if value is None and role is None and group is None:
        return f"({entity.get('entity')})"
    data = {
        k: v
        for k, v in (
            ("entity", entity.get("entity")),
            ("role", role),
            ("group", group),
            ("value", value),
        )
        if v is not None
    }
    return json.dumps(data)


def format_message(text: str, intent: str | None, entities: Sequence[dict[str, Any]]) -> str:
    """Rasa's ``format_message``: the text with the entities marked up inline."""
    del intent
    if text.startswith("/"):
        return text
    by_start: dict[int, list[dict[str, Any]]] = {}
    for entity in entities:
        if isinstance(entity.get("start"), int) and isinstance(entity.get("end"), int):
            by_start.setdefault(entity["start"], []).append(entity)
    out, pos = "", 0
    for start in sorted(by_start):
        group = by_start[start]
        end = group[0]["end"]
        span = text[start:end]
        out += text[pos:start]
        if len(group) == 1:
            out += f"[{span}]{entity_attributes(span, group[0])}"
        else:
            inner = ", ".join(entity_attributes(span, e) for e in group)
            out += f"[{span}][{inner}]"
        pos = end
    return out + text[pos:]
