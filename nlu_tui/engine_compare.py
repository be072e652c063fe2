"""Engines side by side: one suite's runs on several engines, compared once, here.

``nlu-tui run SUITE --engine a --engine b`` runs the suite on each engine (one ordinary run
each, through the one run kernel) and links the runs as a comparison in the run store
(:mod:`nlu_tui.store.comparisons`). This module computes what a comparison shows, for every
face (the CLI table, ``show CMP -f json|csv|html``, the workbench's matrix):

- **per-intent F1 per engine**: the F1 of each intent label in the engine's scikit-learn-shaped
  intent report (:mod:`nlu_tui.scoring.intent_report`, the labels of ``show RUN -f json``);
  ``None`` where the label never occurs in that engine's run (neither expected nor predicted);
- the run's overall precision, recall and F1 (:func:`nlu_tui.scoring.summary.summarize`);
- **disagreements**: the cases of the suite that every run answered and where the engines'
  answers differ: the matched intent (or "no intent"), or ``ERROR`` when the engine could not
  answer. Cases a run did not reach (a canceled comparison) are left out;
- **latency p50 / p95** in ms, nearest rank (as every latency figure of nlu-tui), over the
  answers the engine gave (errors and answers from the answer cache left out);
- **cost**: the profile's ``price_per_request`` times the requests the engine answered or
  failed (answers from the answer cache cost nothing); ``None`` (shown ``-``) without a price.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nlu_tui.errors import InputError
from nlu_tui.model import ResultType

if TYPE_CHECKING:
    from nlu_tui.runservice import RunRequest
    from nlu_tui.store.comparisons import ComparisonRecord
    from nlu_tui.store.records import RunRecord
    from nlu_tui.store.runstore import RunStore, StoredResult

MAX_ENGINES = 8
"""At most this many engines side by side (a wider table is not readable)."""

ERROR_ANSWER = "ERROR"
"""A disagreement's answer when the engine could not answer the case."""

_AVERAGES = ("accuracy", "macro avg", "weighted avg", "micro avg")


@dataclass
class EngineColumn:
    """One engine's figures in a comparison."""

    run_id: str
    engine: str
    """The engine's name as the run stored it (a profile name, ``embedded:PATH``...)."""
    status: str
    cases: int
    errors: int
    precision: float
    recall: float
    f1: float
    intent_f1: dict[str, float]
    """F1 per intent label of this run's intent report."""
    latency_p50: float | None
    latency_p95: float | None
    requests: int
    """Answers (and errors) that came from the engine, not from the answer cache."""
    cached: int
    price_per_request: float | None
    cost: float | None
    label: str = ""
    """The column's heading: the engine's name, with the run id when two runs share it."""

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class Disagreement:
    """A case the engines answered differently."""

    case_id: str
    utterance: str
    expected: list[str]
    answers: list[str]
    """Each engine's answer, in the comparison's order (intent, "no intent" label, ERROR)."""
    results: list[str]
    """Each engine's verdict (TP, TN, FP, FN, ERROR)."""

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class EngineComparison:
    """Everything a comparison shows, computed once."""

    id: str | None
    suite_name: str
    engines: list[EngineColumn]
    intents: list[str]
    """Every intent label of any engine's report, sorted."""
    compared: int
    """Cases every run answered (the disagreements are among these)."""
    disagreements: list[Disagreement] = field(default_factory=list)
    missing_runs: list[str] = field(default_factory=list)
    """Runs the stored comparison names that the store no longer holds (deleted)."""

    def f1_of(self, intent: str) -> list[float | None]:
        """Each engine's F1 of ``intent`` (None: the label is not in that run)."""
        return [column.intent_f1.get(intent) for column in self.engines]

    def as_dict(self) -> dict[str, Any]:
        return {
            "comparison": self.id,
            "suite": self.suite_name,
            "engines": [column.as_dict() for column in self.engines],
            "intents": [
                {
                    "intent": intent,
                    "f1": dict(
                        zip([c.label for c in self.engines], self.f1_of(intent), strict=True)
                    ),
                }
                for intent in self.intents
            ],
            "compared_cases": self.compared,
            "disagreement_count": len(self.disagreements),
            "disagreements": [d.as_dict() for d in self.disagreements],
            "missing_runs": self.missing_runs,
        }


# --- checking a request -------------------------------------------------------------------------


def check_engines(engines: Sequence[str], request: RunRequest) -> list[str]:
    """The engine specs of a comparison, checked before anything is read or stored: each spec
    once, at most :data:`MAX_ENGINES`, and no option that needs one run (resume, rerun,
    shards, repeats, report files that each run would overwrite)."""
    if len(engines) > MAX_ENGINES:
        raise InputError(f"at most {MAX_ENGINES} engines side by side", field="--engine")
    seen: set[str] = set()
    for spec in engines:
        if spec in seen:
            raise InputError(f"--engine {spec} is given twice", field="--engine")
        seen.add(spec)
    if len(engines) < 2:
        return list(engines)
    single = [
        (request.resume, "--resume"),
        (request.rerun_failed, "--rerun-failed"),
        (request.shard, "--shard"),
        (request.run_id, "--run-id"),
        (request.finish, "--finish"),
        ((request.repeat or 1) > 1, "--repeat"),
        (request.quarantine_flaky, "--quarantine-flaky"),
    ]
    for given, flag in single:
        if given:
            raise InputError(
                f"{flag} goes with one engine; several --engine run a new comparison",
                field=flag,
            )
    if request.reports:
        flags = ", ".join(f"--{fmt}" for fmt in request.reports)
        raise InputError(
            f"{flags} would be written once per engine; with several engines export the "
            "comparison (nlu-tui show CMP -f json|csv|html) or each run (nlu-tui show RUN)",
            field=f"--{next(iter(request.reports))}",
        )
    return list(engines)


# --- computing ----------------------------------------------------------------------------------


def _answer(row: StoredResult, none: str) -> str:
    _case, _prediction, result = row
    if result.result is ResultType.ERROR:
        return ERROR_ANSWER
    return result.matched_intent if result.matched_intent is not None else none


def _nearest_rank(values: list[float], p: float) -> float | None:
    from nlu_tui.scoring.summary import nearest_rank

    return nearest_rank(sorted(values), p)


def engine_column(run: RunRecord, rows: Sequence[StoredResult]) -> EngineColumn:
    """One run's figures (see the module docstring for each definition)."""
    from nlu_tui.scoring.intent_report import classification_report, label_sequences
    from nlu_tui.scoring.summary import summarize

    summary = summarize(r for _c, _p, r in rows)
    report = classification_report(*label_sequences([(c, r) for c, _p, r in rows]))
    intent_f1 = {
        label: float(values["f1-score"])
        for label, values in report.items()
        if label not in _AVERAGES and isinstance(values, dict)
    }
    latencies = [
        r.latency_ms
        for _c, _p, r in rows
        if r.result is not ResultType.ERROR
        and not r.cached
        and r.latency_ms is not None
        and math.isfinite(r.latency_ms)
    ]
    cached = sum(1 for _c, _p, r in rows if r.cached)
    requests = len(rows) - cached
    price = run.engine_profile.get("price_per_request")
    price = float(price) if isinstance(price, int | float) and not isinstance(price, bool) else None
    return EngineColumn(
        run_id=run.id,
        engine=run.engine_name,
        status=run.status.value,
        cases=summary.cases,
        errors=summary.errors,
        precision=summary.precision,
        recall=summary.recall,
        f1=summary.f1,
        intent_f1=intent_f1,
        latency_p50=_nearest_rank(latencies, 50),
        latency_p95=_nearest_rank(latencies, 95),
        requests=requests,
        cached=cached,
        price_per_request=price,
        cost=None if price is None else price * requests,
    )


def compare_rows(
    runs: Sequence[tuple[RunRecord, Sequence[StoredResult]]],
    *,
    comparison_id: str | None = None,
    suite_name: str | None = None,
) -> EngineComparison:
    """The comparison of runs already loaded (in the engines' order)."""
    from nlu_tui.scoring.intent_report import none_label

    none = none_label()
    columns = [engine_column(run, rows) for run, rows in runs]
    names = [c.engine for c in columns]
    for column in columns:
        shared = names.count(column.engine) > 1
        column.label = f"{column.engine} ({column.run_id})" if shared else column.engine
    intents = sorted({label for column in columns for label in column.intent_f1})
    by_case = [{c.id: (c, p, r) for c, p, r in rows} for _run, rows in runs]
    disagreements: list[Disagreement] = []
    compared = 0
    if runs:
        for case, _p, _r in runs[0][1]:
            found = [answers.get(case.id) for answers in by_case]
            if any(row is None for row in found):
                continue
            rows_of_case = [row for row in found if row is not None]
            compared += 1
            answers = [_answer(row, none) for row in rows_of_case]
            if len(set(answers)) > 1:
                disagreements.append(
                    Disagreement(
                        case_id=case.id,
                        utterance=case.utterance,
                        expected=[i.name for i in case.intents],
                        answers=answers,
                        results=[row[2].result.value for row in rows_of_case],
                    )
                )
    name = suite_name if suite_name is not None else (runs[0][0].suite_name if runs else "")
    return EngineComparison(comparison_id, name, columns, intents, compared, disagreements)


def compare_stored(store: RunStore, comparison: ComparisonRecord) -> EngineComparison:
    """A stored comparison's figures, its runs read from the store."""
    loaded = []
    missing = []
    for run_id in comparison.run_ids:
        run = store.find_run(run_id)
        if run is None or run.id != run_id:
            missing.append(run_id)
            continue
        loaded.append((run, store.load_results(run.id)))
    result = compare_rows(loaded, comparison_id=comparison.id, suite_name=comparison.suite_name)
    result.missing_runs = missing
    return result


def compare_run_ids(store: RunStore, run_ids: Sequence[str]) -> EngineComparison:
    """Runs picked by hand (the workbench's marked runs), compared without storing anything."""
    loaded = []
    for run_id in run_ids:
        run = store.get_run(run_id)
        if run.kind != "suite":
            raise InputError(
                f"run {run.id} is a {run.kind} run; engines are compared on batch-test runs"
            )
        loaded.append((run, store.load_results(run.id)))
    return compare_rows(loaded)
