"""The cases table's rows and table widget: Arrow data, fixed widths, the progressive load.

Rows live in an Arrow table shown by ``textual-fastdatatable`` (mounting 100,000 rows takes a
fraction of a second, where Textual's DataTable takes seconds). Nothing here is a widget of its
own: :class:`~nlu_tui.ui.widgets.cases_area.CasesArea` shows what these build. pyarrow and the
table's module are imported on first use (in workers), never when this module is imported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nlu_tui.model import TestCase
from nlu_tui.views.cases import COLUMNS, RowCache, build_arrow

MIN_WIDTHS = {"utterance": 22, "intents": 22, "parent": 6, "entities": 10, "order": 6, "tags": 5}
"""How narrow a text column may get (its text then ends in "…") so that every column fits
at 120 columns; below that the table scrolls right a column at a time."""
SHRINK_FIRST = ["tags", "order", "parent", "entities", "intents", "utterance"]
"""Which columns give up width first when the table is narrower than the columns."""


class PartialRows:
    """The rows of a suite that is still being read, grown a chunk at a time (in a worker).

    Each chunk becomes its own Arrow table (only the new cases are formatted); the shown table
    is their concatenation, in file order. The formatted rows are kept so that the build of
    the complete suite afterwards does not format the same cases again.
    """

    def __init__(self) -> None:
        self.cases: list[TestCase] = []
        self.row_cache: RowCache = {}
        self._tables: list[Any] = []

    def add(self, cases: Sequence[TestCase]) -> None:
        import pyarrow as pa

        if not cases:
            return
        cache: RowCache = {}
        table = build_arrow(cases, set(), {}, cache)
        start = len(self.cases) + 1
        positions = pa.array(range(start, start + len(cases)), type=pa.int64())
        table = table.set_column(table.schema.get_field_index("n"), "n", positions)
        self._tables.append(table.select([key for key, _, _ in COLUMNS]))
        self.row_cache.update(cache)
        self.cases.extend(cases)

    def view(self) -> tuple[list[TestCase], Any, Any]:
        """A snapshot for the UI thread: (cases so far, their positions, an Arrow backend)."""
        import pyarrow as pa

        table = pa.concat_tables(self._tables)
        return list(self.cases), table.column("n").combine_chunks(), make_backend(table)


def make_backend(table: Any) -> Any:
    """An Arrow backend with fixed column widths, so 100,000 cells are never measured."""
    from textual_fastdatatable import ArrowBackend

    class FixedWidthBackend(ArrowBackend):
        @property
        def column_content_widths(self) -> list[int]:
            return [w for _, _, w in COLUMNS]

    return FixedWidthBackend(table)


def fit() -> tuple[list[str], list[int], list[int], list[int]]:
    """The table's column labels, content widths, narrowest widths and shrink order."""
    keys = [key for key, _, _ in COLUMNS]
    widths = [w for _, _, w in COLUMNS]
    mins = [MIN_WIDTHS.get(key, w) for key, w in zip(keys, widths, strict=True)]
    return (
        [label for _, label, _ in COLUMNS],
        widths,
        mins,
        [keys.index(k) for k in SHRINK_FIRST],
    )


def new_table(backend: Any, labels: list[str], width_hint: int) -> Any:
    """The cases table widget (id ``cases-table``) over ``backend``, fitted to ``width_hint``."""
    from textual_fastdatatable import DataTable

    _, widths, mins, order = fit()
    table = CasesTable(
        backend=backend,
        id="cases-table",
        cursor_type="row",
        render_markup=False,
        column_labels=labels,
        column_widths=widths,
        max_column_content_width=60,
        zebra_stripes=True,
    )
    assert isinstance(table, DataTable)
    fitted: Any = table
    fitted.set_fit(widths, mins, shrink_order=order, width_hint=width_hint)
    return table


def _cases_table_class() -> type:
    from nlu_tui.ui.widgets.fast_table import wide_table_class

    return wide_table_class()


class _LazyTable:
    """Creates the table class on first use, so importing this module does not load pyarrow."""

    _cls: type | None = None

    def __call__(self, **kwargs: Any) -> Any:
        if _LazyTable._cls is None:
            base = _cases_table_class()
            _LazyTable._cls = base
        return _LazyTable._cls(**kwargs)


CasesTable = _LazyTable()
