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
from nlu_tui.ui.widgets.fast_table import GiveWay, give_way_steps
from nlu_tui.views.cases import COLUMNS, RowCache, build_arrow

GIVE_WAY: list[GiveWay] = [
    ("tags", None),
    ("order", None),
    ("intents", 16),
    ("parent", 8),
    ("entities", 12),
    ("utterance", 46),
    ("entities", None),
    ("parent", None),
    ("utterance", 29),
    ("intents", None),
]
"""How the cases table's columns give way to the utterance when the table is narrower than
them (see :func:`~nlu_tui.ui.widgets.fast_table.fit_widths`): Tags and Order leave the screen
first (a scroll right away), then Intents, Parent and Entities shrink, the utterance down to
46 cells (45 characters and "…"), Entities and Parent leave, the utterance down to 29, and
last Intents leaves. At 120×35 with the suites panel that shows #, the utterance (49 cells),
Intents and Parent; at 80×24, #, the utterance (35 cells)."""
UTTERANCE_WIDTH = 60
"""The utterance's wanted width: it takes up to this much before the columns after it grow."""


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


def fit() -> tuple[list[str], list[int], list[tuple[int, int | None]], int]:
    """The table's column labels, wanted content widths, give-way steps and flex column."""
    keys = [key for key, _, _ in COLUMNS]
    widths = [UTTERANCE_WIDTH if key == "utterance" else w for key, _, w in COLUMNS]
    return (
        [label for _, label, _ in COLUMNS],
        widths,
        give_way_steps(keys, GIVE_WAY),
        keys.index("utterance"),
    )


def new_table(backend: Any, labels: list[str], width_hint: int) -> Any:
    """The cases table widget (id ``cases-table``) over ``backend``, fitted to ``width_hint``."""
    from textual_fastdatatable import DataTable

    _, widths, steps, flex = fit()
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
    fitted.set_fit(widths, steps, flex=flex, width_hint=width_hint)
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
