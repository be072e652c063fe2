"""Dialogflow ES and CX against a loopback Google: a token endpoint and the detectIntent API.

A fresh RSA key is generated for the test service account. The token endpoint verifies the
JWT-bearer grant as Google documents it (form ``grant_type`` + ``assertion``; RS256 signed by
the key, ``kid`` = ``private_key_id``, ``iss`` = ``client_email``, ``aud`` = ``token_uri``, a
scope, not expired) and issues short-lived access tokens; the API refuses any other bearer
(401 ``UNAUTHENTICATED``), and a token the test expires on the server's side. Answers are the
documented ES and CX examples (engine-apis §3).
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from vendor_peer import Answer, Seen, VendorPeer

from nlu_tui.engines.base import Engine, ParseContext, create_engine
from nlu_tui.engines.google_auth import GRANT_TYPE
from nlu_tui.engines.httpcall import SECRET_VALUES_KEY
from nlu_tui.engines.profiles import resolve_engine
from nlu_tui.errors import EngineError, InputError
from nlu_tui.scoring.entities import flatten_value

CLIENT_EMAIL = "nlu-tests@demo-project.iam.gserviceaccount.com"
KEY_ID = "4f1c0ffee0000000000000000000000000000000"

ES_ANSWER: dict[str, Any] = {
    "responseId": "5d0c4e2b-0000-0000-0000-000000000000",
    "queryResult": {
        "queryText": "book a table in Berlin tomorrow",
        "languageCode": "en-us",
        "action": "table.book",
        "parameters": {
            "geo-city": "Berlin",
            "date": "2024-05-02T12:00:00+02:00",
            "guests": "",
        },
        "allRequiredParamsPresent": True,
        "fulfillmentText": "Booked.",
        "fulfillmentMessages": [{"text": {"text": ["Booked."]}}],
        "outputContexts": [
            {
                "name": "projects/demo-project/agent/sessions/s/contexts/booking",
                "lifespanCount": 2,
                "parameters": {"geo-city": "Berlin", "geo-city.original": "Berlin"},
            }
        ],
        "intent": {
            "name": "projects/demo-project/agent/intents/0a1b",
            "displayName": "book.table",
            "isFallback": False,
        },
        "intentDetectionConfidence": 0.87,
        "diagnosticInfo": {},
    },
}

CX_MATCH_ANSWER: dict[str, Any] = {
    "text": "book a table in Berlin",
    "matches": [
        {
            "intent": {
                "name": "projects/p/locations/l/agents/a/intents/7c1",
                "displayName": "book.table",
            },
            "parameters": {"city": "Berlin", "price": {"amount": 10, "currency": "USD"}},
            "resolvedInput": "book a table in Berlin",
            "matchType": "INTENT",
            "confidence": 0.91,
        },
        {"intent": {"displayName": "greet"}, "matchType": "INTENT", "confidence": 0.12},
    ],
    "currentPage": {"name": "projects/p/locations/l/agents/a/pages/START", "displayName": "Start"},
}

CX_DETECT_ANSWER: dict[str, Any] = {
    "responseId": "r-1",
    "queryResult": {
        "text": "book a table in Berlin",
        "languageCode": "en",
        "parameters": {"city": "Berlin"},
        "match": {
            "intent": {"displayName": "book.table"},
            "parameters": {
                "city": "Berlin",
                "when": {"startDate": "2024-05-01", "endDate": "2024-05-03"},
                "day": {"year": 2024, "month": 5, "day": 2},
            },
            "matchType": "INTENT",
            "confidence": 0.91,
        },
    },
}


@dataclass
class GoogleStandIn:
    """Keys and the tokens the loopback token endpoint has issued."""

    private_pem: str
    public_key: Any
    issued: dict[str, float] = field(default_factory=dict)  # token -> expiry
    grants: int = 0
    peer: VendorPeer | None = None

    @property
    def token_uri(self) -> str:
        assert self.peer is not None
        return self.peer.url + "/token"

    def key_file(self, folder: Path, **override: Any) -> Path:
        data = {
            "type": "service_account",
            "project_id": "demo-project",
            "private_key_id": KEY_ID,
            "private_key": self.private_pem,
            "client_email": CLIENT_EMAIL,
            "client_id": "1234567890",
            "token_uri": self.token_uri,
            **override,
        }
        path = folder / "service-account.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        path.chmod(0o600)
        return path

    def grant(self, seen: Seen) -> Answer:
        form = {k: v[0] for k, v in parse_qs(seen.body.decode()).items()}
        if form.get("grant_type") != GRANT_TYPE:
            return 400, {}, {"error": "unsupported_grant_type"}
        assertion = form.get("assertion", "")
        try:
            header = jwt.get_unverified_header(assertion)
            claims = jwt.decode(
                assertion, self.public_key, algorithms=["RS256"], audience=self.token_uri
            )
        except jwt.InvalidTokenError as exc:
            return 400, {}, {"error": "invalid_grant", "error_description": str(exc)}
        if header.get("kid") != KEY_ID or claims.get("iss") != CLIENT_EMAIL:
            return 400, {}, {"error": "invalid_grant", "error_description": "wrong kid or iss"}
        if "cloud-platform" not in claims.get("scope", ""):
            return 400, {}, {"error": "invalid_scope"}
        self.grants += 1
        token = "ya29." + secrets.token_urlsafe(24)
        self.issued[token] = time.time() + 3599
        return 200, {}, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"}

    def bearer_problem(self, seen: Seen) -> str | None:
        auth = seen.header("Authorization") or ""
        token = auth.removeprefix("Bearer ")
        if not auth.startswith("Bearer ") or token not in self.issued:
            return "Request had invalid authentication credentials."
        if self.issued[token] < time.time():
            return "Request had invalid authentication credentials. Expected OAuth 2 access token"
        return None

    def expire_all(self) -> None:
        for token in self.issued:
            self.issued[token] = 0.0


def google_server(answer: Any) -> tuple[VendorPeer, GoogleStandIn]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    google = GoogleStandIn(pem, key.public_key())

    def reply(seen: Seen) -> Answer:
        if seen.path == "/token":
            return google.grant(seen)
        problem = google.bearer_problem(seen)
        if problem:
            body = {"error": {"code": 401, "message": problem, "status": "UNAUTHENTICATED"}}
            return 401, {}, body
        return 200, {}, answer

    peer = VendorPeer(reply, unscripted=lambda seen: seen.path == "/token")
    google.peer = peer
    return peer, google


def _engine(kind: str, key: Path, url: str, **extra: Any) -> Engine:
    settings = {"credentials_file": str(key), "url": url, SECRET_VALUES_KEY: [], **extra}
    return create_engine(kind, settings)


def api_calls(peer: VendorPeer) -> list[Seen]:
    return [s for s in peer.seen if s.path != "/token"]


async def test_es_token_exchange_request_and_documented_answer(tmp_path: Path) -> None:
    text = "book a table in Berlin tomorrow"
    peer, google = google_server(ES_ANSWER)
    with peer:
        engine = _engine("dialogflow-es", google.key_file(tmp_path), peer.url, language="en-US")
        prediction = await engine.parse(text, ParseContext())
        again = await engine.parse(text, ParseContext())
        await engine.close()
    assert google.grants == 1  # the token is reused until it expires
    first, second = api_calls(peer)
    prefix = "/v2/projects/demo-project/agent/sessions/"
    assert first.method == "POST" and first.path.startswith(prefix)
    assert first.path.endswith(":detectIntent") and first.path != second.path  # fresh sessions
    assert len(first.path[len(prefix) : -len(":detectIntent")]) <= 36
    assert first.json() == {
        "queryInput": {"text": {"text": text, "languageCode": "en-US"}},
        "queryParams": {"resetContexts": True},
    }
    assert first.header("Authorization") == f"Bearer {next(iter(google.issued))}"
    assert (prediction.intent, prediction.confidence) == ("book.table", 0.87)
    assert [(s.name, s.confidence) for s in prediction.ranking] == [("book.table", 0.87)]
    got = [(e.name, e.text, e.start, flatten_value(e.value)) for e in prediction.entities]
    assert got == [  # the empty "guests" parameter is no entity
        ("geo-city", "Berlin", None, "Berlin"),
        ("date", None, None, "2024-05-02T12:00:00+02:00"),
    ]
    assert prediction.raw == ES_ANSWER and again.intent == "book.table"


async def test_es_environment_location_and_fallback(tmp_path: Path) -> None:
    fallback = {
        "queryResult": {
            "queryText": "qwerty",
            "parameters": {},
            "intent": {"displayName": "Default Fallback Intent", "isFallback": True},
            "intentDetectionConfidence": 1,
            "action": "input.unknown",
        }
    }
    peer, google = google_server(fallback)
    with peer:
        engine = _engine(
            "dialogflow-es",
            google.key_file(tmp_path),
            peer.url,
            environment="published-env",
            location="europe-west1",
            project="other-project",
            time_zone="Europe/Berlin",
        )
        prediction = await engine.parse("qwerty", ParseContext())
        await engine.close()
    (seen,) = api_calls(peer)
    assert seen.path.startswith(
        "/v2/projects/other-project/locations/europe-west1/agent/environments/published-env"
        "/users/-/sessions/"
    )
    assert seen.json()["queryParams"] == {"resetContexts": True, "timeZone": "Europe/Berlin"}
    assert prediction.intent is None and prediction.confidence == 1.0 and not prediction.ranking


async def test_an_expired_token_is_fetched_again_once(tmp_path: Path) -> None:
    peer, google = google_server(ES_ANSWER)
    with peer:
        engine = _engine("dialogflow-es", google.key_file(tmp_path), peer.url)
        await engine.parse("book a table", ParseContext())
        google.expire_all()  # revoked or expired on the server's side before our clock says so
        prediction = await engine.parse("book a table", ParseContext())
        await engine.close()
    assert google.grants == 2
    statuses = [s.path for s in peer.seen]
    assert statuses.count("/token") == 2 and len(api_calls(peer)) == 3  # one 401, then OK
    assert prediction.intent == "book.table"


async def test_a_refused_key_and_a_second_401_are_clear_errors(tmp_path: Path) -> None:
    peer, google = google_server(ES_ANSWER)
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    wrong_pem = other.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    with peer:
        key = google.key_file(tmp_path, private_key=wrong_pem)
        engine = _engine("dialogflow-es", key, peer.url)
        with pytest.raises(EngineError) as caught:
            await engine.parse("book a table", ParseContext())
        await engine.close()
        assert "Google refused the service account (HTTP 400)" in str(caught.value)
        assert "invalid_grant" in str(caught.value) and "credentials_file" in str(caught.value)
        assert "PRIVATE KEY" not in str(caught.value)
        good = _engine("dialogflow-es", google.key_file(tmp_path), peer.url)
        peer.answer = lambda seen: (
            google.grant(seen)
            if seen.path == "/token"
            else (401, {}, {"error": {"code": 401, "message": "nope", "status": "UNAUTHENTICATED"}})
        )
        with pytest.raises(EngineError, match=r"Dialogflow refused the request \(HTTP 401\)"):
            await good.parse("book a table", ParseContext())
        await good.close()
    assert google.grants == 2  # fetched again once, then given up


async def test_cx_detect_intent_request_and_answer(tmp_path: Path) -> None:
    peer, google = google_server(CX_DETECT_ANSWER)
    with peer:
        engine = _engine(
            "dialogflow-cx", google.key_file(tmp_path), peer.url, location="global", agent="a-1"
        )
        prediction = await engine.parse("book a table in Berlin", ParseContext())
        await engine.close()
    (seen,) = api_calls(peer)
    prefix = "/v3/projects/demo-project/locations/global/agents/a-1/sessions/"
    assert seen.path.startswith(prefix) and seen.path.endswith(":detectIntent")
    assert seen.json() == {
        "queryInput": {"text": {"text": "book a table in Berlin"}, "languageCode": "en"},
        "queryParams": {"disableWebhook": True},
    }
    assert (prediction.intent, prediction.confidence) == ("book.table", 0.91)
    got = {e.name: flatten_value(e.value) for e in prediction.entities}
    assert got == {"city": "Berlin", "when": "2024-05-01 2024-05-03", "day": "2024-05-02"}


async def test_cx_match_intent_in_the_published_environment(tmp_path: Path) -> None:
    peer, google = google_server(CX_MATCH_ANSWER)
    with peer:
        (tmp_path / "engines.yaml").write_text(
            "engines:\n  cx:\n    type: dialogflow-cx\n"
            f"    url: {peer.url}\n    credentials_file: service-account.json\n"
            "    location: europe-west3\n    agent: a-1\n    call: match\n"
            "    published:\n      environment: prod-env\n",
            encoding="utf-8",
        )
        google.key_file(tmp_path)
        dev = resolve_engine("cx", workspace=tmp_path, stage="development").engine
        pub = resolve_engine("cx", workspace=tmp_path, stage="published").engine
        prediction = await pub.parse("book a table in Berlin", ParseContext(stage="published"))
        await dev.parse("book a table in Berlin", ParseContext())
        await pub.close()
        await dev.close()
    published, development = api_calls(peer)
    assert "/agents/a-1/environments/prod-env/sessions/" in published.path
    assert published.path.endswith(":matchIntent")
    assert "/environments/" not in development.path
    assert [(s.name, s.confidence) for s in prediction.ranking] == [
        ("book.table", 0.91),
        ("greet", 0.12),
    ]
    assert {e.name: flatten_value(e.value) for e in prediction.entities} == {
        "city": "Berlin",
        "price": "10 USD",
    }


async def test_cx_no_match_is_no_intent(tmp_path: Path) -> None:
    answer = {
        "queryResult": {
            "text": "qwerty",
            "match": {"matchType": "NO_MATCH", "event": "sys.no-match-default", "confidence": 0.3},
        }
    }
    peer, google = google_server(answer)
    with peer:
        engine = _engine(
            "dialogflow-cx", google.key_file(tmp_path), peer.url, location="global", agent="a"
        )
        prediction = await engine.parse("qwerty", ParseContext())
        await engine.close()
    assert prediction.intent is None and prediction.ranking == []


@pytest.mark.parametrize(
    "kind,settings,missing",
    [
        ("dialogflow-es", "project: p", "credentials_file"),
        ("dialogflow-cx", "credentials_file: key.json\n    agent: a", "location"),
        ("dialogflow-cx", "credentials_file: key.json\n    location: global", "agent"),
        ("dialogflow-es", "credentials_file: nokey.json", "project"),
    ],
)
def test_a_missing_required_setting_is_named(
    kind: str, settings: str, missing: str, tmp_path: Path
) -> None:
    (tmp_path / "key.json").write_text(
        json.dumps(
            {
                "type": "service_account",
                "project_id": "demo",
                "client_email": CLIENT_EMAIL,
                "private_key": "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n",
            }
        ),
        encoding="utf-8",
    )
    (tmp_path / "nokey.json").write_text(
        json.dumps({"type": "service_account", "client_email": CLIENT_EMAIL, "private_key": "k"}),
        encoding="utf-8",
    )
    (tmp_path / "engines.yaml").write_text(
        f"engines:\n  bot:\n    type: {kind}\n    {settings}\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as caught:
        resolve_engine("bot", workspace=tmp_path)
    assert f"missing required setting {missing!r}" in caught.value.message
    assert caught.value.field == "engines.bot"


def test_an_unreadable_or_foreign_key_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "user.json").write_text(
        json.dumps({"type": "authorized_user", "refresh_token": "r"}), encoding="utf-8"
    )
    for name, message in (
        ("missing.json", "cannot read credentials_file"),
        ("user.json", "is not a service account key"),
    ):
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  bot:\n    type: dialogflow-es\n    credentials_file: {name}\n",
            encoding="utf-8",
        )
        with pytest.raises(InputError, match=message) as caught:
            resolve_engine("bot", workspace=tmp_path)
        if name == "missing.json":  # which file: the path as resolved beside engines.yaml
            assert f"credentials_file {tmp_path / name}: No such file" in caught.value.message


async def test_es_and_cx_list_intents_with_training_phrases_every_page(tmp_path: Path) -> None:
    pages = {
        "": {
            "intents": [
                {
                    "name": "projects/p/agent/intents/1",
                    "displayName": "book.table",
                    "trainingPhrases": [
                        {"type": "EXAMPLE", "parts": [{"text": "book a table in "},
                                                      {"text": "Berlin", "entityType": "@sys.geo-city"}]},
                        {"type": "EXAMPLE", "parts": [{"text": "reserve a table"}]},
                    ],
                }
            ],
            "nextPageToken": "page-2",
        },
        "page-2": {"intents": [{"name": "projects/p/agent/intents/2", "displayName": "greet"}]},
    }  # fmt: skip
    peer, google = google_server({})

    def reply(seen: Seen) -> Answer:
        if seen.path == "/token":
            return google.grant(seen)
        assert google.bearer_problem(seen) is None and seen.method == "GET"
        assert seen.query["intentView"] == ["INTENT_VIEW_FULL"]
        return 200, {}, pages[seen.query.get("pageToken", [""])[0]]

    peer.answer = reply
    with peer:
        es = _engine("dialogflow-es", google.key_file(tmp_path), peer.url, language="de")
        listed = await es.list_intents()
        await es.close()
        cx = _engine(
            "dialogflow-cx", google.key_file(tmp_path), peer.url, location="global", agent="a-1"
        )
        listed_cx = await cx.list_intents()
        await cx.close()
    assert (
        listed
        == listed_cx
        == [
            ("book.table", ["book a table in Berlin", "reserve a table"]),
            ("greet", []),
        ]
    )
    paths = [s.path for s in api_calls(peer)]
    assert (
        paths
        == ["/v2/projects/demo-project/agent/intents"] * 2
        + ["/v3/projects/demo-project/locations/global/agents/a-1/intents"] * 2
    )
    assert api_calls(peer)[0].query["languageCode"] == ["de"]
