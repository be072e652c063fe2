"""Metrics per slice of a run: per tag, per intent kind and per parent intent.

So a team sees that its "voice" utterances or its follow-up intents are weaker. Each slice is
summarised with :func:`nlu_tui.scoring.summary.summarize` (the run's own definitions, errors
kept apart). A case is in every slice it belongs to: each of its tags (a case with two tags
counts in both), each kind of its expected intents; its parent intent is the whole context path
written ``A >> B``. Cases without a tag, a kind or a parent form the slice named ``None``
(``null`` in JSON, ``(none)`` on screen), listed last; the others are sorted by name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from nlu_tui.model import CaseResult, TestCase
from nlu_tui.scoring.case import PATH_SEPARATOR
from nlu_tui.scoring.summary import Summary, summarize
from nlu_tui.textsafe import inert

DIMENSIONS = ("tag", "intent_kind", "parent_intent")


@dataclass
class Slice:
    dimension: str
    name: str | None
    summary: Summary

    def as_dict(self) -> dict[str, Any]:
        s = self.summary
        return {
            "name": self.name,
            "cases": s.cases,
            "errors": s.errors,
            "tp": s.tp,
            "tn": s.tn,
            "fp": s.fp,
            "fn": s.fn,
            "precision": s.precision,
            "recall": s.recall,
            "f1": s.f1,
            "intent_success": s.intent_success,
            "entity_success": s.entity_success,
        }


def _keys(case: TestCase) -> tuple[list[str | None], list[str | None], str | None]:
    tags: list[str | None] = list(dict.fromkeys(t.strip() for t in case.tags if t.strip()))
    kinds: list[str | None] = list(
        dict.fromkeys(i.kind.value for i in case.intents if i.kind is not None)
    )
    parent = f" {PATH_SEPARATOR} ".join(case.parent_intents) if case.parent_intents else None
    return tags or [None], kinds or [None], parent


def _order(name: str | None) -> tuple[bool, str]:
    return (name is None, name or "")


def slices(rows: Iterable[tuple[TestCase, Any, CaseResult]]) -> dict[str, list[Slice]]:
    """Every dimension's slices (see the module docstring); a dimension in which no case has a
    value (no tags at all, say) has the one ``None`` slice."""
    groups: dict[str, dict[str | None, list[CaseResult]]] = {d: {} for d in DIMENSIONS}
    tag_groups, kind_groups, parent_groups = (groups[d] for d in DIMENSIONS)
    for case, _prediction, result in rows:
        tags, kinds, parent = _keys(case)
        for t in tags:
            tag_groups.setdefault(t, []).append(result)
        for k in kinds:
            kind_groups.setdefault(k, []).append(result)
        parent_groups.setdefault(parent, []).append(result)
    return {
        d: [Slice(d, name, summarize(groups[d][name])) for name in sorted(groups[d], key=_order)]
        for d in DIMENSIONS
    }


def slices_dict(found: dict[str, list[Slice]]) -> dict[str, list[dict[str, Any]]]:
    """The ``slices`` object of the JSON report."""
    return {d: [s.as_dict() for s in found[d]] for d in DIMENSIONS}


def slice_lines(found: dict[str, list[Slice]]) -> list[str]:
    """The slices as aligned lines for ``show -f summary``, names made inert (they come from
    suite files); a dimension whose only slice is ``None`` is left out."""
    shown = [
        (d, items)
        for d in DIMENSIONS
        if (items := found.get(d, [])) and not all(s.name is None for s in items)
    ]
    if not shown:
        return []
    names = {
        id(s): "(none)" if s.name is None else inert(s.name, newlines=False)
        for _d, items in shown
        for s in items
    }
    width = min(max(20, *(len(n) for n in names.values())), 48)
    lines = [f"slices{' ' * (width - 2)}  cases   err  precision recall  F1     intent"]
    for d, items in shown:
        lines.append(f"  by {d.replace('_', ' ')}")
        for s in items:
            m = s.summary
            figures = (
                f"{m.precision:9.3f} {m.recall:6.3f}  {m.f1:5.3f}  {100 * m.intent_success:5.1f}%"
                if m.cases - m.errors > 0
                else f"{'-':>9} {'-':>6}  {'-':>5}  {'-':>6}"
            )
            name = names[id(s)]
            if len(name) > width:
                name = name[: width - 1] + "…"
            lines.append(f"    {name:<{width}} {m.cases:5d} {m.errors:5d}  {figures}")
    return lines
