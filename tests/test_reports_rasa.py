"""Rasa-style intent_report.json / intent_errors.json against Rasa's own code as the oracle.

``rasa_oracle`` below is Rasa 3.6's pipeline copied from RasaHQ/rasa (``rasa/nlu/test.py``:
``remove_empty_intent_examples``, ``_calculate_report``, ``_add_confused_labels_to_report``,
``_get_intent_errors``; ``rasa/model_testing.py``: ``get_evaluation_metrics``,
``make_classification_report_complete``), run on scikit-learn and numpy.
"""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scoring_fixture import scored

from nlu_tui.model import ExpectedIntent, Prediction, TestCase
from nlu_tui.reports import RunMeta, write_report, write_reports
from nlu_tui.reports.rasa_report import RasaOptions, rasa_intent_report
from nlu_tui.scoring.case import score_case
from nlu_tui.scoring.numpy_argsort import argsort as numpy123_argsort

META = RunMeta(id="r", suite="s", engine="rasa")


def rasa_oracle(
    examples: list[tuple[str, str | None, str | None, float | None]],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    import numpy as np
    import sklearn.metrics
    import sklearn.utils.multiclass

    kept = []
    for text, target, pred, conf in examples:
        if pred is None:
            pred = ""
        if target != "" and target is not None:
            kept.append((text, target, pred, conf))
    if not kept:  # Rasa never evaluates this case (it needs 2 intents); we write {} and []
        return {}, []
    targets = [t for _x, t, _p, _c in kept]
    preds = [p for _x, _t, p, _c in kept]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        confusion = sklearn.metrics.confusion_matrix(targets, preds)
    labels = sklearn.utils.multiclass.unique_labels(targets, preds)
    report_labels = list(set(targets))
    if not report_labels:
        return {}, []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = sklearn.metrics.classification_report(
            targets, preds, labels=report_labels, output_dict=True
        )
    accuracy = sklearn.metrics.accuracy_score(targets, preds)
    report = copy.deepcopy(report)
    if "accuracy" in report and "micro avg" not in report:
        acc = report["accuracy"]
        support = report["macro avg"]["support"]
        report["micro avg"] = {"precision": acc, "recall": acc, "f1-score": acc, "support": support}
    elif "accuracy" not in report and "micro avg" in report:
        report["accuracy"] = accuracy
    # Rasa 3.6 runs on numpy 1.23, whose argsort orders ties unlike numpy 2 (installed here):
    # its algorithm, checked against argsorts recorded from numpy 1.23.5 in test_rasa_eval.py.
    indices = np.array([numpy123_argsort(row) for row in confusion.tolist()])
    n_candidates = min(3, len(labels))
    for label in labels:
        if report.get(label):
            report[label]["confused_with"] = {}
    for i, label in enumerate(labels):
        for j in range(n_candidates):
            label_idx = indices[i, -(1 + j)]
            false_pos_label = labels[label_idx]
            false_positives = int(confusion[i, label_idx])
            if false_pos_label != label and false_positives > 0:
                report[label]["confused_with"][false_pos_label] = false_positives
    errors = [
        {"text": x, "intent": t, "intent_prediction": {"name": p, "confidence": c}}
        for x, t, p, c in kept
        if t != p
    ]
    return report, errors


def assert_reports_equal(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    assert set(ours) == set(theirs)
    for key, value in theirs.items():
        if isinstance(value, dict):
            assert set(ours[key]) == set(value), key
            for m, v in value.items():
                if m == "confused_with":
                    assert ours[key][m] == v, key
                else:
                    assert abs(ours[key][m] - v) <= 1e-12, (key, m)
        else:
            assert abs(ours[key] - value) <= 1e-12, key


def _rows_from_labels(pairs: list[tuple[str | None, str | None]]) -> list[Any]:
    rows = []
    for i, (t, p) in enumerate(pairs):
        case = TestCase(f"utt {i}", intents=[ExpectedIntent(t)] if t else [], id=f"c{i}")
        pred = Prediction(intent=p, confidence=round(0.1 + i % 9 / 10, 2))
        rows.append((case, pred, score_case(case, pred)))
    return rows


# More than 16 labels, so numpy's argsort leaves its small-array path and tie order matters.
INTENTS = ["greet", "bye", "affirm", "deny", "mood_great", "mood_unhappy", "bot_challenge"] + [
    f"intent_{i:02d}" for i in range(15)
]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.sampled_from(INTENTS)),
            st.one_of(st.none(), st.sampled_from([*INTENTS, "only_predicted"])),
        ),
        min_size=1,
        max_size=120,
    )
)
def test_rasa_report_equals_rasa_code(
    tmp_path_factory: Any, pairs: list[tuple[str | None, str | None]]
) -> None:
    rows = _rows_from_labels(pairs)
    directory = tmp_path_factory.mktemp("rasa")
    written = write_reports({"rasa": directory}, META, rows, rasa=RasaOptions(plots=False))
    assert [p.name for p in written] == [
        "intent_report.json", "intent_errors.json", "metric_spec.json",
    ]  # fmt: skip
    ours = json.loads((directory / "intent_report.json").read_text())
    our_errors = json.loads((directory / "intent_errors.json").read_text())
    examples = [
        (c.utterance, t, p, pr.confidence) for (c, pr, _r), (t, p) in zip(rows, pairs, strict=True)
    ]
    theirs, their_errors = rasa_oracle(examples)
    assert_reports_equal(ours, theirs)
    assert our_errors == their_errors


def test_rasa_report_on_the_kore_fixture(tmp_path: Path) -> None:
    rows = [(c, p, r) for c, p, _k, r in scored()]
    write_report("rasa", tmp_path, META, rows)
    report = json.loads((tmp_path / "intent_report.json").read_text())
    errors = json.loads((tmp_path / "intent_errors.json").read_text())
    # dropped: trait-only, no-intent and ERROR cases; "None" expected counts as no intent
    assert report["macro avg"]["support"] == 12
    assert report["greet"]["confused_with"] == {"": 1, "bye": 1}
    assert report["pay_bill"]["confused_with"] == {"greet": 1}
    assert "" not in report  # the empty prediction is never a row (not a target)
    assert {e["text"] for e in errors} == {
        "pay it", "send that", "how r u", 'bye <&> "now"', "hi",
    }  # fmt: skip
    hi = next(e for e in errors if e["text"] == "hi")
    assert hi == {
        "text": "hi",
        "intent": "greet",
        "intent_prediction": {"name": "", "confidence": 0.2},
    }


def test_rasa_report_without_targets(tmp_path: Path) -> None:
    rows = _rows_from_labels([(None, "greet")])
    write_report("rasa", tmp_path, META, rows)
    assert json.loads((tmp_path / "intent_report.json").read_text()) == {}
    assert json.loads((tmp_path / "intent_errors.json").read_text()) == []
    assert rasa_intent_report([], []) == {}
