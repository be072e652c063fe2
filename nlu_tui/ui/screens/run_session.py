"""Runs in progress inside the workbench, shared by the runs and results panes.

A :class:`RunSession` wraps one runner :class:`~nlu_tui.runner.run.Run`: the runs pane starts
it in an async worker and the runner's progress callback fills it (rows and the last event);
panes read it on a timer, so however fast results arrive the screen is redrawn a few times a
second at most. Sessions are kept per app (several runs may go at once on different suites).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nlu_tui.model import RunStatus

if TYPE_CHECKING:
    from nlu_tui.runner.events import ProgressEvent
    from nlu_tui.runner.run import Run
    from nlu_tui.store.records import RunRecord
    from nlu_tui.ui.widgets.results_data import Row


@dataclass
class RunSession:
    """One run the app started (new or resumed), while it runs and after it ended."""

    run: Run
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

    def on_progress(self, event: ProgressEvent) -> None:
        """The runner's callback (on the app's event loop): keep rows and the last event."""
        if event.latest:
            self.rows.extend(event.latest)
        self.event = event
        self.version += 1

    def cancel(self) -> None:
        self.cancel_requested = True
        self.run.cancel()


def sessions(app: Any) -> dict[str, RunSession]:
    """The app's run sessions by run id (created on first use)."""
    found: dict[str, RunSession] | None = getattr(app, "_nlu_run_sessions", None)
    if found is None:
        found = {}
        app._nlu_run_sessions = found
    return found


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


def store_for(app: Any) -> Any:
    """The app's one :class:`~nlu_tui.store.RunStore` (opened on first use, shared by panes)."""
    store = getattr(app, "run_store", None) or getattr(app, "_nlu_run_store", None)
    if store is None:
        from nlu_tui.store import RunStore

        store = RunStore()
        app._nlu_run_store = store
    return store


def show_main_tab(widget: Any, pane_id: str) -> None:
    """Switch the main screen's tabs (``tab-runs``, ``tab-results``) from a pane on it."""
    from textual.widgets import TabbedContent

    for tabs in widget.screen.query(TabbedContent):
        if tabs.id == "main-tabs":
            tabs.active = pane_id
            return
    show_tab = getattr(widget.app, "show_tab", None)
    if show_tab is not None:
        show_tab(pane_id)
