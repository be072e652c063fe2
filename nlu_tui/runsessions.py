"""Runs in progress inside the workbench, shared by the runs and results panes (no Textual).

A :class:`RunSession` wraps one :class:`~nlu_tui.runservice.RunJob` (the run service starts,
resumes and finishes runs for both faces): the runs pane opens it in an async worker and the
runner's progress callback fills it (rows and the last event); panes read it on a timer, so
however fast results arrive the screen is redrawn a few times a second at most. Sessions are kept per app (several runs may go at once on different suites).

A resumed run starts from what its earlier part stored: until the runner's first event its
progress is the stored record's counters, and the stored rows (loaded off the UI thread by
:func:`load_stored_rows`) are put in front of the streamed ones by :meth:`RunSession.seed`.
Rows are kept once per case id, whichever way they came.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from nlu_tui.model import RunStatus

if TYPE_CHECKING:
    from nlu_tui.reports.run_data import Row
    from nlu_tui.runner.events import ProgressEvent
    from nlu_tui.runservice import RunJob
    from nlu_tui.store import RunStore
    from nlu_tui.store.records import RunRecord
    from nlu_tui.views.result_columns import ResultColumns

    PreparedRows = tuple[ResultColumns, Any]
    """Table columns and their Arrow table, built in a worker thread."""


@dataclass
class RunSession:
    """One run the app started (new or resumed), while it runs and after it ended."""

    run: RunJob
    """The run service's job (``nlu_tui.runservice``): its id, cancel, progress callback."""
    suite_key: str
    suite_name: str
    engine_name: str
    stage: str
    total: int
    rows: list[Row] = field(default_factory=list)
    event: ProgressEvent | None = None
    record: RunRecord | None = None
    error: str | None = None
    cancel_requested: bool = False
    started: float = field(default_factory=time.monotonic)
    version: int = 0
    """Bumped on every progress event, so readers know when to redraw."""
    initial: ProgressEvent | None = None
    """What to show before the runner's first event (a resumed run's stored progress)."""
    seeded: bool = True
    """False while a resumed run's stored rows are still being loaded."""
    seed_count: int = 0
    """How many leading ``rows`` came from the store (the earlier part of a resumed run)."""
    seed_prepared: PreparedRows | None = None
    """Those rows as table columns, built off the UI thread (None when there are none)."""
    generation: int = 0
    """Bumped when ``rows`` are replaced rather than appended to, so readers start over."""
    by_id: dict[str, Row] = field(default_factory=dict)
    engine_spec: str = ""
    """The spec the user chose for a new run (remembered for the suite if the run succeeds)."""

    @property
    def run_id(self) -> str:
        return self.run.run_id

    @property
    def finished(self) -> bool:
        return self.record is not None or self.error is not None

    @property
    def status(self) -> RunStatus:
        if self.record is not None:
            return self.record.status
        if self.error is not None:
            return RunStatus.FAILED
        return RunStatus.RUNNING

    def progress(self) -> ProgressEvent | None:
        """The progress to show: the runner's last event (its counts include a resumed run's
        stored results), else the stored progress a resumed run starts from."""
        return self.event if self.event is not None else self.initial

    def on_progress(self, event: ProgressEvent) -> None:
        """The runner's callback (on the app's event loop): keep rows and the last event."""
        by_id = self.by_id
        for row in event.latest:
            case_id = row[2].case_id
            if case_id not in by_id:
                by_id[case_id] = row
                self.rows.append(row)
        self.event = event
        self.version += 1

    def seed(self, stored: list[Row], prepared: PreparedRows | None) -> None:
        """Put a resumed run's stored rows (unique by case id, with ``prepared`` built from
        exactly them) in front of the rows streamed so far; a case both stored and streamed
        (the store was read while the run went on) is kept once, as stored."""
        stored_ids = {r.case_id for _, _, r in stored}
        tail = [row for row in self.rows if row[2].case_id not in stored_ids]
        self.rows = [*stored, *tail]
        self.by_id = {row[2].case_id: row for row in self.rows}
        self.seed_count = len(stored)
        self.seed_prepared = prepared if stored else None
        self.seeded = True
        self.generation += 1
        self.version += 1

    def cancel(self) -> None:
        self.cancel_requested = True
        self.run.cancel()


def initial_progress(record: RunRecord) -> ProgressEvent:
    """A resumed run's progress before its first event: the stored counters, scored by the core."""
    from nlu_tui.runner.events import ProgressEvent

    return ProgressEvent.of_counts(
        record.id, record.counts(), record.total, rate=0.0, eta_s=None, elapsed_s=0.0
    )


def load_stored_rows(store: Any, run_id: str) -> tuple[list[Row], PreparedRows | None]:
    """A run's stored rows, once per case id, and their table columns (for a worker thread)."""
    from nlu_tui.views.result_columns import ResultColumns

    rows: list[Row] = []
    seen: set[str] = set()
    for row in store.load_results(run_id):
        case_id = row[2].case_id
        if case_id not in seen:
            seen.add(case_id)
            rows.append(row)
    if not rows:
        return rows, None
    columns = ResultColumns()
    columns.extend({c.id: c for c, _, _ in rows}, (r for _, _, r in rows))
    return rows, (columns, columns.to_arrow())


@runtime_checkable
class RunHost(Protocol):
    """What an app showing runs holds (:class:`~nlu_tui.ui.app.NluTuiApp` declares both)."""

    run_store: RunStore | None
    """The one run store the panes share, opened on first use by :func:`store_for`."""
    run_sessions: dict[str, RunSession]
    """The runs started in this app, by run id."""


def _host(app: object) -> RunHost:
    if not isinstance(app, RunHost):
        raise TypeError(f"{type(app).__name__} holds no run_store/run_sessions (see RunHost)")
    return app


def sessions(app: object) -> dict[str, RunSession]:
    """The app's run sessions by run id."""
    return _host(app).run_sessions


def active_sessions(app: Any, suite_key: str | None = None) -> list[RunSession]:
    """Sessions still running, optionally only those of one suite."""
    return [
        s
        for s in sessions(app).values()
        if not s.finished and (suite_key is None or s.suite_key == suite_key)
    ]


def suite_key_of(suite: Any) -> str:
    """How a suite is told apart: its resolved file path, else its name."""
    path = getattr(suite, "path", None)
    if path is not None:
        return str(path.expanduser().resolve())
    return str(getattr(suite, "name", ""))


def store_for(app: object) -> RunStore:
    """The app's one :class:`~nlu_tui.store.RunStore` (opened on first use, shared by panes)."""
    host = _host(app)
    if host.run_store is None:
        from nlu_tui.store import RunStore

        host.run_store = RunStore()
    return host.run_store
