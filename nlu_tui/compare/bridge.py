"""The bridge from our own runs to NLU.DevOps statistics, so one threshold file gates both.

Stable API (used by ``nlu-tui run --baseline/--thresholds`` and the TUI diff screen)::

    settings = load_settings(Path("thresholds.yml"))       # TestSettings(compare, thresholds)
    current = statistics_from_run(cases, predictions, settings)
    baseline = load_statistics(Path("baseline/statistics.json"))   # or None
    gates = check_gates(current, baseline, settings.thresholds)     # list[GateResult]
    failed = sum(not g.passed for g in gates)                       # the exit code

How a run becomes NLU.DevOps utterances:

- expected: the case as a generic utterance, exactly as ``nlu-tui export SUITE -f nludevops``
  writes it (``formats.nludevops.case_to_json``): the first intent as ``intent`` and, for a
  case with several acceptable intents, all of them in ``nluTui.intents``. Entities keep their
  ``matchText``/``matchIndex`` (from text or span) and value.
- actual: exactly what ``nlu-tui show RUN -f nludevops`` writes (:func:`result_json`): the
  prediction's intent, confidence as ``score``, entities with ``matchText`` from the engine's
  span (or text) and ``matchIndex`` counted in the utterance, ``entityValue`` as the engine
  returned it (structured values stay structured for subtree containment). Where the case
  gives an entity type only a value (no text or span), the engine's entities of that type carry
  no ``matchText``, so NLU.DevOps matches them by value. An engine error (or no prediction) is
  ``"intent": null`` with ``nluTui.error``.
- the pairs then go through ``compare.decisions.compare`` with the settings file's options, so
  ``nlu-tui compare`` on the two files counts what the gates count. By default (``nluTui:
  {ownFields: read}``) an acceptable intent the engine gave is the expected one and an engine
  error is left out (neither right nor wrong, as in the run's summary); with ``ownFields:
  ignore`` only the first intent is expected and an engine error is an answer without intent,
  as ``dotnet nlu compare`` reads the same files.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nlu_tui.compare.decisions import CompareSettings, Decision, compare
from nlu_tui.compare.outputs import statistics_json
from nlu_tui.compare.settings import TestSettings, load_settings
from nlu_tui.compare.statistics import Statistics, load_statistics
from nlu_tui.compare.thresholds import GateResult, Threshold, check_gates
from nlu_tui.compare.utterances import Utterance, parse_utterance
from nlu_tui.fileio import atomic_write_text
from nlu_tui.formats.luis_positions import luis_match
from nlu_tui.formats.nludevops import case_to_json
from nlu_tui.model import PredictedEntity, Prediction, TestCase

__all__ = [
    "GateResult",
    "Statistics",
    "TestSettings",
    "Threshold",
    "actual_json",
    "check_gates",
    "decisions_from_run",
    "expected_json",
    "load_settings",
    "load_statistics",
    "result_json",
    "save_statistics",
    "statistics_from_run",
]


def expected_json(case: TestCase) -> dict[str, Any]:
    """The case as the expected generic utterance: the item ``export -f nludevops`` writes."""
    return case_to_json(case)


def _entity_json(utterance: str, entity: PredictedEntity, *, by_value: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"entityType": entity.name}
    start, end = entity.start, entity.end
    if by_value:
        pass  # no matchText: NLU.DevOps then compares values, as for Lex or Dialogflow
    elif start is not None and end is not None and 0 <= start < end <= len(utterance):
        out["matchText"], out["matchIndex"] = luis_match(utterance, start, end - 1)
    elif entity.text is not None:
        out["matchText"] = entity.text
        out["matchIndex"] = 0
    if entity.value is not None:
        out["entityValue"] = entity.value
    if entity.confidence is not None:
        out["score"] = entity.confidence
    return out


def actual_json(case: TestCase, prediction: Prediction) -> dict[str, Any]:
    """An engine's answer as the actual generic utterance."""
    # An empty intent is "no intent" to every engine adapter; NLU.DevOps only knows null.
    obj: dict[str, Any] = {"text": case.utterance, "intent": prediction.intent or None}
    if prediction.entities:
        # A suite that gives an entity only a value (Kore.ai files, hand-written cases) is
        # compared by value: matching the engine's span against no text would never succeed.
        by_value = {e.name for e in case.entities if e.text is None and e.start is None}
        obj["entities"] = [
            _entity_json(case.utterance, e, by_value=e.name in by_value)
            for e in prediction.entities
        ]
    if prediction.confidence is not None:
        obj["score"] = prediction.confidence
    return obj


def result_json(case: TestCase, prediction: Prediction | None) -> dict[str, Any]:
    """One case's answer as ``show -f nludevops`` writes it: :func:`actual_json`, or for an
    engine error (or no prediction) ``"intent": null`` with the error under ``nluTui``
    (NLU.DevOps keeps unknown properties and reads it as "no intent")."""
    if prediction is not None and prediction.error is None:
        return actual_json(case, prediction)
    error = "no prediction" if prediction is None else prediction.error
    return {"text": case.utterance, "intent": None, "nluTui": {"error": error}}


def _pairs(
    cases: Sequence[TestCase], predictions: Sequence[Prediction | None]
) -> tuple[list[Utterance], list[Utterance]]:
    if len(cases) != len(predictions):
        raise ValueError(f"{len(cases)} cases but {len(predictions)} predictions")
    expected: list[Utterance] = []
    actual: list[Utterance] = []
    for i, (case, prediction) in enumerate(zip(cases, predictions, strict=True)):
        expected.append(parse_utterance(expected_json(case), index=i))
        actual.append(parse_utterance(result_json(case, prediction), index=i))
    return expected, actual


def decisions_from_run(
    cases: Sequence[TestCase],
    predictions: Sequence[Prediction | None],
    settings: TestSettings | CompareSettings | None = None,
) -> list[Decision]:
    """Every NLU.DevOps decision for a run (``utteranceId`` is the case id)."""
    compare_settings = settings.compare if isinstance(settings, TestSettings) else settings
    expected, actual = _pairs(cases, predictions)
    return compare(expected, actual, compare_settings or CompareSettings())


def statistics_from_run(
    cases: Sequence[TestCase],
    predictions: Sequence[Prediction | None],
    settings: TestSettings | CompareSettings | None = None,
) -> Statistics:
    """NLU.DevOps ``statistics.json`` counts for our cases and predictions (same order)."""
    return Statistics.from_decisions(decisions_from_run(cases, predictions, settings))


def save_statistics(stats: Statistics, path: Path) -> None:
    """Write ``statistics.json`` (usable as ``--baseline`` here and by NLU.DevOps)."""
    atomic_write_text(Path(path), statistics_json(stats))
