"""Azure AI Language CLU: ``POST {endpoint}/language/:analyze-conversations?api-version=...``
with ``Ocp-Apim-Subscription-Key`` (engine-apis §4.2).

The deployment name is the version tested (``deployment:``; stage overrides pick e.g. a
``staging`` and a ``production`` deployment). Offsets are asked as ``UnicodeCodePoint`` so they
are Python string indices. ``topIntent: "None"`` means no intent. Orchestration projects
answer another shape and are refused as a malformed answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from nlu_tui.engines.answer_values import json_int, json_number
from nlu_tui.engines.base import Capabilities, ParseContext, register
from nlu_tui.engines.httpcall import (
    BadResponseError,
    Endpoint,
    HttpEngine,
    required_setting,
    required_url,
    safe_url,
)
from nlu_tui.model import IntentScore, PredictedEntity, Prediction

NO_INTENT = "None"
DEFAULT_API_VERSION = "2023-04-01"
_AUTH_HINTS = {
    401: "the resource key (key) is wrong, or belongs to another resource than the endpoint",
    403: "the resource key (key) may not use this project, or its quota is used up",
}


@register("clu")
class CluEngine(HttpEngine):
    """Settings: ``endpoint``, ``key``, ``project``, ``deployment`` (required); ``language``,
    ``api_version``."""

    type_name = "clu"
    inventory_note = "CLU gives a project's intents only through an asynchronous project export"
    capabilities = Capabilities(entity_order=True, http=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__(settings)
        self.endpoint_url = required_url(settings, "endpoint", "clu")
        self.key = required_setting(settings, "key", "clu")
        self.project = required_setting(settings, "project", "clu")
        self.deployment = required_setting(settings, "deployment", "clu")
        language = settings.get("language")
        self.language = str(language).strip() if language not in (None, "") else None
        self.api_version = str(settings.get("api_version") or DEFAULT_API_VERSION).strip()
        self._endpoint: Endpoint | None = None

    def request_body(self, text: str) -> dict[str, Any]:
        """The documented ``Conversation`` task for one utterance."""
        item: dict[str, Any] = {"id": "1", "participantId": "1", "text": text}
        if self.language:
            item["language"] = self.language
        return {
            "kind": "Conversation",
            "analysisInput": {"conversationItem": item},
            "parameters": {
                "projectName": self.project,
                "deploymentName": self.deployment,
                "stringIndexType": "UnicodeCodePoint",
                "verbose": True,
            },
        }

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        import httpx

        endpoint = self._endpoint
        if endpoint is None or endpoint.client is not self.client:
            endpoint = self._endpoint = await self.endpoint(
                "POST",
                f"{self.endpoint_url}/language/:analyze-conversations",
                params={"api-version": self.api_version},
                headers={"Ocp-Apim-Subscription-Key": self.key, "Content-Type": "application/json"},
            )
        try:
            body, latency = await self.send_json(endpoint, orjson.dumps(self.request_body(text)))
        except httpx.HTTPStatusError as exc:
            raise self.refused(exc, "Azure CLU", _AUTH_HINTS) from None
        prediction = parse_clu_answer(body, text)
        prediction.latency_ms = latency
        return prediction

    def describe(self) -> dict[str, Any]:
        return {
            "type": self.type_name,
            "endpoint": safe_url(self.endpoint_url),
            "project": self.project,
            "deployment": self.deployment,
            "api_version": self.api_version,
        }


def clu_value(entity: Mapping[str, Any]) -> Any:
    """An entity's value, shaped for the flat form of seed 000's table.

    A list entity's canonical key (``ListKey``) wins; then the first resolution: currency as
    ``{"amount", "code"}`` ("10 USD"), other units as ``{"amount", "unit"}``, spans as
    ``{"from", "to"}``, else its ``value``; an entity without either is its text.
    """
    for extra in entity.get("extraInformation") or []:
        if (
            isinstance(extra, dict)
            and extra.get("extraInformationKind") == "ListKey"
            and extra.get("key") is not None
        ):
            return extra["key"]
    resolutions = entity.get("resolutions") or []
    if isinstance(resolutions, list) and resolutions and isinstance(resolutions[0], dict):
        res = resolutions[0]
        kind = res.get("resolutionKind")
        if kind == "CurrencyResolution" and res.get("value") is not None:
            return {"amount": res["value"], "code": res.get("ISO4217") or res.get("unit")}
        if res.get("unit") is not None and res.get("value") is not None:
            return {"amount": res["value"], "unit": res["unit"]}
        if res.get("value") is not None:
            return res["value"]
        if res.get("begin") is not None or res.get("end") is not None:
            return {k: res[s] for k, s in (("from", "begin"), ("to", "end")) if s in res}
    return entity.get("text")


def parse_clu_answer(body: Any, text: str) -> Prediction:
    """Map an ``analyze-conversations`` answer onto a Prediction (BadResponseError if not one)."""
    result = body.get("result") if isinstance(body, dict) else None
    pred = result.get("prediction") if isinstance(result, dict) else None
    if not isinstance(pred, dict):
        raise BadResponseError("CLU answer has no 'result.prediction' object")
    if pred.get("projectKind", "Conversation") != "Conversation":
        raise BadResponseError(
            f"CLU answer is of a {pred.get('projectKind')!r} project; only Conversation "
            "projects are read"
        )
    intents = pred.get("intents") or []
    if not isinstance(intents, list):
        raise BadResponseError("CLU answer: 'prediction.intents' is not a list")
    scored = [
        IntentScore(item["category"], json_number(item.get("confidenceScore")) or 0.0)
        for item in intents
        if isinstance(item, dict) and isinstance(item.get("category"), str)
    ]
    top = pred.get("topIntent")
    if top is not None and not isinstance(top, str):
        raise BadResponseError("CLU answer: 'prediction.topIntent' is not a string")
    ranking = [s for s in scored if s.name != NO_INTENT]
    intent = top if top and top != NO_INTENT else None
    confidence = next((s.confidence for s in scored if s.name == top), None)
    if intent is None and ranking:
        confidence = ranking[0].confidence
    raw_entities = pred.get("entities") or []
    if not isinstance(raw_entities, list):
        raise BadResponseError("CLU answer: 'prediction.entities' is not a list")
    entities = []
    for ent in raw_entities:
        if not isinstance(ent, dict) or not isinstance(ent.get("category"), str):
            raise BadResponseError("CLU answer: an entity has no 'category'")
        start, length = json_int(ent.get("offset")), json_int(ent.get("length"))
        end = start + length if start is not None and length is not None else None
        surface = ent.get("text")
        if not isinstance(surface, str) and start is not None and end is not None:
            surface = text[start:end]
        entities.append(
            PredictedEntity(
                name=ent["category"],
                value=clu_value(ent),
                text=surface if isinstance(surface, str) else None,
                start=start,
                end=end,
                confidence=json_number(ent.get("confidenceScore")),
            )
        )
    entities.sort(key=lambda e: (e.start is None, e.start or 0))
    return Prediction(
        intent=intent, confidence=confidence, ranking=ranking, entities=entities, raw=body
    )
