"""Kore.ai Batch Testing semantics on a hand-checked fixture: one case per rule, counts by hand."""

from __future__ import annotations

from fractions import Fraction

import pytest
from scoring_fixture import scored

from nlu_tui.model import Prediction, ResultType, TestCase
from nlu_tui.scoring.case import ScoringOptions, score_case
from nlu_tui.scoring.summary import LiveCounts, summarize


@pytest.mark.parametrize("index", range(21))
def test_each_rule(index: int) -> None:
    case, _pred, kind, result = scored()[index]
    assert result.result is kind, case.utterance


def test_entity_results_and_order() -> None:
    by_text = {c.utterance: r for c, _p, _k, r in scored()}
    assert [(e.matched, e.ok) for e in by_text["send to Leonardo"].entities] == [("Leonardo", True)]
    assert [(e.matched, e.ok) for e in by_text["pizza and salad"].entities] == [
        ("Salad||pizza", True)
    ]
    assert [(e.matched, e.ok) for e in by_text["Paris to Rome"].entities] == [
        ("Paris Berlin", False)
    ]
    r = by_text["10 dollars to Leo"]
    assert [(e.matched, e.ok) for e in r.entities] == [("10 USD", True), ("leo", True)]
    assert r.expected_entity_order == ["payee", "amount"]
    assert r.actual_entity_order == ["amount", "payee"]  # the engine's order, not the expected
    assert r.entity_order_ok is False
    assert by_text["boom"].entities == [] and by_text["boom"].error == "HTTP 500"


def test_small_talk_fn_needs_known_small_talk() -> None:
    case = TestCase("hows it going", intents=[])
    assert score_case(case, Prediction("how are you")).result is ResultType.FP
    opts = ScoringOptions(small_talk_intents=frozenset({"how are you"}))
    assert score_case(case, Prediction("how are you"), opts).result is ResultType.FN


def test_summary_counts_written_out() -> None:
    results = [r for _c, _p, _k, r in scored()]
    s = summarize(results)
    # TP: 1,3,5,8,11,12,13,14  FP: 2,4,7,9,17,18,19  FN: 6,10,20  TN: 15,16  ERROR: 21
    assert (s.cases, s.scored, s.errors) == (21, 20, 1)
    assert (s.tp, s.tn, s.fp, s.fn) == (8, 2, 7, 3)
    assert s.precision == pytest.approx(float(Fraction(8, 15)))
    assert s.recall == pytest.approx(float(Fraction(8, 11)))
    assert s.f1 == pytest.approx(16 / 26)  # 2TP / (2TP + FP + FN)
    assert s.intent_success == pytest.approx(10 / 20)
    # entities: regex ok, multi ok, composite wrong, amount ok, payee ok
    assert (s.entities, s.entities_correct, s.entity_success) == (5, 4, pytest.approx(0.8))
    assert (s.order_checked, s.order_ok) == (1, 0)
    # fully correct: 1,3,5,8,11,12 (13 has a wrong entity, 14 a wrong order) and 15,16
    assert (s.success, s.failure) == (8, 13)
    assert s.success_failure_ratio == pytest.approx(8 / 21)
    assert s.pct(ResultType.TP) == pytest.approx(40.0)
    # latencies 10..200 ms over the 20 scored cases, nearest rank
    assert (s.latency_p50, s.latency_p90, s.latency_p99) == (100.0, 180.0, 200.0)
    assert s.latency_max == 200.0 and s.latency_mean == pytest.approx(105.0)

    live = LiveCounts()
    for r in results:
        live.add(r)
    assert (live.done, live.tp, live.tn, live.fp, live.fn, live.errors) == (21, 8, 2, 7, 3, 1)
    assert live.f1 == pytest.approx(s.f1)
    assert live.precision == pytest.approx(s.precision) and live.recall == pytest.approx(s.recall)
    assert live.intent_success == pytest.approx(0.5)
    assert live.entity_success == pytest.approx(0.8)
    assert live.latency_mean == pytest.approx(105.0)


def test_zero_denominators() -> None:
    s = summarize([])
    assert (s.precision, s.recall, s.f1, s.intent_success) == (0.0, 0.0, 0.0, 0.0)
    assert s.entity_success is None and s.latency_p50 is None
    only_tn = summarize([score_case(TestCase("x"), Prediction(None))])
    assert (only_tn.tn, only_tn.precision, only_tn.f1, only_tn.intent_success) == (1, 0.0, 0.0, 1.0)
    assert LiveCounts().f1 == 0.0
