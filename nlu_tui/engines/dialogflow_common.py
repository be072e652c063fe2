"""What Dialogflow ES and CX share: service-account auth, the request, errors and values.

Each utterance gets a fresh session id (32 hex characters, under the 36 allowed) so no
context leaks from one case into the next. A 401 means the access token is no longer valid
(expired or revoked): it is fetched again and the request sent once more; a second 401 is a
case error. 403 (``PERMISSION_DENIED``), 400 (``INVALID_ARGUMENT``, e.g. text over 256
characters) and 404 (no such agent) are case errors naming what to check; 429
(``RESOURCE_EXHAUSTED``) and 5xx are left to the runner, which retries with backoff (Google
sends no ``Retry-After``) (engine-apis §3.3).

Parameter values are shaped for the flat form of seed 000's "Entity Format Conversions":
``{"amount", "currency"}`` becomes a currency (``10 USD``), ``{"startDate", "endDate"}`` (and
the ``DateTime`` and ``Time`` variants) a period (``from to``), CX's ``{"year", "month", "day"}``
a date (``2024-05-02``); empty parameters (``""``, ``[]``) are not entities.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import orjson

from nlu_tui.engines.google_auth import ServiceAccount
from nlu_tui.engines.httpcall import BadResponseError, HttpEngine, required_setting, safe_url
from nlu_tui.errors import EngineError
from nlu_tui.model import PredictedEntity

_AUTH_HINTS = {
    400: "Dialogflow refused the utterance or the request (INVALID_ARGUMENT): check language "
    "and the text length (at most 256 characters)",
    401: "the access token was refused twice: check credentials_file (the key may be deleted "
    "or disabled)",
    403: "the service account may not use this agent (PERMISSION_DENIED): give it the "
    "Dialogflow API Client role (dialogflow.sessions.detectIntent) in project",
    404: "no such agent: check project, location, agent and environment",
}
_PERIODS = (
    ("startDate", "endDate"),
    ("startDateTime", "endDateTime"),
    ("startTime", "endTime"),
)


def session_id() -> str:
    return uuid.uuid4().hex


class GoogleEngine(HttpEngine):
    """Base of the Dialogflow engines: settings shared by both, and authorised requests."""

    vendor = "Dialogflow"

    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__(settings)
        engine = self.type_name
        path = required_setting(settings, "credentials_file", engine)
        token_url = settings.get("token_url")
        self.account = ServiceAccount(path, engine, str(token_url) if token_url else None)
        self.secrets.append(self.account.private_key)
        project = settings.get("project") or self.account.project_id
        self.project = required_setting({"project": project}, "project", engine)
        self.language = str(settings.get("language") or "en").strip()
        zone = settings.get("time_zone")
        self.time_zone = str(zone).strip() if zone not in (None, "") else None
        environment = settings.get("environment")
        self.environment = str(environment).strip() if environment not in (None, "") else None

    @staticmethod
    def base_url(settings: Mapping[str, Any], location: str | None, engine: str) -> str:
        """``url``, else the regional host for a non-global location, else the global one."""
        url = settings.get("url")
        if url in (None, ""):
            if location and location != "global":
                return f"https://{location}-dialogflow.googleapis.com"
            return "https://dialogflow.googleapis.com"
        url = str(url).strip()
        if not url.startswith(("http://", "https://")):
            raise EngineError(f"{engine} engine: url must start with https://, got {url!r}")
        return url.rstrip("/")

    async def post(self, url: str, body: Mapping[str, Any]) -> tuple[Any, float]:
        """POST ``body`` with a valid access token (fetched again once on a 401)."""
        return await self.authorized("POST", url, body)

    async def authorized(
        self,
        method: str,
        url: str,
        body: Mapping[str, Any] | None = None,
        params: Mapping[str, str] | None = None,
    ) -> tuple[Any, float]:
        """One authorised request (the token fetched again once on a 401)."""
        import httpx

        content = orjson.dumps(body) if body is not None else None
        headers = {"Content-Type": "application/json; charset=utf-8"} if content else {}
        for attempt in (1, 2):
            token = await self.account.token(self)
            try:
                return await self.request_json(
                    method,
                    url,
                    params=params,
                    headers={"Authorization": f"Bearer {token}", **headers},
                    content=content,
                )
            except httpx.HTTPStatusError as exc:
                if exc.response.status_code == 401 and attempt == 1:
                    self.account.forget(token)
                    continue
                raise self.refused(exc, self.vendor, _AUTH_HINTS) from None
        raise AssertionError("unreachable")

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"type": self.type_name, "project": self.project}
        info["language"] = self.language
        if self.environment:
            info["environment"] = self.environment
        info["url"] = safe_url(getattr(self, "url", ""))
        return info


def google_value(value: Any) -> Any:
    """A parameter value shaped for the flat form (see the module docstring)."""
    if isinstance(value, dict):
        if "amount" in value and "currency" in value:
            return {"amount": value["amount"], "code": value["currency"]}
        for start, end in _PERIODS:
            if start in value or end in value:
                return {
                    k: value[s] for k, s in (("fromDate", start), ("toDate", end)) if s in value
                }
        if {"year", "month", "day"} <= value.keys() and all(
            isinstance(value[k], int | float) for k in ("year", "month", "day")
        ):
            return f"{int(value['year']):04d}-{int(value['month']):02d}-{int(value['day']):02d}"
        return {k: google_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [google_value(v) for v in value]
    return value


def parameter_entities(
    parameters: Any, originals: Mapping[str, Any] | None = None
) -> list[PredictedEntity]:
    """The filled parameters as entities (no offsets: Dialogflow reports none)."""
    if not isinstance(parameters, dict):
        return []
    originals = originals or {}
    found: list[PredictedEntity] = []
    for name, value in parameters.items():
        if value in (None, "", [], {}) or str(name).endswith(".original"):
            continue
        typed = originals.get(f"{name}.original")
        found.append(
            PredictedEntity(
                name=str(name),
                value=google_value(value),
                text=typed if isinstance(typed, str) and typed else None,
            )
        )
    return found


async def list_google_intents(
    engine: GoogleEngine, url: str, language: str
) -> list[tuple[str, list[str]]]:
    """``intents.list`` (ES v2 and CX v3 alike) with training phrases, every page."""
    found: list[tuple[str, list[str]]] = []
    token = ""
    for _page in range(1000):
        params = {"intentView": "INTENT_VIEW_FULL", "languageCode": language, "pageSize": "1000"}
        if token:
            params["pageToken"] = token
        body, _latency = await engine.authorized("GET", url, params=params)
        if not isinstance(body, dict):
            raise BadResponseError("Dialogflow intents.list answer is not an object")
        for intent in body.get("intents") or []:
            if not isinstance(intent, dict) or not isinstance(intent.get("displayName"), str):
                continue
            phrases = []
            for phrase in intent.get("trainingPhrases") or []:
                parts = phrase.get("parts") if isinstance(phrase, dict) else None
                text = "".join(
                    p["text"]
                    for p in parts or []
                    if isinstance(p, dict) and isinstance(p.get("text"), str)
                )
                if text.strip():
                    phrases.append(text)
            found.append((intent["displayName"], phrases))
        token = body.get("nextPageToken") or ""
        if not token:
            break
    return found
