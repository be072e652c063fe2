"""The Kore.ai engine against a loopback Find Intent stand-in that verifies the JWT.

The server checks what Kore.ai documents (engine-apis §2): ``POST
/api/v1.1/rest/bot/{botId}/findIntent`` with ``fetchConfiguredTasks`` per version, the JWT in
the ``auth`` header (HS256 over the Client Secret, ``appId`` = Client ID, decoded here with
PyJWT and refused when expired or signed with another secret), ``bot-language`` and the
``{"input", "streamName", "parentIntent"}`` body. The answer mapped is the documented sample.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import jwt
import pytest
from runner_loopback import Resolved
from vendor_peer import Answer, Seen, VendorPeer

from nlu_tui.engines.base import Engine, ParseContext, create_engine
from nlu_tui.engines.httpcall import SECRET_VALUES_KEY
from nlu_tui.engines.profiles import resolve_engine
from nlu_tui.errors import EngineError, InputError
from nlu_tui.model import ExpectedIntent, IntentKind, ResultType, Suite, TestCase
from nlu_tui.runner import RunOptions, run_suite
from nlu_tui.scoring.entities import flatten_value
from nlu_tui.store import RunStore

CLIENT_ID = "cs-5250bd7e-0000-4a2d-9c6e-6e7b0ea8d000"
CLIENT_SECRET = "Kore-client-s3cret-0042+abcdefghijkl"
BOT_ID = "st-6ecb5ba2-0000-5f7b-a2f1-000000000000"
FAST = RunOptions(concurrency=1, retries=2, backoff_base=0.001, backoff_max=0.01)

KORE_ANSWER: dict[str, Any] = {  # engine-apis §2, the documented sample
    "request": {"input": "book a ticket", "streamName": "Public APIs"},
    "response": {
        "result": "successintent",
        "debugTitle": "Intent Match Successful: 'Book a ticket'",
        "task": "Book a ticket",
        "taskId": "dg-18219164-0000",
        "intentStatus": "published",
        "subType": "dialog",
        "identifiedVia": "cs em",
        "language": "en",
        "usedtime": 313,
        "nlProcessing": {"originalInput": "book a ticket", "canonical": "book a ticket"},
        "ml": {"namedEntityRecognition": []},
        "fm": {
            "definitive": [
                {
                    "activity": "Book a ticket",
                    "score": 11643.33,
                    "matchType": "definite",
                    "scoreBreakdown": {"wordMatch": 500, "coverage": 2000},
                    "foundVia": "wordMatch",
                }
            ]
        },
        "finalResolver": {
            "userInput": "book a ticket",
            "ranking": [
                {
                    "intent": "Book a ticket",
                    "taskId": "dg-18219164-0000",
                    "activityType": "dialog",
                    "state": "published",
                    "totalScore": 11643.33,
                    "identifyingEngines": {"fm": True},
                    "intentMatchVia": "wordMatch",
                }
            ],
            "winningIntent": [
                {
                    "intent": "Book a ticket",
                    "taskId": "dg-18219164-0000",
                    "activityType": "dialog",
                    "state": "published",
                    "score": 11643.33,
                }
            ],
            "entities": [],
        },
    },
    "streamId": "st-6ecb5ba2-0000",
    "streamName": "Public APIs",
    "_id": "f-19f149a6-0000",
}


def verify_jwt(seen: Seen) -> str | None:
    """Why the request's ``auth`` JWT is not Kore.ai's (None: valid)."""
    token = seen.header("auth")
    if not token:
        return "no auth header"
    if seen.header("Authorization"):
        return "the JWT goes in 'auth', not 'Authorization'"
    try:
        claims = jwt.decode(token, CLIENT_SECRET, algorithms=["HS256"])
    except jwt.ExpiredSignatureError:
        return "token expired"
    except jwt.InvalidTokenError as exc:
        return f"invalid token: {exc}"
    if claims.get("appId") != CLIENT_ID or not claims.get("sub"):
        return "appId is not the client id"
    return None


def kore_server(answer: Any) -> VendorPeer:
    def reply(seen: Seen) -> Answer:
        problem = verify_jwt(seen)
        if problem:
            return (
                401,
                {},
                {"errors": [{"msg": f"Invalid SDK credentials ({problem})", "code": 4002}]},
            )
        return 200, {}, answer

    return VendorPeer(reply)


def make_kore(url: str, secret: str = CLIENT_SECRET, **extra: Any) -> Engine:
    settings = {
        "url": url,
        "bot_id": BOT_ID,
        "client_id": CLIENT_ID,
        "client_secret": secret,
        SECRET_VALUES_KEY: [secret],
    }
    return create_engine("kore", {**settings, **extra})


async def test_request_carries_a_valid_jwt_and_the_documented_answer_maps() -> None:
    with kore_server(KORE_ANSWER) as peer:
        engine = make_kore(peer.url, bot_name="Public APIs", language="de")
        prediction = await engine.parse("book a ticket", ParseContext(stage="published"))
        await engine.close()
    (seen,) = peer.seen
    assert (seen.method, seen.path) == ("POST", f"/api/v1.1/rest/bot/{BOT_ID}/findIntent")
    assert seen.query == {"fetchConfiguredTasks": ["false"], "sync": ["true"]}
    assert verify_jwt(seen) is None
    assert seen.header("bot-language") == "de"
    assert seen.json() == {"input": "book a ticket", "streamName": "Public APIs"}
    assert CLIENT_SECRET not in str(seen.headers)
    assert (prediction.intent, prediction.confidence) == ("Book a ticket", 11643.33)
    assert [(s.name, s.confidence) for s in prediction.ranking] == [("Book a ticket", 11643.33)]
    assert prediction.engine_scores == {"Book a ticket": {"FM": 11643.33}}
    assert prediction.intent_kind is IntentKind.DIALOG
    assert prediction.task_state == "Published"
    assert prediction.entities == [] and prediction.traits == [] and prediction.bot is None
    assert prediction.raw == KORE_ANSWER


async def test_development_stage_matches_configured_tasks_and_parent_intent() -> None:
    with kore_server(KORE_ANSWER) as peer:
        engine = make_kore(peer.url)
        await engine.parse("change it", ParseContext(parent_intents=["Book a ticket", "Seat"]))
        pinned = make_kore(peer.url, version="published")
        await pinned.parse("x", ParseContext(stage="development"))
        await engine.close()
        await pinned.close()
    first, second = peer.seen
    assert first.query["fetchConfiguredTasks"] == ["true"]
    assert first.json() == {"input": "change it", "parentIntent": "Seat"}
    assert second.query["fetchConfiguredTasks"] == ["false"]  # version: wins over the stage


async def test_an_expired_jwt_is_minted_again() -> None:
    with kore_server(KORE_ANSWER) as peer:
        engine = make_kore(peer.url)
        old = engine.token(now=time.time() - 7200)  # type: ignore[attr-defined]
        assert jwt.decode(old, options={"verify_signature": False})["exp"] < time.time()
        prediction = await engine.parse("book a ticket", ParseContext())
        await engine.close()
    (seen,) = peer.seen
    assert seen.header("auth") != old and verify_jwt(seen) is None
    assert prediction.intent == "Book a ticket"


async def test_wrong_secret_is_a_clear_case_error_without_the_secret() -> None:
    wrong = "not-the-kore-secret-000000"
    with kore_server(KORE_ANSWER) as peer:
        engine = make_kore(peer.url, secret=wrong)
        with pytest.raises(EngineError) as caught:
            await engine.parse("book a ticket", ParseContext())
        await engine.close()
    message = str(caught.value)
    assert message.startswith("Kore.ai refused the request (HTTP 401): the JWT was refused")
    assert "client_secret" in message and "Invalid SDK credentials" in message
    assert wrong not in message


KORE_RICH: dict[str, Any] = {
    # a universal bot's FAQ answer with ML, FM and KG scores, entities and traits
    "response": {
        "result": "successintent",
        "subType": "faq",
        "ml": {
            "possible": [
                {"activity": "Open Account", "score": 0.71},
                {"activity": "Close Account", "score": 0.22},
            ]
        },
        "fm": {"possible": [{"activity": "Open Account", "score": 812.5}]},
        "faq": {"definitive": [{"primaryQuestion": "How to Open Account?", "faqScore": 96.4}]},
        "traits": ["Issue", {"name": "Account Type"}],
        "finalResolver": {
            "ranking": [
                {
                    "intent": "How to Open Account?",
                    "activityType": "faq",
                    "state": "configured",
                    "totalScore": 96.4,
                    "botName": "Banking FAQ",
                },
                {"intent": "Open Account", "activityType": "dialog", "totalScore": 0.71},
            ],
            "winningIntent": [
                {"intent": "How to Open Account?", "activityType": "faq", "score": 96.4}
            ],
            "entities": [
                {"field": "TransferAmount", "value": [{"code": "USD", "amount": 200}]},
                {"field": "Fruit", "value": ["Apple", "Grape"]},
                {"field": "Payee", "value": "Leonardo"},
            ],
        },
    }
}


async def test_scores_per_engine_kind_state_bot_traits_and_entities() -> None:
    with kore_server(KORE_RICH) as peer:
        engine = make_kore(peer.url)
        prediction = await engine.parse("open an account for me", ParseContext())
        await engine.close()
    assert prediction.intent == "How to Open Account?"
    assert prediction.intent_kind is IntentKind.FAQ
    assert prediction.task_state == "Configured"
    assert prediction.bot == "Banking FAQ"
    assert prediction.traits == ["Issue", "Account Type"]
    assert prediction.engine_scores == {
        "Open Account": {"ML": 0.71, "FM": 812.5},
        "Close Account": {"ML": 0.22},
        "How to Open Account?": {"KG": 96.4},
    }
    got = [(e.name, flatten_value(e.value)) for e in prediction.entities]
    assert got == [("TransferAmount", "200 USD"), ("Fruit", "Apple||Grape"), ("Payee", "Leonardo")]


async def test_failintent_and_small_talk() -> None:
    fail = {
        "response": {
            "result": "failintent",
            "finalResolver": {"ranking": [{"intent": "Book a ticket", "totalScore": 12.0}]},
        }
    }
    talk = copy.deepcopy(KORE_ANSWER)
    talk["response"]["finalResolver"]["winningIntent"] = [
        {"intent": "emohowzit", "activityType": "smalltalk", "score": 1}
    ]
    with kore_server(fail) as peer:
        engine = make_kore(peer.url)
        none = await engine.parse("qwerty", ParseContext())
        peer.answer = lambda _seen: (200, {}, talk)
        small = await engine.parse("how are you doing today", ParseContext())
        await engine.close()
    assert none.intent is None and none.confidence is None
    assert [s.name for s in none.ranking] == ["Book a ticket"]
    assert (small.intent, small.intent_kind) == ("emohowzit", IntentKind.SMALL_TALK)


async def test_rate_limit_refusal_is_retried_whatever_its_status(tmp_path: Path) -> None:
    limited: Answer = (
        400,
        {},
        {"errors": [{"msg": "Rate limit for this API has been reached. Please try again "
                     "after some time.", "code": 429}]},
    )  # fmt: skip
    with kore_server(KORE_ANSWER) as peer:
        peer.script = [limited]
        store = RunStore(tmp_path / "runs.sqlite3")
        suite = Suite(
            name="k",
            cases=[TestCase("book a ticket", [ExpectedIntent("Book a ticket")], id="c1")],
        )
        record = await run_suite(suite, Resolved(make_kore(peer.url)), store, options=FAST)
    ((_case, prediction, result),) = store.load_results(record.id)
    assert len(peer.seen) == 2 and result.result is ResultType.TP
    assert prediction.engine_scores == {"Book a ticket": {"FM": 11643.33}}  # stored and read back
    assert prediction.task_state == "Published"


def test_profile_needs_the_client_secret_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "engines.yaml").write_text(
        f"engines:\n  bot:\n    type: kore\n    bot_id: {BOT_ID}\n    client_id: {CLIENT_ID}\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        resolve_engine("bot", workspace=tmp_path)
    assert "missing required setting 'client_secret'" in caught.value.message
    (tmp_path / "engines.yaml").write_text(
        f"engines:\n  bot:\n    type: kore\n    bot_id: {BOT_ID}\n    client_id: {CLIENT_ID}\n"
        "    client_secret: abcdefgh12345\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="secret must not be written"):
        resolve_engine("bot", workspace=tmp_path)
    monkeypatch.setenv("KORE_SECRET", CLIENT_SECRET)
    (tmp_path / "engines.yaml").write_text(
        f"engines:\n  bot:\n    type: kore\n    bot_id: {BOT_ID}\n    client_id: {CLIENT_ID}\n"
        "    client_secret: ${KORE_SECRET}\n    language: en\n",
        encoding="utf-8",
    )
    resolved = resolve_engine("bot", workspace=tmp_path, stage="published")
    assert resolved.redact(f"x {CLIENT_SECRET}") == "x ***"
    assert resolved.engine.describe() == {
        "type": "kore",
        "url": "https://bots.kore.ai",
        "bot_id": BOT_ID,
        "language": "en",
    }
