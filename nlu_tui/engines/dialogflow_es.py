"""Dialogflow ES ``detectIntent`` (v2): ``POST {url}/v2/projects/{project}/agent/sessions/
{session}:detectIntent`` with a service account's OAuth token (engine-apis §3.1).

``environment:`` sends the request to that agent environment (``…/agent/environments/{env}/
users/-/sessions/…``; without it, the draft agent answers), so a profile's ``published:``
stage override names the published environment. ``location:`` uses the regional endpoint.
ES answers one intent, no ranking and no offsets; ``intent.isFallback`` (the Default
Fallback Intent) means no intent. Auth, errors and values: :mod:`dialogflow_common`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from nlu_tui.engines.answer_values import json_number
from nlu_tui.engines.base import Capabilities, ParseContext, register
from nlu_tui.engines.dialogflow_common import (
    GoogleEngine,
    list_google_intents,
    parameter_entities,
    session_id,
)
from nlu_tui.engines.httpcall import BadResponseError
from nlu_tui.model import IntentScore, Prediction


@register("dialogflow-es")
class DialogflowEsEngine(GoogleEngine):
    """Settings: ``credentials_file`` (a service account JSON key; required), ``project``
    (default: the key's ``project_id``), ``language`` (en), ``environment``, ``location``,
    ``time_zone``, ``url``, ``token_url``."""

    type_name = "dialogflow-es"
    capabilities = Capabilities(http=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__(settings)
        location = settings.get("location")
        self.location = str(location).strip() if location not in (None, "") else None
        self.url = self.base_url(settings, self.location, self.type_name)
        self.account.check_key()  # after the settings: a missing one is named first

    def detect_url(self, session: str) -> str:
        agent = f"{self.url}/v2/projects/{quote(self.project, safe='')}"
        if self.location:
            agent += f"/locations/{quote(self.location, safe='')}"
        agent += "/agent"
        if self.environment:
            agent += f"/environments/{quote(self.environment, safe='')}/users/-"
        return f"{agent}/sessions/{session}:detectIntent"

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        params: dict[str, Any] = {"resetContexts": True}
        if self.time_zone:
            params["timeZone"] = self.time_zone
        body = {
            "queryInput": {"text": {"text": text, "languageCode": self.language}},
            "queryParams": params,
        }
        answer, latency = await self.post(self.detect_url(session_id()), body)
        prediction = parse_es_answer(answer)
        prediction.latency_ms = latency
        return prediction

    async def list_intents(self) -> list[tuple[str, list[str]]] | None:
        """The agent's intents and training phrases (``GET …/agent/intents``)."""
        agent = f"{self.url}/v2/projects/{quote(self.project, safe='')}"
        if self.location:
            agent += f"/locations/{quote(self.location, safe='')}"
        return await list_google_intents(self, f"{agent}/agent/intents", self.language)

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        if self.location:
            info["location"] = self.location
        return info


def parse_es_answer(body: Any) -> Prediction:
    """Map a ``DetectIntentResponse`` onto a Prediction (BadResponseError if it is not one)."""
    if not isinstance(body, dict) or not isinstance(body.get("queryResult"), dict):
        raise BadResponseError("Dialogflow answer has no 'queryResult' object")
    result = body["queryResult"]
    intent_obj = result.get("intent")
    confidence = json_number(result.get("intentDetectionConfidence"))
    name = intent_obj.get("displayName") if isinstance(intent_obj, dict) else None
    fallback = isinstance(intent_obj, dict) and intent_obj.get("isFallback") is True
    intent = name if isinstance(name, str) and name and not fallback else None
    originals: dict[str, Any] = {}
    for ctx in result.get("outputContexts") or []:
        if isinstance(ctx, dict) and isinstance(ctx.get("parameters"), dict):
            for key, value in ctx["parameters"].items():
                originals.setdefault(str(key), value)
    return Prediction(
        intent=intent,
        confidence=confidence,
        ranking=[IntentScore(intent, confidence or 0.0)] if intent else [],
        entities=parameter_entities(result.get("parameters"), originals),
        raw=body,
    )
