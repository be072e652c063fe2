"""nlu_tui.rundiff: pairing two runs by case id, change kinds, F1 deltas and gates."""

from __future__ import annotations

from pathlib import Path

import pytest

from nlu_tui.model import CaseResult, ExpectedIntent, Prediction, ResultType, TestCase
from nlu_tui.rundiff import (
    ChangeKind,
    IntentDelta,
    check_run_gates,
    classify_change,
    diff_runs,
    intent_f1_deltas,
)


def res(cid: str, kind: str, intent: str | None, conf: float | None = 0.9) -> CaseResult:
    return CaseResult(cid, ResultType(kind), intent, conf)


def test_classify_change_each_kind() -> None:
    assert classify_change(res("a", "TP", "x"), res("a", "FP", "y")) is ChangeKind.BROKE
    assert classify_change(res("a", "TN", None), res("a", "ERROR", None)) is ChangeKind.BROKE
    assert classify_change(res("a", "FN", None), res("a", "TP", "x")) is ChangeKind.FIXED
    assert classify_change(res("a", "FP", "y"), res("a", "FP", "z")) is ChangeKind.INTENT_CHANGED
    moved = classify_change(res("a", "TP", "x", 0.9), res("a", "TP", "x", 0.6), 0.3)
    assert moved is ChangeKind.CONFIDENCE_CHANGED
    assert classify_change(res("a", "TP", "x", 0.9), res("a", "TP", "x", 0.85), 0.1) is None
    assert classify_change(res("a", "TP", "x", None), res("a", "TP", "x", 0.1)) is None


def test_diff_runs_pairs_by_id_and_lists_added_and_removed() -> None:
    cases = [TestCase("u1", id="a"), TestCase("u2", id="b"), TestCase("u3", id="c")]
    before = [res("a", "TP", "x"), res("b", "FN", None), res("gone", "TP", "x")]
    after = [res("b", "TP", "y"), res("a", "FP", "z"), res("c", "TP", "x")]
    diff = diff_runs(before, after, cases=cases, f1_before={"x": 1.0}, f1_after={"x": 0.5})
    assert [(c.case_id, c.kind) for c in diff.changes] == [
        ("b", ChangeKind.FIXED),
        ("a", ChangeKind.BROKE),
    ]
    assert diff.changes[1].utterance == "u1"
    assert diff.only_after == ["c"]
    assert diff.only_before == ["gone"]
    assert diff.counts() == {
        "broke": 1,
        "fixed": 1,
        "intent_changed": 0,
        "confidence_changed": 0,
    }
    assert diff.intent_deltas == [IntentDelta("x", 1.0, 0.5)]
    assert diff.intent_deltas[0].delta == pytest.approx(-0.5)


def test_confidence_delta_and_negative_threshold() -> None:
    diff = diff_runs([res("a", "TP", "x", 0.9)], [res("a", "TP", "x", 0.5)], threshold=0.2)
    assert diff.confidence_changed[0].confidence_delta == pytest.approx(-0.4)
    with pytest.raises(ValueError):
        diff_runs([], [], threshold=-1)


def test_intent_f1_deltas_orders_biggest_drop_first() -> None:
    deltas = intent_f1_deltas({"a": 0.9, "b": 0.5, "gone": 1.0}, {"a": 0.95, "b": 0.1, "new": 0.7})
    assert [d.intent for d in deltas] == ["b", "a", "gone", "new"]
    assert deltas[2].delta is None and deltas[3].f1_before is None


def test_gates_use_the_cli_thresholds_file(tmp_path: Path) -> None:
    cases = [
        TestCase("a", intents=[ExpectedIntent("x")], id="1"),
        TestCase("b", intents=[ExpectedIntent("y")], id="2"),
    ]
    good = [Prediction(intent="x", confidence=0.9), Prediction(intent="y", confidence=0.9)]
    bad = [Prediction(intent="x", confidence=0.9), Prediction(intent="x", confidence=0.9)]
    path = tmp_path / "thresholds.yml"
    path.write_text(
        "thresholds:\n  - {type: intent, threshold: 0}\n"
        "  - {type: intent, threshold: 0.9, comparison: absolute}\n",
        encoding="utf-8",
    )
    same = check_run_gates(
        list(zip(cases, good, strict=False)), list(zip(cases, good, strict=False)), path
    )
    assert [g.passed for g in same] == [True, True]
    worse = check_run_gates(
        list(zip(cases, good, strict=False)), list(zip(cases, bad, strict=False)), path
    )
    assert [g.passed for g in worse] == [False, False]
    assert worse[0].baseline > worse[0].current
