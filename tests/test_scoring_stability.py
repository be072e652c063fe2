"""Stability figures of repeated runs, against values worked out by hand in each test (and the
standard library's population standard deviation for the confidence spread)."""

from __future__ import annotations

import statistics

import pytest

from nlu_tui.model import CaseResult, ExpectedIntent, ResultType, TestCase
from nlu_tui.scoring.stability import (
    case_stability,
    headline,
    stability_lines,
    stability_report,
)


def attempt(
    intent: str | None, conf: float | None, result: ResultType = ResultType.TP
) -> CaseResult:
    return CaseResult("c", result, intent, conf)


def error() -> CaseResult:
    return CaseResult("c", ResultType.ERROR, None, None, error="HTTP 500")


def case(cid: str, *intents: str) -> TestCase:
    return TestCase(utterance=f"say {cid}", intents=[ExpectedIntent(i) for i in intents], id=cid)


def test_agreement_majority_and_spread_by_hand() -> None:
    confs = [0.9, 0.4, 0.8, 0.35, 0.7]
    c = case_stability(
        "c",
        "greet",
        [
            attempt("greet", confs[0]),
            attempt("bye", confs[1], ResultType.FP),
            attempt("greet", confs[2]),
            attempt("bye", confs[3], ResultType.FP),
            attempt("greet", confs[4]),
        ],
    )
    assert (c.attempts, c.answered, c.errors, c.right) == (5, 5, 0, 3)
    assert c.answers == {"greet": 3, "bye": 2}
    assert c.majority == "greet" and c.agreement == pytest.approx(3 / 5)
    assert c.confidence_min == 0.35 and c.confidence_max == 0.9
    assert c.confidence_spread == pytest.approx(0.55)
    assert c.confidence_sd == pytest.approx(statistics.pstdev(confs))
    assert c.measured and c.flaky


def test_a_tie_goes_to_the_answer_given_first_and_errors_are_apart() -> None:
    c = case_stability(
        "c",
        "pay",
        [error(), attempt("bye", 0.5), attempt(None, 0.2, ResultType.FN), attempt("pay", 0.6),
         attempt(None, 0.1, ResultType.FN), attempt("bye", 0.5)],
    )  # fmt: skip
    # answers: bye 2, (no intent) 2, pay 1 over 5 answered; bye was given first
    assert c.answers == {"bye": 2, "(no intent)": 2, "pay": 1}
    assert (c.majority, c.agreement, c.errors, c.answered) == ("bye", 0.4, 1, 5)


def test_stable_unmeasured_and_unanswered_cases() -> None:
    same = case_stability("a", "greet", [attempt("greet", 0.9)] * 4)
    assert same.agreement == 1.0 and same.confidence_spread == 0.0 and not same.flaky
    one = case_stability("b", "greet", [attempt("greet", 0.9), error(), error()])
    assert one.agreement == 1.0 and not one.measured and not one.flaky
    none = case_stability("c", "greet", [error(), error()])
    assert none.agreement is None and none.majority is None and none.confidence_spread is None


def test_report_groups_by_expected_intent_and_overall() -> None:
    g1, g2, g3 = case("g1", "greet"), case("g2", "greet"), case("g3", "greet")
    b1, n1, u1 = case("b1", "bye"), case("n1"), case("u1", "bye")
    report = stability_report(
        [
            (g1, [attempt("greet", 0.9)] * 3),  # stable
            (g2, [attempt("greet", 0.9), attempt("bye", 0.8), attempt("greet", 0.9)]),  # 2/3
            (g3, [attempt("greet", 0.9)] * 3),  # stable
            (b1, [attempt("bye", 0.9), attempt("greet", 0.5), attempt("pay", 0.4)]),  # 1/3
            (n1, [attempt(None, 0.1, ResultType.TN)] * 3),  # stable, expects no intent
            (u1, [attempt("bye", 0.9), error(), error()]),  # one answer: not measured
        ],
        3,
    )
    by = {g.name: g for g in report.intents}
    assert [g.name for g in report.intents] == ["bye", "greet", "(no intent)"]
    assert (by["greet"].cases, by["greet"].measured, by["greet"].flaky) == (3, 3, 1)
    assert by["greet"].stability == pytest.approx(2 / 3)
    assert by["greet"].mean_agreement == pytest.approx((1 + 2 / 3 + 1) / 3)
    assert (by["bye"].cases, by["bye"].measured, by["bye"].flaky) == (2, 1, 1)
    assert by["bye"].stability == 0.0 and by["bye"].mean_agreement == pytest.approx(1 / 3)
    assert by["(no intent)"].stability == 1.0
    o = report.overall
    assert (o.cases, o.measured, o.flaky) == (6, 5, 2)
    assert o.stability == pytest.approx(3 / 5)
    assert o.mean_agreement == pytest.approx((1 + 2 / 3 + 1 + 1 / 3 + 1) / 5)
    assert [c.case_id for c in report.flaky] == ["g2", "b1"]
    data = report.as_dict(quarantined=True)
    assert data["flaky"] == ["g2", "b1"] and data["quarantined"] is True
    assert len(data["cases"]) == 6 and "cases" not in report.headline_dict()
    assert headline(report) == (
        "stability 60.0% over 3 attempts: 2 flaky of 6 cases (1 with fewer than 2 answers)"
    )


def test_text_lines_list_flaky_cases_inert() -> None:
    hostile = case("x\x1b[2J", "greet")
    report = stability_report(
        [(hostile, [attempt("greet", 0.9), attempt("b\x1b]0;t\x07ye", 0.4)])], 2
    )
    lines = stability_lines(report, {hostile.id: "hi \x1b[31m"})
    text = "\n".join(lines)
    assert "\x1b" not in text and "\x07" not in text
    assert "flaky cases:" in text and "greet×1" in text
    assert "agreement 50.0%, confidence spread 0.500" in text
