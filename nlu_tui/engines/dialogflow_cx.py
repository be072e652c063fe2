"""Dialogflow CX ``detectIntent`` (v3): ``POST {url}/v3/projects/{p}/locations/{loc}/agents/
{agent}/[environments/{env}/]sessions/{session}:detectIntent`` with a service account's OAuth
token (engine-apis §3.2).

The version tested is the agent's environment: none (the draft) for development, and the
environment a profile's ``published:`` override names (``environment: <id>``) for
published. Webhooks are disabled for test traffic. ``call: match`` uses ``:matchIntent``
instead, which changes no session state and returns every candidate (a ranking).
``matchType`` ``NO_MATCH``, ``NO_INPUT`` and ``PARAMETER_FILLING`` mean no intent.
Auth, errors and values: :mod:`dialogflow_common`.
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
from nlu_tui.engines.httpcall import BadResponseError, required_setting
from nlu_tui.errors import EngineError
from nlu_tui.model import IntentScore, Prediction

CALLS = ("detect", "match")
_NO_INTENT = frozenset({"NO_MATCH", "NO_INPUT", "PARAMETER_FILLING", "EVENT"})


@register("dialogflow-cx")
class DialogflowCxEngine(GoogleEngine):
    """Settings: ``credentials_file``, ``location``, ``agent`` (required); ``project``
    (default: the key's ``project_id``), ``environment``, ``language`` (en), ``call``
    (detect or match), ``time_zone``, ``url``, ``token_url``."""

    type_name = "dialogflow-cx"
    capabilities = Capabilities(http=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__(settings)
        self.location = required_setting(settings, "location", self.type_name)
        self.agent = required_setting(settings, "agent", self.type_name)
        self.call = str(settings.get("call") or "detect").strip()
        if self.call not in CALLS:
            raise EngineError(
                f"dialogflow-cx engine: call must be detect or match, not {self.call!r}"
            )
        self.url = self.base_url(settings, self.location, self.type_name)
        self.account.check_key()  # after the settings: a missing one is named first

    def session_url(self, session: str) -> str:
        parts = [
            f"{self.url}/v3/projects/{quote(self.project, safe='')}",
            f"locations/{quote(self.location, safe='')}",
            f"agents/{quote(self.agent, safe='')}",
        ]
        if self.environment:
            parts.append(f"environments/{quote(self.environment, safe='')}")
        parts.append(f"sessions/{session}:{self.call}Intent")
        return "/".join(parts)

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        params: dict[str, Any] = {"disableWebhook": True}
        if self.time_zone:
            params["timeZone"] = self.time_zone
        body = {
            "queryInput": {"text": {"text": text}, "languageCode": self.language},
            "queryParams": params,
        }
        answer, latency = await self.post(self.session_url(session_id()), body)
        prediction = parse_cx_answer(answer)
        prediction.latency_ms = latency
        return prediction

    async def list_intents(self) -> list[tuple[str, list[str]]] | None:
        """The agent's intents and training phrases (``GET …/agents/{agent}/intents``)."""
        agent = (
            f"{self.url}/v3/projects/{quote(self.project, safe='')}/locations/"
            f"{quote(self.location, safe='')}/agents/{quote(self.agent, safe='')}"
        )
        return await list_google_intents(self, f"{agent}/intents", self.language)

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info.update(location=self.location, agent=self.agent, call=self.call)
        return info


def _match_intent(match: Mapping[str, Any]) -> tuple[str | None, float | None]:
    intent = match.get("intent")
    name = intent.get("displayName") if isinstance(intent, dict) else None
    confidence = json_number(match.get("confidence"))
    if match.get("matchType") in _NO_INTENT or not isinstance(name, str) or not name:
        return None, confidence
    return name, confidence


def parse_cx_answer(body: Any) -> Prediction:
    """Map a ``DetectIntentResponse`` (``queryResult.match``) or a ``MatchIntentResponse``
    (``matches[]``) onto a Prediction (BadResponseError if it is neither)."""
    if not isinstance(body, dict):
        raise BadResponseError(f"Dialogflow CX answer is a JSON {type(body).__name__}")
    if isinstance(body.get("queryResult"), dict):
        match = body["queryResult"].get("match")
        matches = [match] if isinstance(match, dict) else []
        if not matches:
            raise BadResponseError("Dialogflow CX answer: 'queryResult.match' is missing")
    elif isinstance(body.get("matches"), list):
        matches = [m for m in body["matches"] if isinstance(m, dict)]
    else:
        raise BadResponseError("Dialogflow CX answer has neither 'queryResult' nor 'matches'")
    ranking: list[IntentScore] = []
    for m in matches:
        name, score = _match_intent(m)
        if name is not None:
            ranking.append(IntentScore(name, score or 0.0))
    top = matches[0] if matches else {}
    intent, confidence = _match_intent(top) if top else (None, None)
    return Prediction(
        intent=intent,
        confidence=confidence,
        ranking=ranking,
        entities=parameter_entities(top.get("parameters")),
        raw=body,
    )
