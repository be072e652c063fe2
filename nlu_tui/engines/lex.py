"""Amazon Lex V2 ``RecognizeText``:
``POST /bots/{botId}/botAliases/{botAliasId}/botLocales/{localeId}/sessions/{sessionId}/text``,
signed with AWS Signature V4 (service ``lex``) by botocore's ``SigV4Auth`` (engine-apis §5).

The bot alias is the version tested (``bot_alias_id:``; ``TSTALIASID`` is the draft). Each
utterance gets a fresh session id so no dialog state leaks from one case into the next. The
top interpretation is the prediction; ``FallbackIntent`` means no intent. Lex reports no
offsets, so entities (filled slots) have a value and the text the user typed, but no span.
botocore is imported only when a Lex engine is built.

Coverage's inventory comes from the model-building API (``models-v2-lex``, same signing):
``DescribeBotAlias`` for the alias's bot version, then ``ListIntents`` of that version and
locale, every page (paths from botocore's ``lexv2-models`` service model). The credentials
need ``lex:DescribeBotAlias`` and ``lex:ListIntents`` for that.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import orjson

from nlu_tui.engines.answer_values import json_number
from nlu_tui.engines.base import Capabilities, ParseContext, register
from nlu_tui.engines.httpcall import BadResponseError, HttpEngine, required_setting, safe_url
from nlu_tui.errors import EngineError
from nlu_tui.extras import need
from nlu_tui.model import IntentScore, PredictedEntity, Prediction

FALLBACK_INTENT = "FallbackIntent"
SERVICE = "lex"
_AUTH_HINTS = {
    401: "AWS did not accept the credentials (access_key_id, secret_access_key, session_token)",
    403: "AWS refused the signature or the credentials (access_key_id, secret_access_key, "
    "session_token, region), or they may not call RecognizeText on this bot alias",
}

_MODELS_HINTS = {
    **_AUTH_HINTS,
    403: "AWS refused the signature or the credentials (access_key_id, secret_access_key, "
    "session_token, region), or they may not call DescribeBotAlias and ListIntents on this bot",
    404: "no such bot, alias or locale (bot_id, bot_alias_id, locale) in this region",
}


@register("lex")
class LexEngine(HttpEngine):
    """Settings: ``region``, ``bot_id``, ``bot_alias_id`` and either ``access_key_id`` +
    ``secret_access_key`` (+ ``session_token``) or ``credentials_file`` (+ ``aws_profile``)
    (required); ``locale`` (en_US), ``url``."""

    type_name = "lex"
    capabilities = Capabilities(http=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        need("botocore", "the lex engine")
        super().__init__(settings)
        self.region = required_setting(settings, "region", "lex")
        self.bot_id = required_setting(settings, "bot_id", "lex")
        self.bot_alias_id = required_setting(settings, "bot_alias_id", "lex")
        self.locale = str(settings.get("locale") or "en_US").strip()
        if settings.get("credentials_file"):
            access_key, secret_key, token = self._from_credentials_file(settings)
        else:
            access_key = required_setting(settings, "access_key_id", "lex")
            secret_key = required_setting(settings, "secret_access_key", "lex")
            token = settings.get("session_token")
        url = str(settings.get("url") or f"https://runtime-v2-lex.{self.region}.amazonaws.com")
        if not url.startswith(("http://", "https://")):
            raise EngineError(f"lex engine: url must start with https://, got {url!r}")
        self.url = url.rstrip("/")
        models = str(
            settings.get("models_url") or f"https://models-v2-lex.{self.region}.amazonaws.com"
        )
        if not models.startswith(("http://", "https://")):
            raise EngineError(f"lex engine: models_url must start with https://, got {models!r}")
        self.models_url = models.rstrip("/")
        from botocore.auth import SigV4Auth
        from botocore.credentials import Credentials

        self._signer = SigV4Auth(
            Credentials(access_key, secret_key, str(token) if token else None), SERVICE, self.region
        )

    def _from_credentials_file(self, settings: Mapping[str, Any]) -> tuple[str, str, Any]:
        """Keys from an AWS shared credentials file (``credentials_file``, section
        ``aws_profile``, default ``default``), read with botocore's own parser."""
        from botocore.configloader import raw_config_parse
        from botocore.exceptions import ConfigNotFound, ConfigParseError

        from nlu_tui.engines.credential_files import check_permissions

        path = str(settings.get("credentials_file"))
        check_permissions(path, "lex")
        section = str(settings.get("aws_profile") or "default")
        try:
            sections = raw_config_parse(path)
        except ConfigNotFound:
            raise EngineError(
                f"lex engine: cannot read credentials_file {path}: No such file"
            ) from None
        except (ConfigParseError, OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise EngineError(
                f"lex engine: cannot read credentials_file {path}: {reason}"
            ) from None
        found = sections.get(section)
        if not isinstance(found, dict):
            raise EngineError(f"lex engine: credentials_file has no [{section}] section")
        for key in ("aws_access_key_id", "aws_secret_access_key"):
            if not found.get(key):
                raise EngineError(f"lex engine: credentials_file [{section}] has no {key}")
        token = found.get("aws_session_token")
        self.secrets += [str(v) for v in (found["aws_secret_access_key"], token) if v]
        return str(found["aws_access_key_id"]), str(found["aws_secret_access_key"]), token

    def text_url(self, session_id: str) -> str:
        parts = (self.bot_id, self.bot_alias_id, self.locale, session_id)
        bot, alias, locale, session = (quote(p, safe="") for p in parts)
        return (
            f"{self.url}/bots/{bot}/botAliases/{alias}/botLocales/{locale}/sessions/{session}/text"
        )

    def signed_headers(self, url: str, content: bytes, method: str = "POST") -> dict[str, str]:
        """The SigV4 headers (``Authorization``, ``X-Amz-Date``, token) for one request."""
        from botocore.awsrequest import AWSRequest

        request = AWSRequest(
            method=method, url=url, data=content, headers={"Content-Type": "application/json"}
        )
        self._signer.add_auth(request)
        return {str(k): str(v) for k, v in request.headers.items()}

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        import httpx

        url = self.text_url(f"nlu-tui-{uuid.uuid4().hex}")
        content = orjson.dumps({"text": text})
        try:
            body, latency = await self.request_json(
                "POST", url, headers=self.signed_headers(url, content), content=content
            )
        except httpx.HTTPStatusError as exc:
            raise self.refused(exc, "Amazon Lex", _AUTH_HINTS) from None
        prediction = parse_lex_answer(body, text)
        prediction.latency_ms = latency
        return prediction

    async def _models_call(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        """One signed call to the model-building API (its refusals as clear errors)."""
        import httpx

        url = self.models_url + path
        content = orjson.dumps(body) if body is not None else b""
        try:
            answer, _latency = await self.request_json(
                method,
                url,
                headers=self.signed_headers(url, content, method),
                content=content if body is not None else None,
            )
        except httpx.HTTPStatusError as exc:
            raise self.refused(exc, "Amazon Lex", _MODELS_HINTS) from None
        if not isinstance(answer, dict):
            raise BadResponseError("Amazon Lex model-building answer is not a JSON object")
        return answer

    async def list_intents(self) -> list[tuple[str, list[str]]] | None:
        """The intents of the alias's bot version and locale (``FallbackIntent`` is no intent
        and left out); Lex lists no sample utterances here."""
        bot, alias, locale = (
            quote(p, safe="") for p in (self.bot_id, self.bot_alias_id, self.locale)
        )
        described = await self._models_call("GET", f"/bots/{bot}/botaliases/{alias}/")
        version = described.get("botVersion")
        if not isinstance(version, str) or not version:
            raise BadResponseError("Amazon Lex DescribeBotAlias answer has no botVersion")
        path = f"/bots/{bot}/botversions/{quote(version, safe='')}/botlocales/{locale}/intents/"
        names: list[str] = []
        token: str | None = None
        for _page in range(1000):
            request: dict[str, Any] = {"maxResults": 1000}
            if token:
                request["nextToken"] = token
            page = await self._models_call("POST", path, request)
            summaries = page.get("intentSummaries") or []
            if not isinstance(summaries, list):
                raise BadResponseError("Amazon Lex ListIntents: 'intentSummaries' is not a list")
            for item in summaries:
                name = item.get("intentName") if isinstance(item, dict) else None
                if isinstance(name, str) and name != FALLBACK_INTENT and name not in names:
                    names.append(name)
            next_token = page.get("nextToken")
            token = next_token if isinstance(next_token, str) and next_token else None
            if token is None:
                break
        return [(name, []) for name in names]

    def describe(self) -> dict[str, Any]:
        return {
            "type": self.type_name,
            "url": safe_url(self.url),
            "region": self.region,
            "bot_id": self.bot_id,
            "bot_alias_id": self.bot_alias_id,
            "locale": self.locale,
        }


def _slot_value(slot: Mapping[str, Any]) -> tuple[Any, str | None]:
    """(value, text typed) of a slot, shaped for the flat form of seed 000's table.

    Scalar: ``interpretedValue``; List: the items' values (a multi-item value, "a||b");
    Composite: ``{sub-slot: value}`` (a composite value, "c1:v1|c2:v2").
    """
    shape = slot.get("shape") or "Scalar"
    if shape == "List" and isinstance(slot.get("values"), list):
        values = [v for v in (_slot_value(s) for s in slot["values"] if isinstance(s, dict))]
        texts = [t for _, t in values if t]
        return [v for v, _ in values if v is not None], " ".join(texts) or None
    if shape == "Composite" and isinstance(slot.get("subSlots"), dict):
        parts = {
            str(name): _slot_value(sub)[0]
            for name, sub in slot["subSlots"].items()
            if isinstance(sub, dict)
        }
        return {k: v for k, v in parts.items() if v is not None}, None
    value = slot.get("value")
    if not isinstance(value, dict):
        return None, None
    original = value.get("originalValue")
    return value.get("interpretedValue"), original if isinstance(original, str) else None


def parse_lex_answer(body: Any, text: str) -> Prediction:
    """Map a ``RecognizeText`` answer onto a Prediction (BadResponseError if it is not one)."""
    if not isinstance(body, dict):
        raise BadResponseError(f"Lex answer is a JSON {type(body).__name__}, not an object")
    interpretations = body.get("interpretations") or []
    if not isinstance(interpretations, list):
        raise BadResponseError("Lex answer: 'interpretations' is not a list")
    ranking: list[IntentScore] = []
    top_intent: dict[str, Any] | None = None
    top_score: float | None = None
    for item in interpretations:
        intent = item.get("intent") if isinstance(item, dict) else None
        if not isinstance(intent, dict) or not isinstance(intent.get("name"), str):
            continue
        conf = item.get("nluConfidence")
        score = json_number(conf.get("score")) if isinstance(conf, dict) else None
        if top_intent is None:
            top_intent, top_score = intent, score
        if intent["name"] != FALLBACK_INTENT:
            ranking.append(IntentScore(intent["name"], score or 0.0))
    name = top_intent["name"] if top_intent else None
    entities: list[PredictedEntity] = []
    slots = (top_intent or {}).get("slots") or {}
    if isinstance(slots, dict):
        for slot_name, slot in slots.items():
            if not isinstance(slot, dict):
                continue  # an unfilled slot is null
            value, typed = _slot_value(slot)
            if value is None or value == [] or value == {}:
                continue
            entities.append(PredictedEntity(name=str(slot_name), value=value, text=typed))
    if name == FALLBACK_INTENT:
        return Prediction(
            intent=None,
            confidence=ranking[0].confidence if ranking else None,
            ranking=ranking,
            entities=entities,
            raw=body,
        )
    return Prediction(
        intent=name, confidence=top_score, ranking=ranking, entities=entities, raw=body
    )
