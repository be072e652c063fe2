"""The Cases table's data: a suite's rows as an Arrow table, filtered and sorted by Arrow.

Cells are formatted once per case object and made inert here (suite files are untrusted); a
few hidden columns serve the filters. No Textual: the workbench's cases view and its workers
use these functions, and a test can call them directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nlu_tui.case_form import CaseFilter, format_entities, format_intents, format_parent, one_line
from nlu_tui.model import Suite, TestCase
from nlu_tui.textsafe import inert_all

COLUMNS: list[tuple[str, str, int]] = [
    ("n", "#", 6),
    ("sel", "✓", 1),
    ("problems", "!", 2),
    ("utterance", "Utterance", 40),
    ("intents", "Intents", 22),
    ("parent", "Parent", 14),
    ("entities", "Entities", 28),
    ("order", "Order", 14),
    ("tags", "Tags", 14),
]
"""(key, label, width) in display order; ``n`` is the case's 1-based position in the suite."""
SEL_MARK = "●"


RowCache = dict[int, tuple[TestCase, tuple[str, ...]]]
"""Formatted cells per case object (by identity): edits replace case objects, so after an
edit only the changed cases are formatted again."""

_TEXT_COLUMNS = ("utterance", "intents", "parent", "entities", "order", "tags")
_SEARCH_COLUMNS = ("_tags", "_entity_names")


def format_row(case: TestCase) -> tuple[str, ...]:
    # The shown cells come from the suite file: made inert (the search keys stay as they are).
    shown = inert_all(
        [
            one_line(case.utterance),
            format_intents(case),
            format_parent(case),
            one_line(format_entities(case)),
            ", ".join(case.entity_order),
            ", ".join(case.tags),
        ],
        newlines=False,
    )
    return (
        *shown,
        "\x1f".join(case.tags),
        "\x1f".join(e.name for e in case.entities),
    )


def build_arrow(
    cases: Sequence[TestCase],
    selected: set[str],
    problems: dict[str, int],
    cache: RowCache | None = None,
) -> Any:
    """The full Arrow table of a suite's rows (one per case, in suite order).

    Besides the shown columns it holds a few for filtering (``_tags``, ``_entity_names``,
    ``_n_intents``, ``_n_entities``) that are dropped before display.
    """
    import pyarrow as pa

    cache = {} if cache is None else cache
    fresh: RowCache = {}
    rows: list[tuple[str, ...]] = []
    for case in cases:
        hit = cache.get(id(case))
        row = hit[1] if hit is not None and hit[0] is case else format_row(case)
        fresh[id(case)] = (case, row)
        rows.append(row)
    cache.clear()
    cache.update(fresh)
    columns = list(zip(*rows, strict=True)) if rows else [()] * 8
    names = (*_TEXT_COLUMNS, *_SEARCH_COLUMNS)
    return pa.table(
        {
            "n": pa.array(range(1, len(cases) + 1), type=pa.int64()),
            "sel": pa.array([SEL_MARK if c.id in selected else "" for c in cases], pa.string()),
            "problems": pa.array(
                [problems.get(c.id) or None for c in cases] if problems else [None] * len(cases),
                type=pa.int64(),
            ),
            **{
                name: pa.array(col, type=pa.string())
                for name, col in zip(names, columns, strict=True)
            },
            "_n_intents": pa.array([len(c.intents) + len(c.traits) for c in cases], pa.int32()),
            "_n_entities": pa.array([len(c.entities) for c in cases], pa.int32()),
        }
    )


def filter_mask(table: Any, spec: CaseFilter) -> Any:
    """The rows matching ``spec``, computed by Arrow (the same rules as CaseFilter.matches)."""
    import pyarrow.compute as pc

    masks: list[Any] = []
    for word in spec.words:
        masks.append(pc.match_substring(table["utterance"], word, ignore_case=True))
    for column, queries in (
        ("intents", spec.intents),
        ("_tags", spec.tags),
        ("_entity_names", spec.entities),
    ):
        for query in queries:
            masks.append(pc.match_substring(table[column], query, ignore_case=True))
    for flag in spec.flags:
        if flag in ("has:entities", "has:entity"):
            masks.append(pc.greater(table["_n_entities"], 0))
        elif flag in ("has:problems", "has:problem", "is:problem", "is:problems"):
            masks.append(pc.is_valid(table["problems"]))
        elif flag == "has:order":
            masks.append(pc.not_equal(table["order"], ""))
        elif flag in ("no:intent", "no:intents"):
            masks.append(pc.equal(table["_n_intents"], 0))
        elif flag == "has:parent":
            masks.append(pc.not_equal(table["parent"], ""))
    mask = masks[0]
    for other in masks[1:]:
        mask = pc.and_(mask, other)
    return mask


def view_table(full: Any, query: str, sort: tuple[str, bool] | None) -> Any:
    """Filter and sort the full table, keeping only the shown columns (``n`` maps rows back)."""
    spec = CaseFilter.parse(query)
    table = full
    if not spec.empty:
        table = table.filter(filter_mask(table, spec))
    if sort is not None:
        key, descending = sort
        order = "descending" if descending else "ascending"
        keys = [(key, order)] if key == "n" else [(key, order), ("n", "ascending")]
        table = table.sort_by(keys)
    return table.select([key for key, _, _ in COLUMNS])


def validate_problems(suite: Suite) -> dict[str, list[str]]:
    """Problems per case id, from the shared validator."""
    from nlu_tui.validation import validate_suite

    problems: dict[str, list[str]] = {}
    for problem in validate_suite(suite):
        case_id = getattr(problem, "case_id", None)
        if case_id:
            problems.setdefault(case_id, []).append(str(getattr(problem, "message", problem)))
    return problems
