"""Rasa-style ``intent_report.json`` and ``intent_errors.json``, with Rasa's own rules.

Reproduces ``rasa test nlu`` (Rasa 3.x ``rasa/nlu/test.py`` ``evaluate_intents`` and
``rasa/model_testing.py`` ``get_evaluation_metrics``; metric-semantics.md §2.1-2.3):

- duplicate examples are dropped as Rasa's reader drops them (same text, intent and entity
  annotations: :mod:`nlu_tui.scoring.rasa_reader`; the first is kept);
- examples whose target is empty are dropped (here: cases expecting no intent, and ERRORs);
  a missing prediction becomes ``""``;
- the fallback is undone (``undo_fallback_prediction``): when the engine's fallback replaced its
  answer (Rasa's ``nlu_fallback``, kept as ``Prediction.pre_fallback_intent``), the intent it
  replaced, with its confidence, is the prediction;
- target = the matched intent when it was acceptable, else the first expected intent;
- report = scikit-learn's ``classification_report(targets, predictions, labels=set(targets))``
  (labels written sorted), completed with ``micro avg`` or ``accuracy`` as Rasa does;
- ``confused_with`` per label: among the 3 largest cells of its confusion-matrix row (labels =
  sorted union of targets and predictions), those off the diagonal with a count > 0. Ties are
  broken as numpy 1.23's ``argsort`` breaks them, the numpy Rasa 3.6 runs on;
- ``intent_errors.json``: ``[{text, intent, intent_prediction: {name, confidence}}]`` for every
  example whose target differs from its prediction. Unlike Rasa, the file is written even when
  empty (``[]``), so a stale file from an earlier export never survives; ``intent_successes.json``
  (the examples predicted right, same shape) only when asked (``rasa test nlu --successes``), and
  no errors file when told not to (``--no-errors``);
- retrieval intents (``faq/ask_fees``): the intent target is ``faq``, as Rasa's reader splits
  it, and so is an engine's answer ``faq/ask_fees`` (Rasa's own classifier only ever answers
  ``faq``); ``response_selection_report.json`` and ``_errors.json`` score the whole name
  against the ``intent_response_key`` of Rasa's ``response_selector`` (when the test data has
  two or more), or against the engine's whole answer when it has no selector;
- ``metric_spec.json`` (ours, not Rasa's): the definitions and settings the folder follows;
- plots (unless ``--no-plot``): ``intent_confusion_matrix.png``, ``intent_histogram.png``,
  the same two for response selection and per extractor (a histogram only for CRF and DIET),
  from :mod:`nlu_tui.scoring.rasa_charts`, drawn by :mod:`nlu_tui.reports.rasa_plots`;
- entities: ``<Extractor>_report.json`` and ``<Extractor>_errors.json`` per extractor, with
  Rasa's token-tag scoring (:mod:`nlu_tui.scoring.rasa_entities`), when any case expects an
  entity and the engine named any.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlu_tui.fileio import atomic_write_text
from nlu_tui.model import ExpectedEntity, Prediction, ResultType, TestCase
from nlu_tui.reports.common import ResultRow, RunMeta, finite
from nlu_tui.reports.metric_spec import rasa_spec
from nlu_tui.reports.prepared import PreparedRun, prepare_run
from nlu_tui.reports.rasa_options import DEFAULT_RASA_OPTIONS as DEFAULT_RASA_OPTIONS
from nlu_tui.reports.rasa_options import RasaOptions as RasaOptions
from nlu_tui.scoring.case import (
    DEFAULT_OPTIONS,
    ScoringOptions,
    expected_intents,
)
from nlu_tui.scoring.intent_report import Report, report_from_counts
from nlu_tui.scoring.numpy_argsort import argsort
from nlu_tui.scoring.rasa_charts import (
    ConfusionChart,
    PairedHistogram,
    confusion_chart,
    paired_histogram,
    split_confidences,
)
from nlu_tui.scoring.rasa_entities import (
    NO_ENTITY,
    EntityExample,
    ExtractorEvaluation,
    evaluate_entities,
    evaluated_predictions,
    simple_tokens,
    target_dict,
)
from nlu_tui.scoring.rasa_examples import Example as Example
from nlu_tui.scoring.rasa_examples import rasa_examples as rasa_examples
from nlu_tui.scoring.rasa_examples import rasa_intent_histogram as rasa_intent_histogram
from nlu_tui.scoring.rasa_examples import response_key as response_key
from nlu_tui.scoring.rasa_examples import retrieval_intent as retrieval_intent
from nlu_tui.scoring.rasa_examples import undone_example, undone_fallback

REPORT_FILE = "intent_report.json"
ERRORS_FILE = "intent_errors.json"
SUCCESSES_FILE = "intent_successes.json"
SPEC_FILE = "metric_spec.json"
"""Ours, not Rasa's: which definitions the folder's numbers follow, and with which settings."""


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
    duplicates = prepared.rasa_duplicates
    options = prepared.options
    out: list[Example] = []
    for i, ((case, prediction, result), first) in enumerate(
        zip(rows[lo:hi], prepared.first_expected(lo, hi), strict=True), lo
    ):
        if result.result is error:
            continue
        target = next(labels)
        if first is None or i in duplicates:
            continue
        if prediction is not None and prediction.pre_fallback_intent is not None:
            undone = undone_fallback(prediction)
            assert undone is not None
            out.append(undone_example(case, result, first, undone, options))
            continue
        confidence = result.confidence
        target = retrieval_intent(target)
        predicted = retrieval_intent(result.matched_intent or "")
        out.append((case.utterance, target, predicted, finite(confidence)))
    return out


def rasa_intent_report(targets: Sequence[str], predictions: Sequence[str]) -> Report:
    """Rasa's ``intent_report.json`` content for these labels (``{}`` when there are none)."""
    return rasa_report_from_counts(Counter(zip(targets, predictions, strict=True)))


def rasa_report_from_counts(
    pairs: Mapping[tuple[str, str], int], exclude: str | None = None
) -> Report:
    """:func:`rasa_intent_report` from how often each (target, prediction) pair occurs (the
    counts of ranges of rows add up, so parts rendered apart give one exact report).

    ``exclude`` is Rasa's ``exclude_label`` (``no_entity`` for entities): not a row of the
    report nor a ``confused_with`` entry, but counted in ``accuracy``."""
    pairs = {pair: count for pair, count in pairs.items() if count}
    labels = sorted({t for t, _p in pairs} - {exclude})
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
    _add_confused_with(report, pairs, exclude)
    return report


def _add_confused_with(
    report: Report, pairs: Mapping[tuple[str, str], int], exclude: str | None = None
) -> None:
    """Rasa's ``_add_confused_labels_to_report``: the row's ``np.argsort`` exactly as the numpy
    Rasa 3.6 pins (1.23) orders ties (:mod:`nlu_tui.scoring.numpy_argsort`; numpy 2 differs)."""
    all_labels = sorted({label for pair in pairs for label in pair})
    index = {label: i for i, label in enumerate(all_labels)}
    matrix = [[0] * len(all_labels) for _ in all_labels]
    for (t, p), count in pairs.items():
        matrix[index[t]][index[p]] = count
    order = [argsort(row) for row in matrix]
    n_candidates = min(3, len(all_labels))
    for label in all_labels:
        if label != exclude and report.get(label):
            report[label]["confused_with"] = {}
    for i, label in enumerate(all_labels):
        if label == exclude:
            continue
        for j in range(n_candidates):
            col = order[i][-(1 + j)]
            count = matrix[i][col]
            if all_labels[col] not in (label, exclude) and count > 0:
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


def _error_items(
    examples: Sequence[tuple[str, str, str, float | None]], successes: bool = False
) -> str:
    """The objects of ``intent_errors.json`` for ``examples``, joined by ``,\\n`` (with
    ``successes``: those of ``intent_successes.json``, the examples predicted right)."""
    from json.encoder import encode_basestring as quote  # C-accelerated when available

    return ",\n".join(
        [
            '  {\n    "text": '
            f'{quote(text)},\n    "intent": {quote(target)},\n    "intent_prediction": {{\n'
            f'      "name": {quote(pred)},\n      "confidence": {_json_number(conf)}\n'
            "    }\n  }"
            for text, target, pred, conf in examples
            if (target == pred) is successes
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


@dataclass
class RasaPart:
    """What a range of rows adds to the files (it pickles: ranges render in other processes)."""

    errors: str
    """``intent_errors.json`` objects."""
    successes: str
    """``intent_successes.json`` objects."""
    pairs: Counter[tuple[str, str]]
    """How often each (intent target, prediction) pair occurs."""
    entities: list[EntityExample]
    """The rows' examples for the entity evaluation."""
    responses: list[Example]
    """The rows' examples for the response selection evaluation."""
    confidences: tuple[list[float | None], list[float | None]]
    """Intent confidences of the examples predicted right, and wrong (the histogram)."""


def _located(case: TestCase, entity: ExpectedEntity) -> tuple[int | None, int | None]:
    """An expected entity's span. A suite that gives only its text, or only its value (Kore.ai
    style), gets the span its export to Rasa YAML would give it, so that the Rasa reports read
    the entities an exported file would hold."""
    if entity.start is not None and entity.end is not None:
        return entity.start, entity.end
    if entity.text:
        found = case.utterance.find(entity.text)
        if found >= 0:
            return found, found + len(entity.text)
    from nlu_tui.formats.rasa_yaml import locate_entity

    span = locate_entity(case, entity)
    return (None, None) if span is None else span


def target_entities(case: TestCase) -> list[dict[str, Any]]:
    """The case's expected entities as Rasa's reader gives them to ``evaluate_entities``."""
    out = []
    for e in case.entities:
        start, end = _located(case, e)
        value = e.json_value if e.json_value is not None else e.value
        out.append(target_dict(e.name, start, end, value, e.role, e.group))
    return out


def _is_rasa_entity(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("entity"), str)
        and type(item.get("start")) is int
        and type(item.get("end")) is int
    )


def predicted_entities(prediction: Prediction) -> list[dict[str, Any]]:
    """The engine's entities as Rasa's answer has them: its own objects when the stored answer
    is Rasa's, else built from the prediction (entity, start, end, value, role, group,
    extractor, confidence_entity: the keys set)."""
    raw = prediction.raw
    if isinstance(raw, dict) and isinstance(raw.get("entities"), list):
        items = raw["entities"]
        if all(_is_rasa_entity(item) for item in items):
            return [dict(item) for item in items]
    out = []
    for e in prediction.entities:
        entity: dict[str, Any] = {
            "entity": e.name,
            "start": e.start,
            "end": e.end,
            "value": e.value,
        }
        for key, value in (
            ("role", e.role),
            ("group", e.group),
            ("extractor", e.extractor),
            ("confidence_entity", e.confidence),
        ):
            if value is not None:
                entity[key] = value
        out.append(entity)
    return out


def engine_tokens(prediction: Prediction, text: str) -> list[tuple[int, int]]:
    """The engine's tokens (Rasa's ``text_tokens``), else :func:`simple_tokens` of the text."""
    raw = prediction.raw
    if isinstance(raw, dict) and isinstance(raw.get("text_tokens"), list):
        tokens = raw["text_tokens"]
        if all(
            isinstance(t, list | tuple) and len(t) == 2 and all(type(x) is int for x in t)
            for t in tokens
        ):
            return [(int(t[0]), int(t[1])) for t in tokens]
    return simple_tokens(text)


def entity_examples(
    rows: Sequence[ResultRow], duplicates: frozenset[int] = frozenset(), lo: int = 0
) -> list[EntityExample]:
    """The examples of ``evaluate_entities``: every scored, non-duplicate row (row ``i`` of
    ``rows`` is row ``lo + i`` of the run), with or without intent."""
    out = []
    for i, (case, prediction, result) in enumerate(rows, lo):
        if i in duplicates or result.result is ResultType.ERROR or prediction is None:
            continue
        raw = prediction.raw
        text = raw["text"] if isinstance(raw, dict) and isinstance(raw.get("text"), str) else None
        text = case.utterance if text is None else text
        out.append(
            EntityExample(
                text=text,
                targets=target_entities(case),
                predictions=evaluated_predictions(predicted_entities(prediction)),
                tokens=engine_tokens(prediction, text),
            )
        )
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def response_examples(
    rows: Sequence[ResultRow],
    duplicates: frozenset[int] = frozenset(),
    lo: int = 0,
    options: ScoringOptions = DEFAULT_OPTIONS,
) -> list[Example]:
    """(text, ``intent_response_key`` target, predicted key, confidence) per scored row, as
    ``get_eval_data`` reads them from Rasa's ``response_selector``: the selector of the
    example's retrieval intent when the answer has one, else ``default``."""
    out: list[Example] = []
    for i, (case, prediction, result) in enumerate(rows, lo):
        if i in duplicates or result.result is ResultType.ERROR or prediction is None:
            continue
        expected = expected_intents(case, options)
        name = expected[0] if expected else ""
        intent_target = retrieval_intent(name)
        raw = _dict(prediction.raw)
        selector = _dict(raw.get("response_selector"))
        retrieval = selector.get("all_retrieval_intents")
        retrieval = retrieval if isinstance(retrieval, list) else []
        key = (
            intent_target if intent_target in retrieval and intent_target in selector else "default"
        )
        response = _dict(_dict(selector.get(key)).get("response"))
        predicted = response.get("intent_response_key")
        confidence = response.get("confidence")
        if "response_selector" not in raw and response_key(result.matched_intent):
            # an engine without Rasa's selector that answers the whole name (``faq/ask_fees``)
            predicted, confidence = result.matched_intent, result.confidence
        text = raw["text"] if isinstance(raw.get("text"), str) else case.utterance
        out.append(
            (
                text,
                response_key(name),
                predicted if isinstance(predicted, str) else "",
                confidence if isinstance(confidence, int | float) else None,
            )
        )
    return out


Plots = list[tuple[str, ConfusionChart | PairedHistogram]]
"""(file name, chart) of the images to draw."""


_UNPORTABLE = re.compile(r'[<>:"/\\|?*\x00-\x1f]')


def file_stem(extractor: str) -> str:
    """An extractor's name as the start of a file name on every system: Rasa's extractors
    (``CRFEntityExtractor``) keep theirs; ``embedded:regex`` becomes ``embedded_regex``, since a
    colon is not allowed in Windows file names nor in CI artifact uploads."""
    return _UNPORTABLE.sub("_", extractor) or "_"


def _add_plots(
    plots: Plots,
    prefix: str,
    pairs: Mapping[tuple[str, str], int],
    matrix_title: str,
    histogram: PairedHistogram | None,
) -> None:
    plots.append((f"{prefix}_confusion_matrix.png", confusion_chart(pairs, matrix_title)))
    if histogram is not None:  # Rasa warns and writes no histogram without data
        plots.append((f"{prefix}_histogram.png", histogram))


def _intent_plots(plots: Plots, parts: Sequence[RasaPart]) -> None:
    pairs: Counter[tuple[str, str]] = Counter()
    for part in parts:
        pairs.update(part.pairs)
    if not pairs:
        return
    right = [c for part in parts for c in part.confidences[0]]
    wrong = [c for part in parts for c in part.confidences[1]]
    histogram = paired_histogram(right, wrong, "Intent Prediction Confidence Distribution")
    _add_plots(plots, "intent", pairs, "Intent Confusion matrix", histogram)


def _response_plots(plots: Plots, kept: Sequence[Example]) -> None:
    right, wrong = split_confidences(kept)
    histogram = paired_histogram(
        right, wrong, "Response Selection Prediction Confidence Distribution"
    )
    pairs = Counter((e[1], e[2]) for e in kept)
    _add_plots(plots, "response_selection", pairs, "Response Selection Confusion Matrix", histogram)


def _entity_plots(plots: Plots, evaluation: ExtractorEvaluation) -> None:
    histogram = None
    if evaluation.has_confidences:
        histogram = paired_histogram(
            evaluation.correct_confidences,
            evaluation.wrong_confidences,
            "Entity Prediction Confidence Distribution",
        )
    _add_plots(
        plots,
        file_stem(evaluation.extractor),
        evaluation.pairs,
        "Entity Confusion matrix",
        histogram,
    )


def _kept_responses(examples: Sequence[Example]) -> list[Example]:
    """``should_eval_response_selection`` (two retrieval sub-intents or more) and
    ``remove_empty_response_examples``: the examples scored, or none."""
    if len({target for _t, target, _p, _c in examples if target}) < 2:
        return []
    return [e for e in examples if e[1]]


def run_charts(meta: RunMeta, rows: Sequence[ResultRow]) -> Plots:
    """:func:`rasa_charts` of a whole run (what its Rasa export draws)."""
    prepared = prepare_run(rows)
    return rasa_charts([rasa_rows(prepared, meta, 0, len(rows))])


def rasa_charts(parts: Sequence[RasaPart]) -> Plots:
    """Every chart the Rasa folder has as an image, in the order written: intent, response
    selection, then each extractor's (for the terminal renderings)."""
    plots: Plots = []
    _intent_plots(plots, parts)
    kept = _kept_responses([r for part in parts for r in part.responses])
    if kept:
        _response_plots(plots, kept)
    examples = [example for part in parts for example in part.entities]
    if any(example.targets for example in examples):
        for evaluation in evaluate_entities(examples):
            _entity_plots(plots, evaluation)
    return plots


def response_files(
    directory: Path, examples: Sequence[Example], options: RasaOptions, plots: Plots | None = None
) -> list[Path]:
    """``response_selection_report.json`` and ``_errors.json`` (``_successes.json``), when the
    examples have two retrieval sub-intents or more (``should_eval_response_selection``)."""
    kept = _kept_responses(examples)
    if not kept:
        return []

    def listing(right: bool) -> list[dict[str, Any]]:
        return [
            {
                "text": text,
                "intent_response_key_target": target,
                "intent_response_key_prediction": {"name": pred, "confidence": conf},
            }
            for text, target, pred, conf in kept
            if (target == pred) is right
        ]

    pairs = Counter((e[1], e[2]) for e in kept)
    report = rasa_report_from_counts(pairs)
    written = [_dump(directory / "response_selection_report.json", report)]
    if plots is not None:
        _response_plots(plots, kept)
    if options.successes:
        written.append(_dump(directory / "response_selection_successes.json", listing(True)))
    if options.errors:
        written.append(_dump(directory / "response_selection_errors.json", listing(False)))
    return written


def rasa_rows(prepared: PreparedRun, meta: RunMeta, lo: int, hi: int) -> RasaPart:
    """What rows ``lo``..``hi`` add to the files, for :func:`write_rasa_parts`."""
    examples = prepared_examples(prepared, lo, hi)
    return RasaPart(
        _error_items(examples),
        _error_items(examples, successes=True),
        Counter((e[1], e[2]) for e in examples),
        entity_examples(prepared.rows[lo:hi], prepared.rasa_duplicates, lo),
        response_examples(prepared.rows[lo:hi], prepared.rasa_duplicates, lo, prepared.options),
        split_confidences(examples),
    )


def _dump(path: Path, obj: Any) -> Path:
    # Rasa writes its files with an indent of 2 (rasa.shared.utils.io.dump_obj_as_json_to_file).
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False))
    return path


def entity_files(
    directory: Path,
    examples: Sequence[EntityExample],
    options: RasaOptions,
    plots: Plots | None = None,
) -> list[Path]:
    """``<Extractor>_report.json``, ``_errors.json`` (and ``_successes.json``) per extractor,
    when any example expects an entity (``should_eval_entities``)."""
    if not any(example.targets for example in examples):
        return []
    written = []

    def listing(found: Sequence[EntityExample]) -> list[dict[str, Any]]:
        return [
            {"text": e.text, "entities": e.targets, "predicted_entities": e.predictions}
            for e in found
        ]

    for evaluation in evaluate_entities(examples):
        name = file_stem(evaluation.extractor)
        report = rasa_report_from_counts(evaluation.pairs, exclude=NO_ENTITY)
        written.append(_dump(directory / f"{name}_report.json", report))
        if plots is not None:
            _entity_plots(plots, evaluation)
        if options.successes:
            written.append(
                _dump(directory / f"{name}_successes.json", listing(evaluation.successes))
            )
        if options.errors:
            written.append(_dump(directory / f"{name}_errors.json", listing(evaluation.errors)))
    return written


def write_rasa_parts(
    path: Path,
    prepared: PreparedRun,
    meta: RunMeta,
    parts: Sequence[RasaPart],
    options: RasaOptions = DEFAULT_RASA_OPTIONS,
) -> list[Path]:
    """Write ``intent_report.json``, ``intent_errors.json`` (and with ``options``
    ``intent_successes.json``) and the entity files into the directory ``path``."""
    directory = Path(path)
    pairs: Counter[tuple[str, str]] = Counter()
    for part in parts:
        pairs.update(part.pairs)
    report = rasa_report_from_counts(pairs)
    written = [_dump(directory / REPORT_FILE, report)]
    if options.successes:
        successes_path = directory / SUCCESSES_FILE
        atomic_write_text(successes_path, _errors_document([p.successes for p in parts]))
        written.append(successes_path)
    if options.errors:
        errors_path = directory / ERRORS_FILE
        atomic_write_text(errors_path, _errors_document([p.errors for p in parts]))
        written.append(errors_path)
    examples = [example for part in parts for example in part.entities]
    plots: Plots | None = [] if options.plots else None
    if plots is not None:
        _intent_plots(plots, parts)
    responses = [r for part in parts for r in part.responses]
    written += response_files(directory, responses, options, plots)
    written += entity_files(directory, examples, options, plots)
    if plots:
        from nlu_tui.reports.rasa_plots import write_plots

        written += write_plots(directory, plots)
    written.append(_dump(directory / SPEC_FILE, rasa_spec(options, prepared.options)))
    return written
