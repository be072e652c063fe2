"""Run summary figures (Kore.ai definitions) and live counters for a run in progress.

Definitions (metric-semantics.md §1.3-1.4), over the **scored** cases (every case but ERROR):

- precision = TP/(TP+FP), recall = TP/(TP+FN), F1 = 2PR/(P+R); each is 0.0 when its
  denominator is 0 (Kore.ai does not document 0/0; 0.0 is scikit-learn's ``zero_division=0``).
- intent success = (TP+TN)/scored (0.0 when nothing was scored).
- entity success = correct expected entities / expected entities (``None`` with no entities).
- raw check success = ``raw:`` checks that held / raw checks of scored cases (``None`` with none).
- success/failure ratio = fully correct cases (intent TP/TN, every expected entity correct, the
  entity order, when given, agreeing and every raw check holding) / all cases including errors.
- latency percentiles: **nearest rank** over the (finite) latencies of scored cases: the p-th
  percentile is the ceil(p/100·N)-th smallest value (always a measured value, no interpolation).

All ratios are fractions 0..1; the ``*_pct`` helpers give percentages for display.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from nlu_tui.model import CaseResult, ResultType


def safe_div(num: float, den: float) -> float:
    """num/den, or 0.0 when den is 0."""
    return num / den if den else 0.0


def f1_score(precision: float, recall: float) -> float:
    """Harmonic mean of P and R, 0.0 when both are 0."""
    return safe_div(2 * precision * recall, precision + recall)


def nearest_rank(sorted_values: Sequence[float], p: float) -> float | None:
    """The nearest-rank p-th percentile of already sorted values (``None`` when empty)."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


@dataclass
class Summary:
    """The headline figures of a scored run. Counts are ints, ratios fractions 0..1."""

    cases: int = 0
    scored: int = 0
    errors: int = 0
    tp: int = 0
    tn: int = 0
    fp: int = 0
    fn: int = 0
    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0
    intent_success: float = 0.0
    entities: int = 0
    entities_correct: int = 0
    entity_success: float | None = None
    order_checked: int = 0
    order_ok: int = 0
    raw_checks: int = 0
    raw_checks_ok: int = 0
    raw_check_success: float | None = None
    success: int = 0
    failure: int = 0
    success_failure_ratio: float = 0.0
    latency_p50: float | None = None
    latency_p90: float | None = None
    latency_p99: float | None = None
    latency_mean: float | None = None
    latency_max: float | None = None

    def share(self, kind: ResultType) -> float:
        """The share of scored cases with this result type (errors: share of all cases)."""
        if kind is ResultType.ERROR:
            return safe_div(self.errors, self.cases)
        count = {
            ResultType.TP: self.tp,
            ResultType.TN: self.tn,
            ResultType.FP: self.fp,
            ResultType.FN: self.fn,
        }[kind]
        return safe_div(count, self.scored)

    def pct(self, kind: ResultType) -> float:
        """:meth:`share` as a percentage (Kore.ai's CSV report gives TP..FN as percentages)."""
        return 100.0 * self.share(kind)

    def as_dict(self) -> dict[str, float | int | None]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def summarize(results: Iterable[CaseResult]) -> Summary:
    """Summarise scored results (see the module docstring for each definition).

    Counts are kept in local variables and stored once: attribute updates on the dataclass
    cost more than the rest of the loop on a 100,000-case run.
    """
    tp_kind, tn_kind, fp_kind, error_kind = (
        ResultType.TP,
        ResultType.TN,
        ResultType.FP,
        ResultType.ERROR,
    )
    isfinite = math.isfinite
    cases = errors = tp = tn = fp = fn = 0
    entities = entities_correct = order_checked = order_ok = success = 0
    raw_checks = raw_checks_ok = 0
    latencies: list[float] = []
    for r in results:
        cases += 1
        kind = r.result
        if kind is error_kind:
            errors += 1
            continue
        if kind is tp_kind:
            tp += 1
            good = True
        elif kind is tn_kind:
            tn += 1
            good = True
        elif kind is fp_kind:
            fp += 1
            good = False
        else:
            fn += 1
            good = False
        for e in r.entities:
            entities += 1
            if e.ok:
                entities_correct += 1
            else:
                good = False
        order = r.entity_order_ok
        if order is not None:
            order_checked += 1
            if order:
                order_ok += 1
            else:
                good = False
        for check in r.raw_checks:
            raw_checks += 1
            if check.ok:
                raw_checks_ok += 1
            else:
                good = False
        if good:
            success += 1
        latency = r.latency_ms
        if latency is not None and isfinite(latency):
            latencies.append(latency)
    s = Summary(
        cases=cases,
        errors=errors,
        tp=tp,
        tn=tn,
        fp=fp,
        fn=fn,
        entities=entities,
        entities_correct=entities_correct,
        order_checked=order_checked,
        order_ok=order_ok,
        raw_checks=raw_checks,
        raw_checks_ok=raw_checks_ok,
        success=success,
        failure=cases - success,
    )
    _finish(s)
    if latencies:
        latencies.sort()
        s.latency_p50 = nearest_rank(latencies, 50)
        s.latency_p90 = nearest_rank(latencies, 90)
        s.latency_p99 = nearest_rank(latencies, 99)
        s.latency_mean = math.fsum(latencies) / len(latencies)
        s.latency_max = latencies[-1]
    return s


def _finish(s: Summary) -> None:
    s.scored = s.tp + s.tn + s.fp + s.fn
    s.precision = safe_div(s.tp, s.tp + s.fp)
    s.recall = safe_div(s.tp, s.tp + s.fn)
    s.f1 = f1_score(s.precision, s.recall)
    s.intent_success = safe_div(s.tp + s.tn, s.scored)
    s.entity_success = s.entities_correct / s.entities if s.entities else None
    s.raw_check_success = s.raw_checks_ok / s.raw_checks if s.raw_checks else None
    s.success_failure_ratio = safe_div(s.success, s.cases)


class PooledCounts:
    """Precision, recall and F1 from pooled ``tp``/``fp``/``fn`` counters (Kore.ai's
    definitions, 0 on 0/0): one place for every counter class that reports them."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return safe_div(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return safe_div(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        return f1_score(self.precision, self.recall)


@dataclass
class LiveCounts(PooledCounts):
    """Counters a runner updates per result, O(1) each, for live progress.

    The same definitions as :func:`summarize` (no percentiles: those need every latency).
    """

    done: int = 0
    tp: int = 0
    tn: int = 0
    fp: int = 0
    fn: int = 0
    errors: int = 0
    entities: int = 0
    entities_correct: int = 0
    latency_total: float = 0.0
    latency_count: int = 0
    by_result: dict[ResultType, int] = field(default_factory=lambda: dict.fromkeys(ResultType, 0))

    def add(self, result: CaseResult) -> None:
        self.done += 1
        kind = result.result
        self.by_result[kind] += 1
        if kind is ResultType.ERROR:
            self.errors += 1
            return
        if kind is ResultType.TP:
            self.tp += 1
        elif kind is ResultType.TN:
            self.tn += 1
        elif kind is ResultType.FP:
            self.fp += 1
        else:
            self.fn += 1
        for e in result.entities:
            self.entities += 1
            self.entities_correct += e.ok
        if result.latency_ms is not None and math.isfinite(result.latency_ms):
            self.latency_total += result.latency_ms
            self.latency_count += 1

    @property
    def scored(self) -> int:
        return self.tp + self.tn + self.fp + self.fn

    @property
    def intent_success(self) -> float:
        return safe_div(self.tp + self.tn, self.scored)

    @property
    def entity_success(self) -> float | None:
        return self.entities_correct / self.entities if self.entities else None

    @property
    def latency_mean(self) -> float | None:
        return self.latency_total / self.latency_count if self.latency_count else None
