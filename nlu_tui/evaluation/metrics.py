"""Per-fold intent figures as ``rasa test nlu`` logs them: accuracy, weighted F1, weighted
precision (``get_evaluation_metrics``), and their mean and standard deviation over folds
(``np.mean``/``np.std``, the population deviation, as Rasa's ``log_results``); the same three
per entity extractor (``_compute_entity_metrics``, logged by ``log_entity_results``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from nlu_tui.model import Prediction, TestCase

METRICS = ("Accuracy", "F1-score", "Precision")
"""The names Rasa's cross-validation gives its intent figures, in its order."""


def scored_rows(
    cases: Sequence[TestCase], predictions: Sequence[Prediction]
) -> list[tuple[TestCase, Prediction, object]]:
    from nlu_tui.scoring.case import score_case

    return [(c, p, score_case(c, p)) for c, p in zip(cases, predictions, strict=True)]


def intent_metrics(
    cases: Sequence[TestCase], predictions: Sequence[Prediction]
) -> dict[str, float]:
    """Accuracy, weighted F1 and weighted precision of the intents Rasa would evaluate
    (duplicates and examples without an intent dropped, the fallback undone)."""
    from sklearn import metrics

    from nlu_tui.reports.rasa_report import rasa_examples

    examples = rasa_examples(scored_rows(cases, predictions))  # type: ignore[arg-type]
    targets = [target for _text, target, _pred, _conf in examples]
    predicted = [pred for _text, _target, pred, _conf in examples]
    labels = sorted(set(targets))
    if not labels:
        return {name: 0.0 for name in METRICS}
    return {
        "Accuracy": float(metrics.accuracy_score(targets, predicted)),
        "F1-score": float(
            metrics.f1_score(targets, predicted, labels=labels, average="weighted", zero_division=0)
        ),
        "Precision": float(
            metrics.precision_score(
                targets, predicted, labels=labels, average="weighted", zero_division=0
            )
        ),
    }


def entity_metrics(
    cases: Sequence[TestCase], predictions: Sequence[Prediction]
) -> dict[str, dict[str, float]]:
    """Per active entity extractor, Rasa's per-fold entity figures: token accuracy, and weighted
    F1 and precision over the target entity labels (``no_entity`` left out of the labels but
    counted in the accuracy; no label at all gives 0.0 each, as Rasa's "Skip evaluation").
    Empty when no example expects an entity (``should_eval_entities``) or nothing extracts."""
    from sklearn import metrics

    from nlu_tui.reports.rasa_report import entity_examples
    from nlu_tui.scoring.rasa_entities import NO_ENTITY, evaluate_entities

    if not any(case.entities for case in cases):  # no target anywhere: skip the tokenising
        return {}
    examples = entity_examples(scored_rows(cases, predictions))  # type: ignore[arg-type]
    if not any(example.targets for example in examples):
        return {}
    out: dict[str, dict[str, float]] = {}
    for evaluation in evaluate_entities(examples):
        targets: list[str] = []
        predicted: list[str] = []
        for (target, label), count in sorted(evaluation.pairs.items()):
            targets += [target] * count
            predicted += [label] * count
        labels = sorted(set(targets) - {NO_ENTITY})
        if not labels:
            out[evaluation.extractor] = {name: 0.0 for name in METRICS}
            continue
        out[evaluation.extractor] = {
            "Accuracy": float(metrics.accuracy_score(targets, predicted)),
            "F1-score": float(
                metrics.f1_score(
                    targets, predicted, labels=labels, average="weighted", zero_division=0
                )
            ),
            "Precision": float(
                metrics.precision_score(
                    targets, predicted, labels=labels, average="weighted", zero_division=0
                )
            ),
        }
    return out


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and population standard deviation (``np.std``); (nan, nan) for no values."""
    if not values:
        return math.nan, math.nan
    mean = math.fsum(values) / len(values)
    var = math.fsum((v - mean) ** 2 for v in values) / len(values)
    return mean, math.sqrt(var)


def summarise(per_fold: Sequence[Mapping[str, float]]) -> dict[str, tuple[float, float]]:
    """Each metric's (mean, std) over the folds."""
    return {name: mean_std([fold[name] for fold in per_fold]) for name in METRICS}


def summarise_entities(
    per_fold: Sequence[Mapping[str, Mapping[str, float]]],
) -> dict[str, dict[str, tuple[float, float]]]:
    """Per extractor, each metric's (mean, std) over the folds it extracted in (Rasa appends
    an extractor's figures only for folds where it was active)."""
    names = sorted({name for fold in per_fold for name in fold})
    return {name: summarise([fold[name] for fold in per_fold if name in fold]) for name in names}
