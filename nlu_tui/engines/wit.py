"""Wit.ai: ``GET /message?v=VERSION&q=TEXT`` with the app's server access token (engine-apis §6).

The API version is always sent (``v=``): Wit changes its answer's shape by version, and the
legacy shape (``_text``, ``outcomes``) is not read. Entities are keyed ``"<entity>:<role>"``;
each item carries ``name``, ``role``, ``start``/``end``, ``body`` (the text) and a resolved
``value`` (``from``/``to`` for intervals, ``unit`` for quantities and money). ``traits``
(``{"<trait>": [{"value", "confidence"}]}``) become the prediction's traits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nlu_tui.engines.answer_values import json_int, json_number
from nlu_tui.engines.base import Capabilities, ParseContext, register
from nlu_tui.engines.httpcall import BadResponseError, HttpEngine, required_setting, safe_url
from nlu_tui.errors import EngineError
from nlu_tui.model import IntentScore, PredictedEntity, Prediction

DEFAULT_URL = "https://api.wit.ai"
DEFAULT_VERSION = "20240304"
_AUTH_HINTS = {
    400: "check the API version (version) and the utterance length (at most 280 characters)",
    401: "the server access token (token) is missing, wrong or revoked",
    403: "the server access token (token) may not use this app",
}


@register("wit")
class WitEngine(HttpEngine):
    """Settings: ``token`` (required), ``version`` (YYYYMMDD), ``url``, ``n`` (intents, ≤ 8),
    ``tag`` (the app version to query)."""

    type_name = "wit"
    capabilities = Capabilities(entity_order=True, http=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__(settings)
        self.token = required_setting(settings, "token", "wit")
        self.version = str(settings.get("version") or DEFAULT_VERSION).strip()
        if not (self.version.isdigit() and len(self.version) == 8):
            raise EngineError(f"wit engine: version must be a date YYYYMMDD, got {self.version!r}")
        url = str(settings.get("url") or DEFAULT_URL).strip()
        if not url.startswith(("http://", "https://")):
            raise EngineError(f"wit engine: url must start with http:// or https://, got {url!r}")
        self.url = url.rstrip("/")
        n = settings.get("n", 8)
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 8:
            raise EngineError(f"wit engine: n must be a whole number from 1 to 8, got {n!r}")
        self.n = n
        tag = settings.get("tag")  # an app version tag: e.g. per stage (development/published)
        self.tag = str(tag).strip() if tag not in (None, "") else None

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        import httpx

        params = {"v": self.version, "q": text, "n": str(self.n)}
        if self.tag:
            params["tag"] = self.tag
        try:
            body, latency = await self.request_json(
                "GET",
                f"{self.url}/message",
                params=params,
                headers={"Authorization": f"Bearer {self.token}", "Accept": "application/json"},
            )
        except httpx.HTTPStatusError as exc:
            raise self.refused(exc, "Wit.ai", _AUTH_HINTS) from None
        prediction = parse_wit_answer(body, text)
        prediction.latency_ms = latency
        return prediction

    async def list_intents(self) -> list[tuple[str, list[str]]] | None:
        """The app's intents (``GET /intents``: names only, Wit lists no utterances there)."""
        import httpx

        try:
            body, _latency = await self.request_json(
                "GET",
                f"{self.url}/intents",
                params={"v": self.version},
                headers={"Authorization": f"Bearer {self.token}", "Accept": "application/json"},
            )
        except httpx.HTTPStatusError as exc:
            raise self.refused(exc, "Wit.ai", _AUTH_HINTS) from None
        if not isinstance(body, list):
            raise BadResponseError("Wit.ai /intents answer is not a list")
        return [
            (i["name"], []) for i in body if isinstance(i, dict) and isinstance(i.get("name"), str)
        ]

    def describe(self) -> dict[str, Any]:
        info = {"type": self.type_name, "url": safe_url(self.url), "version": self.version}
        if self.tag:
            info["tag"] = self.tag
        return info


def wit_value(item: Mapping[str, Any]) -> Any:
    """An entity's resolved value, shaped for the flat form of seed 000's table.

    An interval becomes ``{"from", "to"}`` (flattened "from to", like a date period); a value
    with a unit (money, distance, temperature) becomes ``{"amount", "unit"}`` ("10 USD").
    """
    if item.get("type") == "interval":
        span = {}
        for key in ("from", "to"):
            end = item.get(key)
            if isinstance(end, Mapping) and end.get("value") is not None:
                span[key] = end["value"]
        return span or None
    value = item.get("value")
    if value is None:
        return item.get("body")
    unit = item.get("unit")
    if isinstance(unit, str) and unit:
        return {"amount": value, "unit": unit}
    return value


def parse_wit_answer(body: Any, text: str) -> Prediction:
    """Map a ``/message`` answer onto a Prediction (BadResponseError if it is not one)."""
    if not isinstance(body, dict):
        raise BadResponseError(f"Wit.ai answer is a JSON {type(body).__name__}, not an object")
    intents = body.get("intents") or []
    if not isinstance(intents, list):
        raise BadResponseError("Wit.ai answer: 'intents' is not a list")
    ranking = [
        IntentScore(item["name"], json_number(item.get("confidence")) or 0.0)
        for item in intents
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    ]
    entities_obj = body.get("entities") or {}
    if not isinstance(entities_obj, dict):
        raise BadResponseError("Wit.ai answer: 'entities' is not an object")
    entities: list[PredictedEntity] = []
    for key, items in entities_obj.items():
        if not isinstance(items, list):
            raise BadResponseError(f"Wit.ai answer: entities[{key!r}] is not a list")
        for item in items:
            if not isinstance(item, dict):
                continue
            name = item.get("name")
            name = name if isinstance(name, str) else str(key).split(":", 1)[0]
            role = item.get("role")
            start, end = json_int(item.get("start")), json_int(item.get("end"))
            surface = item.get("body")
            if not isinstance(surface, str) and start is not None and end is not None:
                surface = text[start:end]
            entities.append(
                PredictedEntity(
                    name=name,
                    value=wit_value(item),
                    text=surface if isinstance(surface, str) else None,
                    start=start,
                    end=end,
                    confidence=json_number(item.get("confidence")),
                    role=role if isinstance(role, str) and role != name else None,
                )
            )
    entities.sort(key=lambda e: (e.start is None, e.start or 0))
    top = ranking[0] if ranking else None
    return Prediction(
        intent=top.name if top else None,
        confidence=top.confidence if top else None,
        ranking=ranking,
        entities=entities,
        traits=wit_traits(body.get("traits")),
        raw=body,
    )


def wit_traits(traits: Any) -> list[str]:
    """The traits Wit found: each trait's most confident value (``{"venue": [{"value":
    "birds_basement"}]}`` is the trait ``birds_basement``), as Kore.ai names a trait by what
    was identified, not by its group."""
    if not isinstance(traits, dict):
        return []
    found: list[str] = []
    for items in traits.values():
        if not isinstance(items, list):
            continue
        best = max(
            (i for i in items if isinstance(i, dict) and isinstance(i.get("value"), str)),
            key=lambda i: json_number(i.get("confidence")) or 0.0,
            default=None,
        )
        if best is not None and best["value"].strip() and best["value"] not in found:
            found.append(best["value"].strip())
    return found
