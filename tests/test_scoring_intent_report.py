"""Our pure-Python classification report against scikit-learn (the oracle), and §2.9's vectors."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nlu_tui.model import CaseResult, ExpectedIntent, Prediction, ResultType, TestCase
from nlu_tui.scoring.case import ScoringOptions, score_case
from nlu_tui.scoring.confusion import confusion_table
from nlu_tui.scoring.intent_report import (
    build_intent_report,
    classification_report,
    intent_labels,
)

TOL = 1e-12


def sk_report(y_true: list[str], y_pred: list[str], labels: list[str] | None = None) -> Any:
    from sklearn.metrics import classification_report as sk

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sk(y_true, y_pred, labels=labels, output_dict=True, zero_division=0)


def assert_same(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    assert list(ours) == list(theirs)
    for key, value in theirs.items():
        if isinstance(value, dict):
            assert set(ours[key]) == set(value), key
            for metric, v in value.items():
                assert math.isclose(ours[key][metric], v, rel_tol=0, abs_tol=TOL), (key, metric)
        else:
            assert math.isclose(ours[key], value, rel_tol=0, abs_tol=TOL), key


# Labels: a few intents, the "None" label (no intent), and labels that may only be predicted.
TRUE_LABELS = st.sampled_from(["greet", "bye", "pay_bill", "None", "transfer"])
PRED_ONLY = st.sampled_from(["only_predicted", "other_only", "None", "greet"])


@st.composite
def label_pairs(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    n = draw(st.integers(min_value=1, max_value=60))
    y_true = draw(st.lists(TRUE_LABELS, min_size=n, max_size=n))
    y_pred = draw(st.lists(st.one_of(TRUE_LABELS, PRED_ONLY), min_size=n, max_size=n))
    if draw(st.booleans()):
        # a single-support label, predicted right or wrong
        y_true.append("single")
        y_pred.append(draw(st.sampled_from(["single", "greet", "None"])))
    return y_true, y_pred


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(label_pairs())
def test_report_equals_sklearn(pair: tuple[list[str], list[str]]) -> None:
    y_true, y_pred = pair
    assert_same(classification_report(y_true, y_pred), sk_report(y_true, y_pred))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(label_pairs(), st.data())
def test_report_with_labels_equals_sklearn(
    pair: tuple[list[str], list[str]], data: st.DataObject
) -> None:
    y_true, y_pred = pair
    universe = sorted(set(y_true) | set(y_pred) | {"never_seen"})
    labels = data.draw(st.lists(st.sampled_from(universe), min_size=1, unique=True))
    assert_same(classification_report(y_true, y_pred, labels), sk_report(y_true, y_pred, labels))


@settings(max_examples=100, deadline=None)
@given(label_pairs())
def test_per_label_counts_equal_multilabel_confusion_matrix(
    pair: tuple[list[str], list[str]],
) -> None:
    from sklearn.metrics import confusion_matrix, multilabel_confusion_matrix

    y_true, y_pred = pair
    # Feed the label pairs through real cases so the counts come from scored results.
    rows = []
    for i, (t, p) in enumerate(zip(y_true, y_pred, strict=True)):
        case = TestCase(f"u{i}", intents=[] if t == "None" else [ExpectedIntent(t)], id=f"c{i}")
        pred = Prediction(intent=None if p == "None" else p, confidence=0.5)
        rows.append((case, pred, score_case(case, pred)))
    report = build_intent_report(rows)
    assert report.y_true == y_true and report.y_pred == y_pred
    labels = report.labels
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mcm = multilabel_confusion_matrix(y_true, y_pred, labels=labels)
        dense = confusion_matrix(y_true, y_pred, labels=labels).tolist()
    for label, m in zip(labels, mcm, strict=True):
        tn, fp, fn, tp = (int(x) for x in m.ravel())
        s = report.stats[label]
        assert (s.tn, s.fp, s.fn, s.tp) == (tn, fp, fn, tp), label
    table_labels, matrix = confusion_table(rows).dense()
    assert table_labels == labels
    assert matrix == dense


def test_metric_semantics_2_9_vector() -> None:
    y = ["a", "a", "b", "b", "c"]
    p = ["a", "b", "b", "b", "d"]
    full = classification_report(y, p)
    assert round(full["macro avg"]["precision"], 4) == 0.4167
    assert full["macro avg"]["recall"] == pytest.approx(0.375)
    assert round(full["macro avg"]["f1-score"], 4) == 0.3667
    assert full["accuracy"] == pytest.approx(0.6)
    subset = classification_report(y, p, ["a", "b", "c"])
    assert round(subset["macro avg"]["precision"], 4) == 0.5556
    assert subset["macro avg"]["recall"] == pytest.approx(0.5)
    assert round(subset["macro avg"]["f1-score"], 4) == 0.4889
    assert subset["micro avg"]["precision"] == pytest.approx(0.75)
    assert subset["micro avg"]["recall"] == pytest.approx(0.6)
    assert "accuracy" not in subset
    # per-label [TN, FP, FN, TP]
    rows = []
    for i, (t, q) in enumerate(zip(y, p, strict=True)):
        case = TestCase(f"u{i}", intents=[ExpectedIntent(t)], id=f"c{i}")
        pred = Prediction(intent=q, confidence=0.9)
        rows.append((case, pred, score_case(case, pred)))
    stats = build_intent_report(rows).stats
    got = {k: [s.tn, s.fp, s.fn, s.tp] for k, s in stats.items()}
    assert got == {"a": [3, 0, 1, 1], "b": [2, 1, 0, 2], "c": [4, 0, 1, 0], "d": [4, 1, 0, 0]}
    assert stats["a"].confused_with == [("b", 1)]
    assert stats["c"].confused_with == [("d", 1)]


def test_labels_of_cases() -> None:
    opts = ScoringOptions()
    multi = TestCase("pay", intents=[ExpectedIntent("pay_bill"), ExpectedIntent("auto_pay")])
    hit = CaseResult(multi.id, ResultType.TP, "auto_pay", 0.8)
    assert intent_labels(multi, hit, opts) == ("auto_pay", "auto_pay")
    miss = CaseResult(multi.id, ResultType.FP, "greet", 0.8)
    assert intent_labels(multi, miss, opts) == ("pay_bill", "greet")
    none = CaseResult(multi.id, ResultType.FN, None, None)
    assert intent_labels(multi, none, opts) == ("pay_bill", "None")
    negative = TestCase("hmm", intents=[])
    assert intent_labels(negative, CaseResult(negative.id, ResultType.TN, None, None), opts) == (
        "None",
        "None",
    )
    fallback = ScoringOptions(negative_intents=("nlu_fallback",))
    assert (
        intent_labels(negative, CaseResult(negative.id, ResultType.TN, None, None), fallback)[0]
        == "nlu_fallback"
    )


def test_mean_confidences_and_errors_left_out() -> None:
    rows = []
    specs = [("a", "a", 0.9), ("a", "a", 0.7), ("b", "a", 0.4), ("b", "b", 0.6)]
    for i, (t, p, c) in enumerate(specs):
        case = TestCase(f"u{i}", intents=[ExpectedIntent(t)], id=f"c{i}")
        pred = Prediction(intent=p, confidence=c)
        rows.append((case, pred, score_case(case, pred)))
    err_case = TestCase("x", intents=[ExpectedIntent("a")], id="err")
    err = Prediction(error="timeout")
    rows.append((err_case, err, score_case(err_case, err)))
    report = build_intent_report(rows)
    assert report.stats["a"].mean_confidence_hits == pytest.approx(0.8)
    assert report.stats["a"].mean_confidence_misses == pytest.approx(0.4)
    assert report.stats["b"].mean_confidence_hits == pytest.approx(0.6)
    assert report.stats["b"].mean_confidence_misses is None
    assert report.report["a"]["support"] == 2  # the ERROR case is not counted
    table = confusion_table(rows)
    assert table.cases("b", "a") == ["c2"]
    assert [(c.expected, c.matched, c.count) for c in table.errors()] == [("b", "a", 1)]
    d = report.as_dict()
    assert d["b"]["confused_with"] == {"a": 1} and d["a"]["tp"] == 2
