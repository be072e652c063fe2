"""Rasa-style ``intent_report.json`` and ``intent_errors.json``, with Rasa's own rules.

Reproduces ``rasa test nlu`` (Rasa 3.x ``rasa/nlu/test.py`` ``evaluate_intents`` and
``rasa/model_testing.py`` ``get_evaluation_metrics``; metric-semantics.md §2.1-2.3):

- examples whose target is empty are dropped (here: cases expecting no intent, and ERRORs);
  a missing prediction becomes ``""``;
- target = the matched intent when it was acceptable, else the first expected intent;
- report = scikit-learn's ``classification_report(targets, predictions, labels=set(targets))``
  (labels written sorted), completed with ``micro avg`` or ``accuracy`` as Rasa does;
- ``confused_with`` per label: among the 3 largest cells of its confusion-matrix row (labels =
  sorted union of targets and predictions), those off the diagonal with a count > 0. Ties are
  broken by numpy's ``argsort`` exactly as Rasa does (numpy is imported lazily, here only);
- ``intent_errors.json``: ``[{text, intent, intent_prediction: {name, confidence}}]`` for every
  example whose target differs from its prediction. Unlike Rasa, the file is written even when
  empty (``[]``), so a stale file from an earlier export never survives.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from nlu_tui.fileio import atomic_write_text
from nlu_tui.model import ResultType
from nlu_tui.reports.common import ResultRow, RunMeta, finite
from nlu_tui.reports.prepared import PreparedRun
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions, expected_intents
from nlu_tui.scoring.intent_report import Report, intent_labels, report_from_counts

REPORT_FILE = "intent_report.json"
ERRORS_FILE = "intent_errors.json"


def rasa_examples(
    rows: Sequence[ResultRow], options: ScoringOptions = DEFAULT_OPTIONS
) -> list[tuple[str, str, str, float | None]]:
    """(text, target, prediction, confidence) of the examples Rasa would evaluate."""
    out: list[tuple[str, str, str, float | None]] = []
    for case, _prediction, result in rows:
        if result.result is ResultType.ERROR or not expected_intents(case, options):
            continue
        target, _ = intent_labels(case, result, options)
        predicted = result.matched_intent or ""
        out.append((case.utterance, target, predicted, finite(result.confidence)))
    return out


def prepared_examples(
    prepared: PreparedRun, lo: int = 0, hi: int | None = None
) -> list[tuple[str, str, str, float | None]]:
    """:func:`rasa_examples` of rows ``lo``..``hi`` from shared figures: the target is the
    row's ``y_true`` (which :func:`intent_labels` already computed), the filter the row's
    first expected intent."""
    rows, results = prepared.rows, prepared.results
    hi = len(rows) if hi is None else hi
    error = ResultType.ERROR
    # y_true covers the scored rows only: skip the labels of those before ``lo``.
    skipped = sum(1 for r in results[:lo] if r.result is not error) if lo else 0
    labels = iter(prepared.y_true[skipped:])
    out: list[tuple[str, str, str, float | None]] = []
    for (case, _prediction, result), first in zip(
        rows[lo:hi], prepared.first_expected(lo, hi), strict=True
    ):
        if result.result is error:
            continue
        target = next(labels)
        if first is None:
            continue
        confidence = result.confidence
        out.append((case.utterance, target, result.matched_intent or "", finite(confidence)))
    return out


def rasa_intent_report(targets: Sequence[str], predictions: Sequence[str]) -> Report:
    """Rasa's ``intent_report.json`` content for these labels (``{}`` when there are none)."""
    return rasa_report_from_counts(Counter(zip(targets, predictions, strict=True)))


def rasa_report_from_counts(pairs: Mapping[tuple[str, str], int]) -> Report:
    """:func:`rasa_intent_report` from how often each (target, prediction) pair occurs (the
    counts of ranges of rows add up, so parts rendered apart give one exact report)."""
    pairs = {pair: count for pair, count in pairs.items() if count}
    labels = sorted({t for t, _p in pairs})
    if not labels:
        return {}
    report = report_from_counts(pairs, labels=labels)
    accuracy = sum(c for (t, p), c in pairs.items() if t == p) / sum(pairs.values())
    if "accuracy" in report and "micro avg" not in report:
        acc = report["accuracy"]
        report["micro avg"] = {
            "precision": acc,
            "recall": acc,
            "f1-score": acc,
            "support": report["macro avg"]["support"],
        }
    elif "accuracy" not in report and "micro avg" in report:
        report["accuracy"] = accuracy
    _add_confused_with(report, pairs)
    return report


def _add_confused_with(report: Report, pairs: Mapping[tuple[str, str], int]) -> None:
    """Rasa's ``_add_confused_labels_to_report``, on the same numpy ``argsort`` (ties included)."""
    import numpy as np  # lazily: only exports need it

    all_labels = sorted({label for pair in pairs for label in pair})
    index = {label: i for i, label in enumerate(all_labels)}
    matrix = np.zeros((len(all_labels), len(all_labels)), dtype=np.int64)
    for (t, p), count in pairs.items():
        matrix[index[t], index[p]] = count
    order = np.argsort(matrix, axis=1)
    n_candidates = min(3, len(all_labels))
    for label in all_labels:
        if report.get(label):
            report[label]["confused_with"] = {}
    for i, label in enumerate(all_labels):
        for j in range(n_candidates):
            col = int(order[i, -(1 + j)])
            count = int(matrix[i, col])
            if all_labels[col] != label and count > 0:
                report[label]["confused_with"][all_labels[col]] = count


def rasa_intent_errors(
    examples: Sequence[tuple[str, str, str, float | None]],
) -> list[dict[str, Any]]:
    return [
        {"text": text, "intent": target, "intent_prediction": {"name": pred, "confidence": conf}}
        for text, target, pred, conf in examples
        if target != pred
    ]


def _json_number(value: float | None) -> str:
    if value is None:
        return "null"
    if type(value) is float:
        return float.__repr__(value)
    return json.dumps(value)


def _error_items(examples: Sequence[tuple[str, str, str, float | None]]) -> str:
    """The objects of ``intent_errors.json`` for ``examples``, joined by ``,\\n``."""
    from json.encoder import encode_basestring as quote  # C-accelerated when available

    return ",\n".join(
        [
            '  {\n    "text": '
            f'{quote(text)},\n    "intent": {quote(target)},\n    "intent_prediction": {{\n'
            f'      "name": {quote(pred)},\n      "confidence": {_json_number(conf)}\n'
            "    }\n  }"
            for text, target, pred, conf in examples
            if target != pred
        ]
    )


def _errors_document(items: Sequence[str]) -> str:
    present = [i for i in items if i]
    return "[\n" + ",\n".join(present) + "\n]" if present else "[]"


def intent_errors_json(
    examples: Sequence[tuple[str, str, str, float | None]],
) -> str:
    """``json.dumps(rasa_intent_errors(examples), indent=2, ensure_ascii=False)``, same bytes.

    With ``indent`` the standard library falls back to its pure-Python encoder; the objects
    here always have the same shape, so the text is assembled around C-escaped strings.
    """
    return _errors_document([_error_items(examples)])


RasaPart = tuple[str, Counter[tuple[str, str]]]
"""(error objects, how often each (target, prediction) pair occurs) of a range of rows."""


def rasa_rows(prepared: PreparedRun, meta: RunMeta, lo: int, hi: int) -> RasaPart:
    """What rows ``lo``..``hi`` add to the two files, for :func:`write_rasa_parts`."""
    examples = prepared_examples(prepared, lo, hi)
    return _error_items(examples), Counter((e[1], e[2]) for e in examples)


def write_rasa_parts(
    path: Path, prepared: PreparedRun, meta: RunMeta, parts: Sequence[RasaPart]
) -> list[Path]:
    """Write ``intent_report.json`` and ``intent_errors.json`` into the directory ``path``."""
    directory = Path(path)
    pairs: Counter[tuple[str, str]] = Counter()
    for _items, counts in parts:
        pairs.update(counts)
    report = rasa_report_from_counts(pairs)
    report_path = directory / REPORT_FILE
    errors_path = directory / ERRORS_FILE
    # Rasa writes these with an indent of 2 (rasa.shared.utils.io.dump_obj_as_json_to_file).
    atomic_write_text(report_path, json.dumps(report, indent=2, ensure_ascii=False))
    atomic_write_text(errors_path, _errors_document([items for items, _counts in parts]))
    return [report_path, errors_path]
