"""Per-intent report: scikit-learn's ``classification_report`` in pure Python, plus per-intent extras.

:func:`classification_report` returns what
``sklearn.metrics.classification_report(y_true, y_pred, labels=labels, output_dict=True,
zero_division=0)`` returns (proved equal to 1e-12 by a property test with scikit-learn as the
oracle; see metric-semantics.md §2.9), without importing scikit-learn or numpy at run time:

- one row per label: the sorted union of ``y_true`` and ``y_pred``, or ``labels`` in the given
  order; precision = tp/predicted, recall = tp/true, F1 = 2tp/(true+predicted); 0.0 on 0/0;
- ``accuracy`` when every label seen is reported, else ``micro avg`` (pooled over ``labels``);
- ``macro avg`` (unweighted mean over the rows, labels only ever predicted included) and
  ``weighted avg`` (weighted by support). Supports are ints (scikit-learn 1.9 gives floats).

:func:`intent_labels` turns scored cases into the label sequences: over scored (non-ERROR)
cases, ``y_true`` is the matched intent when it was acceptable, else the first expected intent
(a traits-only case: ``trait: A||B``), else "no intent"; ``y_pred`` is the matched intent, or
"no intent". "No intent" is shown as :func:`none_label` (the first negative intent name,
``None`` by default), so it appears in the report as a label of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nlu_tui.model import CaseResult, Prediction, ResultType, TestCase
from nlu_tui.scoring.case import (
    DEFAULT_OPTIONS,
    ScoringOptions,
    expected_intents,
    intent_acceptable,
)

Report = dict[str, Any]

TRAIT_PREFIX = "trait: "
TRAIT_SEPARATOR = "||"


NO_INTENT_LABEL = "(no intent)"
"""How every screen and report names "no intent" (an answer without an intent, a case that
expects none, their slice): the one spelling."""


def none_label(options: ScoringOptions = DEFAULT_OPTIONS) -> str:
    """The label standing for "no intent" in reports (first negative intent, else ``<none>``)."""
    return options.negative_intents[0] if options.negative_intents else "<none>"


def shown_label(label: str | None, options: ScoringOptions = DEFAULT_OPTIONS) -> str:
    """A report label as screens show it: the "no intent" label (:func:`none_label`, or an
    empty one) as :data:`NO_INTENT_LABEL`, any other as it is."""
    if not label or label == none_label(options):
        return NO_INTENT_LABEL
    return label


def trait_label(traits: Sequence[str]) -> str:
    """Kore.ai's way of writing expected traits in the Expected Intent column."""
    return TRAIT_PREFIX + TRAIT_SEPARATOR.join(t.strip() for t in traits)


def intent_labels(
    case: TestCase, result: CaseResult, options: ScoringOptions = DEFAULT_OPTIONS
) -> tuple[str, str]:
    """(y_true, y_pred) of one scored case (see the module docstring)."""
    matched = result.matched_intent
    if not case.traits:
        # Shortcuts for the bulk of a run: without traits a TP has an acceptable matched
        # intent (both labels are it) and a TN expects and matched nothing.
        kind = result.result
        if kind is ResultType.TP and matched is not None:
            return matched, matched
        if kind is ResultType.TN:
            label = none_label(options)
            return label, label
    pred = matched if matched is not None else none_label(options)
    expected = expected_intents(case, options) if case.intents else []
    if expected:
        # Without traits a TP means the matched intent was acceptable and anything else means
        # it was not; only a case with both intents and traits needs the full check.
        if result.result is ResultType.TP or (
            case.traits and intent_acceptable(case, matched, options)
        ):
            assert matched is not None
            return matched, matched
        return expected[0], pred
    if case.traits:
        label = trait_label(case.traits)
        return (label, label) if result.result is ResultType.TP else (label, pred)
    return none_label(options), pred


def label_sequences(
    rows: Sequence[tuple[TestCase, CaseResult]], options: ScoringOptions = DEFAULT_OPTIONS
) -> tuple[list[str], list[str]]:
    """y_true and y_pred over the scored (non-ERROR) rows, in order."""
    y_true: list[str] = []
    y_pred: list[str] = []
    for case, result in rows:
        if result.result is ResultType.ERROR:
            continue
        t, p = intent_labels(case, result, options)
        y_true.append(t)
        y_pred.append(p)
    return y_true, y_pred


def _div(num: float, den: float) -> float:
    return num / den if den else 0.0


def _mean(values: Sequence[float], weights: Sequence[int] | None = None) -> float:
    if not values:
        return 0.0
    if weights is not None:
        total = sum(weights)
        if total:
            return sum(v * w for v, w in zip(values, weights, strict=True)) / total
    return sum(values) / len(values)


def classification_report(
    y_true: Sequence[str], y_pred: Sequence[str], labels: Sequence[str] | None = None
) -> Report:
    """scikit-learn's ``classification_report(..., output_dict=True, zero_division=0)``."""
    if len(y_true) != len(y_pred):
        raise ValueError("y_true and y_pred differ in length")
    return report_from_counts(Counter(zip(y_true, y_pred, strict=True)), labels)


def report_from_counts(
    pairs: Mapping[tuple[str, str], int], labels: Sequence[str] | None = None
) -> Report:
    """:func:`classification_report` from how often each (true, predicted) pair occurs.

    Everything the report needs is in these counts, and counts add up: rows labelled in
    several places (processes rendering ranges of a run) merge into one report exactly.
    """
    n = sum(pairs.values())
    if not n:
        return {}
    true_count: Counter[str] = Counter()
    pred_count: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    for (truth, guess), count in pairs.items():
        if count:
            true_count[truth] += count
            pred_count[guess] += count
            if truth == guess:
                hits[truth] += count
    seen = set(true_count) | set(pred_count)
    if labels is None:
        rows = sorted(seen)
        micro_is_accuracy = True
    else:
        rows = list(dict.fromkeys(labels))
        micro_is_accuracy = set(rows) >= seen
    report: Report = {}
    precisions: list[float] = []
    recalls: list[float] = []
    f1s: list[float] = []
    supports: list[int] = []
    for label in rows:
        tp, t, p = hits[label], true_count[label], pred_count[label]
        prec, rec, f1 = _div(tp, p), _div(tp, t), _div(2 * tp, t + p)
        report[label] = {"precision": prec, "recall": rec, "f1-score": f1, "support": t}
        precisions.append(prec)
        recalls.append(rec)
        f1s.append(f1)
        supports.append(t)
    total_support = sum(supports)
    if micro_is_accuracy:
        report["accuracy"] = sum(hits.values()) / n
    else:
        tp_sum = sum(hits[label] for label in rows)
        pred_sum = sum(pred_count[label] for label in rows)
        report["micro avg"] = {
            "precision": _div(tp_sum, pred_sum),
            "recall": _div(tp_sum, total_support),
            "f1-score": _div(2 * tp_sum, total_support + pred_sum),
            "support": total_support,
        }
    report["macro avg"] = {
        "precision": _mean(precisions),
        "recall": _mean(recalls),
        "f1-score": _mean(f1s),
        "support": total_support,
    }
    report["weighted avg"] = {
        "precision": _mean(precisions, supports),
        "recall": _mean(recalls, supports),
        "f1-score": _mean(f1s, supports),
        "support": total_support,
    }
    return report


@dataclass
class LabelStats:
    """One-vs-rest counts of a label, its top confusions and mean confidences.

    ``tp/tn/fp/fn`` are scikit-learn's ``multilabel_confusion_matrix`` cells (TN one-vs-rest).
    ``confused_with``: the labels predicted instead of this one, most frequent first.
    ``mean_confidence_hits``/``_misses``: mean engine confidence when this label was predicted
    and right / predicted and wrong (``None`` when there is no such prediction with a confidence).
    """

    label: str
    tp: int
    tn: int
    fp: int
    fn: int
    support: int
    confused_with: list[tuple[str, int]] = field(default_factory=list)
    mean_confidence_hits: float | None = None
    mean_confidence_misses: float | None = None


@dataclass
class IntentReport:
    """The scikit-learn-shaped report of a run, and per-label extras for the results view."""

    report: Report
    labels: list[str]
    stats: dict[str, LabelStats]
    y_true: list[str]
    y_pred: list[str]

    def as_dict(self, top: int = 3) -> dict[str, Any]:
        """The report, with ``tp``/``tn``/``fp``/``fn``, ``confused_with`` and mean confidences
        added to each label's row (the scikit-learn keys are left as they are)."""
        out: dict[str, Any] = {}
        for key, value in self.report.items():
            if key in self.stats:
                s = self.stats[key]
                value = {
                    **value,
                    "tp": s.tp,
                    "tn": s.tn,
                    "fp": s.fp,
                    "fn": s.fn,
                    "confused_with": dict(s.confused_with[:top]),
                    "mean_confidence_hits": s.mean_confidence_hits,
                    "mean_confidence_misses": s.mean_confidence_misses,
                }
            out[key] = value
        return out


def build_intent_report(
    rows: Sequence[tuple[TestCase, Prediction | None, CaseResult]],
    options: ScoringOptions = DEFAULT_OPTIONS,
) -> IntentReport:
    """Label the scored rows and compute the report and the per-label extras in one pass."""
    y_true: list[str] = []
    y_pred: list[str] = []
    confidences: list[float | None] = []
    none = none_label(options)
    tp_kind, tn_kind, error_kind = ResultType.TP, ResultType.TN, ResultType.ERROR
    for case, _prediction, result in rows:
        kind = result.result
        if kind is error_kind:
            continue
        matched = result.matched_intent
        # intent_labels' own shortcuts, inlined: they decide most rows of a run.
        if case.traits:
            t, p = intent_labels(case, result, options)
        elif kind is tp_kind and matched is not None:
            t = p = matched
        elif kind is tn_kind:
            t = p = none
        else:
            t, p = intent_labels(case, result, options)
        y_true.append(t)
        y_pred.append(p)
        confidences.append(result.confidence)
    n = len(y_true)
    pairs: Counter[tuple[str, str]] = Counter(zip(y_true, y_pred, strict=True))
    report = report_from_counts(pairs)
    true_count: Counter[str] = Counter()
    pred_count: Counter[str] = Counter()
    for (t, p), count in pairs.items():
        true_count[t] += count
        pred_count[p] += count
    conf_sum: dict[tuple[str, bool], float] = {}
    conf_n: Counter[tuple[str, bool]] = Counter()
    for t, p, c in zip(y_true, y_pred, confidences, strict=True):
        if c is None:
            continue
        key = (p, t == p)
        conf_sum[key] = conf_sum.get(key, 0.0) + c
        conf_n[key] += 1
    confusions: dict[str, list[tuple[str, int]]] = {}
    for (t, p), count in pairs.items():
        if t != p:
            confusions.setdefault(t, []).append((p, count))
    labels = sorted(set(true_count) | set(pred_count))
    stats: dict[str, LabelStats] = {}
    for label in labels:
        tp = pairs[(label, label)]
        fp = pred_count[label] - tp
        fn = true_count[label] - tp
        hits_n, miss_n = conf_n[(label, True)], conf_n[(label, False)]
        stats[label] = LabelStats(
            label=label,
            tp=tp,
            tn=n - tp - fp - fn,
            fp=fp,
            fn=fn,
            support=true_count[label],
            confused_with=sorted(confusions.get(label, []), key=lambda x: (-x[1], x[0])),
            mean_confidence_hits=conf_sum[(label, True)] / hits_n if hits_n else None,
            mean_confidence_misses=conf_sum[(label, False)] / miss_n if miss_n else None,
        )
    return IntentReport(report=report, labels=labels, stats=stats, y_true=y_true, y_pred=y_pred)
