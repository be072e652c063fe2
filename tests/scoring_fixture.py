"""The hand-checked Kore.ai fixture shared by the scoring and report tests.

One case per Kore.ai Batch Testing rule, each with the result type worked out by hand from the
docs (metric-semantics.md §1.3). ``scored()`` scores them with the suite's Small Talk names.
"""

from __future__ import annotations

from nlu_tui.model import (
    CaseResult,
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    IntentScore,
    PredictedEntity,
    Prediction,
    ResultType,
    Suite,
    TestCase,
)
from nlu_tui.scoring.case import ScoringOptions, score_case

I = ExpectedIntent  # noqa: E741
ST = IntentKind.SMALL_TALK
BILL = [I("pay_bill"), I("setup_auto_pay"), I("transfer_funds")]


def fixture() -> list[tuple[TestCase, Prediction, ResultType]]:
    """(case, prediction, the result type worked out by hand from the Kore.ai docs)."""
    rows: list[tuple[TestCase, Prediction, ResultType]] = [
        # 1-2 multi-intent: any of the (up to three) acceptable intents is a TP
        (TestCase("pay my bill", intents=BILL), Prediction("setup_auto_pay", 0.8), ResultType.TP),
        (
            TestCase("pay it", intents=BILL),
            Prediction(
                "greet", 0.6, ranking=[IntentScore("greet", 0.6), IntentScore("pay_bill", 0.3)]
            ),
            ResultType.FP,
        ),
        # 3-4 parent path: the engine names the intent under its parents
        (
            TestCase("send it", intents=[I("transfer")], parent_intents=["check_balance"]),
            Prediction("check_balance >> transfer", 0.9),
            ResultType.TP,
        ),
        (
            TestCase("send that", intents=[I("transfer")], parent_intents=["check_balance"]),
            Prediction("greet >> transfer", 0.9),
            ResultType.FP,
        ),
        # 5-7 traits: all expected traits present (extras fine) / none / some
        (
            TestCase("statement issue", traits=["Account Statement", "Issue"]),
            Prediction(None, traits=["Issue", "Account Statement", "Urgent"]),
            ResultType.TP,
        ),
        (TestCase("problem", traits=["Issue"]), Prediction(None, traits=[]), ResultType.FN),
        (
            TestCase("statement problem", traits=["Account Statement", "Issue"]),
            Prediction(None, traits=["Issue"]),
            ResultType.FP,
        ),
        # 8-10 small talk: same intent TP; lists differ FP; nothing expected but small talk FN
        (
            TestCase("how are you?", intents=[I("how are you", ST)]),
            Prediction("how are you", 1.0),
            ResultType.TP,
        ),
        (TestCase("how r u", intents=[I("how are you", ST)]), Prediction(None), ResultType.FP),
        (TestCase("hows it going", intents=[]), Prediction("how are you", 0.7), ResultType.FN),
        # 11 regex entity
        (
            TestCase(
                "send to Leonardo",
                intents=[I("transfer")],
                entities=[ExpectedEntity("payee", "Leo.*")],
            ),
            Prediction("transfer", 0.9, entities=[PredictedEntity("payee", "Leonardo")]),
            ResultType.TP,
        ),
        # 12 multi-item entity (order-free)
        (
            TestCase(
                "pizza and salad",
                intents=[I("order_food")],
                entities=[ExpectedEntity("items", "pizza||salad")],
            ),
            Prediction("order_food", 0.9, entities=[PredictedEntity("items", ["Salad", "pizza"])]),
            ResultType.TP,
        ),
        # 13 composite entity with a wrong component (the intent is still a TP)
        (
            TestCase(
                "Paris to Rome",
                intents=[I("book")],
                entities=[ExpectedEntity("trip", "from:Paris|to:Rome")],
            ),
            Prediction(
                "book", 0.9, entities=[PredictedEntity("trip", {"from": "Paris", "to": "Berlin"})]
            ),
            ResultType.TP,
        ),
        # 14 entity order given and not followed
        (
            TestCase(
                "10 dollars to Leo",
                intents=[I("transfer")],
                entities=[ExpectedEntity("amount", "10 USD"), ExpectedEntity("payee", "Leo")],
                entity_order=["payee", "amount"],
            ),
            Prediction(
                "transfer",
                0.9,
                entities=[
                    PredictedEntity("amount", [{"code": "USD", "amount": 10}], start=0),
                    PredictedEntity("payee", "leo", start=14),
                ],
            ),
            ResultType.TP,
        ),
        # 15-18 none-intent
        (TestCase("asdf", intents=[]), Prediction(None), ResultType.TN),
        (TestCase("qwer", intents=[]), Prediction("None", 0.3), ResultType.TN),
        (TestCase("zxcv", intents=[I("None")]), Prediction("greet", 0.4), ResultType.FP),
        (TestCase("hello?", intents=[]), Prediction("greet", 0.5), ResultType.FP),
        # 19-20 plain wrong intent (FP, not FN) and no match (FN)
        (
            TestCase('bye <&> "now"', intents=[I("greet")]),
            Prediction("bye", 0.7, ranking=[IntentScore("bye", 0.7), IntentScore("greet", 0.2)]),
            ResultType.FP,
        ),
        (TestCase("hi", intents=[I("greet")]), Prediction("", 0.2), ResultType.FN),
        # 21 engine error: out of the metrics
        (TestCase("boom", intents=[I("greet")]), Prediction(error="HTTP 500"), ResultType.ERROR),
    ]
    for i, (_case, pred, kind) in enumerate(rows, 1):
        pred.latency_ms = None if kind is ResultType.ERROR else 10.0 * i
    return rows


def scored() -> list[tuple[TestCase, Prediction, ResultType, CaseResult]]:
    rows = fixture()
    options = ScoringOptions().for_suite(Suite("kore", cases=[c for c, _p, _k in rows]))
    return [(c, p, k, score_case(c, p, options)) for c, p, k in rows]
