"""The examples ``rasa test nlu`` evaluates, from a scored run: (text, target, prediction,
confidence), with Rasa's reader's rules (duplicates dropped, retrieval intents split, fallback
undone), and the intent-confidence histogram drawn from them.

The Rasa report writer (:mod:`nlu_tui.reports.rasa_report`) writes them out; the views show the
histogram. Both take the numbers from here.
"""

from __future__ import annotations

from collections.abc import Sequence

from nlu_tui.model import CaseResult, Prediction, ResultType, TestCase
from nlu_tui.scoring.case import (
    DEFAULT_OPTIONS,
    ScoringOptions,
    expected_intents,
    intent_acceptable,
)
from nlu_tui.scoring.intent_report import intent_labels
from nlu_tui.scoring.rasa_charts import PairedHistogram, paired_histogram, split_confidences
from nlu_tui.scoring.rasa_reader import duplicate_rows
from nlu_tui.scoring.rows import ResultRow, finite

Example = tuple[str, str, str, float | None]
"""(text, target, prediction, confidence) of one example Rasa evaluates."""


def undone_fallback(prediction: Prediction | None) -> tuple[str, float | None] | None:
    """``undo_fallback_prediction``: the intent the engine's fallback replaced, if it did."""
    if prediction is None or prediction.pre_fallback_intent is None:
        return None
    return prediction.pre_fallback_intent, finite(prediction.pre_fallback_confidence)


def retrieval_intent(name: str) -> str:
    """The intent Rasa's reader gives an example named ``faq/ask_fees`` (``faq``; the whole name
    is its ``intent_response_key``, the target of the response selection report)."""
    head, sep, tail = name.partition("/")
    return head if sep and "/" not in tail else name


def response_key(name: str | None) -> str:
    """``intent_response_key`` of an expected intent: itself when it is a retrieval intent."""
    if not name:
        return ""
    return name if retrieval_intent(name) != name else ""


def undone_example(
    case: TestCase,
    result: CaseResult,
    first: str,
    undone: tuple[str, float | None],
    options: ScoringOptions,
) -> Example:
    name, confidence = undone
    target = name if intent_acceptable(case, name, options) else first
    return case.utterance, retrieval_intent(target), retrieval_intent(name), confidence


def rasa_examples(
    rows: Sequence[ResultRow], options: ScoringOptions = DEFAULT_OPTIONS
) -> list[Example]:
    """(text, target, prediction, confidence) of the examples Rasa would evaluate."""
    out: list[Example] = []
    duplicates = duplicate_rows(rows)
    for i, (case, prediction, result) in enumerate(rows):
        if i in duplicates or result.result is ResultType.ERROR:
            continue
        expected = expected_intents(case, options)
        if not expected:
            continue
        undone = undone_fallback(prediction)
        if undone is not None:
            out.append(undone_example(case, result, expected[0], undone, options))
            continue
        target, _ = intent_labels(case, result, options)
        predicted = retrieval_intent(result.matched_intent or "")
        out.append((case.utterance, retrieval_intent(target), predicted, finite(result.confidence)))
    return out


def rasa_intent_histogram(rows: Sequence[ResultRow]) -> PairedHistogram | None:
    """The numbers of Rasa's ``intent_histogram.png`` (its bins, fallback undone): what the Rasa
    report draws and the workbench's Results pane shows, computed here once for both."""
    right, wrong = split_confidences(rasa_examples(rows))
    return paired_histogram(right, wrong, "Intent Prediction Confidence Distribution")
