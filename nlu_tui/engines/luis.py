"""Azure LUIS v3 prediction: ``POST {endpoint}/luis/prediction/v3.0/apps/{appId}/slots/{slot}/predict``
with ``Ocp-Apim-Subscription-Key`` (engine-apis §4.1).

``verbose=true`` brings the ``$instance`` block (offsets, texts, scores) and
``show-all-intents=true`` the whole ranking; ``log=false`` keeps test traffic out of the app's
active-learning log unless ``log: true``. With ``version:`` the version route is used instead
of a slot. ``topIntent: "None"`` (LUIS's mandatory None intent) means no intent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

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
from nlu_tui.errors import EngineError
from nlu_tui.model import IntentScore, PredictedEntity, Prediction

NO_INTENT = "None"
SLOTS = ("production", "staging")
_AUTH_HINTS = {
    401: "the subscription key (key) is wrong, or belongs to another region than the endpoint",
    403: "the key's monthly quota is used up, or the key may not use this app",
}


@register("luis")
class LuisEngine(HttpEngine):
    """Settings: ``endpoint``, ``app_id``, ``key`` (required); ``slot`` or ``version``; ``log``;
    ``method`` (POST with a JSON body, or GET with ``query=``)."""

    type_name = "luis"
    inventory_note = "LUIS lists an app's intents only to its authoring key, not the prediction key"
    capabilities = Capabilities(entity_order=True, http=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__(settings)
        self.endpoint_url = required_url(settings, "endpoint", "luis")
        self.app_id = required_setting(settings, "app_id", "luis")
        self.key = required_setting(settings, "key", "luis")
        self.slot = str(settings.get("slot") or "production").strip()
        if self.slot not in SLOTS:
            raise EngineError(f"luis engine: slot must be production or staging, not {self.slot!r}")
        version = settings.get("version")
        self.version = str(version).strip() if version not in (None, "") else None
        self.log = bool(settings.get("log", False))
        self.method = str(settings.get("method") or "POST").upper()
        if self.method not in ("GET", "POST"):
            raise EngineError(f"luis engine: method must be GET or POST, not {self.method!r}")
        self._endpoint: Endpoint | None = None

    @property
    def predict_url(self) -> str:
        app = f"{self.endpoint_url}/luis/prediction/v3.0/apps/{quote(self.app_id, safe='')}"
        if self.version is not None:
            return f"{app}/versions/{quote(self.version, safe='')}/predict"
        return f"{app}/slots/{self.slot}/predict"

    @property
    def _params(self) -> dict[str, str]:
        return {
            "verbose": "true",
            "show-all-intents": "true",
            "log": "true" if self.log else "false",
        }

    @property
    def _headers(self) -> dict[str, str]:
        return {"Ocp-Apim-Subscription-Key": self.key, "Content-Type": "application/json"}

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        import httpx

        if self.method == "GET":  # the query in the URL (as the quickstarts do)
            try:
                body, latency = await self.request_json(
                    "GET",
                    self.predict_url,
                    params={**self._params, "query": text},
                    headers={"Ocp-Apim-Subscription-Key": self.key},
                )
            except httpx.HTTPStatusError as exc:
                raise self.refused(exc, "LUIS", _AUTH_HINTS) from None
            prediction = parse_luis_answer(body, text)
            prediction.latency_ms = latency
            return prediction
        endpoint = self._endpoint
        if endpoint is None or endpoint.client is not self.client:
            endpoint = self._endpoint = await self.endpoint(
                "POST", self.predict_url, params=self._params, headers=self._headers
            )
        try:
            body, latency = await self.send_json(endpoint, orjson.dumps({"query": text}))
        except httpx.HTTPStatusError as exc:
            raise self.refused(exc, "LUIS", _AUTH_HINTS) from None
        prediction = parse_luis_answer(body, text)
        prediction.latency_ms = latency
        return prediction

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "type": self.type_name,
            "endpoint": safe_url(self.endpoint_url),
            "app_id": self.app_id,
        }
        if self.version is not None:
            info["version"] = self.version
        else:
            info["slot"] = self.slot
        return info


def luis_value(value: Any) -> Any:
    """A LUIS resolution, shaped for the flat form of seed 000's table.

    List entities answer ``["canonical"]`` (flattened to the canonical form); currency and
    dimension ``{"units", "value"}`` become ``{"amount", "unit"}`` ("30 Dollar");
    datetimeV2 ``{"type", "values": [{"resolution": [...]}]}`` becomes its first resolved value
    (``{"from", "to"}`` for a range).
    """
    if isinstance(value, dict):
        if "units" in value and "value" in value:
            return {"amount": value["value"], "unit": value["units"]}
        values = value.get("values")
        if isinstance(values, list) and values and isinstance(values[0], dict):
            first = values[0]
            resolution = first.get("resolution")
            if isinstance(resolution, list) and resolution and isinstance(resolution[0], dict):
                res = resolution[0]
                if res.get("value") is not None:
                    return res["value"]
                if res.get("start") is not None or res.get("end") is not None:
                    return {k: res[s] for k, s in (("from", "start"), ("to", "end")) if s in res}
            if first.get("timex") is not None:
                return first["timex"]
    return value


def parse_luis_answer(body: Any, text: str) -> Prediction:
    """Map a v3 prediction answer onto a Prediction (BadResponseError if it is not one)."""
    if not isinstance(body, dict) or not isinstance(body.get("prediction"), dict):
        raise BadResponseError("LUIS answer has no 'prediction' object")
    pred = body["prediction"]
    intents = pred.get("intents") or {}
    if not isinstance(intents, dict):
        raise BadResponseError("LUIS answer: 'prediction.intents' is not an object")
    ranking = [
        IntentScore(str(name), json_number(item.get("score")) or 0.0)
        for name, item in intents.items()
        if isinstance(item, dict) and name != NO_INTENT
    ]
    ranking.sort(key=lambda s: -s.confidence)
    top = pred.get("topIntent")
    if top is not None and not isinstance(top, str):
        raise BadResponseError("LUIS answer: 'prediction.topIntent' is not a string")
    intent = top if top and top != NO_INTENT else None
    confidence = None
    if intent is not None and isinstance(intents.get(intent), dict):
        confidence = json_number(intents[intent].get("score"))
    elif top == NO_INTENT and ranking:
        confidence = ranking[0].confidence
    entities_obj = pred.get("entities") or {}
    if not isinstance(entities_obj, dict):
        raise BadResponseError("LUIS answer: 'prediction.entities' is not an object")
    instances = entities_obj.get("$instance") or {}
    if not isinstance(instances, dict):
        instances = {}
    entities: list[PredictedEntity] = []
    for key, values in entities_obj.items():
        if key == "$instance" or not isinstance(values, list):
            continue
        meta_list = instances.get(key)
        meta_list = meta_list if isinstance(meta_list, list) else []
        for i, value in enumerate(values):
            meta = meta_list[i] if i < len(meta_list) and isinstance(meta_list[i], dict) else {}
            role = meta.get("role") if isinstance(meta.get("role"), str) else None
            # keyed by the role name when a role was predicted; the entity is then its type
            name = str(meta["type"]) if role and isinstance(meta.get("type"), str) else str(key)
            start, length = json_int(meta.get("startIndex")), json_int(meta.get("length"))
            end = start + length if start is not None and length is not None else None
            surface = meta.get("text")
            if not isinstance(surface, str) and start is not None and end is not None:
                surface = text[start:end]
            entities.append(
                PredictedEntity(
                    name=name,
                    value=luis_value(value),
                    text=surface if isinstance(surface, str) else None,
                    start=start,
                    end=end,
                    confidence=json_number(meta.get("score")),
                    role=role,
                    extractor=meta.get("modelType")
                    if isinstance(meta.get("modelType"), str)
                    else None,
                )
            )
    entities.sort(key=lambda e: (e.start is None, e.start or 0))
    return Prediction(
        intent=intent, confidence=confidence, ranking=ranking, entities=entities, raw=body
    )
