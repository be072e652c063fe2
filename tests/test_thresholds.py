"""Threshold analysis (nlu_tui.scoring.thresholds) against scikit-learn and hand-computed figures."""

from __future__ import annotations

import random

import pytest

from nlu_tui.model import (
    ExpectedIntent,
    IntentScore,
    Prediction,
    ResultType,
    TestCase,
)
from nlu_tui.scoring.case import score_case
from nlu_tui.scoring.thresholds import Row, analyze, calibration


def _row(
    expected: str | None,
    intent: str | None,
    confidence: float | None,
    ranking: list[tuple[str, float]] | None = None,
    *,
    error: bool = False,
    utterance: str = "u",
) -> Row:
    case = TestCase(utterance, intents=[ExpectedIntent(expected)] if expected else [])
    if ranking is None and intent is not None and confidence is not None:
        ranking = [(intent, confidence)]
    pred = Prediction(
        intent=intent,
        confidence=confidence,
        ranking=[IntentScore(n, c) for n, c in ranking or []],
        error="boom" if error else None,
    )
    return case, pred, score_case(case, pred)


def test_curve_equals_sklearn_precision_recall_curve() -> None:
    """In-scope utterances the engine ranks right (positives) and out-of-scope ones that expect
    no intent (negatives): kept = predicted positive, so the Kore.ai counts are sklearn's."""
    from sklearn.metrics import precision_recall_curve

    rng = random.Random(7)
    rows: list[Row] = []
    y_true: list[int] = []
    scores: list[float] = []
    for i in range(300):
        conf = round(rng.random(), 2)  # rounding makes ties, as real engines give
        if rng.random() < 0.6:
            rows.append(_row("book", "book", conf, utterance=f"in {i}"))
            y_true.append(1)
        else:
            rows.append(_row(None, "book", conf, utterance=f"out {i}"))
            y_true.append(0)
        scores.append(conf)
    precision, recall, thresholds = precision_recall_curve(y_true, scores, drop_intermediate=False)
    analysis = analyze(rows)
    assert [p.threshold for p in analysis.curve] == pytest.approx(list(thresholds))
    for k, point in enumerate(analysis.curve):
        assert point.precision == pytest.approx(precision[k]), point
        assert point.recall == pytest.approx(recall[k]), point
    # every utterance under the threshold is a fallback
    for point in analysis.curve:
        assert point.fallback == sum(1 for s in scores if s < (point.threshold or 0.0))


def test_calibration_hand_computed_fixture() -> None:
    """Four bins; expected values worked out by hand (see the comments)."""
    rows = [
        _row("a", "a", 0.1),  # bin 0 [0, .25): ok
        _row("a", "b", 0.2),  # bin 0: wrong  -> mean .15, accuracy .5, gap .35
        _row("a", "a", 0.3),  # bin 1 [.25, .5): ok -> mean .3, accuracy 1, gap .7
        _row("a", "b", 0.5),  # bin 2 [.5, .75) (an edge goes up): wrong
        _row("a", "a", 0.7),  # bin 2: ok -> mean .6, accuracy .5, gap .1
        _row("a", "a", 0.9),  # bin 3 [.75, 1]: ok
        _row("a", "a", 1.0),  # bin 3 (1.0 is in the last bin): ok
        _row("a", "b", 0.8),  # bin 3: wrong -> mean .9, accuracy 2/3, gap .2333...
        _row("a", "a", 1.7),  # above one (Kore.ai points): not calibrated
        _row("a", None, None),  # no intent, no ranking: no candidate
        _row("a", "a", 0.4, error=True),  # errors are left out of everything
    ]
    analysis = analyze(rows, bins=4)
    cal = analysis.calibration
    assert cal.cases == 8
    assert [b.count for b in cal.bins] == [2, 1, 2, 3]
    assert [b.correct for b in cal.bins] == [1, 1, 1, 2]
    assert [b.mean_confidence for b in cal.bins] == pytest.approx([0.15, 0.3, 0.6, 0.9])
    # ECE = 2/8·.35 + 1/8·.7 + 2/8·.1 + 3/8·(.9 − 2/3) = .0875 + .0875 + .025 + .0875
    assert cal.ece == pytest.approx(0.2875)
    assert cal.mce == pytest.approx(0.7)
    assert analysis.scored == 10 and analysis.errors == 1 and analysis.above_one == 1

    # At 0.5: kept .5 (FP) .7 .9 1.0 (TP) .8 (FP) 1.7 (TP); dropped .1 .2 .3 -> FN, plus the
    # case without an answer (FN).
    at = {p.threshold: p for p in analysis.grid}
    half = at[0.5]
    assert (half.tp, half.tn, half.fp, half.fn) == (4, 0, 2, 4)
    assert half.fallback == 4 and half.fallback_share == pytest.approx(0.4)
    assert half.precision == pytest.approx(4 / 6) and half.recall == pytest.approx(0.5)
    # At 0: every answer kept: TP .1 .3 .7 .9 1.0 1.7, FP .2 .5 .8, FN the unanswered case
    zero = at[0.0]
    assert (zero.tp, zero.fp, zero.fn, zero.fallback) == (6, 3, 1, 1)
    assert analysis.as_run == analysis.as_run.__class__(None, 6, 0, 3, 1, 1, 10)


def test_calibration_matches_sklearn_calibration_curve_off_the_edges() -> None:
    from sklearn.calibration import calibration_curve

    rng = random.Random(3)
    confs = [rng.random() * 0.999 for _ in range(500)]
    confs = [c for c in confs if abs(c * 10 - round(c * 10)) > 1e-6]
    ok = [rng.random() < c for c in confs]
    cal = calibration(confs, ok, 10)
    prob_true, prob_pred = calibration_curve(ok, confs, n_bins=10, strategy="uniform")
    filled = [b for b in cal.bins if b.count]
    assert [b.accuracy for b in filled] == pytest.approx(list(prob_true))
    assert [b.mean_confidence for b in filled] == pytest.approx(list(prob_pred))


def test_engine_fallback_is_restored_below_its_threshold() -> None:
    """No intent from the engine (its own threshold) but a ranking: a lower threshold keeps
    the top ranked intent."""
    row = _row("a", None, 0.25, ranking=[("b", 0.1), ("a", 0.25)])
    assert row[2].result is ResultType.FN
    analysis = analyze([row], run_threshold=0.3)
    at = {p.threshold: p for p in analysis.grid}
    assert (at[0.2].tp, at[0.2].fn, at[0.2].fallback) == (1, 0, 0)
    assert (at[0.3].tp, at[0.3].fn, at[0.3].fallback) == (0, 1, 1)
    assert analysis.best is not None and analysis.best.threshold == 0.0
    assert analysis.best.f1 == 1.0 and analysis.as_run.f1 == 0.0


def test_negative_expected_case_becomes_tn_in_fallback() -> None:
    rows = [_row(None, "a", 0.4), _row("a", "a", 0.9)]
    analysis = analyze(rows, target_precision=0.95)
    assert analysis.best is not None
    assert analysis.best.threshold == 0.9 and analysis.best.f1 == 1.0
    assert (analysis.best.tp, analysis.best.tn) == (1, 1)
    assert analysis.target is not None and analysis.target.threshold == 0.9
    # unreachable target
    assert analyze([_row(None, "a", 0.9)], target_precision=0.5).target is None


def test_best_threshold_is_lowest_on_a_tie() -> None:
    rows = [_row("a", "a", 0.6), _row("a", "a", 0.8)]
    best = analyze(rows).best
    assert best is not None and best.threshold == 0.0 and best.f1 == 1.0


def test_margins_and_near_ties() -> None:
    rows = [
        _row("a", "a", 0.50, ranking=[("a", 0.50), ("b", 0.48), ("c", 0.02)]),
        _row("a", "a", 0.90, ranking=[("b", 0.05), ("a", 0.90)]),  # unsorted ranking
        _row("a", "b", 0.40, ranking=[("b", 0.40), ("a", 0.39)], utterance="close"),
        _row("a", "a", 0.90),  # one ranked intent: no margin
    ]
    analysis = analyze(rows, tie_margin=0.05)
    assert analysis.with_margin == 3
    assert analysis.to_json()["margin"]["median"] == pytest.approx(0.02)  # of .02, .85, .01
    assert [(t.first, t.second) for t in analysis.near_ties] == [("b", "a"), ("a", "b")]
    assert analysis.near_ties[0].margin == pytest.approx(0.01)
    assert analysis.near_ties[0].utterance == "close" and analysis.near_ties[0].result == "FP"
    assert analyze(rows, tie_margin=0.015).near_ties[0].first == "b"
    assert len(analyze(rows, tie_margin=0.015).near_ties) == 1


def test_json_is_plain_data() -> None:
    import json

    data = analyze([_row("a", "a", 0.7), _row(None, "a", 0.2)], target_precision=0.9).to_json()
    text = json.dumps(data, allow_nan=False)
    back = json.loads(text)
    assert back["best_f1"]["threshold"] == 0.7 and back["calibration"]["bins"][0]["count"] == 0
    assert len(back["grid"]) == 21 and [p["threshold"] for p in back["curve"]] == [0.2, 0.7]
