"""Per-fold entity figures of cross-validation, as Rasa's ``cross_validate`` logs them per
extractor (``_compute_entity_metrics`` → ``log_entity_results``): token accuracy, weighted F1
and weighted precision over the entity labels, ``no_entity`` left out of the labels.

Oracle: a small case worked out by hand, token by token."""

from __future__ import annotations

import asyncio

import pytest

from nlu_tui.evaluation.metrics import entity_metrics, summarise_entities
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    PredictedEntity,
    Prediction,
    TestCase,
)
from nlu_tui.store.runstore import RunStore
from tests.conftest import SAMPLES


def _case(cid: str, text: str, *entities: tuple[str, str]) -> TestCase:
    expected = []
    for name, value in entities:
        start = text.index(value)
        expected.append(ExpectedEntity(name, value, start=start, end=start + len(value)))
    return TestCase(id=cid, utterance=text, intents=[ExpectedIntent("x")], entities=expected)


def _said(text: str, *entities: tuple[str, str], extractor: str = "X") -> Prediction:
    found = []
    for name, value in entities:
        start = text.index(value)
        found.append(
            PredictedEntity(name, value, start=start, end=start + len(value), extractor=extractor)
        )
    return Prediction(intent="x", confidence=1.0, entities=found)


def test_entity_figures_by_hand() -> None:
    cases = [
        _case("1", "send 200 dollars to Leonardo", ("amount", "200"), ("person", "Leonardo")),
        _case("2", "pay bob", ("person", "bob")),
        _case("3", "hello there"),
    ]
    predictions = [
        _said("send 200 dollars to Leonardo", ("amount", "200")),  # Leonardo missed
        _said("pay bob", ("person", "bob")),
        _said("hello there", ("amount", "hello")),  # a false amount
    ]
    # tokens: 9, right 7 (Leonardo and hello wrong). amount: 1 right of 2 predicted, support 1;
    # person: 1 right of 1 predicted, support 2.
    # precision: amount 0.5, person 1.0 -> weighted (0.5*1 + 1*2)/3; F1: both 2/3.
    figures = entity_metrics(cases, predictions)
    assert set(figures) == {"X"}
    assert figures["X"]["Accuracy"] == pytest.approx(7 / 9)
    assert figures["X"]["Precision"] == pytest.approx(2.5 / 3)
    assert figures["X"]["F1-score"] == pytest.approx(2 / 3)


def test_no_expected_entity_no_figures_and_idle_extractor_left_out() -> None:
    cases = [_case("1", "hello there"), _case("2", "pay bob", ("person", "bob"))]
    assert entity_metrics(cases[:1], [_said("hello there", ("amount", "hello"))]) == {}
    # an extractor that finds nothing is not active (Rasa reads extractors off predictions)
    both = entity_metrics(
        cases, [_said("hello there"), _said("pay bob", ("person", "bob"), extractor="Y")]
    )
    assert set(both) == {"Y"} and both["Y"]["F1-score"] == pytest.approx(1.0)


def test_summarise_entities_over_the_folds_an_extractor_was_active_in() -> None:
    f = {"Accuracy": 0.5, "F1-score": 0.2, "Precision": 0.4}
    g = {"Accuracy": 1.0, "F1-score": 0.6, "Precision": 0.8}
    stats = summarise_entities([{"A": f, "B": f}, {"A": g}])
    assert stats["A"]["F1-score"] == pytest.approx((0.4, 0.2))
    assert stats["B"]["Accuracy"] == pytest.approx((0.5, 0.0))


def test_cross_validation_logs_entity_figures_per_fold() -> None:
    from nlu_tui.evaluation import service
    from nlu_tui.evaluation.text import fold_lines

    request = service.EvalRequest(
        nlu=SAMPLES / "banking_bot.nlu.yml",
        engine="embedded",
        mode=service.CROSS_VALIDATION,
        folds=3,
        seed=4,
    )
    plan = service.plan(request)
    store = RunStore()
    try:
        outcome = asyncio.run(service.evaluate(plan, store))
        (record,) = outcome.runs
        rows = store.load_results(record.id)
    finally:
        store.close()
    folds = record.summary["per_fold"]
    assert all("entities" in f for f in folds)
    extractors = set(record.summary["entities"])
    assert "embedded:annotated" in extractors
    for name in extractors:
        tested = [f["entities"]["test"] for f in folds]
        per_fold = [t[name]["F1-score"] for t in tested if name in t]
        mean = record.summary["entities"][name]["test"]["F1-score"]["mean"]
        assert mean == pytest.approx(sum(per_fold) / len(per_fold))
    # each fold's figures are those of its own test examples' stored predictions
    from nlu_tui.evaluation.split import stratified_folds

    labels = [plan.data.examples[i].intent for i in plan.kept]
    for k, (_train, test) in enumerate(stratified_folds(labels, 3, 4)):
        again = entity_metrics([rows[i][0] for i in test], [rows[i][1] for i in test])
        assert again == folds[k]["entities"]["test"]
    text = "\n".join(fold_lines(outcome))
    assert "Entity evaluation, embedded:annotated, mean ± std over 3 folds:" in text
