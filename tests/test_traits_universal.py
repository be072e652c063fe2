"""Traits and universal bots scored per seed 000, end to end through real engines and reports.

Seed 000: "In the case of Traits, a TP state includes the traits matched over and above the
expected matches"; a universal bot's test case pairs each intent with a ``botName``. The
expected counts below are written by hand from those rules, not computed by our scorer.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from runner_loopback import Resolved
from test_engines_kore import kore_server, make_kore
from vendor_peer import Seen, VendorPeer

from nlu_tui.engines.base import ParseContext, create_engine
from nlu_tui.engines.httpcall import SECRET_VALUES_KEY
from nlu_tui.model import (
    ExpectedIntent,
    IntentKind,
    Prediction,
    ResultType,
    Suite,
    TestCase,
)
from nlu_tui.reports import RunMeta, write_report
from nlu_tui.runner import RunOptions, run_suite
from nlu_tui.scoring.case import score_case
from nlu_tui.scoring.summary import summarize
from nlu_tui.store import RunStore

UNIVERSAL = [
    ExpectedIntent("Age Predictor", bot="Check Bot"),
    ExpectedIntent("IVRnode", bot="XOP211"),
]


def test_trait_and_universal_bot_fixture_counts() -> None:
    statement = ["Account Statement", "Issue"]
    cases_and_answers = [
        # traits: every expected trait matched, extras are fine -> TP
        (TestCase("wrong statement", traits=statement), Prediction(traits=[*statement, "Urgent"])),
        # some expected traits but not all -> FP
        (TestCase("statement?", traits=statement), Prediction(traits=["Issue"])),
        # no trait returned -> FN
        (TestCase("an issue", traits=["Issue"]), Prediction()),
        # universal bot: the right intent from the bot paired with it -> TP
        (TestCase("multibot 1", intents=UNIVERSAL), Prediction("IVRnode", 0.9, bot="XOP211")),
        # the right intent from another child bot -> FP
        (TestCase("multibot 2", intents=UNIVERSAL), Prediction("IVRnode", 0.9, bot="Check Bot")),
        # the engine does not say which bot answered: the intent decides -> TP
        (TestCase("multibot 3", intents=UNIVERSAL), Prediction("Age Predictor", 0.8)),
        # an intent paired with no bot accepts any bot -> TP
        (TestCase("open", intents=[ExpectedIntent("Open Account")]), Prediction("Open Account", bot="Bank")),
        # a bot is matched case-insensitively? no: names are compared as written -> FP
        (TestCase("multibot 4", intents=UNIVERSAL), Prediction("IVRnode", 0.9, bot="xop211")),
    ]  # fmt: skip
    results = [score_case(c, p) for c, p in cases_and_answers]
    assert [r.result.value for r in results] == ["TP", "FP", "FN", "TP", "FP", "TP", "TP", "FP"]
    s = summarize(results)
    assert (s.tp, s.tn, s.fp, s.fn) == (4, 0, 3, 1)
    assert results[3].matched_bot == "XOP211" and results[5].matched_bot is None


async def test_wit_traits_are_returned_and_scored() -> None:
    answer = {
        "text": "Who's playing at birds basement tomorrow",
        "intents": [{"id": "1", "name": "whats_on", "confidence": 0.99}],
        "entities": {},
        "traits": {
            "venue": [
                {"id": "5", "value": "birds_basement", "confidence": 0.9993},
                {"id": "6", "value": "the_jazz_lab", "confidence": 0.2},
            ],
            "wit$sentiment": [{"id": "7", "value": "neutral", "confidence": 0.6}],
        },
    }
    with VendorPeer(lambda _seen: (200, {}, answer)) as peer:
        engine = create_engine(
            "wit", {"url": peer.url, "token": "t0ken-000000", SECRET_VALUES_KEY: []}
        )
        prediction = await engine.parse(answer["text"], ParseContext())  # type: ignore[arg-type]
        await engine.close()
    assert prediction.traits == ["birds_basement", "neutral"]
    case = TestCase(answer["text"], [ExpectedIntent("whats_on")], traits=["birds_basement"])  # type: ignore[arg-type]
    assert score_case(case, prediction).result is ResultType.TP
    wrong = TestCase(answer["text"], [ExpectedIntent("whats_on")], traits=["the_jazz_lab"])  # type: ignore[arg-type]
    assert score_case(wrong, prediction).result is ResultType.FP  # traits given, not this one


async def test_generic_http_engine_reads_traits_and_bot_by_path() -> None:
    answer = {"intent": {"name": "greet", "confidence": 0.9}, "tr": [{"n": "Issue"}], "b": "Bot A"}
    with VendorPeer(lambda _seen: (200, {}, answer)) as peer:
        engine = create_engine(
            "http",
            {"url": peer.url + "/parse", "traits": "tr[*].n", "bot": "b", SECRET_VALUES_KEY: []},
        )
        prediction = await engine.parse("hi", ParseContext())
        await engine.close()
    assert (prediction.traits, prediction.bot) == (["Issue"], "Bot A")


def _kore_answer(intent: str | None, kind: str, traits: list[str], **extra: Any) -> dict[str, Any]:
    winning = [{"intent": intent, "activityType": kind, "score": 90.0, **extra}] if intent else []
    return {
        "response": {
            "result": "successintent" if intent else "failintent",
            "traits": traits,
            "ml": {"possible": [{"activity": "Open Account", "score": 0.41}]},
            "fm": {"possible": [{"activity": "Pay Bill", "score": 512.0}]},
            "finalResolver": {
                "ranking": [{"intent": intent, "totalScore": 90.0}] if intent else [],
                "winningIntent": winning,
                "entities": [],
            },
        }
    }


KORE_SCRIPT = {
    "pay my bill": _kore_answer("Pay Bill", "dialog", [], state="published"),
    "open an account": _kore_answer("Pay Bill", "dialog", []),
    "how do I open an account": _kore_answer("How to Open Account?", "faq", []),
    "how are you doing today": _kore_answer("emohowzit", "smalltalk", []),
    "something is wrong in my statement": _kore_answer(None, "", ["Issue", "Account Statement"]),
    "need to check the multibot function": _kore_answer(
        "IVRnode", "dialog", [], botName="Check Bot"
    ),
}


async def test_kore_run_csv_report_traits_bot_scores_types_and_header(tmp_path: Path) -> None:
    suite = Suite(
        name="Kore traits",
        cases=[
            TestCase("pay my bill", [ExpectedIntent("Pay Bill")], id="c1"),
            TestCase("open an account", [ExpectedIntent("Open Account")], id="c2"),
            TestCase(
                "how do I open an account",
                [ExpectedIntent("How to Open Account?", IntentKind.FAQ)],
                id="c3",
            ),
            TestCase("how are you doing today", [ExpectedIntent("emohowzit")], id="c4"),
            TestCase("something is wrong in my statement", traits=["Account Statement"], id="c5"),
            TestCase("need to check the multibot function", UNIVERSAL, id="c6"),
        ],
    )

    def reply(seen: Seen) -> Any:
        from test_engines_kore import verify_jwt

        assert verify_jwt(seen) is None
        return 200, {}, KORE_SCRIPT[seen.json()["input"]]

    with kore_server({}) as peer:
        peer.answer = reply
        store = RunStore(tmp_path / "runs.sqlite3")
        resolved = Resolved(make_kore(peer.url))
        resolved.profile_public = {
            "type": "kore",
            "language": "en",
            "thresholds": {
                "ml": {"minThreshold": 0.3, "isActive": True},
                "faq": {"minThreshold": 80, "maxThreshold": 95},
            },
        }
        record = await run_suite(
            suite, resolved, store, options=RunOptions(concurrency=1), stage="published"
        )
    rows = store.load_results(record.id)
    by = {case.id: result for case, _p, result in rows}
    # hand-written: c1 TP, c2 FP (Pay Bill for Open Account), c3 TP, c4 TP, c5 TP (traits
    # over and above), c6 FP (IVRnode from Check Bot, paired with XOP211)
    assert {k: r.result.value for k, r in by.items()} == {
        "c1": "TP", "c2": "FP", "c3": "TP", "c4": "TP", "c5": "TP", "c6": "FP",
    }  # fmt: skip
    out = tmp_path / "report.csv"
    write_report("csv", out, RunMeta.from_record(store.get_run(record.id)), rows)
    table = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8")[1:])))
    blank = table.index([])
    header = table[:blank]
    pairs = {r[0]: r[1:] for r in header}
    assert pairs["Bot Language"] == ["en"]
    assert pairs["Run Type"] == ["published"]
    assert [r[:2] for r in header if r[0] in ("mode", "minThreshold", "maxThreshold")] == [
        ["mode", "ml"], ["minThreshold", "0.3"], ["mode", "faq"], ["minThreshold", "80"],
        ["maxThreshold", "95"],
    ]  # fmt: skip
    types = {r[0]: r[1:] for r in header[header.index(["Results per Intent Type"]) + 1 :]}
    # dialog: c1 TP, c6 FP (the kind the engine gave their intents, the cases name none); c2
    # expects Open Account, which the engine never matched: its type is unknown, so it is not
    # counted as the dialog intent it was taken for; faq: c3 (the suite's kind); small talk:
    # c4 (the engine's kind); trait: c5
    assert types["Dialog"][:5] == ["cases 2", "TP 50.00%", "TN 0.00%", "FP 50.00%", "FN 0.00%"]
    assert types["FAQ"][:2] == ["cases 1", "TP 100.00%"]
    assert types["Small Talk"][:2] == ["cases 1", "TP 100.00%"]
    assert types["Trait"][:2] == ["cases 1", "TP 100.00%"]
    columns = table[blank + 1]
    body = {r[0]: dict(zip(columns, r, strict=True)) for r in table[blank + 2 :] if r[0]}
    fp = body["open an account"]
    assert fp["Matched Intent"] == "Pay Bill"
    assert fp["Matched Intent's Score"] == "FM 512.0000"
    assert fp["Expected Intent's Score"] == "Open Account: ML 0.4100"
    assert body["pay my bill"]["Task State"] == "Published"
    assert body["something is wrong in my statement"]["Matched Intent"] == (
        "trait: Issue||Account Statement"
    )
    assert body["need to check the multibot function"]["Matched Intent"] == "IVRnode (Check Bot)"
    import json

    report = tmp_path / "report.json"
    write_report("json", report, RunMeta.from_record(store.get_run(record.id)), rows)
    results = {r["case_id"]: r for r in json.loads(report.read_text(encoding="utf-8"))["results"]}
    assert results["c5"]["traits"] == ["Issue", "Account Statement"]
    assert (results["c6"]["matched_bot"], results["c1"]["matched_bot"]) == ("Check Bot", None)


def test_small_talk_kind_from_the_engine_decides_the_fn_rule() -> None:
    """Seed 000: no Small Talk expected but the answer is Small Talk -> FN (not FP), known
    here from the engine's answer, the suite naming no kind."""
    nothing = TestCase("how are you doing today")
    talk = Prediction("emohowzit", 1.0, intent_kind=IntentKind.SMALL_TALK)
    assert score_case(nothing, talk).result is ResultType.FN
    assert score_case(nothing, Prediction("emohowzit", 1.0)).result is ResultType.FP
    dialog = TestCase("book", [ExpectedIntent("Book a ticket")])
    assert score_case(dialog, talk).result is ResultType.FP  # a dialog was expected


TRAIT_NLU = """version: "3.1"
nlu:
- intent: check_statement
  examples: |
    - show me my statement
    - I want to see my account statement
    - send me last month's statement
    - where can I find my statement
- intent: pay_bill
  examples: |
    - pay my electricity bill
    - I need to pay the phone bill
    - settle my water bill
    - pay the gas bill now
- intent: Issue
  metadata: {kind: trait}
  examples: |
    - something is wrong
    - there is a problem
    - this is broken
    - it does not work
    - I have an issue
- intent: Urgent
  metadata: {kind: trait}
  examples: |
    - right now
    - immediately
    - as soon as possible
    - urgently
"""


async def test_embedded_engine_learns_traits_marked_in_the_training_data(tmp_path: Path) -> None:
    from nlu_tui.coverage import Inventory, coverage
    from nlu_tui.formats.rasa_yaml import load_training_data

    nlu = tmp_path / "bot.nlu.yml"
    nlu.write_text(TRAIT_NLU, encoding="utf-8")
    engine = create_engine("embedded", {"nlu": str(nlu), "cache": False})
    await engine.open(None)
    wrong = await engine.parse("something is wrong with my statement", ParseContext())
    plain = await engine.parse("pay the phone bill", ParseContext())
    await engine.close()
    assert wrong.intent == "check_statement"  # traits are not intents
    assert "Issue" in wrong.traits and wrong.raw["traits"] == wrong.traits
    assert plain.intent == "pay_bill" and plain.traits == []
    assert all(s.name not in ("Issue", "Urgent") for s in wrong.ranking)
    case = TestCase("something is wrong with my statement", traits=["Issue"])
    assert score_case(case, wrong).result is ResultType.TP
    inventory = Inventory.from_training(load_training_data(nlu), nlu.name)
    assert inventory.intents == ["check_statement", "pay_bill"]
    assert inventory.traits == ["Issue", "Urgent"]
    report = coverage(Suite("s", cases=[case]), inventory)
    assert report.untested == ["check_statement", "pay_bill"] and report.traits_untested == [
        "Urgent"
    ]
