"""Regression gates: ``thresholds`` of a test settings file checked against a baseline.

A gate is ``{type: intent|entity, group: null|'*'|name, threshold, metric, comparison}``,
bound and checked as NLU.DevOps binds ``NLUThreshold`` and runs ``NLUAccuracy.CheckThreshold``.
Relative gates pass when ``baseline − current ≤ threshold``; absolute gates when
``current ≥ threshold``. No group and ``'*'`` both mean the overall counts. A missing group or
baseline counts as ``[0, 0, 0, 0]``, so without a baseline every relative gate passes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlu_tui.compare.decisions import TargetKind
from nlu_tui.compare.statistics import Counts, Statistics
from nlu_tui.errors import InputError

THRESHOLD_TYPES = {"intent": TargetKind.INTENT, "entity": TargetKind.ENTITY}
THRESHOLD_KEYS = ("type", "group", "threshold", "metric", "comparison")
STAR_GROUPS = ("overall", "each")


@dataclass(frozen=True)
class Threshold:
    """One gate as NLU.DevOps binds it (``NLUThreshold``).

    ``type`` other than ``intent``/``entity`` (missing, ``Intent``…) gates all-zero counts, as
    upstream does; ``metric`` None is F1; ``comparison`` is ``absolute`` or ``relative``.
    ``star``: what ``group: '*'`` means — ``overall`` (upstream: the overall counts, like no
    group) or ``each`` (one gate per group seen in either run, the ``starGroups: each`` option).
    """

    type: str | None = "intent"
    group: str | None = None
    threshold: float = 0.0
    metric: str | None = "F1"
    comparison: str = "relative"
    star: str = "overall"

    @property
    def kind(self) -> TargetKind | None:
        return THRESHOLD_TYPES.get(self.type or "")

    @property
    def metric_name(self) -> str:
        return self.metric if self.metric is not None else "F1"

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
        t = self.threshold
        if t.kind is None:
            named = "no type" if t.type is None else f"type {t.type!r}"
            target = f"{named} (not intent/entity: all-zero counts)"
        elif self.group is not None and self.group != "*":
            target = f"{t.type} '{self.group}'"
        else:
            target = "all intents" if t.type == "intent" else "all entities"
        metric = t.metric_name
        if t.comparison == "absolute":
            rule = f"{metric} {self.current:.4f} ≥ {t.threshold:g}"
        else:
            delta = self.current - self.baseline
            rule = (
                f"{metric} {self.current:.4f} vs baseline {self.baseline:.4f} "
                f"({delta:+.4f}), allowed drop {t.threshold:g}"
            )
        return f"{'PASS' if self.passed else 'FAIL'} {target}: {rule}"


_WHITE = " \t\n\v\f\r"
_NUMBER = re.compile(r"[+-]?(?:[0-9][0-9,]*(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_SPECIAL = {"nan": math.nan, "infinity": math.inf, "+infinity": math.inf, "-infinity": -math.inf}


def dotnet_double(text: str, *, thousands: bool = True) -> float | None:
    """.NET ``double.TryParse`` (``NumberStyles.Float``, plus ``AllowThousands`` as the
    one-argument overload has), invariant culture: surrounding white space, a sign, ``,``
    group separators in the integer part, exponent, ``NaN``/``Infinity`` in any case."""
    body = text.strip(_WHITE)
    special = _SPECIAL.get(body.lower())
    if special is None and body[:1] in "+-" and body[1:].lower() == "nan":
        special = math.nan
    if special is not None:
        return special
    pattern = _NUMBER if thousands else _PLAIN_NUMBER
    if not pattern.fullmatch(body):
        return None
    return float(body.replace(",", ""))


def parse_beta(metric: str) -> float | None:
    """β of an ``f<β>`` metric as ``NLUAccuracy.GetMetric`` reads it: ``f``/``F`` and anything
    ``double.TryParse`` accepts (``f1``, ``F2``, ``f0.5``, ``f0``, ``f-1``), else None."""
    if metric[:1] not in ("f", "F"):
        return None
    return dotnet_double(metric[1:])


def f_score(counts: Counts, beta: float) -> float:
    """``NLUAccuracy.FScore`` (see :meth:`Counts.f_beta`)."""
    return counts.f_beta(beta)


def check_metric(metric: str | None) -> str | None:
    """Why ``GetMetric`` would throw on ``metric``, or None when it is valid."""
    if metric is None or metric in ("precision", "recall") or parse_beta(metric) is not None:
        return None
    return (
        f"unknown metric {metric!r}; use precision, recall (lower case, as NLU.DevOps) "
        "or f<beta> such as F1, f2, f0.5"
    )


def metric_value(counts: Counts, metric: str | None) -> float:
    """``NLUAccuracy.GetMetric``: None is F1; ``precision``/``recall`` are case-sensitive."""
    if metric is None:
        return f_score(counts, 1.0)
    if metric == "precision":
        return counts.precision
    if metric == "recall":
        return counts.recall
    beta = parse_beta(metric)
    if beta is None:
        raise InputError(check_metric(metric) or metric)
    return f_score(counts, beta)


_ENUM_VALUES = {"relative": 0, "absolute": 1}


def parse_comparison(value: Any) -> str | None:
    """``NLUThresholdKind`` bound by .NET's ``EnumConverter``: names in any case, integers,
    comma-separated flags ORed; ``absolute`` when the value is 1, else ``relative``
    (``CheckThreshold`` only tests ``== Absolute``). None when it does not convert."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    total = 0
    for part in str(value).split(","):
        item = part.strip(_WHITE)
        if item.lower() in _ENUM_VALUES:
            total |= _ENUM_VALUES[item.lower()]
        elif re.fullmatch(r"[+-]?[0-9]+", item, re.ASCII):
            total |= int(item)
        else:
            return None
    return "absolute" if total == 1 else "relative"


def _scalar_text(value: Any) -> str | None:
    """A configuration value as .NET configuration holds it (every value is a string)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def parse_threshold(
    obj: Any,
    *,
    path: Path | str | None = None,
    index: int = 0,
    strict: bool = False,
    star: str = "overall",
    warnings: list[str] | None = None,
) -> Threshold:
    """One ``thresholds[]`` item, bound as .NET's configuration binder binds ``NLUThreshold``:
    keys in any case, unknown keys ignored, any ``type`` accepted (a warning says what it
    gates). ``strict`` (the ``strict: true`` option) refuses unknown keys and types instead."""
    where: dict[str, Any] = {"path": path, "field": f"thresholds[{index}]"}
    notes = warnings if warnings is not None else []
    if not isinstance(obj, Mapping):
        raise InputError("a threshold must be a mapping with at least 'type'", **where)
    items: dict[str, Any] = {}
    unknown: list[str] = []
    for key, value in obj.items():
        name = str(key).lower()
        if name in items:
            raise InputError(f"key {key!r} given twice (keys ignore case)", **where)
        items[name] = value
        if name not in THRESHOLD_KEYS:
            unknown.append(str(key))
    if unknown:
        message = f"unknown threshold keys: {', '.join(sorted(unknown))}"
        if strict:
            raise InputError(message, **where)
        notes.append(f"{where['field']}: {message} (ignored, as NLU.DevOps ignores them)")
    raw_type = items.get("type")
    kind = _scalar_text(raw_type) if raw_type is not None else None
    if raw_type is not None and kind is None:
        raise InputError("'type' must be 'intent' or 'entity'", **where)
    if kind not in THRESHOLD_TYPES:
        message = f"'type' is {kind!r}, not 'intent' or 'entity'"
        if strict:
            raise InputError(message, **where)
        notes.append(
            f"{where['field']}: {message}: this gate compares all-zero counts "
            "(as in NLU.DevOps: a relative gate always passes)"
        )
    raw_group = items.get("group")
    group = _scalar_text(raw_group) if raw_group is not None else None
    if raw_group is not None and group is None:
        raise InputError("'group' must be a name, '*' or absent", **where)
    value = items.get("threshold")
    if value is None:
        number = 0.0
    elif isinstance(value, str):
        parsed = dotnet_double(value, thousands=False)
        if parsed is None:
            raise InputError(f"'threshold' must be a number, not {value!r}", **where)
        number = parsed
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    else:
        raise InputError("'threshold' must be a number", **where)
    raw_metric = items.get("metric")
    metric = _scalar_text(raw_metric) if raw_metric is not None else None
    if raw_metric is not None and metric is None:
        raise InputError("'metric' must be a string", **where)
    problem = check_metric(metric)
    if problem:
        raise InputError(problem, **where)
    raw_comparison = items.get("comparison")
    comparison = "relative" if raw_comparison is None else parse_comparison(raw_comparison)
    if comparison is None:
        raise InputError(
            f"'comparison' must be 'relative' or 'absolute' (any case), not {raw_comparison!r}",
            **where,
        )
    return Threshold(kind, group, number, metric, comparison, star)


def check_gates(
    current: Statistics, baseline: Statistics | None, thresholds: list[Threshold]
) -> list[GateResult]:
    """Evaluate every gate as ``NLUAccuracy.CheckThreshold``: no group or ``'*'`` is the
    overall counts (with ``star: each``, ``'*'`` is one gate per group seen in either run);
    a type other than intent/entity, or a missing group or baseline, is all zeros."""
    base = baseline or Statistics()
    results: list[GateResult] = []
    for t in thresholds:
        kind = t.kind
        groups: list[str | None] = [t.group]
        if kind is not None and t.group == "*" and t.star == "each":
            names = list(dict.fromkeys([*current.group_names(kind), *base.group_names(kind)]))
            groups = list(names)
        for group in groups:
            if kind is None:
                cur_counts = old_counts = Counts()
            else:
                key = None if group in (None, "*") else group
                cur_counts, old_counts = current.counts(kind, key), base.counts(kind, key)
            cur, old = t.value(cur_counts), t.value(old_counts)
            passed = cur >= t.threshold if t.comparison == "absolute" else old - cur <= t.threshold
            results.append(GateResult(t, group, cur, old, passed))
    return results
