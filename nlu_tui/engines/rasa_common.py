"""What the Rasa engine (:mod:`nlu_tui.engines.rasa`) and its helper modules (conversations in
:mod:`.rasa_dialogue`, training in :mod:`.rasa_training`) share: the server's address and auth,
and the reading of a ``/model/parse`` answer. The helpers take a :class:`RasaServer`, so they
need not import the engine that calls them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nlu_tui.engines.answer_values import json_int
from nlu_tui.engines.httpcall import BadResponseError, HttpEngine
from nlu_tui.errors import EngineError
from nlu_tui.model import IntentScore, PredictedEntity, Prediction

FALLBACK_INTENT = "nlu_fallback"
TRAIN_TIMEOUT = 1800.0
"""Seconds a ``POST /model/train`` may take (a DIET pipeline on a big bot trains for minutes)."""


class RasaServer(HttpEngine):
    """A Rasa server's address and auth. Settings: ``url`` (base, default
    http://localhost:5005), ``token`` (sent as ``?token=``), ``jwt`` (``Authorization: Bearer``)."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__(settings)
        url = str(settings.get("url") or "http://localhost:5005").strip()
        if not url.startswith(("http://", "https://")):
            raise EngineError(f"rasa engine: url must start with http:// or https://, got {url!r}")
        self.base_url = url.rstrip("/")
        self.token = str(settings["token"]) if settings.get("token") else None
        self.jwt = str(settings["jwt"]) if settings.get("jwt") else None

    @property
    def _params(self) -> dict[str, str] | None:
        return {"token": self.token} if self.token else None

    @property
    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.jwt:
            headers["Authorization"] = f"Bearer {self.jwt}"
        return headers


def _float(value: Any) -> float | None:
    kind = type(value)  # the usual JSON number first: this runs for every score of every case
    if kind is float:
        return float(value)
    if kind is int:
        return float(value)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def parse_rasa_answer(body: Any, text: str) -> Prediction:
    """Map a ``/model/parse`` answer onto a Prediction (BadResponseError if it is not one)."""
    if not isinstance(body, dict):
        raise BadResponseError(f"Rasa answer is a JSON {type(body).__name__}, not an object")
    intent_obj = body.get("intent") or {}
    if not isinstance(intent_obj, dict):
        raise BadResponseError("Rasa answer: 'intent' is not an object")
    name = intent_obj.get("name")
    if name is not None and not isinstance(name, str):
        raise BadResponseError("Rasa answer: 'intent.name' is not a string")
    ranking: list[IntentScore] = []
    raw_ranking = body.get("intent_ranking") or []
    if not isinstance(raw_ranking, list):
        raise BadResponseError("Rasa answer: 'intent_ranking' is not a list")
    undone: tuple[str, float | None] | None = None
    if name == FALLBACK_INTENT and len(raw_ranking) >= 2:
        # rasa/nlu/test.py undo_fallback_prediction: the intent becomes ranking[1] (the
        # FallbackClassifier put its own entry first), so `rasa test nlu` scores that one.
        second = raw_ranking[1]
        if isinstance(second, dict) and isinstance(second.get("name"), str):
            undone = (second["name"], _float(second.get("confidence")))
    for item in raw_ranking:
        if isinstance(item, dict):
            item_name = item.get("name")
            if isinstance(item_name, str) and item_name != FALLBACK_INTENT:
                ranking.append(IntentScore(item_name, _float(item.get("confidence")) or 0.0))
    intent: str | None = name if name and name != FALLBACK_INTENT else None
    confidence = _float(intent_obj.get("confidence"))
    if name == FALLBACK_INTENT and ranking:
        confidence = ranking[0].confidence  # the real top candidate's score
    raw_entities = body.get("entities") or []
    if not isinstance(raw_entities, list):
        raise BadResponseError("Rasa answer: 'entities' is not a list")
    entities = []
    for ent in raw_entities:
        entity = ent.get("entity") if isinstance(ent, dict) else None
        if not isinstance(entity, str):
            raise BadResponseError("Rasa answer: an entity has no 'entity' name")
        get = ent.get
        start, end = json_int(get("start")), json_int(get("end"))
        surface = get("text")
        if surface is None and start is not None and end is not None and 0 <= start <= end:
            surface = text[start:end]
        conf = _float(get("confidence_entity"))
        if conf is None:
            conf = _float(get("confidence"))
        entities.append(
            PredictedEntity(
                entity,
                get("value"),
                _text(surface),
                start,
                end,
                conf,
                _text(get("role")),
                _text(get("group")),
                _text(get("extractor")),
            )
        )
    return Prediction(
        intent=intent,
        confidence=confidence,
        ranking=ranking,
        entities=entities,
        raw=body,
        pre_fallback_intent=undone[0] if undone else None,
        pre_fallback_confidence=undone[1] if undone else None,
    )
