"""The JSON report of a scored run: a versioned schema that CI scripts can rely on.

Schema version 1 (documented in the README, "JSON report"); a field is never renamed or
removed without a new ``schema_version``::

    {"schema_version": 1,
     "run": {"id", "suite", "engine", "version", "status", "reason",
             "started_at", "finished_at", "note", "warnings" (only when there are any)},
     "summary": {"cases", "errors", "tp", "tn", "fp", "fn", "precision", "recall", "f1",
                 "intent_success", "entity_success",
                 "entity_order_checked", "entity_order_ok",
                 "latency_p50_ms", "latency_p90_ms", "latency_p99_ms",
                 "raw_checks", "raw_checks_ok", "raw_check_success" (with raw checks only)},
     "intent_report": {<scikit-learn classification_report(output_dict=True, zero_division=0)>},
     "slices": {"tag" | "intent_kind" | "parent_intent": [{"name", "cases", "errors", "tp",
                "tn", "fp", "fn", "precision", "recall", "f1", "intent_success",
                "entity_success"}]},
     "results": [{"case_id", "utterance", "expected_intents", "parent_intents",
                  "matched_intent", "confidence", "ranking": [{"name", "confidence"}],
                  "result", "entities": [{"name", "expected", "matched", "ok"}],
                  "expected_entity_order", "actual_entity_order", "entity_order_ok",
                  "latency_ms", "error", "traits", "matched_bot",
                  "raw_checks": [{"check", "ok", "actual", "reason"}] (a case with checks)}]}

``raw_checks`` are the case's ``raw:`` checks (:mod:`nlu_tui.raw_checks`) with the value the
path found and, when one failed, why; ``run.warnings`` names each check whose path can never
match the engine's answer shape.

A repeated run (``run --repeat N``) adds, before ``results``, ``"stability": {"repeat",
"quarantined", "overall", "intents": [{"name", "cases", "measured", "flaky", "stability",
"mean_agreement"}], "flaky": [case ids], "cases": [{"case_id", "expected", "attempts",
"answered", "errors", "right", "answers", "majority", "agreement", "confidence_min",
"confidence_max", "confidence_spread", "confidence_sd", "flaky"}]}`` (definitions in
:mod:`nlu_tui.scoring.stability`); ``results`` holds each case's attempt #1.

``actual_entity_order`` is the order the engine returned the expected entities in;
``entity_order_ok`` whether it agrees with ``expected_entity_order`` (``null`` when the case
gives no order). ``metric_spec`` says which definitions the numbers follow (Kore.ai Batch
Testing) and the settings that shaped them (:mod:`nlu_tui.reports.metric_spec`). ``slices`` gives the summary figures per tag, per intent kind and per parent
intent path (``name`` is ``null`` for the cases without one; see :mod:`nlu_tui.scoring.slices`).
"""

from __future__ import annotations

import decimal
import numbers
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nlu_tui.fileio import Chunk, atomic_write_chunks
from nlu_tui.reports.common import ResultRow, RunMeta, finite, results_of
from nlu_tui.reports.metric_spec import kore_spec
from nlu_tui.reports.prepared import PreparedRun, prepare_run
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions
from nlu_tui.scoring.intent_report import classification_report, label_sequences
from nlu_tui.scoring.slices import slices, slices_dict
from nlu_tui.scoring.summary import Summary, summarize

SCHEMA_VERSION = 1


def summary_dict(summary: Summary) -> dict[str, Any]:
    """The ``summary`` object: counts as ints, ratios as fractions 0..1 (``None`` if undefined)."""
    return {
        "cases": summary.cases,
        "errors": summary.errors,
        "tp": summary.tp,
        "tn": summary.tn,
        "fp": summary.fp,
        "fn": summary.fn,
        "precision": summary.precision,
        "recall": summary.recall,
        "f1": summary.f1,
        "intent_success": summary.intent_success,
        "entity_success": summary.entity_success,
        "entity_order_checked": summary.order_checked,
        "entity_order_ok": summary.order_ok,
        "latency_p50_ms": summary.latency_p50,
        "latency_p90_ms": summary.latency_p90,
        "latency_p99_ms": summary.latency_p99,
        **(
            {
                "raw_checks": summary.raw_checks,
                "raw_checks_ok": summary.raw_checks_ok,
                "raw_check_success": summary.raw_check_success,
            }
            if summary.raw_checks
            else {}
        ),
    }


def result_dict(row: ResultRow) -> dict[str, Any]:
    """One object of ``results``."""
    case, prediction, result = row
    return {
        "case_id": result.case_id,
        "utterance": case.utterance,
        "expected_intents": [i.name for i in case.intents],
        "parent_intents": list(case.parent_intents),
        "matched_intent": result.matched_intent,
        "confidence": finite(result.confidence),
        "ranking": [
            {"name": s.name, "confidence": finite(s.confidence)}
            for s in (prediction.ranking if prediction is not None else [])
        ],
        "result": result.result.value,
        "entities": [
            {"name": e.name, "expected": e.expected, "matched": e.matched, "ok": e.ok}
            for e in result.entities
        ],
        "expected_entity_order": list(result.expected_entity_order),
        "actual_entity_order": list(result.actual_entity_order),
        "entity_order_ok": result.entity_order_ok,
        "latency_ms": finite(result.latency_ms),
        "error": result.error,
        "traits": list(prediction.traits) if prediction is not None else [],
        "matched_bot": result.matched_bot,
        **(
            {
                "raw_checks": [
                    {"check": c.check, "ok": c.ok, "actual": c.actual, "reason": c.reason}
                    for c in result.raw_checks
                ]
            }
            if result.raw_checks
            else {}
        ),
    }


def build_json_report(
    meta: RunMeta, rows: Sequence[ResultRow], options: ScoringOptions = DEFAULT_OPTIONS
) -> dict[str, Any]:
    """The report as a dict (``nlu-tui show --json`` can print it as it is)."""
    y_true, y_pred = label_sequences([(c, r) for c, _p, r in rows], options)
    return {
        "schema_version": SCHEMA_VERSION,
        "run": meta.run_dict(),
        "summary": summary_dict(summarize(results_of(rows))),
        "intent_report": classification_report(y_true, y_pred),
        "slices": slices_dict(slices(rows)),
        **({"stability": meta.stability} if meta.stability is not None else {}),
        "metric_spec": kore_spec(meta, options),
        "results": [result_dict(row) for row in rows],
    }


def _fast_results(rows: Sequence[ResultRow]) -> list[dict[str, Any]]:
    """:func:`result_dict` of every row, for orjson, as one comprehension (a call per row costs
    more than the dict it builds). Ranking and entities stay dataclasses (``IntentScore`` and
    ``EntityResult`` have exactly the schema's fields) and orjson writes them natively; NaN and
    infinities become ``null`` as :func:`finite` makes them."""
    return [
        {
            "case_id": result.case_id,
            "utterance": case.utterance,
            "expected_intents": [intents[0].name]
            if len(intents := case.intents) == 1
            else [i.name for i in intents],
            "parent_intents": case.parent_intents,
            "matched_intent": result.matched_intent,
            "confidence": result.confidence,
            "ranking": prediction.ranking if prediction is not None else [],
            "result": result.result,
            "entities": result.entities,
            "expected_entity_order": result.expected_entity_order,
            "actual_entity_order": result.actual_entity_order,
            "entity_order_ok": result.entity_order_ok,
            "latency_ms": result.latency_ms,
            "error": result.error,
            "traits": prediction.traits if prediction is not None else [],
            "matched_bot": result.matched_bot,
            **({"raw_checks": result.raw_checks} if result.raw_checks else {}),
        }
        for case, prediction, result in rows
    ]


def _dumps(value: Any) -> bytes:
    import orjson  # lazily: only exports need it

    return orjson.dumps(value, default=_default, option=orjson.OPT_SERIALIZE_NUMPY)


def json_rows(prepared: PreparedRun, meta: RunMeta, lo: int, hi: int) -> bytes:
    """The ``results`` array of rows ``lo``..``hi`` as compact JSON (``[...]``), for
    :func:`json_chunks` (orjson: about 7x faster than ``json.dumps`` on 100k rows)."""
    return _dumps(_fast_results(prepared.rows[lo:hi]))


def json_chunks(
    prepared: PreparedRun, meta: RunMeta, parts: Sequence[bytes], *, newline: bool = True
) -> list[Chunk]:
    """The whole report from :func:`json_rows` parts of consecutive ranges, as byte chunks.

    orjson writes no whitespace, so the arrays' insides joined by commas are exactly the
    bytes of one array of all the results.
    """
    head = _dumps(
        {
            "schema_version": SCHEMA_VERSION,
            "run": meta.run_dict(),
            "summary": summary_dict(prepared.summary),
            "intent_report": prepared.report,
            "slices": prepared.slices,
            **({"stability": meta.stability} if meta.stability is not None else {}),
            "metric_spec": kore_spec(meta, prepared.options),
            "results": None,  # "results" comes last: the parts go where this null is
        }
    )
    assert head.endswith(b"null}")
    chunks: list[Chunk] = [memoryview(head)[:-5], b"["]
    for part in parts:
        if len(part) > 2:  # not "[]"
            if len(chunks) > 2:
                chunks.append(b",")
            chunks.append(memoryview(part)[1:-1])
    chunks.append(b"]}\n" if newline else b"]}")
    return chunks


def render_json_bytes(
    meta: RunMeta,
    rows: Sequence[ResultRow],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    newline: bool = True,
    prepared: PreparedRun | None = None,
) -> bytes:
    """The report as UTF-8 JSON."""
    if prepared is None:
        prepared = prepare_run(rows, options)
    part = json_rows(prepared, meta, 0, len(prepared.rows))
    return b"".join(json_chunks(prepared, meta, [part], newline=newline))


def _default(value: Any) -> Any:
    """Values orjson does not know (an engine's Decimal, a numpy type): a number or a string."""
    if isinstance(value, numbers.Real | decimal.Decimal):
        return finite(float(value))
    return str(value)


def render_json_report(
    meta: RunMeta, rows: Sequence[ResultRow], options: ScoringOptions = DEFAULT_OPTIONS
) -> str:
    """The report as one line of JSON text, without a trailing newline."""
    return render_json_bytes(meta, rows, options, newline=False).decode("utf-8")


def write_json_parts(
    path: Path, prepared: PreparedRun, meta: RunMeta, parts: Sequence[bytes]
) -> list[Path]:
    """Write the report from :func:`json_rows` parts atomically; returns the files written."""
    atomic_write_chunks(Path(path), json_chunks(prepared, meta, parts))
    return [Path(path)]
