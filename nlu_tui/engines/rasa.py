"""Rasa Open Source over HTTP: ``POST /model/parse`` (see engine-apis.md §1).

Auth is ``?token=`` (server started with ``--auth-token``) or a JWT sent as
``Authorization: Bearer`` (``--jwt-secret``). ``nlu_fallback`` and a null intent name mean no
intent; the fallback's synthetic entry is dropped from the ranking so that the ranking shows
the real candidates, and the whole answer is kept in ``raw``. The intent the fallback replaced
is kept too (``pre_fallback_intent``), since ``rasa test nlu`` scores that one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from nlu_tui.engines.answer_values import json_int
from nlu_tui.engines.base import (
    Capabilities,
    ParseContext,
    TrainedModel,
    TrainingConfig,
    register,
)
from nlu_tui.engines.httpcall import BadResponseError, Endpoint, HttpEngine, safe_url
from nlu_tui.engines.transport_errors import EngineUnreachableError
from nlu_tui.errors import EngineError
from nlu_tui.model import IntentScore, PredictedEntity, Prediction

if TYPE_CHECKING:
    from pathlib import Path

    import httpx

    from nlu_tui.engines.conversation import ActionPrediction, Conversation, DialogueDomain
    from nlu_tui.training import TrainingData

FALLBACK_INTENT = "nlu_fallback"
TRAIN_TIMEOUT = 1800.0
"""Seconds a ``POST /model/train`` may take (a DIET pipeline on a big bot trains for minutes)."""


@register("rasa")
class RasaEngine(HttpEngine):
    """Settings: ``url`` (base, default http://localhost:5005), ``token``, ``jwt``, ``timeout``."""

    type_name = "rasa"
    capabilities = Capabilities(entity_order=True, http=True, conversation=True, training=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__(settings)
        url = str(settings.get("url") or "http://localhost:5005").strip()
        if not url.startswith(("http://", "https://")):
            raise EngineError(f"rasa engine: url must start with http:// or https://, got {url!r}")
        self.base_url = url.rstrip("/")
        self.token = str(settings["token"]) if settings.get("token") else None
        self.jwt = str(settings["jwt"]) if settings.get("jwt") else None
        self.server_version: str | None = None
        self._parse_endpoint: Endpoint | None = None
        self._listed_entities: list[str] | None = None

    @property
    def _params(self) -> dict[str, str] | None:
        return {"token": self.token} if self.token else None

    @property
    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.jwt:
            headers["Authorization"] = f"Bearer {self.jwt}"
        return headers

    async def open(self, client: httpx.AsyncClient | None) -> None:
        """Probe ``GET /version`` (no auth needed) so an unreachable server fails the run at once."""
        import httpx

        await super().open(client)
        try:
            body, _ = await self.request_json("GET", f"{self.base_url}/version")
        except httpx.TransportError as exc:  # its message is already one clean, redacted line
            raise EngineUnreachableError(f"engine unreachable: {exc}") from None
        except Exception as exc:
            raise EngineError(
                f"Rasa at {safe_url(self.base_url)} is unreachable: {self._redact(str(exc))}"
            ) from None
        if not isinstance(body, dict) or "version" not in body:
            raise EngineError(f"{safe_url(self.base_url)} does not look like a Rasa server")
        self.server_version = str(body["version"])

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        endpoint = self._parse_endpoint
        if endpoint is None or endpoint.client is not self.client:
            # URL, token and headers are merged once per client, not on every case.
            endpoint = self._parse_endpoint = await self.endpoint(
                "POST", f"{self.base_url}/model/parse", params=self._params, headers=self._headers
            )
        body, latency = await self.send_json(endpoint, orjson.dumps({"text": text}))
        prediction = parse_rasa_answer(body, text)
        prediction.latency_ms = latency
        return prediction

    # --- the bot's inventory (coverage) ------------------------------------------------

    async def list_intents(self) -> list[tuple[str, list[str]]] | None:
        """The loaded model's intents (``GET /domain``; Rasa lists no training examples)."""
        from nlu_tui.engines.rasa_dialogue import domain_inventory

        intents, self._listed_entities = await domain_inventory(self)
        return [(name, []) for name in intents]

    async def list_entities(self) -> list[str] | None:
        """The domain's entities, read with :meth:`list_intents` (one ``GET /domain``)."""
        if self._listed_entities is None:
            from nlu_tui.engines.rasa_dialogue import domain_inventory

            _intents, self._listed_entities = await domain_inventory(self)
        return list(self._listed_entities)

    # --- conversations (nlu_tui.engines.conversation), in rasa_dialogue -------------------

    def conversation(self, sender_id: str) -> Conversation:
        from nlu_tui.engines.rasa_dialogue import RasaConversation

        return RasaConversation(self, sender_id)

    async def dialogue_domain(self) -> DialogueDomain:
        from nlu_tui.engines import rasa_dialogue

        return await rasa_dialogue.dialogue_domain(self)

    async def predict_action(self, events: Sequence[Mapping[str, Any]]) -> ActionPrediction:
        from nlu_tui.engines import rasa_dialogue

        return await rasa_dialogue.predict_action(self, events)

    async def parse_message(self, text: str) -> dict[str, Any]:
        from nlu_tui.engines import rasa_dialogue

        return await rasa_dialogue.parse_message(self, text)

    def load_training_config(self, path: Path | None) -> TrainingConfig:
        """A Rasa ``config.yml``: read and checked for shape here; its components are Rasa's
        to judge (an unknown one fails training with Rasa's own message)."""
        from nlu_tui.engines.rasa_training import load_rasa_config

        return load_rasa_config(path)

    async def train(
        self,
        data: TrainingData,
        config: TrainingConfig,
        client: httpx.AsyncClient | None = None,
    ) -> TrainedModel:
        """``POST /model/train`` (YAML data and config in one body), then ``PUT /model``; a
        model already trained on the same data and config by this server is only loaded."""
        from nlu_tui.engines.rasa_training import train_on_server

        return await train_on_server(self, data, config, client)

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"type": self.type_name, "url": safe_url(self.base_url)}
        if self.server_version:
            info["server_version"] = self.server_version
        info["auth"] = "token" if self.token else "jwt" if self.jwt else "none"
        return info


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


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
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            if item["name"] == FALLBACK_INTENT:
                continue
            ranking.append(IntentScore(item["name"], _float(item.get("confidence")) or 0.0))
    intent: str | None = name if name and name != FALLBACK_INTENT else None
    confidence = _float(intent_obj.get("confidence"))
    if name == FALLBACK_INTENT and ranking:
        confidence = ranking[0].confidence  # the real top candidate's score
    raw_entities = body.get("entities") or []
    if not isinstance(raw_entities, list):
        raise BadResponseError("Rasa answer: 'entities' is not a list")
    entities = []
    for ent in raw_entities:
        if not isinstance(ent, dict) or not isinstance(ent.get("entity"), str):
            raise BadResponseError("Rasa answer: an entity has no 'entity' name")
        start, end = json_int(ent.get("start")), json_int(ent.get("end"))
        surface = ent.get("text")
        if surface is None and start is not None and end is not None and 0 <= start <= end:
            surface = text[start:end]
        conf = _float(ent.get("confidence_entity"))
        if conf is None:
            conf = _float(ent.get("confidence"))
        entities.append(
            PredictedEntity(
                name=ent["entity"],
                value=ent.get("value"),
                text=surface if isinstance(surface, str) else None,
                start=start,
                end=end,
                confidence=conf,
                role=ent.get("role") if isinstance(ent.get("role"), str) else None,
                group=ent.get("group") if isinstance(ent.get("group"), str) else None,
                extractor=ent.get("extractor") if isinstance(ent.get("extractor"), str) else None,
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
