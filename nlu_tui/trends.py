"""Trends: a suite's figures run after run, and which cases keep failing or flip.

``nlu-tui trend SUITE [--last N]`` reads the suite's last N batch-test runs from the store,
oldest first, and computes, with the scoring core (:func:`nlu_tui.scoring.summary.summarize`):

- per run: F1, precision, recall and the error rate (errors / cases answered). A rerun
  (``run --rerun-failed``) counts with its **merged** result (:mod:`nlu_tui.reruns`): what the
  suite scored after it, not the few cases it sent;
- per case (by case id): its outcome in each run (``P`` passed: TP or TN, ``F`` failed: FP or
  FN, ``E`` errored, ``-`` not in that run); **failing since run X** when it fails in the newest
  run it is in (X: the first run of that unbroken failing streak); **flaky** when it both
  passed and failed in the window, with in how many of its runs it failed.

A run that is still running is left out; a failed run is in (its error rate is what failed it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

# the defaults live where `nlu-tui --help` can read them without importing this module
from nlu_tui.defaults import DEFAULT_LAST as DEFAULT_LAST
from nlu_tui.defaults import MAX_LAST as MAX_LAST
from nlu_tui.errors import InputError
from nlu_tui.model import ResultType, RunStatus

if TYPE_CHECKING:
    from nlu_tui.store.records import RunRecord
    from nlu_tui.store.runstore import RunStore

PASSED, FAILED, ERRORED, ABSENT = "P", "F", "E", "-"


def outcome_mark(result: ResultType) -> str:
    """A case's outcome in one run, as one letter."""
    if result in (ResultType.TP, ResultType.TN):
        return PASSED
    if result is ResultType.ERROR:
        return ERRORED
    return FAILED


@dataclass
class RunPoint:
    """One run of the trend, with the scoring core's figures."""

    run_id: str
    started_at: float
    engine: str
    stage: str
    status: str
    rerun_of: str | None
    cases: int
    tp: int
    tn: int
    fp: int
    fn: int
    errors: int
    precision: float
    recall: float
    f1: float
    error_rate: float

    def to_json(self) -> dict[str, Any]:
        from nlu_tui.store.records import iso

        return {
            "id": self.run_id,
            "started_at": iso(self.started_at),
            "engine": self.engine,
            "version": self.stage,
            "status": self.status,
            "rerun_of": self.rerun_of,
            "cases": self.cases,
            "counts": {"tp": self.tp, "tn": self.tn, "fp": self.fp, "fn": self.fn},
            "errors": self.errors,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "error_rate": self.error_rate,
        }


@dataclass
class CaseTrend:
    """One case across the window: its outcome per run (oldest first)."""

    case_id: str
    utterance: str
    history: list[str] = field(default_factory=list)
    failing_since: str | None = None
    """The run that began the unbroken failing streak the case is in now (None: passing)."""
    failing_streak: int = 0
    """How many of the window's runs it has failed in since :attr:`failing_since`."""
    failing_runs: int = 0
    """How many runs of the window it failed or errored in."""
    runs: int = 0
    """How many runs of the window it was in."""

    @property
    def flaky(self) -> bool:
        """It both passed and failed within the window."""
        marks = set(self.history)
        return PASSED in marks and bool(marks & {FAILED, ERRORED})

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.case_id,
            "utterance": self.utterance,
            "history": "".join(self.history),
            "failing_since": self.failing_since,
            "failing_streak": self.failing_streak,
            "failing_runs": self.failing_runs,
            "runs": self.runs,
            "flaky": self.flaky,
        }


@dataclass
class Trend:
    """The trend of one suite: its runs oldest first, and its cases that failed in any."""

    suite: str
    runs: list[RunPoint]
    cases: list[CaseTrend]
    """Every case that failed or errored in a run of the window, in the newest run's order."""

    def to_json(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "runs": [r.to_json() for r in self.runs],
            "failing": [c.to_json() for c in self.cases if c.failing_since is not None],
            "flaky": [c.to_json() for c in self.cases if c.flaky],
            "cases": [c.to_json() for c in self.cases],
        }


def suite_runs(store: RunStore, suite: str, last: int) -> list[RunRecord]:
    """The suite's last ``last`` batch-test runs that are not running, oldest first."""
    if not 1 <= last <= MAX_LAST:
        raise InputError(f"must be from 1 to {MAX_LAST}", field="--last")
    runs: list[RunRecord] = []
    limit = last
    while True:  # running runs and other kinds are skipped: read more until enough
        page = store.list_runs(suite, limit=limit)
        runs = [r for r in page if r.kind == "suite" and r.status is not RunStatus.RUNNING]
        if len(runs) >= last or len(page) < limit:
            break
        limit *= 2
    return list(reversed(runs[:last]))


def compute_trend(store: RunStore, suite: str, last: int = DEFAULT_LAST) -> Trend:
    """The trend of ``suite`` (a suite file path, name or content hash) over its last runs."""
    from nlu_tui.reruns import merged_results, parent_of
    from nlu_tui.scoring.summary import summarize

    runs = suite_runs(store, suite, last)
    if not runs:
        raise InputError(f"no finished batch-test run of {suite!r} (see `nlu-tui runs`)")
    points: list[RunPoint] = []
    outcomes: list[dict[str, str]] = []
    utterances: dict[str, str] = {}
    order: list[str] = []
    for run in runs:
        rows = merged_results(store, run)
        s = summarize(r for _c, _p, r in rows)
        points.append(
            RunPoint(
                run_id=run.id,
                started_at=run.started_at,
                engine=run.engine_name,
                stage=run.stage,
                status=run.status.value,
                rerun_of=parent_of(run),
                cases=s.cases,
                tp=s.tp,
                tn=s.tn,
                fp=s.fp,
                fn=s.fn,
                errors=s.errors,
                precision=s.precision,
                recall=s.recall,
                f1=s.f1,
                error_rate=s.errors / s.cases if s.cases else 0.0,
            )
        )
        marks: dict[str, str] = {}
        for case, _p, result in rows:
            marks[case.id] = outcome_mark(ResultType(result.result))
            utterances[case.id] = case.utterance
        outcomes.append(marks)
        order = [case.id for case, _p, _r in rows]  # the newest run's order wins
    seen = set(order)
    ids = order + sorted({i for marks in outcomes for i in marks} - seen)
    cases: list[CaseTrend] = []
    for case_id in ids:
        history = [marks.get(case_id, ABSENT) for marks in outcomes]
        failing = sum(1 for m in history if m in (FAILED, ERRORED))
        if not failing:
            continue
        trend = CaseTrend(case_id, utterances.get(case_id, ""), history, failing_runs=failing)
        trend.runs = sum(1 for m in history if m != ABSENT)
        present = [i for i, m in enumerate(history) if m != ABSENT]
        if present and history[present[-1]] in (FAILED, ERRORED):
            since = present[-1]
            for i in reversed(present[:-1]):
                if history[i] == PASSED:
                    break
                since = i
            trend.failing_since = points[since].run_id
            trend.failing_streak = sum(1 for i in present if i >= since)
        cases.append(trend)
    return Trend(suite=runs[-1].suite_name, runs=points, cases=cases)


SPARK_RUNS = 12
"""How many runs a suite's sparkline in the workbench's suites panel draws."""


def run_f1(run: RunRecord) -> float | None:
    """A finished batch-test run's F1 as the trend counts it, from the stored figures (no
    result is read): a rerun's merged F1 (what the suite scored after it, kept in its summary
    by the run service), else the run's own; None for a run that measured nothing."""
    merged = run.merged_f1
    return run.scored_f1 if merged is None else merged


def f1_by_suite(store: RunStore, last: int = SPARK_RUNS) -> dict[str, list[float]]:
    """Per suite file, the F1 (:func:`run_f1`) of its last ``last`` finished batch-test runs,
    oldest first: the suites panel's sparklines, from one listing of the store."""
    series: dict[str, list[float]] = {}
    for run in store.list_runs():  # newest first
        if run.kind != "suite" or run.status is RunStatus.RUNNING or not run.suite_path:
            continue
        f1 = run_f1(run)
        points = series.setdefault(run.suite_path, [])
        if f1 is not None and len(points) < last:
            points.append(f1)
    return {path: points[::-1] for path, points in series.items() if points}
