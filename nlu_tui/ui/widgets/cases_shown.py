"""What the cases table shows: the open suite's rows, built in workers, and their problems.

Filtering and sorting build a new Arrow table in a thread worker (``cases_rows``) and swap the
table's rows in place; a suite being read shows its first rows as they come (``show_partial``)
and a preview of the first screenful before the table exists (``show_preview``); the problems
of the cases are checked in another worker. :class:`CasesShown` is a base of
:class:`~nlu_tui.ui.widgets.cases_view.CasesView`, which holds the keys and the status line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from textual import on, work
from textual.worker import Worker, WorkerState, get_current_worker

from nlu_tui.model import Suite, TestCase
from nlu_tui.ui.widgets.cases_area import CasesArea
from nlu_tui.ui.widgets.cases_edits import CaseEdits, suite_label
from nlu_tui.ui.widgets.cases_filter import CasesFilter
from nlu_tui.ui.widgets.cases_rows import fit, make_backend, new_table
from nlu_tui.ui.workers import describe
from nlu_tui.views.cases import (
    COLUMNS,
    RowCache,
    build_arrow,
    format_row,
    validate_problems,
    view_table,
)


class CasesShown(CaseEdits):
    """The rows of the open suite as the table shows them (filtered, sorted, marked)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.problems: dict[str, int] = {}
        self.problem_text: dict[str, list[str]] = {}
        self.sort: tuple[str, bool] | None = None
        self.view_cases: list[TestCase] = []
        self.view_positions: Any = None
        self._row_cache: RowCache = {}
        self._full: tuple[int, Any] | None = None
        self._data_version = 0
        self.last_build_ms: float = 0.0
        self.views_shown = 0
        """How many times rows were put on screen (a mount or an in-place swap); tests and the
        benchmark wait on it."""
        self.loading_fraction = 0.0
        self.partial_views = 0
        """How many times a still-loading suite's rows were put on screen."""
        self.wants_preview = True
        """True until the first suite's first rows are drawn: they are drawn by a
        :class:`TablePreview` at once, while the table and its Arrow data are built."""

    def _update_status(self) -> None:
        raise NotImplementedError

    @property
    def area(self) -> CasesArea:
        return self.query_one(CasesArea)

    @property
    def previewing(self) -> bool:
        """A preview is on screen (the real table is being built)."""
        return self.area.previewing

    chunk_size = 2000
    """Cases per progressive-load chunk (tests use smaller ones)."""

    def show_loading(self, path: Path) -> None:
        self.loading_path = path
        self.loading_fraction = 0.0
        self.view_cases = []
        self.view_positions = None
        self.area.show_text(f"Loading {path.name}…", loading=True)
        self._update_status()

    def show_error(self, text: str) -> None:
        self.loading_path = None
        self.view_cases = []
        self.view_positions = None
        self.area.show_text(text)

    def show_partial(
        self, path: Path, cases: list[TestCase], positions: Any, backend: Any, fraction: float
    ) -> None:
        """Show the first cases of a suite still being read (file order, read-only)."""
        if self.loading_path != path:
            return  # a stale chunk of a suite no longer being opened
        self.view_cases = cases
        self.view_positions = positions
        self.loading_fraction = fraction
        self.partial_views += 1
        if self.area.swap_rows(backend):
            self.views_shown += 1
            self._update_status()
            return
        self.area.show(self._new_table(backend, [label for _, label, _ in COLUMNS]))

    def show_preview(
        self,
        path: Path | None,
        cases: Sequence[TestCase],
        total_rows: int,
        then: Callable[[], object],
    ) -> None:
        """Draw the first screenful of ``cases`` (a :class:`TablePreview`), then call ``then``
        once it is on screen, to build the real table. Stale (another suite is being opened
        by now): nothing is drawn and ``then`` is called at once."""
        self.wants_preview = False
        current = self.loading_path or (self.suite.path if self.suite is not None else None)
        if path != current:
            then()
            return
        from nlu_tui.ui.widgets.table_preview import TablePreview

        labels, widths, steps, flex = fit()
        page = max(self.size.height, 50)
        rows = [(n, "", None, *format_row(case)[:6]) for n, case in enumerate(cases[:page], 1)]
        self.area.previewing = True
        preview = TablePreview(
            labels,
            rows,
            total_rows=total_rows,
            widths=widths,
            steps=steps,
            flex=flex,
            id="cases-preview",
        )
        self.area.show(preview, then=then)

    @property
    def table(self) -> Any:
        return self.area.table

    def focus_table(self) -> None:
        """Focus the cases table; while it is being built (its preview shows, the suite is
        read), it takes the focus as soon as it is there, with the keys typed meanwhile."""
        table = self.table
        if table is not None:
            table.focus()
        elif self.area.previewing or self.area.pending or self.loading_path is not None:
            self.area.want_focus()

    def reuse_rows(self, cache: RowCache) -> None:
        """Keep rows formatted during a progressive load for the complete suite's build."""
        self._row_cache = cache

    @on(Worker.StateChanged)
    def _build_failed(self, event: Worker.StateChanged) -> None:
        """A table that could not be built says so where it would be (the failure itself is
        notified and logged by :func:`~nlu_tui.ui.workers.report_failed_worker`)."""
        worker = event.worker
        if event.state is not WorkerState.ERROR or worker.group != "cases-build":
            return
        if worker.is_cancelled or self.suite is None:
            return
        self.show_error(
            f"{suite_label(self.suite)}: the cases could not be shown ({type(worker.error).__name__}: "
            f"{worker.error}). The details are in the log file; pick the suite again to retry."
        )

    def _rebuild_validated(self) -> None:
        self.rebuild(validate=True)

    def rebuild(self, *, validate: bool = False, keep_cursor: str | None = None) -> None:
        """Recompute the rows (in a worker) and then the problems, when asked."""
        if self.suite is None or self.loading_path is not None:
            return
        query = self.query_one(CasesFilter).query_text
        cursor_id = keep_cursor or self.cursor_case_id()
        self._build(self.suite, query, self.sort, self._data_version, cursor_id, validate)

    def cases_changed(self, cursor: str | None = None) -> None:
        self._invalidate()
        self.rebuild(validate=True, keep_cursor=cursor)

    def _invalidate(self) -> None:
        """The rows' content changed (cases, marks or problems): rebuild the full table."""
        self._data_version += 1

    @work(
        thread=True,
        exclusive=True,
        group="cases-build",
        exit_on_error=False,
        name="cases-build",
        description="Showing the cases",
    )
    def _build(
        self,
        suite: Suite,
        query: str,
        sort: tuple[str, bool] | None,
        version: int,
        cursor_id: str | None,
        validate: bool,
    ) -> None:
        import time

        started = time.perf_counter()
        describe(f"Showing the cases of {suite_label(suite)}")
        worker = get_current_worker()
        cases = suite.cases
        cached = self._full
        if cached is not None and cached[0] == version:
            full = cached[1]
        else:
            full = build_arrow(cases, set(self.selected), dict(self.problems), self._row_cache)
            self._full = (version, full)
        if worker.is_cancelled:
            return
        table = view_table(full, query, sort)
        positions = table.column("n").combine_chunks()
        row: int | None = None
        if cursor_id is not None:
            at = next((i for i, c in enumerate(cases) if c.id == cursor_id), None)
            if at is not None:
                import pyarrow.compute as pc

                found = pc.index(positions, at + 1).as_py()
                row = found if found >= 0 else None
        backend = make_backend(table)
        # the table widget's module, imported here rather than in the UI thread
        import textual_fastdatatable.data_table  # noqa: F401

        elapsed = (time.perf_counter() - started) * 1000
        if worker.is_cancelled:
            return
        self.app.call_from_thread(self._mount_table, suite, cases, backend, positions, row, elapsed)
        if validate:
            self.app.call_from_thread(self._validate_later, suite)

    def _mount_table(
        self,
        suite: Suite,
        cases: list[TestCase],
        backend: Any,
        positions: Any,
        row: int | None,
        ms: float,
    ) -> None:
        if suite is not self.suite or cases is not suite.cases or self.loading_path is not None:
            return
        self.view_cases = cases
        self.view_positions = positions
        self.last_build_ms = ms
        labels = [self._label(key, label) for key, label, _ in COLUMNS]
        # a new sort, filter or edit of the table on screen: its rows are swapped in place
        if self.area.swap_rows(backend, cursor_row=row or 0, column_labels=labels):
            self.views_shown += 1
            self._update_status()
            return
        self.area.show(self._new_table(backend, labels), row)

    def _new_table(self, backend: Any, labels: list[str]) -> Any:
        return new_table(backend, labels, self.area.cells_width(backend.row_count))

    def _validate_later(self, suite: Suite) -> None:
        self._validate_worker(suite, suite.cases)

    @work(
        thread=True,
        exclusive=True,
        group="cases-validate",
        exit_on_error=False,
        name="cases-validate",
        description="Checking the cases for problems",
    )
    def _validate_worker(self, suite: Suite, cases: list[TestCase]) -> None:
        worker = get_current_worker()
        problems = validate_problems(suite)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._problems_ready, suite, cases, problems)

    @property
    def view_ids(self) -> list[str]:
        """Case ids in the order the table shows them."""
        cases = self.view_cases
        return [cases[n - 1].id for n in self.view_positions.to_pylist()] if cases else []

    @property
    def shown_count(self) -> int:
        return len(self.view_positions) if self.view_positions is not None else 0

    def _label(self, key: str, label: str) -> str:
        if self.sort and self.sort[0] == key:
            return f"{label} {'▼' if self.sort[1] else '▲'}"
        return label

    def _problems_ready(
        self, suite: Suite, cases: list[TestCase], problems: dict[str, list[str]]
    ) -> None:
        if suite is not self.suite or cases is not suite.cases:
            return
        self.problem_text = problems
        counts = {cid: len(p) for cid, p in problems.items() if p}
        if counts != self.problems:
            self.problems = counts
            self._invalidate()
            self.rebuild()
        self._update_status()

    def cursor_case_id(self) -> str | None:
        table = self.table
        if table is None or not self.shown_count:
            return None
        row = table.cursor_row
        if not 0 <= row < self.shown_count:
            return None
        n: int = self.view_positions[row].as_py()
        return self.view_cases[n - 1].id
