"""Kore.ai XO Find Intent: ``POST {url}/api/v1.1/rest/bot/{botId}/findIntent`` (engine-apis §2).

Authentication is Kore.ai's own: a JWT signed HS256 with the JWT app's Client Secret, payload
``{"sub": ..., "appId": <Client ID>}`` (the key must be exactly ``appId``), sent in the ``auth``
header (not ``Authorization``); minted here with PyJWT and minted again shortly before it
expires. ``bot-language`` picks the bot language. The stage picks the version tested:
``fetchConfiguredTasks=true`` matches the in-development (configured) tasks, ``false`` the
published ones (``version:`` in the profile, else the run's stage).

The answer's ``finalResolver`` gives the winning intent (engine points, not 0-1), the ranking
and the entities (``{field, value}``, no offsets). Its engine sections give each engine's own
score per intent: ``ml`` and ``fm`` (``definitive``/``possible`` lists of ``{activity,
score}``) and ``faq``, the Knowledge Graph (``faqScore``, ``primaryQuestion``); they become
``Prediction.engine_scores`` (``ML``, ``FM``, ``KG``), the CSV report's intent scores. Where
an answer names them (inferred shapes, engine-apis §8: "record real responses"): the matched
intent's kind (``activityType``/``subType``: dialog, faq, smalltalk), its task state
(``state``/``intentStatus``), the child bot of a universal bot (``botName``) and the traits
(``traits``: names or ``{name}`` objects). The rate-limit refusal ("Rate limit for this API
has been reached") is retried whatever status it comes with.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import orjson

from nlu_tui.engines.answer_values import json_number
from nlu_tui.engines.base import Capabilities, ParseContext, register
from nlu_tui.engines.httpcall import (
    BadResponseError,
    HttpEngine,
    required_setting,
    safe_url,
    vendor_message,
)
from nlu_tui.errors import EngineError
from nlu_tui.extras import need
from nlu_tui.model import IntentKind, IntentScore, PredictedEntity, Prediction

DEFAULT_URL = "https://bots.kore.ai"
TOKEN_LIFETIME = 3600
"""Seconds a minted JWT is valid; a new one is minted a minute before that."""
VERSIONS = ("development", "published")
_AUTH_HINTS = {
    400: "check the bot id (bot_id) and the utterance (at most 3,000 characters)",
    401: "the JWT was refused: check client_id and client_secret (the JWT app's credentials)",
    403: "the JWT app may not use this bot: give it the API scope 'Intent and Entity "
    "Detection' and publish the scope",
    404: "no such bot (bot_id) on this host (url)",
}
_KINDS = {
    "dialog": IntentKind.DIALOG,
    "task": IntentKind.DIALOG,
    "faq": IntentKind.FAQ,
    "kg": IntentKind.FAQ,
    "smalltalk": IntentKind.SMALL_TALK,
    "small_talk": IntentKind.SMALL_TALK,
    "small talk": IntentKind.SMALL_TALK,
}
_STATES = {"published": "Published", "configured": "Configured", "indevelopment": "Configured"}
_ENGINES = (("ml", "ML"), ("fm", "FM"), ("faq", "KG"))


@register("kore")
class KoreEngine(HttpEngine):
    """Settings: ``bot_id``, ``client_id``, ``client_secret`` (required); ``url``,
    ``language`` (en), ``bot_name`` (sent as ``streamName``), ``version``
    (development/published; default: the run's stage), ``thresholds`` (the bot's NLP
    threshold settings, for the CSV report's header)."""

    type_name = "kore"
    inventory_note = "Kore.ai gives a bot's intents only through an asynchronous bot export"
    capabilities = Capabilities(parent_intent_context=True, http=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        need("jwt", "the kore engine")
        super().__init__(settings)
        self.bot_id = required_setting(settings, "bot_id", "kore")
        self.client_id = required_setting(settings, "client_id", "kore")
        self._client_secret = required_setting(settings, "client_secret", "kore")
        self.language = str(settings.get("language") or "en").strip()
        bot_name = settings.get("bot_name")
        self.bot_name = str(bot_name).strip() if bot_name not in (None, "") else None
        url = str(settings.get("url") or DEFAULT_URL).strip()
        if not url.startswith(("http://", "https://")):
            raise EngineError(f"kore engine: url must start with https://, got {url!r}")
        self.url = url.rstrip("/")
        version = settings.get("version")
        self.version = str(version).strip() if version not in (None, "") else None
        if self.version is not None and self.version not in VERSIONS:
            raise EngineError(
                f"kore engine: version must be development or published, not {self.version!r}"
            )
        self._jwt: tuple[str, float] | None = None
        self.secrets.append(self._client_secret)

    @property
    def find_intent_url(self) -> str:
        return f"{self.url}/api/v1.1/rest/bot/{quote(self.bot_id, safe='')}/findIntent"

    def token(self, now: float | None = None) -> str:
        """The JWT for the ``auth`` header, minted again a minute before it expires."""
        import jwt
        from jwt.warnings import InsecureKeyLengthWarning

        now = time.time() if now is None else now
        if self._jwt is None or self._jwt[1] - 60 <= now:
            issued = int(now)
            claims = {
                "sub": "nlu-tui",
                "appId": self.client_id,
                "iat": issued,
                "exp": issued + TOKEN_LIFETIME,
            }
            with warnings.catch_warnings():  # the secret's length is Kore.ai's choice, not ours
                warnings.simplefilter("ignore", InsecureKeyLengthWarning)
                token = jwt.encode(claims, self._client_secret, algorithm="HS256")
            self._jwt = (token, float(issued + TOKEN_LIFETIME))
            self.secrets.append(token)  # a token is a credential too (one an hour)
        return self._jwt[0]

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        import httpx

        stage = self.version or context.stage
        body: dict[str, Any] = {"input": text}
        if self.bot_name:
            body["streamName"] = self.bot_name
        if context.parent_intents:
            body["parentIntent"] = context.parent_intents[-1]
        try:
            answer, latency = await self.request_json(
                "POST",
                self.find_intent_url,
                params={
                    "fetchConfiguredTasks": "false" if stage == "published" else "true",
                    "sync": "true",
                },
                headers={
                    "auth": self.token(),
                    "bot-language": self.language,
                    "Content-Type": "application/json",
                },
                content=orjson.dumps(body),
            )
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code != 429 and _rate_limited(exc.response):
                raise _as_throttled(exc) from None
            raise self.refused(exc, "Kore.ai", _AUTH_HINTS) from None
        prediction = parse_kore_answer(answer)
        prediction.latency_ms = latency
        return prediction

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "type": self.type_name,
            "url": safe_url(self.url),
            "bot_id": self.bot_id,
            "language": self.language,
        }
        if self.version:
            info["version"] = self.version
        return info


def _rate_limited(response: Any) -> bool:
    said = vendor_message(response) or response.text[:300]
    return "rate limit" in said.lower()


def _as_throttled(exc: Any) -> Exception:
    """The rate-limit refusal as the 429 the runner retries (Kore.ai documents no status)."""
    import httpx

    old = exc.response
    response = httpx.Response(429, headers=old.headers, content=old.content, request=old.request)
    return httpx.HTTPStatusError(
        f"HTTP 429 (rate limit; the service answered {old.status_code})",
        request=old.request,
        response=response,
    )


def kore_kind(value: Any) -> IntentKind | None:
    """The intent kind of a Kore.ai ``subType``/``activityType`` (dialog, faq, smalltalk)."""
    return _KINDS.get(value.strip().lower()) if isinstance(value, str) else None


_kind = kore_kind


def _state(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    return _STATES.get(value.strip().lower().replace(" ", ""), value.strip())


def _engine_scores(response: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """Per intent, the score of each engine section that found it (first mention wins)."""
    scores: dict[str, dict[str, float]] = {}
    for key, label in _ENGINES:
        section = response.get(key)
        if not isinstance(section, dict):
            continue
        for group in ("definitive", "possible"):
            items = section.get(group)
            if not isinstance(items, list):
                continue
            for item in items:
                if not isinstance(item, dict):
                    continue
                name = (
                    item.get("activity")
                    or item.get("intent")
                    or item.get("task")
                    or item.get("primaryQuestion")
                    or item.get("question")
                )
                score = json_number(item.get("faqScore" if key == "faq" else "score"))
                if score is None:
                    score = json_number(item.get("score"))
                if isinstance(name, str) and score is not None:
                    scores.setdefault(name, {}).setdefault(label, score)
    return scores


def _traits(response: Mapping[str, Any], resolver: Mapping[str, Any]) -> list[str]:
    found = response.get("traits")
    if found is None:
        found = resolver.get("traits")
    if isinstance(found, dict):
        found = list(found)
    names: list[str] = []
    for item in found if isinstance(found, list) else []:
        name = item.get("name") or item.get("trait") if isinstance(item, dict) else item
        if isinstance(name, str) and name.strip() and name.strip() not in names:
            names.append(name.strip())
    return names


def _entity_value(value: Any) -> Any:
    """Kore.ai gives many values as a one-item list; flattening reads the item."""
    return value[0] if isinstance(value, list) and len(value) == 1 else value


def parse_kore_answer(body: Any) -> Prediction:
    """Map a Find Intent answer onto a Prediction (BadResponseError if it is not one)."""
    if not isinstance(body, dict) or not isinstance(body.get("response"), dict):
        raise BadResponseError("Kore.ai answer has no 'response' object")
    response = body["response"]
    resolver = response.get("finalResolver") or {}
    if not isinstance(resolver, dict):
        raise BadResponseError("Kore.ai answer: 'response.finalResolver' is not an object")
    ranking_items = resolver.get("ranking") or []
    winning_items = resolver.get("winningIntent") or []
    if not isinstance(ranking_items, list) or not isinstance(winning_items, list):
        raise BadResponseError("Kore.ai answer: 'ranking'/'winningIntent' is not a list")
    ranking: list[IntentScore] = []
    for item in ranking_items:
        if isinstance(item, dict) and isinstance(item.get("intent"), str):
            score = json_number(item.get("totalScore"))
            score = json_number(item.get("score")) if score is None else score
            ranking.append(IntentScore(item["intent"], score or 0.0))
    winner = next(
        (w for w in winning_items if isinstance(w, dict) and isinstance(w.get("intent"), str)),
        None,
    )
    failed = response.get("result") == "failintent"
    intent = None if failed or winner is None else str(winner["intent"])
    confidence = json_number(winner.get("score")) if intent and winner else None
    kind = state = bot = None
    if intent is not None and winner is not None:
        top = next(
            (r for r in ranking_items if isinstance(r, dict) and r.get("intent") == intent), {}
        )
        kind = _kind(winner.get("activityType")) or _kind(top.get("activityType"))
        kind = kind or _kind(response.get("subType"))
        state = _state(winner.get("state")) or _state(top.get("state"))
        state = state or _state(response.get("intentStatus"))
        found_bot = winner.get("botName") or top.get("botName") or response.get("botName")
        bot = str(found_bot) if isinstance(found_bot, str) and found_bot.strip() else None
    entities: list[PredictedEntity] = []
    for item in resolver.get("entities") or []:
        if isinstance(item, dict) and isinstance(item.get("field"), str):
            entities.append(
                PredictedEntity(name=item["field"], value=_entity_value(item.get("value")))
            )
    return Prediction(
        intent=intent,
        confidence=confidence,
        ranking=ranking,
        entities=entities,
        traits=_traits(response, resolver),
        raw=body,
        bot=bot,
        intent_kind=kind,
        task_state=state,
        engine_scores=_engine_scores(response),
    )
