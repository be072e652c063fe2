"""Rasa conversations over its HTTP API (Rasa 3's ``rasa run --enable-api``).

- a conversation: fixtures as slot events (``POST /conversations/{id}/tracker/events``, which
  also starts the session), each user message through the REST channel
  (``POST /webhooks/rest/webhook``), then ``GET /conversations/{id}/tracker`` for the events
  that followed; bot events carry their response name in ``metadata.utter_action``; Rasa Pro's
  ``flow_started``/``flow_completed``/``flow_cancelled`` and ``stack`` events are kept too
  (E2E assertions read them);
- test stories: ``POST /model/predict`` (the next action for a list of events, stateless),
  ``POST /model/parse`` and ``GET /domain``.

Shapes from Rasa's own spec (``rasa/server.py``, ``docs/static/spec/rasa.yml``).
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping, Sequence
from typing import Any

from nlu_tui.conversation_model import EventKind, ObservedEvent, Turn
from nlu_tui.engines.conversation import ActionPrediction, Conversation, DialogueDomain
from nlu_tui.engines.httpcall import BadResponseError
from nlu_tui.engines.rasa_common import RasaServer


def observed(event: Mapping[str, Any]) -> ObservedEvent | None:
    """One tracker event as an ObservedEvent (None for events no test looks at)."""
    kind = event.get("event")
    if kind == "user":
        parse = event.get("parse_data") or {}
        intent = parse.get("intent") or {}
        return ObservedEvent(
            EventKind.USER,
            name=intent.get("name") if isinstance(intent, dict) else None,
            text=event.get("text"),
            confidence=_float(intent.get("confidence")) if isinstance(intent, dict) else None,
            entities=[e for e in parse.get("entities") or [] if isinstance(e, dict)],
            raw=dict(event),
        )
    if kind == "bot":
        meta = event.get("metadata") or {}
        return ObservedEvent(
            EventKind.BOT,
            name=meta.get("utter_action") if isinstance(meta, dict) else None,
            text=event.get("text"),
            raw=dict(event),
        )
    if kind == "action":
        return ObservedEvent(
            EventKind.ACTION,
            name=event.get("name"),
            policy=event.get("policy"),
            confidence=_float(event.get("confidence")),
            raw=dict(event),
        )
    if kind == "slot":
        return ObservedEvent(
            EventKind.SLOT, name=event.get("name"), value=event.get("value"), raw=dict(event)
        )
    if kind == "active_loop":
        return ObservedEvent(EventKind.ACTIVE_LOOP, name=event.get("name"), raw=dict(event))
    if kind == "flow_started":
        return ObservedEvent(EventKind.FLOW_STARTED, name=event.get("flow_id"), raw=dict(event))
    if kind in ("flow_completed", "flow_cancelled"):
        return ObservedEvent(
            EventKind(kind), name=event.get("flow_id"), value=event.get("step_id"), raw=dict(event)
        )
    if kind == "stack":
        return ObservedEvent(EventKind.STACK, raw=dict(event))
    return None


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def turn_of(user_text: str | None, events: Sequence[Mapping[str, Any]], latency: float) -> Turn:
    """The Turn made of the tracker events that followed one message."""
    seen = [e for e in (observed(ev) for ev in events) if e is not None]
    turn = Turn(user_text=user_text, events=seen, latency_ms=latency)
    for event in seen:
        if event.kind is EventKind.USER:
            turn.intent, turn.confidence = event.name, event.confidence
            turn.entities = list(event.entities)
            commands = event.raw.get("parse_data", {}).get("commands")
            if isinstance(commands, list):  # Rasa Pro (CALM) puts its commands here
                turn.commands = [str(c) for c in commands]
            break
    return turn


class RasaConversation(Conversation):
    """One sender id on one Rasa server; ``cursor`` is how many tracker events were seen."""

    def __init__(self, engine: RasaServer, sender_id: str) -> None:
        self.engine = engine
        self.sender_id = sender_id
        self.cursor = 0
        quoted = urllib.parse.quote(sender_id, safe="")
        self._tracker_url = f"{engine.base_url}/conversations/{quoted}/tracker"

    async def _events(self) -> tuple[list[dict[str, Any]], float]:
        body, latency = await self.engine.request_json(
            "GET", self._tracker_url, params=self.engine._params, headers=self.engine._headers
        )
        events = body.get("events") if isinstance(body, dict) else None
        if not isinstance(events, list):
            raise BadResponseError("Rasa tracker answer has no 'events' list")
        return [e for e in events if isinstance(e, dict)], latency

    async def begin(self, slots: Mapping[str, Any] | None = None) -> Turn:
        latency = 0.0
        if slots:
            body = [{"event": "slot", "name": k, "value": v} for k, v in slots.items()]
            _, latency = await self.engine.request_json(
                "POST",
                f"{self._tracker_url}/events",
                params=self.engine._params,
                headers=self.engine._headers,
                json_body=body,
            )
        events, more = await self._events()
        self.cursor = len(events)
        return turn_of(None, events, latency + more)

    async def send(self, text: str, metadata: Mapping[str, Any] | None = None) -> Turn:
        payload: dict[str, Any] = {"sender": self.sender_id, "message": text}
        if metadata:
            payload["metadata"] = dict(metadata)
        _, latency = await self.engine.request_json(
            "POST",
            f"{self.engine.base_url}/webhooks/rest/webhook",
            params=self.engine._params,
            headers=self.engine._headers,
            json_body=payload,
        )
        events, more = await self._events()
        new = events[self.cursor :]
        self.cursor = len(events)
        return turn_of(text, new, latency + more)


async def _domain_json(engine: RasaServer) -> dict[str, Any]:
    """``GET /domain`` with ``Accept: application/json`` (Rasa's ``Domain.as_dict``)."""
    body, _ = await engine.request_json(
        "GET",
        f"{engine.base_url}/domain",
        params=engine._params,
        headers={**engine._headers, "Accept": "application/json"},
    )
    if not isinstance(body, dict):
        raise BadResponseError("Rasa domain answer is not a JSON object")
    return body


def _domain_names(items: Any, key: str) -> list[str]:
    """Names of a domain list whose items are a name or ``{name: {properties}}`` (Rasa 3's
    ``intents:`` and ``entities:``, e.g. ``- greet`` or ``- city: {roles: [from, to]}``)."""
    if not isinstance(items, list):
        raise BadResponseError(f"Rasa domain answer: {key!r} is not a list")
    names: list[str] = []
    for item in items:
        found = [item] if isinstance(item, str) else list(item) if isinstance(item, dict) else []
        names += [str(name) for name in found if str(name) not in names]
    return names


async def domain_inventory(engine: RasaServer) -> tuple[list[str], list[str]]:
    """(intents, entities) of the loaded model's domain, as ``GET /domain`` lists them."""
    body = await _domain_json(engine)
    return (
        _domain_names(body.get("intents") or [], "intents"),
        _domain_names(body.get("entities") or [], "entities"),
    )


async def dialogue_domain(engine: RasaServer) -> DialogueDomain:
    """``GET /domain`` as JSON: slot types, ``from_entity`` mappings, forms."""
    body = await _domain_json(engine)
    domain = DialogueDomain()
    slots = body.get("slots") or {}
    for name, slot in slots.items() if isinstance(slots, dict) else ():
        if not isinstance(slot, dict):
            continue
        domain.slot_types[str(name)] = str(slot.get("type") or "any")
        for mapping in slot.get("mappings") or []:
            if not isinstance(mapping, dict) or mapping.get("type") != "from_entity":
                continue
            conditions = mapping.get("conditions") or []
            if conditions and isinstance(conditions[0], dict) and conditions[0].get("active_loop"):
                continue
            domain.entity_slots.append((str(name), mapping))
    forms = body.get("forms") or {}
    domain.forms = set(forms) if isinstance(forms, dict | list) else set()
    config = body.get("config") or {}
    if isinstance(config, dict) and config.get("store_entities_as_slots") is False:
        domain.store_entities_as_slots = False
    return domain


async def predict_action(
    engine: RasaServer, events: Sequence[Mapping[str, Any]]
) -> ActionPrediction:
    """``POST /model/predict``: the action of highest score (the first such in the domain's
    order, as ``numpy.argmax`` picks it in Rasa)."""
    body, _ = await engine.request_json(
        "POST",
        f"{engine.base_url}/model/predict",
        params=engine._params,
        headers=engine._headers,
        json_body=list(events),
    )
    scores = body.get("scores") if isinstance(body, dict) else None
    if not isinstance(scores, list) or not scores:
        raise BadResponseError("Rasa predict answer has no 'scores'")
    best: dict[str, Any] | None = None
    for item in scores:
        if not isinstance(item, dict) or not isinstance(item.get("action"), str):
            continue
        if best is None or float(item.get("score") or 0.0) > float(best.get("score") or 0.0):
            best = item
    if best is None:
        raise BadResponseError("Rasa predict answer names no action")
    return ActionPrediction(
        action=best["action"],
        policy=body.get("policy") if isinstance(body.get("policy"), str) else None,
        confidence=_float(body.get("confidence")),
    )


async def parse_message(engine: RasaServer, text: str) -> dict[str, Any]:
    body, _ = await engine.request_json(
        "POST",
        f"{engine.base_url}/model/parse",
        params=engine._params,
        headers=engine._headers,
        json_body={"text": text},
    )
    if not isinstance(body, dict):
        raise BadResponseError("Rasa parse answer is not a JSON object")
    return body
