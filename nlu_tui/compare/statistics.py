"""Confusion counts ``[TP, TN, FP, FN]`` per target kind and group, and the metrics over them.

This is the ``statistics.json`` of NLU.DevOps: the form a baseline is stored in and read back
from. Metrics are computed from pooled counts; TN never enters them; 0/0 is 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui.compare.decisions import Decision, ResultKind, TargetKind
from nlu_tui.errors import InputError
from nlu_tui.jsonfile import read_json


@dataclass
class Counts:
    tp: int = 0
    tn: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, result: ResultKind) -> None:
        if result is ResultKind.TP:
            self.tp += 1
        elif result is ResultKind.TN:
            self.tn += 1
        elif result is ResultKind.FP:
            self.fp += 1
        else:
            self.fn += 1

    def as_list(self) -> list[int]:
        return [self.tp, self.tn, self.fp, self.fn]

    @property
    def total(self) -> int:
        return self.tp + self.tn + self.fp + self.fn

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        return self.f_beta(1.0)

    def f_beta(self, beta: float) -> float:
        """``NLUAccuracy.FScore``: (1+β²)·(P·R) / (β²·P + R) in that order of operations,
        0 unless |denominator| > ``double.Epsilon``."""
        p, r = self.precision, self.recall
        b2 = beta * beta
        denominator = b2 * p + r
        return (1 + b2) * (p * r) / denominator if abs(denominator) > 5e-324 else 0.0


KIND_KEYS = {
    TargetKind.TEXT: "text",
    TargetKind.INTENT: "intent",
    TargetKind.ENTITY: "entity",
    TargetKind.ENTITY_VALUE: "entityValue",
}
GROUP_KEYS = {
    TargetKind.INTENT: "byIntent",
    TargetKind.ENTITY: "byEntityType",
    TargetKind.ENTITY_VALUE: "byEntityValueType",
}


@dataclass
class Statistics:
    """Pooled counts per target kind plus per-group counts for intents, entities, values."""

    totals: dict[TargetKind, Counts] = field(
        default_factory=lambda: {k: Counts() for k in KIND_KEYS}
    )
    groups: dict[TargetKind, dict[str, Counts]] = field(
        default_factory=lambda: {k: {} for k in GROUP_KEYS}
    )

    @property
    def intent(self) -> Counts:
        return self.totals[TargetKind.INTENT]

    @property
    def entity(self) -> Counts:
        return self.totals[TargetKind.ENTITY]

    @property
    def by_intent(self) -> dict[str, Counts]:
        return self.groups[TargetKind.INTENT]

    @property
    def by_entity_type(self) -> dict[str, Counts]:
        return self.groups[TargetKind.ENTITY]

    def counts(self, kind: TargetKind, group: str | None = None) -> Counts:
        """The totals of ``kind``, or one group's counts; a missing group is all zeros."""
        if group is None:
            return self.totals.get(kind, Counts())
        return self.groups.get(kind, {}).get(group, Counts())

    def group_names(self, kind: TargetKind) -> list[str]:
        return list(self.groups.get(kind, {}))

    @classmethod
    def from_decisions(cls, decisions: Iterable[Decision]) -> Statistics:
        stats = cls()
        for d in decisions:
            stats.totals[d.target_kind].add(d.result_kind)
            if d.group is not None and d.target_kind in GROUP_KEYS:
                stats.groups[d.target_kind].setdefault(d.group, Counts()).add(d.result_kind)
        return stats

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {key: self.totals[k].as_list() for k, key in KIND_KEYS.items()}
        for k, key in GROUP_KEYS.items():
            out[key] = {g: c.as_list() for g, c in self.groups[k].items()}
        return out

    @classmethod
    def from_json(cls, data: Any, *, path: Path | str | None = None) -> Statistics:
        """Read the array form; the object form (``{"truePositive": 6}``) is refused, as upstream."""
        if not isinstance(data, Mapping):
            raise InputError("statistics must be a JSON object", path=path)
        stats = cls()
        for kind, key in KIND_KEYS.items():
            if key in data and data[key] is not None:
                stats.totals[kind] = _counts(data[key], path, key)
        for kind, key in GROUP_KEYS.items():
            groups = data.get(key)
            if groups is None:
                continue
            if not isinstance(groups, Mapping):
                raise InputError("must map names to [TP, TN, FP, FN]", path=path, field=key)
            stats.groups[kind] = {
                str(name): _counts(value, path, f"{key}.{name}") for name, value in groups.items()
            }
        return stats


def _counts(value: Any, path: Path | str | None, where: str) -> Counts:
    if isinstance(value, Mapping):
        raise InputError(
            "the object form of statistics (as in NLU.DevOps docs/examples) is not a baseline "
            "NLU.DevOps can read; give the counts as an array [TP, TN, FP, FN], as compare writes them",
            path=path,
            field=where,
        )
    if (
        not isinstance(value, list)
        or len(value) != 4
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        raise InputError(
            "expected [TP, TN, FP, FN] as four non-negative integers", path=path, field=where
        )
    return Counts(*value)


def load_statistics(path: Path) -> Statistics:
    """A ``statistics.json`` written by ``nlu-tui compare`` or NLU.DevOps ``compare``."""
    data = read_json(path, what="baseline")
    return Statistics.from_json(data, path=path)
