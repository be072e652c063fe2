"""Metrics per slice of a run: per tag, per intent kind and per parent intent.

So a team sees that its "voice" utterances or its follow-up intents are weaker. Each slice is
summarised with the definitions of :mod:`nlu_tui.scoring.summary` (errors kept apart). A case
is in every slice it belongs to: each of its tags (a case with two tags counts in both), each kind of its expected intents; its parent intent is the whole context path
written ``A >> B``. Cases without a tag, a kind or a parent form the slice named ``None``
(``null`` in JSON, ``(none)`` on screen), listed last; the others are sorted by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nlu_tui.model import CaseResult, IntentKind, ResultType, TestCase
from nlu_tui.scoring.case import PATH_SEPARATOR
from nlu_tui.scoring.summary import Summary, _finish
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


_NONE: list[str | None] = [None]


def engine_kinds(rows: Iterable[tuple[TestCase, Any, CaseResult]]) -> dict[str, IntentKind]:
    """The kind the engine gave each intent it matched in these results (Kore.ai's dialog,
    FAQ, Small Talk; the first answer naming one wins)."""
    known: dict[str, IntentKind] = {}
    for _case, prediction, _result in rows:
        kind = getattr(prediction, "intent_kind", None)
        intent = getattr(prediction, "intent", None)
        if kind is not None and isinstance(intent, str) and intent not in known:
            known[intent] = kind
    return known


def _keys(
    case: TestCase, prediction: Any = None, known: Mapping[str, IntentKind] | None = None
) -> tuple[list[str | None], list[str | None], str | None]:
    """(tags, intent kinds, parent path) of a case, each tag and kind once.

    A case's kinds are its expected intents' kinds, plus ``trait`` when it expects traits.
    A case that names no kind takes its expected intents' kinds as the engine reported them
    (``known``: where it matched those intents in the run), so a suite without kinds still
    gets results per intent type, and a FAQ case the engine took for a dialog intent stays a
    FAQ case; a case expecting no intent takes the kind of what the engine matched."""
    tags: list[str | None] = _NONE
    if case.tags:
        tags = list(dict.fromkeys(t.strip() for t in case.tags if t.strip())) or _NONE
    kinds: list[str | None] = _NONE
    intents = case.intents
    if len(intents) == 1:
        kind = intents[0].kind
        if kind is not None:
            kinds = [kind.value]
    elif intents:
        kinds = list(dict.fromkeys(i.kind.value for i in intents if i.kind is not None)) or _NONE
    if case.traits:
        kinds = list(dict.fromkeys([*(k for k in kinds if k is not None), "trait"]))
    if kinds is _NONE and intents:
        found = (known.get(i.name) for i in intents) if known else ()
        kinds = list(dict.fromkeys(k.value for k in found if k is not None)) or _NONE
    elif kinds is _NONE and prediction is not None:
        engine_kind = getattr(prediction, "intent_kind", None)
        if engine_kind is not None:
            kinds = [engine_kind.value]
    parents = case.parent_intents
    parent = f" {PATH_SEPARATOR} ".join(parents) if parents else None
    return tags, kinds, parent


def _order(name: str | None) -> tuple[bool, str]:
    return (name is None, name or "")


def _summary(c: list[int]) -> Summary:
    """A :class:`Summary` of the counts gathered by :func:`slices` (same definitions)."""
    s = Summary(
        cases=c[0], errors=c[1], tp=c[2], tn=c[3], fp=c[4], fn=c[5],
        entities=c[6], entities_correct=c[7],
    )  # fmt: skip
    _finish(s)
    return s


def slices(rows: Iterable[tuple[TestCase, Any, CaseResult]]) -> dict[str, list[Slice]]:
    """Every dimension's slices (see the module docstring); a dimension in which no case has a
    value (no tags at all, say) has the one ``None`` slice.

    Counts are gathered in one pass (a full :func:`summarize` per slice cost 0.45 s on 100,000
    tagged cases, inside every JSON export); latency figures are not part of a slice.
    """
    if not isinstance(rows, Sequence):
        rows = list(rows)
    known = engine_kinds(rows)
    groups: dict[str, dict[str | None, list[int]]] = {d: {} for d in DIMENSIONS}
    tag_groups, kind_groups, parent_groups = (groups[d] for d in DIMENSIONS)
    column = {ResultType.ERROR: 1, ResultType.TP: 2, ResultType.TN: 3, ResultType.FP: 4}
    for case, prediction, result in rows:
        tags, kinds, parent = _keys(case, prediction, known)
        col = column.get(result.result, 5)
        ents = result.entities
        n_ent = len(ents) if col != 1 else 0
        ok_ent = sum(1 for e in ents if e.ok) if n_ent else 0
        targets = [tag_groups.setdefault(t, [0] * 8) for t in tags]
        targets += [kind_groups.setdefault(k, [0] * 8) for k in kinds]
        targets.append(parent_groups.setdefault(parent, [0] * 8))
        for counts in targets:
            counts[0] += 1
            counts[col] += 1
            counts[6] += n_ent
            counts[7] += ok_ent
    return {
        d: [Slice(d, name, _summary(groups[d][name])) for name in sorted(groups[d], key=_order)]
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


def intent_type_slices(
    rows: Sequence[tuple[TestCase, Any, CaseResult]],
    kinds: Mapping[str, IntentKind] | None = None,
    options: Any = None,
) -> list[Slice]:
    """A run's results per intent type, the one computation behind the Results tab's table
    and the coverage report's (so both say the same for the same run).

    A case whose file names no kind is typed by its first expected intent (negative names
    left out): its kind in ``kinds`` (the bot's), else as the engine reported it in the run,
    else dialog (a FAQ case the engine took for a dialog intent stays a FAQ case); a case
    expecting no intent by what the engine matched, else it is in the slice named ``None``."""
    from dataclasses import replace

    from nlu_tui.scoring.case import DEFAULT_OPTIONS

    opts = options if options is not None else DEFAULT_OPTIONS
    known = {**engine_kinds(rows), **(kinds or {})}
    typed: list[tuple[TestCase, Any, CaseResult]] = []
    for case, prediction, result in rows:
        names = list(
            dict.fromkeys(i.name.strip() for i in case.intents if not opts.is_negative(i.name))
        )
        if names and not any(i.kind for i in case.intents):
            first = names[0]
            kind = known.get(first, IntentKind.DIALOG)
            case = replace(
                case,
                intents=[
                    replace(i, kind=kind) if i.name.strip() == first else i for i in case.intents
                ],
            )
        typed.append((case, prediction, result))
    return slices(typed)["intent_kind"]
