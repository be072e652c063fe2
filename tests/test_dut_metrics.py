"""Command comparison and metrics against values computed by hand (written below), following
Rasa Pro 3.21's rules including its quirks."""

from __future__ import annotations

import pytest

from nlu_tui.dialogue_understanding.commands import CommandSet, parse_commands
from nlu_tui.dialogue_understanding.compare import (
    CaseOutcome,
    StepOutcome,
    are_command_lists_equal,
    calculate_command_metrics,
    f1_macro,
    f1_micro,
    f1_weighted,
)

V2 = CommandSet(version="v2")


def c(*lines: str) -> list:
    return [cmd for line in lines for cmd in parse_commands(line, V2)]


def step(expected: list, predicted: list) -> StepOutcome:
    return StepOutcome(expected, predicted)


def case(*steps: StepOutcome) -> CaseOutcome:
    return CaseOutcome(steps, all(s.passed for s in steps))


def fixture_cases() -> list[CaseOutcome]:
    a = case(
        step(c("start flow add_contact"), c("start flow add_contact")),
        step(c("set slot handle @barts"), c("set slot handle @barts")),
    )
    b = case(
        # start flow found (tp), set slot missing (fn): fails
        step(
            c("start flow transfer_money", "set slot recipient Tre"), c("start flow transfer_money")
        ),
        # bare clarify expected: passes, tp; but the predicted one with options is also an fp
        step(c("disambiguate flows"), c("disambiguate flows add_contact remove_contact")),
        # extra cancel flow: fp for cancel_flow (total 0 from this step); fails on length
        step(c("set slot amount 50"), c("set slot amount 50", "cancel flow")),
        step(c("cancel flow"), c("cancel flow")),
    )
    c_ = case(
        step(c("set slot name Bart"), c("set slot name bart")),  # values compare lower-cased
        step(c("start flow check_balance"), []),
    )
    return [a, b, c_]


def test_hand_computed_metrics() -> None:
    cases = fixture_cases()
    assert [x.passed for x in cases] == [True, False, False]
    metrics = calculate_command_metrics(cases)
    assert list(metrics) == ["start_flow", "set_slot", "clarify", "cancel_flow"]
    got = {k: (m.total_count, m.tp, m.fp, m.fn) for k, m in metrics.items()}
    assert got == {
        "start_flow": (3, 2, 0, 1),
        "set_slot": (4, 3, 0, 1),
        "clarify": (1, 1, 1, 0),
        "cancel_flow": (1, 1, 1, 0),
    }
    sf, ss, cl, cf = metrics.values()
    assert (sf.precision, sf.recall, sf.f1) == pytest.approx((1.0, 2 / 3, 0.8))
    assert (ss.precision, ss.recall, ss.f1) == pytest.approx((1.0, 0.75, 0.857142857))
    assert (cl.precision, cl.recall, cl.f1) == pytest.approx((0.5, 1.0, 0.666666667))
    assert (cf.precision, cf.recall, cf.f1) == pytest.approx((0.5, 1.0, 0.666666667))
    assert f1_macro(metrics) == pytest.approx(0.747619048)
    assert f1_micro(metrics) == pytest.approx(0.777777778)
    assert f1_weighted(metrics) == pytest.approx(0.795767196)
    steps = [s.passed for x in cases for s in x.steps]
    assert (sum(steps), len(steps) - sum(steps)) == (5, 3)  # user-utterance accuracy 0.625


def test_passed_case_counts_every_expected_command_as_tp() -> None:
    # a passing step whose prediction has an extra duplicate-free quirk: [A, A] vs [A, B]
    expected = c("start flow a", "start flow a")
    predicted = c("start flow a", "cancel flow")
    assert are_command_lists_equal(expected, predicted)
    metrics = calculate_command_metrics([case(step(expected, predicted))])
    assert (metrics["start_flow"].tp, metrics["start_flow"].fp) == (2, 0)
    assert "cancel_flow" not in metrics  # never looked at: the case passed


def test_clarify_rule() -> None:
    bare, ab, ba, abc = (
        c("disambiguate flows")[0],
        c("disambiguate flows a b")[0],
        c("disambiguate flows b, a")[0],
        c("disambiguate flows a b c")[0],
    )
    assert are_command_lists_equal([bare], [abc])
    assert are_command_lists_equal([ab], [ba])
    assert not are_command_lists_equal([ab], [abc])
    assert not are_command_lists_equal([ab], [bare])


def test_empty_metrics_are_zero() -> None:
    assert f1_macro({}) == f1_micro({}) == f1_weighted({}) == 0.0
