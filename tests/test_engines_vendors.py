"""Vendor engines (Wit.ai, LUIS v3, Azure CLU, Amazon Lex V2) against loopback stand-ins.

Each contract test checks the request the vendor documents (method, path, query, headers,
body; for Lex the SigV4 signature, recomputed by the server with botocore and a fixed test
key) and maps the vendor's documented answer example (engine-apis.md §4-§6) onto a
prediction, entity values flattened per seed 000's "Entity Format Conversions". Error paths:
429 with Retry-After is retried by the real runner, 401/403 become a clear case error that
never shows the secret, 500 is retried and then recorded.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from runner_loopback import Resolved
from test_engines_dialogflow import CX_MATCH_ANSWER, ES_ANSWER, google_server
from test_engines_dialogflow import _engine as google_engine
from test_engines_kore import CLIENT_SECRET, KORE_ANSWER, kore_server, make_kore
from vendor_peer import Answer, Seen, VendorPeer

from nlu_tui.engines.base import Engine, ParseContext, create_engine
from nlu_tui.engines.httpcall import SECRET_VALUES_KEY
from nlu_tui.engines.profiles import resolve_engine
from nlu_tui.errors import EngineError, InputError
from nlu_tui.model import ExpectedIntent, ResultType, Suite, TestCase
from nlu_tui.runner import RunOptions, run_suite
from nlu_tui.scoring.entities import flatten_value
from nlu_tui.store import RunStore

SECRET = "Sup3r-s3cret-KEY-0042"
AWS_KEY_ID = "AKIDEXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
FAST = RunOptions(concurrency=1, retries=2, backoff_base=0.001, backoff_max=0.01)

# --- documented answers (engine-apis.md, from the vendors' docs and specifications) ----------

WIT_ANSWER = {
    "text": "Who's playing at birds basement tomorrow",
    "intents": [
        {"id": "240179067977375", "name": "whats_on", "confidence": 1},
        {"id": "240179067977376", "name": "buy_tickets", "confidence": 0.12},
    ],
    "entities": {
        "wit$datetime:datetime": [
            {
                "id": "871058740461194",
                "name": "wit$datetime",
                "role": "datetime",
                "start": 32,
                "end": 40,
                "body": "tomorrow",
                "confidence": 0.9666,
                "entities": [],
                "type": "value",
                "grain": "day",
                "value": "2021-08-22T00:00:00.000+10:00",
                "values": [
                    {"type": "value", "grain": "day", "value": "2021-08-22T00:00:00.000+10:00"}
                ],
            }
        ]
    },
    "traits": {
        "venue": [{"id": "516705612770815", "value": "birds_basement", "confidence": 0.9993}]
    },
}

LUIS_ANSWER = {
    "query": "forward to frank 30 dollars through HSBC",
    "prediction": {
        "topIntent": "give",
        "intents": {"give": {"score": 0.943442}, "None": {"score": 0.012}},
        "entities": {
            "Employees": [["frank"]],
            "money": [{"units": "Dollar", "value": 30}],
            "$instance": {
                "Employees": [
                    {
                        "type": "Employees",
                        "text": "frank",
                        "startIndex": 11,
                        "length": 5,
                        "modelTypeId": 5,
                        "modelType": "List Entity Extractor",
                        "recognitionSources": ["model"],
                    }
                ],
                "money": [
                    {
                        "type": "builtin.currency",
                        "text": "30 dollars",
                        "startIndex": 17,
                        "length": 10,
                        "modelTypeId": 2,
                        "modelType": "Prebuilt Entity Extractor",
                        "recognitionSources": ["model"],
                    }
                ],
            },
        },
        "sentiment": {"label": "positive", "score": 0.916},
    },
}

CLU_ANSWER = {
    "kind": "ConversationResult",
    "result": {
        "query": "Book a table for 2 people at 7 PM",
        "prediction": {
            "projectKind": "Conversation",
            "topIntent": "BookTable",
            "intents": [
                {"category": "BookTable", "confidenceScore": 0.95},
                {"category": "None", "confidenceScore": 0.02},
            ],
            "entities": [
                {
                    "category": "Time",
                    "text": "7 PM",
                    "offset": 29,
                    "length": 4,
                    "confidenceScore": 0.88,
                    "resolutions": [
                        {
                            "resolutionKind": "DateTimeResolution",
                            "dateTimeSubKind": "Time",
                            "timex": "T19",
                            "value": "19:00:00",
                        }
                    ],
                    "extraInformation": [
                        {"extraInformationKind": "EntitySubtype", "value": "datetime.time"}
                    ],
                },
                {
                    "category": "PartySize",
                    "text": "2 people",
                    "offset": 17,
                    "length": 8,
                    "confidenceScore": 0.92,
                },
            ],
        },
    },
}

LEX_ANSWER = {
    "sessionId": "batch-0001",
    "interpretations": [
        {
            "intent": {
                "name": "BookHotel",
                "state": "InProgress",
                "confirmationState": "None",
                "slots": {
                    "Location": {
                        "shape": "Scalar",
                        "value": {
                            "originalValue": "Seattle",
                            "interpretedValue": "Seattle",
                            "resolvedValues": ["seattle"],
                        },
                    },
                    "CheckInDate": None,
                },
            },
            "nluConfidence": {"score": 0.92},
            "interpretationSource": "Lex",
        },
        {
            "intent": {"name": "FallbackIntent", "slots": {}, "state": "InProgress"},
            "interpretationSource": "Lex",
        },
        {"intent": {"name": "BookCar", "slots": {}}, "nluConfidence": {"score": 0.31}},
    ],
    "sessionState": {
        "dialogAction": {"type": "ElicitSlot", "slotToElicit": "CheckInDate"},
        "intent": {
            "name": "BookHotel",
            "slots": {},
            "state": "InProgress",
            "confirmationState": "None",
        },
        "originatingRequestId": "2d3f6a0e-0000-0000-0000-000000000000",
    },
    "messages": [{"content": "What day do you want to check in?", "contentType": "PlainText"}],
    "requestAttributes": {},
}


def _ok(body: Any) -> Any:
    return lambda _seen: (200, {}, body)


# --- Wit.ai ----------------------------------------------------------------------------------


def _wit(url: str, **extra: Any) -> Engine:
    return create_engine(
        "wit",
        {"url": url, "token": SECRET, "version": "20240304", SECRET_VALUES_KEY: [SECRET], **extra},
    )


async def test_wit_request_and_documented_answer() -> None:
    text = WIT_ANSWER["text"]
    with VendorPeer(_ok(WIT_ANSWER)) as peer:
        engine = _wit(peer.url)
        prediction = await engine.parse(text, ParseContext())
        await engine.close()
    (seen,) = peer.seen
    assert (seen.method, seen.path) == ("GET", "/message")
    assert seen.query == {"v": ["20240304"], "q": [text], "n": ["8"]}
    assert seen.header("Authorization") == f"Bearer {SECRET}"
    assert seen.body == b""
    assert (prediction.intent, prediction.confidence) == ("whats_on", 1.0)
    assert [(s.name, s.confidence) for s in prediction.ranking] == [
        ("whats_on", 1.0),
        ("buy_tickets", 0.12),
    ]
    (ent,) = prediction.entities
    assert (ent.name, ent.role, ent.text, ent.start, ent.end) == (
        "wit$datetime",
        "datetime",
        "tomorrow",
        32,
        40,
    )
    assert text[ent.start : ent.end] == "tomorrow"
    assert flatten_value(ent.value) == "2021-08-22T00:00:00.000+10:00"
    assert ent.confidence == pytest.approx(0.9666)
    assert prediction.raw == WIT_ANSWER


async def test_wit_intervals_and_units_flatten_like_kore_and_no_intent() -> None:
    answer = {
        "text": "between 2 and 4 pm for 10 dollars",
        "intents": [],
        "entities": {
            "wit$datetime:datetime": [
                {
                    "name": "wit$datetime",
                    "role": "datetime",
                    "start": 0,
                    "end": 18,
                    "body": "between 2 and 4 pm",
                    "type": "interval",
                    "from": {"grain": "hour", "value": "2021-08-22T14:00:00.000-07:00"},
                    "to": {"grain": "hour", "value": "2021-08-22T17:00:00.000-07:00"},
                }
            ],
            "wit$amount_of_money:amount_of_money": [
                {
                    "name": "wit$amount_of_money",
                    "role": "amount_of_money",
                    "start": 23,
                    "end": 33,
                    "body": "10 dollars",
                    "type": "value",
                    "value": 10,
                    "unit": "USD",
                }
            ],
        },
        "traits": {},
    }
    with VendorPeer(_ok(answer)) as peer:
        engine = _wit(peer.url, tag="published-v3", n=3)
        prediction = await engine.parse(answer["text"], ParseContext())
        await engine.close()
    assert peer.seen[0].query["tag"] == ["published-v3"]
    assert prediction.intent is None and prediction.confidence is None and not prediction.ranking
    flat = [flatten_value(e.value) for e in prediction.entities]
    assert flat == ["2021-08-22T14:00:00.000-07:00 2021-08-22T17:00:00.000-07:00", "10 USD"]


# --- LUIS v3 ---------------------------------------------------------------------------------


def _luis(url: str, **extra: Any) -> Engine:
    settings = {"endpoint": url, "app_id": "df67dcdb-c37d-46af-88e1-8b97951ca1c2", "key": SECRET}
    return create_engine("luis", {**settings, SECRET_VALUES_KEY: [SECRET], **extra})


async def test_luis_request_and_documented_answer() -> None:
    text = LUIS_ANSWER["query"]
    with VendorPeer(_ok(LUIS_ANSWER)) as peer:
        engine = _luis(peer.url, slot="staging")
        prediction = await engine.parse(text, ParseContext())
        await engine.close()
    (seen,) = peer.seen
    assert seen.method == "POST"
    assert seen.path == (
        "/luis/prediction/v3.0/apps/df67dcdb-c37d-46af-88e1-8b97951ca1c2/slots/staging/predict"
    )
    assert seen.query == {"verbose": ["true"], "show-all-intents": ["true"], "log": ["false"]}
    assert seen.header("Ocp-Apim-Subscription-Key") == SECRET
    assert seen.header("Content-Type") == "application/json"
    assert seen.json() == {"query": text}
    assert (prediction.intent, prediction.confidence) == ("give", 0.943442)
    assert [s.name for s in prediction.ranking] == ["give"]  # the None intent is no candidate
    got = [(e.name, e.text, e.start, e.end, flatten_value(e.value)) for e in prediction.entities]
    assert got == [
        ("Employees", "frank", 11, 16, "frank"),
        ("money", "30 dollars", 17, 27, "30 Dollar"),
    ]
    assert all(text[e.start : e.end] == e.text for e in prediction.entities)  # type: ignore[misc]
    assert prediction.raw == LUIS_ANSWER


async def test_luis_version_route_and_none_intent() -> None:
    answer = {
        "query": "gibberish",
        "prediction": {
            "topIntent": "None",
            "intents": {"None": {"score": 0.7}, "give": {"score": 0.2}},
            "entities": {},
        },
    }
    with VendorPeer(_ok(answer)) as peer:
        engine = _luis(peer.url, version="0.2", method="GET", log=True)
        prediction = await engine.parse("gibberish", ParseContext())
        await engine.close()
    (seen,) = peer.seen
    assert seen.method == "GET" and seen.body == b""
    assert seen.query == {
        "verbose": ["true"],
        "show-all-intents": ["true"],
        "log": ["true"],
        "query": ["gibberish"],
    }
    assert seen.header("Ocp-Apim-Subscription-Key") == SECRET
    assert peer.seen[0].path.endswith(
        "/apps/df67dcdb-c37d-46af-88e1-8b97951ca1c2/versions/0.2/predict"
    )
    assert prediction.intent is None
    assert [(s.name, s.confidence) for s in prediction.ranking] == [("give", 0.2)]


# --- Azure CLU -------------------------------------------------------------------------------


def _clu(url: str, **extra: Any) -> Engine:
    settings = {"endpoint": url, "key": SECRET, "project": "Restaurant", "deployment": "production"}
    return create_engine("clu", {**settings, SECRET_VALUES_KEY: [SECRET], **extra})


async def test_clu_request_and_documented_answer() -> None:
    text = CLU_ANSWER["result"]["query"]  # type: ignore[index]
    with VendorPeer(_ok(CLU_ANSWER)) as peer:
        engine = _clu(peer.url, language="en")
        prediction = await engine.parse(text, ParseContext())
        await engine.close()
    (seen,) = peer.seen
    assert (seen.method, seen.path) == ("POST", "/language/:analyze-conversations")
    assert seen.query == {"api-version": ["2023-04-01"]}
    assert seen.header("Ocp-Apim-Subscription-Key") == SECRET
    assert seen.json() == {
        "kind": "Conversation",
        "analysisInput": {
            "conversationItem": {"id": "1", "participantId": "1", "text": text, "language": "en"}
        },
        "parameters": {
            "projectName": "Restaurant",
            "deploymentName": "production",
            "stringIndexType": "UnicodeCodePoint",
            "verbose": True,
        },
    }
    assert (prediction.intent, prediction.confidence) == ("BookTable", 0.95)
    assert [s.name for s in prediction.ranking] == ["BookTable"]
    got = [(e.name, e.text, e.start, e.end, flatten_value(e.value)) for e in prediction.entities]
    assert got == [
        ("PartySize", "2 people", 17, 25, "2 people"),
        ("Time", "7 PM", 29, 33, "19:00:00"),
    ]
    assert [e.confidence for e in prediction.entities] == [0.92, 0.88]
    assert prediction.raw == CLU_ANSWER


async def test_clu_currency_and_list_key_values() -> None:
    answer = {
        "kind": "ConversationResult",
        "result": {
            "query": "turn on the lamp for 10 dollars",
            "prediction": {
                "projectKind": "Conversation",
                "topIntent": "None",
                "intents": [{"category": "None", "confidenceScore": 0.6}],
                "entities": [
                    {
                        "category": "Device",
                        "text": "lamp",
                        "offset": 12,
                        "length": 4,
                        "confidenceScore": 1,
                        "extraInformation": [{"extraInformationKind": "ListKey", "key": "light"}],
                    },
                    {
                        "category": "Price",
                        "text": "10 dollars",
                        "offset": 21,
                        "length": 10,
                        "confidenceScore": 1,
                        "resolutions": [
                            {
                                "resolutionKind": "CurrencyResolution",
                                "ISO4217": "USD",
                                "unit": "United States dollar",
                                "value": 10,
                            }
                        ],
                    },
                ],
            },
        },
    }
    with VendorPeer(_ok(answer)) as peer:
        engine = _clu(peer.url)
        prediction = await engine.parse("turn on the lamp for 10 dollars", ParseContext())
        await engine.close()
    assert "language" not in peer.seen[0].json()["analysisInput"]["conversationItem"]
    assert prediction.intent is None
    assert [flatten_value(e.value) for e in prediction.entities] == ["light", "10 USD"]


# --- Amazon Lex V2 ---------------------------------------------------------------------------


def _lex(url: str, secret: str = AWS_SECRET, **extra: Any) -> Engine:
    settings = {
        "url": url,
        "region": "us-east-1",
        "bot_id": "ABCDEFGHIJ",
        "bot_alias_id": "TSTALIASID",
        "locale": "en_US",
        "access_key_id": AWS_KEY_ID,
        "secret_access_key": secret,
    }
    return create_engine("lex", {**settings, SECRET_VALUES_KEY: [secret], **extra})


def verify_sigv4(seen: Seen, base_url: str) -> str | None:
    """Why the request's SigV4 signature is wrong (None: valid), recomputed with botocore."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    auth = seen.header("Authorization") or ""
    if not auth.startswith("AWS4-HMAC-SHA256 "):
        return "no SigV4 Authorization header"
    fields = dict(
        part.strip().split("=", 1) for part in auth[len("AWS4-HMAC-SHA256 ") :].split(",")
    )
    key_id, date, region, service, term = fields["Credential"].split("/")
    if (key_id, region, service, term) != (AWS_KEY_ID, "us-east-1", "lex", "aws4_request"):
        return f"wrong credential scope {fields['Credential']}"
    amz_date = seen.header("X-Amz-Date") or ""
    if not amz_date.startswith(date):
        return "X-Amz-Date does not match the credential scope"
    signed = fields["SignedHeaders"].split(";")
    headers = {name: seen.header(name) or "" for name in signed if name != "host"}
    request = AWSRequest(
        method=seen.method, url=base_url + seen.path, data=seen.body, headers=headers
    )
    request.context["timestamp"] = amz_date
    signer = SigV4Auth(Credentials(AWS_KEY_ID, AWS_SECRET), "lex", "us-east-1")
    canonical = signer.canonical_request(request)
    expected = signer.signature(signer.string_to_sign(request, canonical), request)
    if expected != fields["Signature"]:
        return "signature mismatch"
    if not {"host", "x-amz-date"} <= set(signed):
        return "host and x-amz-date are not signed"
    return None


def _lex_server(answer: Any) -> Any:
    peer: VendorPeer

    def reply(seen: Seen) -> Answer:
        problem = verify_sigv4(seen, peer.url)
        if problem:
            return (
                403,
                {"x-amzn-ErrorType": "InvalidSignatureException"},
                {"message": f"The request signature we calculated does not match: {problem}"},
            )
        return 200, {}, answer

    peer = VendorPeer(reply)
    return peer


async def test_lex_request_is_sigv4_signed_and_documented_answer_maps() -> None:
    text = "I want to book a hotel in Seattle"
    with _lex_server(LEX_ANSWER) as peer:
        engine = _lex(peer.url)
        prediction = await engine.parse(text, ParseContext())
        second = await engine.parse(text, ParseContext())
        await engine.close()
    first, again = peer.seen
    prefix = "/bots/ABCDEFGHIJ/botAliases/TSTALIASID/botLocales/en_US/sessions/"
    assert first.method == "POST" and first.path.startswith(prefix)
    assert first.path.endswith("/text")
    session = first.path[len(prefix) : -len("/text")]
    assert 2 <= len(session) <= 100 and session != again.path[len(prefix) : -len("/text")]
    assert first.json() == {"text": text}
    assert verify_sigv4(first, peer.url) is None and verify_sigv4(again, peer.url) is None
    assert AWS_SECRET not in str(first.headers)
    assert (prediction.intent, prediction.confidence) == ("BookHotel", 0.92)
    assert [(s.name, s.confidence) for s in prediction.ranking] == [
        ("BookHotel", 0.92),
        ("BookCar", 0.31),
    ]
    (slot,) = prediction.entities  # the unfilled CheckInDate slot (null) is no entity
    assert (slot.name, slot.text, flatten_value(slot.value), slot.start) == (
        "Location",
        "Seattle",
        "Seattle",
        None,
    )
    assert prediction.raw == LEX_ANSWER and second.intent == "BookHotel"


async def test_lex_wrong_secret_fails_the_signature_check_with_a_clear_error() -> None:
    wrong = "not-the-right-secret-key-000"
    with _lex_server(LEX_ANSWER) as peer:
        engine = _lex(peer.url, secret=wrong)
        with pytest.raises(EngineError) as caught:
            await engine.parse("book a hotel", ParseContext())
        await engine.close()
    message = str(caught.value)
    assert message.startswith(
        "Amazon Lex refused the request (HTTP 403): AWS refused the signature"
    )
    assert "signature mismatch" in message and wrong not in message


async def test_lex_fallback_lists_and_composites() -> None:
    answer = {
        "sessionId": "s",
        "interpretations": [
            {
                "intent": {
                    "name": "FallbackIntent",
                    "slots": {
                        "Fruit": {
                            "shape": "List",
                            "value": {
                                "originalValue": "apples and grapes",
                                "interpretedValue": "apples and grapes",
                                "resolvedValues": [],
                            },
                            "values": [
                                {
                                    "shape": "Scalar",
                                    "value": {
                                        "originalValue": "apples",
                                        "interpretedValue": "Apple",
                                        "resolvedValues": ["Apple"],
                                    },
                                },
                                {
                                    "shape": "Scalar",
                                    "value": {
                                        "originalValue": "grapes",
                                        "interpretedValue": "Grape",
                                        "resolvedValues": ["Grape"],
                                    },
                                },
                            ],
                        },
                        "Trip": {
                            "shape": "Composite",
                            "subSlots": {
                                "City": {
                                    "shape": "Scalar",
                                    "value": {
                                        "originalValue": "hyderabad",
                                        "interpretedValue": "Hyderabad",
                                        "resolvedValues": [],
                                    },
                                },
                                "Date": {
                                    "shape": "Scalar",
                                    "value": {
                                        "originalValue": "July 6th, 2018",
                                        "interpretedValue": "2018-07-06",
                                        "resolvedValues": [],
                                    },
                                },
                            },
                        },
                    },
                }
            },
            {"intent": {"name": "AddToCart", "slots": {}}, "nluConfidence": {"score": 0.61}},
        ],
    }
    with _lex_server(answer) as peer:
        engine = _lex(peer.url)
        prediction = await engine.parse("apples and grapes", ParseContext())
        await engine.close()
    assert prediction.intent is None and prediction.confidence == 0.61
    from nlu_tui.model import ValueKind
    from nlu_tui.scoring.entities import value_matches

    fruit, trip = prediction.entities
    assert flatten_value(fruit.value) == "Apple||Grape"
    assert value_matches("Grape||Apple", ValueKind.AUTO, fruit.value)
    assert value_matches("City:Hyderabad|Date:2018-07-06", ValueKind.AUTO, trip.value)


# --- errors, through the real runner ---------------------------------------------------------

VENDORS: dict[str, tuple[Any, Any, str, str]] = {
    # name: (engine factory, answer, utterance, expected intent)
    "wit": (_wit, WIT_ANSWER, WIT_ANSWER["text"], "whats_on"),
    "luis": (_luis, LUIS_ANSWER, LUIS_ANSWER["query"], "give"),
    "clu": (_clu, CLU_ANSWER, "Book a table for 2 people at 7 PM", "BookTable"),
    "lex": (_lex, LEX_ANSWER, "I want to book a hotel in Seattle", "BookHotel"),
    "kore": (make_kore, KORE_ANSWER, "book a ticket", "Book a ticket"),
    "dialogflow-es": (None, ES_ANSWER, "book a table in Berlin tomorrow", "book.table"),
    "dialogflow-cx": (None, CX_MATCH_ANSWER, "book a table in Berlin", "book.table"),
}
GOOGLE: dict[str, dict[str, str]] = {
    "dialogflow-es": {},
    "dialogflow-cx": {"location": "global", "agent": "a", "call": "match"},
}
"""Google's engines need a service account key made for the stand-in (its factory is None)."""
SERVERS: dict[str, Any] = {"lex": _lex_server, "kore": kore_server}
"""Vendors whose stand-in verifies a signature or token (others answer anyone)."""


def _suite(text: str, intent: str) -> Suite:
    return Suite(
        name="v", cases=[TestCase(utterance=text, intents=[ExpectedIntent(intent)], id="c1")]
    )


async def _run(vendor: str, script: list[Answer], tmp_path: Path) -> tuple[Any, Any, VendorPeer]:
    make, answer, text, intent = VENDORS[vendor]
    if vendor in GOOGLE:
        peer, google = google_server(answer)

        def make(url: str) -> Engine:
            key = google.key_file(tmp_path)
            return google_engine(vendor, key, url, **GOOGLE[vendor])

    else:
        peer = SERVERS[vendor](answer) if vendor in SERVERS else VendorPeer(_ok(answer))
    peer.script = list(script)
    with peer:
        store = RunStore(tmp_path / "runs.sqlite3")
        record = await run_suite(
            _suite(text, intent), Resolved(make(peer.url)), store, options=FAST
        )
    ((_case, _prediction, result),) = store.load_results(record.id)
    return record, result, peer


@pytest.mark.parametrize("vendor", sorted(VENDORS))
async def test_429_with_retry_after_is_retried(vendor: str, tmp_path: Path) -> None:
    busy: Answer = (429, {"Retry-After": "1"}, {"error": {"code": "429", "message": "Rate limit"}})
    began = time.monotonic()
    _record, result, peer = await _run(vendor, [busy], tmp_path)
    assert len([s for s in peer.seen if s.path != "/token"]) == 2
    assert time.monotonic() - began >= 0.9  # Retry-After, not the 1 ms backoff
    assert result.result is ResultType.TP


@pytest.mark.parametrize("vendor", sorted(set(VENDORS) - set(GOOGLE)))  # Google: own tests
async def test_401_is_a_clear_case_error_without_the_secret(vendor: str, tmp_path: Path) -> None:
    secret = {"lex": AWS_SECRET, "kore": CLIENT_SECRET}.get(vendor, SECRET)
    refusal: Answer = (
        401,
        {},
        {"error": {"code": "401", "message": f"Access denied due to invalid key {secret}"}},
    )
    _record, result, peer = await _run(vendor, [refusal], tmp_path)
    assert len(peer.seen) == 1  # not retried
    assert result.result is ResultType.ERROR
    assert "refused the request (HTTP 401)" in result.error
    assert secret not in result.error and "***" in result.error
    hint = {"wit": "token", "luis": "key", "clu": "key", "lex": "access_key_id"}
    assert {**hint, "kore": "client_secret"}[vendor] in (result.error)


@pytest.mark.parametrize("vendor", sorted(VENDORS))
async def test_500_is_retried_then_recorded(vendor: str, tmp_path: Path) -> None:
    boom: Answer = (500, {}, {"error": {"code": "InternalServerError", "message": "boom"}})
    _record, result, peer = await _run(vendor, [boom, boom, boom], tmp_path)
    assert len([s for s in peer.seen if s.path != "/token"]) == 3  # first attempt, 2 retries
    assert result.result is ResultType.ERROR
    assert result.error.startswith("HTTP 500")


# --- profiles and the CLI --------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind,settings,missing",
    [
        ("wit", "version: '20240304'", "token"),
        ("luis", "endpoint: https://westus.api.cognitive.microsoft.com\n    key: ${K}", "app_id"),
        (
            "clu",
            "endpoint: https://r.cognitiveservices.azure.com\n    key: ${K}\n    project: p",
            "deployment",
        ),
        (
            "lex",
            "region: us-east-1\n    bot_id: ABCDEFGHIJ\n    bot_alias_id: TSTALIASID",
            "access_key_id",
        ),
    ],
)
def test_a_missing_required_setting_is_named(
    kind: str, settings: str, missing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K", SECRET)
    (tmp_path / "engines.yaml").write_text(
        f"engines:\n  bot:\n    type: {kind}\n    {settings}\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as caught:
        resolve_engine("bot", workspace=tmp_path)
    assert f"missing required setting {missing!r}" in caught.value.message
    assert caught.value.field == "engines.bot"


@pytest.mark.parametrize(
    "kind,line",
    [
        ("wit", "token: abcdef123456"),
        ("luis", "key: abcdef123456"),
        ("lex", "secret_access_key: abcdef123456"),
    ],
)
def test_inline_vendor_secrets_are_refused(kind: str, line: str, tmp_path: Path) -> None:
    (tmp_path / "engines.yaml").write_text(
        f"engines:\n  bot:\n    type: {kind}\n    {line}\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match="secret must not be written"):
        resolve_engine("bot", workspace=tmp_path)


def test_cli_runs_a_suite_against_wit_through_a_profile(tmp_path: Path) -> None:
    text = WIT_ANSWER["text"]
    suite = tmp_path / "wit.suite.yaml"
    suite.write_text(
        "name: wit\ncases:\n"
        f'  - utterance: "{text}"\n    intents: [whats_on]\n'
        "    entities:\n      - {name: wit$datetime, value: '2021-08-22T00:00:00.000+10:00'}\n"
        "  - utterance: missing\n    intents: [whats_on]\n",
        encoding="utf-8",
    )

    def reply(seen: Seen) -> Answer:
        if seen.query["q"] == ["missing"]:  # as if the token had been revoked meanwhile
            return 401, {}, {"error": "Bad auth, check token/params", "code": "no-auth"}
        return 200, {}, WIT_ANSWER

    with VendorPeer(reply) as peer:
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  wit-bot:\n    type: wit\n    url: {peer.url}\n"
            "    token: ${WIT_TEST_TOKEN}\n    version: '20240304'\n    concurrency: 1\n",
            encoding="utf-8",
        )
        env = {
            **os.environ,
            "WIT_TEST_TOKEN": SECRET,
            "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
            "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
        }
        report = tmp_path / "report.json"
        ran = subprocess.run(
            [
                sys.executable,
                "-m",
                "nlu_tui",
                "run",
                str(suite),
                "--engine",
                "wit-bot",
                "--json",
                str(report),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env=env,
        )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert SECRET not in ran.stdout + ran.stderr + report.read_text(encoding="utf-8")
    assert len(peer.seen) == 2
    assert all(s.header("Authorization") == f"Bearer {SECRET}" for s in peer.seen)
    import json

    results = {r["utterance"]: r for r in json.loads(report.read_text(encoding="utf-8"))["results"]}
    ok = results[text]
    assert ok["result"] == "TP", ok
    refused = results["missing"]
    assert refused["result"] == "ERROR"
    assert "Wit.ai refused the request (HTTP 401)" in refused["error"]


def test_vendor_profile_keys_are_validated(tmp_path: Path) -> None:
    (tmp_path / "engines.yaml").write_text(
        "engines:\n  bot:\n    type: clu\n    endpoint: https://x\n    key: ${K}\n"
        "    project: p\n    deploymnet: production\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="did you mean 'deployment'"):
        resolve_engine("bot", workspace=tmp_path)


def test_httpx_status_errors_other_than_auth_are_left_to_the_runner() -> None:
    engine = _wit("http://127.0.0.1:9")
    request = httpx.Request("GET", "http://127.0.0.1:9/message")
    exc = httpx.HTTPStatusError("x", request=request, response=httpx.Response(429, request=request))
    assert engine.refused(exc, "Wit.ai", {401: "token"}) is exc  # type: ignore[attr-defined]


async def test_lex_keys_from_a_credentials_file_beside_the_profile(tmp_path: Path) -> None:
    (tmp_path / "aws-credentials").write_text(
        f"[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong-secret\n\n"
        f"[nlu-test]\naws_access_key_id = {AWS_KEY_ID}\naws_secret_access_key = {AWS_SECRET}\n",
        encoding="utf-8",
    )
    with _lex_server(LEX_ANSWER) as peer:
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  bot:\n    type: lex\n    url: {peer.url}\n    region: us-east-1\n"
            "    bot_id: ABCDEFGHIJ\n    bot_alias_id: TSTALIASID\n"
            "    credentials_file: aws-credentials\n    aws_profile: nlu-test\n",
            encoding="utf-8",
        )
        resolved = resolve_engine("bot", workspace=tmp_path)
        engine = resolved.engine
        prediction = await engine.parse("book a hotel in Seattle", ParseContext())
        await engine.close()
    assert prediction.intent == "BookHotel"  # the server verified the signature
    assert AWS_SECRET in resolved.secrets  # scrubbed from stored answers and messages
    assert resolved.redact(f"x {AWS_SECRET} y") == "x *** y"
    (tmp_path / "engines.yaml").write_text(
        "engines:\n  bot:\n    type: lex\n    region: us-east-1\n    bot_id: ABCDEFGHIJ\n"
        "    bot_alias_id: TSTALIASID\n    credentials_file: aws-credentials\n"
        "    aws_profile: missing\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"credentials_file has no \[missing\] section"):
        resolve_engine("bot", workspace=tmp_path)
    # a file that is not there: a clear input error naming it (botocore's ConfigNotFound was
    # a traceback, exit 1)
    (tmp_path / "engines.yaml").write_text(
        "engines:\n  bot:\n    type: lex\n    region: us-east-1\n    bot_id: ABCDEFGHIJ\n"
        "    bot_alias_id: TSTALIASID\n    credentials_file: nope/credentials\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        resolve_engine("bot", workspace=tmp_path)
    assert (
        f"cannot read credentials_file {tmp_path / 'nope' / 'credentials'}: No such file"
        in caught.value.message
    )


async def test_lex_lists_the_aliass_intents_through_the_signed_model_building_api() -> None:
    """DescribeBotAlias (the alias's version), then every page of ListIntents for that version
    and locale (paths and fields from botocore's lexv2-models model), each request SigV4-signed
    and checked by the stand-in; FallbackIntent is no intent and left out."""
    pages = {
        None: {"botId": "ABCDEFGHIJ", "botVersion": "3", "localeId": "en_US", "nextToken": "p2",
               "intentSummaries": [{"intentId": "I1", "intentName": "BookHotel"},
                                   {"intentId": "I2", "intentName": "FallbackIntent"}]},
        "p2": {"botId": "ABCDEFGHIJ", "botVersion": "3", "localeId": "en_US",
               "intentSummaries": [{"intentId": "I3", "intentName": "BookCar"}]},
    }  # fmt: skip
    peer: VendorPeer

    def reply(seen: Seen) -> Answer:
        problem = verify_sigv4(seen, peer.url)
        if problem:
            return 403, {"x-amzn-ErrorType": "AccessDeniedException"}, {"message": problem}
        if seen.method == "GET" and seen.path == "/bots/ABCDEFGHIJ/botaliases/PRODALIAS1/":
            return 200, {}, {"botAliasId": "PRODALIAS1", "botVersion": "3", "botId": "ABCDEFGHIJ"}
        if seen.method == "POST" and seen.path == (
            "/bots/ABCDEFGHIJ/botversions/3/botlocales/en_US/intents/"
        ):
            return 200, {}, pages[seen.json().get("nextToken")]
        return 404, {"x-amzn-ErrorType": "ResourceNotFoundException"}, {"message": "no such bot"}

    peer = VendorPeer(reply)
    with peer:
        engine = _lex("http://127.0.0.1:9", models_url=peer.url, bot_alias_id="PRODALIAS1")
        listed = await engine.list_intents()
        wrong = _lex("http://127.0.0.1:9", models_url=peer.url, bot_alias_id="PRODALIAS1",
                     secret="not-the-right-secret-key-000")  # fmt: skip
        with pytest.raises(EngineError) as refused:
            await wrong.list_intents()
        missing = _lex("http://127.0.0.1:9", models_url=peer.url, bot_alias_id="NOALIAS000")
        with pytest.raises(EngineError) as not_found:
            await missing.list_intents()
        for e in (engine, wrong, missing):
            await e.close()
    assert listed == [("BookHotel", []), ("BookCar", [])]
    describe, first, second = peer.seen[:3]
    assert (describe.method, describe.body) == ("GET", b"")
    assert first.json() == {"maxResults": 1000} and second.json() == {
        "maxResults": 1000,
        "nextToken": "p2",
    }
    assert "DescribeBotAlias and ListIntents" in str(refused.value)
    assert "not-the-right-secret-key-000" not in str(refused.value)
    assert "no such bot, alias or locale" in str(not_found.value)


async def test_the_run_reason_counts_a_refusal_after_a_retry_as_the_same_refusal(
    tmp_path: Path,
) -> None:
    """Two cases refused with 401, the first after a 429 it waited out: the run's reason says
    the refusal came twice (`(×2)`), not once (the retried one's "(after 2 attempts)" made it
    another reason)."""
    refused: Answer = (401, {}, {"error": {"code": "401", "message": "Access denied"}})
    busy: Answer = (429, {"Retry-After": "0"}, {"error": {"code": "429", "message": "busy"}})
    peer = VendorPeer(lambda _seen: refused, script=[busy])
    suite = Suite(
        name="s",
        cases=[TestCase("hi", [ExpectedIntent("greet")]), TestCase("yo", [ExpectedIntent("x")])],
    )
    with peer:
        store = RunStore(tmp_path / "runs.sqlite3")
        record = await run_suite(suite, Resolved(_luis(peer.url)), store, options=FAST)
    errors = [r.error or "" for _c, _p, r in store.load_results(record.id)]
    assert sum("(after 2 attempts)" in e for e in errors) == 1  # the case keeps its detail
    assert record.reason is not None and record.reason.endswith("(×2)"), record.reason
    assert "after 2 attempts" not in record.reason
