"""Regression gates: ``thresholds`` of a test settings file checked against a baseline.

A gate is ``{type: intent|entity, group: null|'*'|name, threshold, metric, comparison}``.
Relative gates pass when ``baseline − current ≤ threshold``; absolute gates when
``current ≥ threshold``. A missing group or baseline counts as ``[0, 0, 0, 0]``, so without a
baseline every relative gate passes (as in NLU.DevOps).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlu_tui.compare.decisions import TargetKind
from nlu_tui.compare.statistics import Counts, Statistics
from nlu_tui.errors import InputError

THRESHOLD_TYPES = {"intent": TargetKind.INTENT, "entity": TargetKind.ENTITY}


@dataclass(frozen=True)
class Threshold:
    type: str = "intent"
    group: str | None = None
    threshold: float = 0.0
    metric: str = "F1"
    comparison: str = "relative"

    @property
    def kind(self) -> TargetKind:
        return THRESHOLD_TYPES[self.type]

    def value(self, counts: Counts) -> float:
        return metric_value(counts, self.metric)


@dataclass(frozen=True)
class GateResult:
    threshold: Threshold
    group: str | None
    current: float
    baseline: float
    passed: bool

    @property
    def description(self) -> str:
        target = (
            f"{self.threshold.type} '{self.group}'"
            if self.group
            else ("all intents" if self.threshold.type == "intent" else "all entities")
        )
        metric = self.threshold.metric
        if self.threshold.comparison == "absolute":
            rule = f"{metric} {self.current:.4f} ≥ {self.threshold.threshold:g}"
        else:
            delta = self.current - self.baseline
            rule = (
                f"{metric} {self.current:.4f} vs baseline {self.baseline:.4f} "
                f"({delta:+.4f}), allowed drop {self.threshold.threshold:g}"
            )
        return f"{'PASS' if self.passed else 'FAIL'} {target}: {rule}"


def parse_beta(metric: str) -> float | None:
    """β of an ``f<β>`` metric name (``f1``, ``F2``, ``f0.5``), or None for another name."""
    if len(metric) < 2 or metric[0] not in "fF":
        return None
    try:
        beta = float(metric[1:])
    except ValueError:
        return None
    return beta if math.isfinite(beta) and beta > 0 else None


def metric_value(counts: Counts, metric: str) -> float:
    name = metric.lower()
    if name == "precision":
        return counts.precision
    if name == "recall":
        return counts.recall
    beta = parse_beta(metric)
    if beta is None:
        raise InputError(f"unknown metric {metric!r}; use F1, precision, recall or f<beta>")
    return counts.f_beta(beta)


def parse_threshold(obj: Any, *, path: Path | str | None = None, index: int = 0) -> Threshold:
    """One ``thresholds[]`` item, checked: a typo must fail loudly, not gate on zeros."""
    where: dict[str, Any] = {"path": path, "field": f"thresholds[{index}]"}
    if not isinstance(obj, Mapping):
        raise InputError("a threshold must be a mapping with at least 'type'", **where)
    unknown = set(obj) - {"type", "group", "threshold", "metric", "comparison"}
    if unknown:
        raise InputError(f"unknown threshold keys: {', '.join(sorted(map(str, unknown)))}", **where)
    kind = obj.get("type")
    if kind not in THRESHOLD_TYPES:
        raise InputError(f"'type' must be 'intent' or 'entity', not {kind!r}", **where)
    group = obj.get("group")
    if group is not None and not isinstance(group, str):
        raise InputError("'group' must be a name, '*' or absent", **where)
    value = obj.get("threshold", 0)
    if value is None:
        value = 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError("'threshold' must be a number", **where)
    metric = obj.get("metric") or "F1"
    if not isinstance(metric, str):
        raise InputError("'metric' must be a string", **where)
    if metric.lower() not in ("precision", "recall") and parse_beta(metric) is None:
        raise InputError(
            f"unknown metric {metric!r}; use F1, precision, recall or f<beta>", **where
        )
    comparison = obj.get("comparison") or "relative"
    if comparison not in ("relative", "absolute"):
        raise InputError("'comparison' must be 'relative' or 'absolute'", **where)
    return Threshold(str(kind), group, float(value), metric, str(comparison))


def check_gates(
    current: Statistics, baseline: Statistics | None, thresholds: list[Threshold]
) -> list[GateResult]:
    """Evaluate every gate; ``group: '*'`` becomes one gate per group seen in either run."""
    base = baseline or Statistics()
    results: list[GateResult] = []
    for t in thresholds:
        if t.group == "*":
            names = list(dict.fromkeys([*current.group_names(t.kind), *base.group_names(t.kind)]))
            groups: list[str | None] = list(names)
        else:
            groups = [t.group]
        for group in groups:
            cur = t.value(current.counts(t.kind, group))
            old = t.value(base.counts(t.kind, group))
            passed = cur >= t.threshold if t.comparison == "absolute" else old - cur <= t.threshold
            results.append(GateResult(t, group, cur, old, passed))
    return results
