"""A run's results kept column-wise and viewed through Arrow: the results table's data.

Rows are kept in plain lists (cheap to append while a run streams in), turned into one Arrow
table when the view is rebuilt, and filtered and sorted with Arrow compute. Cells hold raw
values (confidence as a float), so sorting never has to undo formatting; shown text is made
inert here, once. No Textual: the workbench's table widget and its workers use this.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from nlu_tui.model import CaseResult, TestCase
from nlu_tui.textsafe import inert_all

if TYPE_CHECKING:
    import pyarrow as pa

    from nlu_tui.scoring.stability import CaseStability

COLUMNS: list[tuple[str, str]] = [
    ("n", "#"),
    ("result", "Result"),
    ("utterance", "Utterance"),
    ("expected", "Expected"),
    ("matched", "Matched"),
    ("confidence", "Conf"),
    ("latency_ms", "Latency ms"),
    ("entities", "Entities"),
    ("order", "Order"),
    ("error", "Error"),
]
"""Visible columns: (key, label). The order is the table's."""

STABILITY_COLUMN = ("agreement", "Agree")
"""A repeated run's extra column, after Conf: the case's agreement rate (0..1, see
:mod:`nlu_tui.scoring.stability`); empty for an ordinary run."""

RAW_COLUMN = ("raw", "Raw")
"""A run whose cases carry ``raw:`` checks: checks that held / checks, after Order."""
DECIMALS = {"confidence": 4, "agreement": 4, "latency_ms": 1}
"""The one decimals rule of each number column: rows are rounded to it and shown with exactly
that many decimals (0.9500 beside 0.8123, never 0.95), wherever the table shows them."""

HIDDEN = ["case_id", "intent_key", "flaky"]
"""Kept in the Arrow table for lookups and filters, never shown."""


def visible_columns(stability: bool, raw: bool = False) -> list[tuple[str, str]]:
    """The columns shown: :data:`COLUMNS`, plus the agreement rate after Conf for a repeated
    run and the raw checks after Order for a run with ``raw:`` checks."""
    columns = COLUMNS
    if raw:
        at = [key for key, _ in columns].index("order") + 1
        columns = [*columns[:at], RAW_COLUMN, *columns[at:]]
    if not stability:
        return columns
    at = [key for key, _ in columns].index("confidence") + 1
    return [*columns[:at], STABILITY_COLUMN, *columns[at:]]


def sorted_label(label: str, key: str, sort: tuple[str, bool] | None) -> str:
    """A column's header label with the sort indicator when the table is sorted by it:
    ``Conf ▲`` ascending, ``Conf ▼`` descending (the Per intent table's too)."""
    if sort is None or sort[0] != key:
        return label
    return f"{label} {'▼' if sort[1] else '▲'}"


_SEP = "\x1f"


@dataclass(frozen=True)
class ResultFilter:
    """What the table shows: result types (empty = all), one intent, a text search, and (a
    repeated run) only the flaky cases."""

    types: frozenset[str] = frozenset()
    intent: str = ""
    text: str = ""
    flaky: bool = False

    @property
    def active(self) -> bool:
        return bool(self.types or self.intent or self.text or self.flaky)

    def describe(self) -> str:
        parts = ["flaky"] if self.flaky else []
        if self.types:
            parts.append("/".join(sorted(self.types)))
        if self.intent:
            parts.append(f"intent={self.intent}")
        if self.text:
            parts.append(f"text~{self.text}")
        return ", ".join(parts) or "all"


@dataclass
class ResultColumns:
    """Results kept column-wise, in arrival order, ready to become an Arrow table."""

    data: dict[str, list[Any]] = field(
        default_factory=lambda: {
            k: [] for k in [*(c for c, _ in visible_columns(True, True)), *HIDDEN]
        }
    )

    def __len__(self) -> int:
        return len(self.data["case_id"])

    def copy(self) -> ResultColumns:
        """Another set of the same rows (appending to it leaves these alone)."""
        return ResultColumns({key: list(values) for key, values in self.data.items()})

    def add(self, case: TestCase | None, result: CaseResult) -> None:
        self.extend({result.case_id: case} if case is not None else {}, [result])

    def extend(
        self,
        cases: Mapping[str, TestCase],
        results: Iterable[CaseResult],
        stability: Mapping[str, CaseStability] | None = None,
    ) -> None:
        """Append results, one comprehension per column (the hot path of opening 100,000:
        about twice as fast as appending row by row). Rounding and row numbers are left to
        :meth:`to_arrow`, where Arrow does them in bulk. ``stability`` (a repeated run) gives
        each case's agreement rate and whether it is flaky."""
        d = self.data
        rs = list(results)
        get = cases.get
        cs = [get(r.case_id) for r in rs]
        names = [[i.name for i in c.intents] + c.traits if c is not None else [] for c in cs]
        matched = [r.matched_intent or "" for r in rs]
        d["result"].extend([r.result for r in rs])
        # Shown cells are inert (suite and engine text is untrusted); the filters' keys are not.
        d["utterance"].extend(
            inert_all([c.utterance if c is not None else "" for c in cs], newlines=False)
        )
        d["expected"].extend(inert_all([" | ".join(x) for x in names], newlines=False))
        d["matched"].extend(inert_all(matched, newlines=False))
        d["confidence"].extend([r.confidence for r in rs])
        d["latency_ms"].extend([r.latency_ms for r in rs])
        d["entities"].extend(
            [f"{sum(e.ok for e in r.entities)}/{len(r.entities)}" if r.entities else "" for r in rs]
        )
        d["order"].extend(
            [
                "" if r.entity_order_ok is None else "ok" if r.entity_order_ok else "wrong"
                for r in rs
            ]
        )
        d["raw"].extend(
            [
                f"{sum(c.ok for c in r.raw_checks)}/{len(r.raw_checks)}" if r.raw_checks else ""
                for r in rs
            ]
        )
        d["error"].extend(inert_all([r.error or "" for r in rs], newlines=False))
        d["case_id"].extend([r.case_id for r in rs])
        if stability:
            per = [stability.get(r.case_id) for r in rs]
            d["agreement"].extend([s.agreement if s is not None else None for s in per])
            d["flaky"].extend(["1" if s is not None and s.flaky else "" for s in per])
        else:
            d["agreement"].extend([None] * len(rs))
            d["flaky"].extend([""] * len(rs))
        d["intent_key"].extend(
            [_SEP + _SEP.join(x) + _SEP + m + _SEP for x, m in zip(names, matched, strict=True)]
        )

    def to_arrow(self, start: int = 0) -> pa.Table:
        """The rows from ``start`` on as an Arrow table (a live run converts only new rows)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        count = len(self)
        arrays: dict[str, Any] = {"n": pa.array(range(start + 1, count + 1), type=pa.int64())}
        for key, values in self.data.items():
            if key == "n":
                continue
            chunk = values[start:] if start else values
            if key in DECIMALS:
                arrays[key] = pc.round(pa.array(chunk, type=pa.float64()), DECIMALS[key])
            else:
                arrays[key] = pa.array(chunk, type=pa.string())
        return pa.table(arrays)


def shown_columns(view: pa.Table) -> pa.Table:
    """The view as the table shows it: each number column as a fixed-point decimal with its
    :data:`DECIMALS` (still right-aligned and sortable; a float would show as few decimals
    as it needs). The rows' values stay floats for sorting, filters and lookups."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for key, places in DECIMALS.items():
        at = view.schema.get_field_index(key)
        if at >= 0:
            column = pc.cast(pc.round(view[key], places), pa.decimal128(18, places))
            view = view.set_column(at, key, column)
    return view


def compute_view(
    table: pa.Table,
    flt: ResultFilter,
    sort: tuple[str, bool] | None = None,
) -> pa.Table:
    """Filter then sort (column key, descending) the full table; ties keep arrival order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    mask = None

    def both(m: Any) -> None:
        nonlocal mask
        mask = m if mask is None else pc.and_(mask, m)

    if flt.types:
        both(pc.is_in(table["result"], value_set=pa.array(sorted(flt.types))))
    if flt.intent:
        both(pc.match_substring(table["intent_key"], _SEP + flt.intent + _SEP))
    if flt.text:
        both(pc.match_substring(table["utterance"], flt.text, ignore_case=True))
    if flt.flaky:
        both(pc.equal(table["flaky"], "1"))
    view = table.filter(mask) if mask is not None else table
    if sort is not None:
        key, descending = sort
        order: Literal["ascending", "descending"] = "descending" if descending else "ascending"
        # Arrow's sort is stable and the full table is in arrival order, so ties keep it
        view = view.sort_by([(key, order)])
    return view
