"""Simulated conversations (``nlu-tui simulate``) in the workbench: the simulate runs of the
store, and for the selected one the per-scenario pass rates with their 95 % intervals and every
conversation with its transcript, assertions and judged criteria (:mod:`nlu_tui.views.
simulate_view`). A run started here (``s``) shows each turn as it is taken."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Static

from nlu_tui.textsafe import inert
from nlu_tui.ui.widgets.inert_fields import TextField
from nlu_tui.ui.workers import ReportsFailedWorkers
from nlu_tui.views.simulate_view import RUN_COLUMNS, live_lines, run_lines, run_row


class SimulateScreen(ReportsFailedWorkers, ModalScreen[None]):
    DEFAULT_CSS = """
    SimulateScreen { align: center middle; }
    SimulateScreen > Vertical {
        width: 95%; height: 95%;
        border: thick $primary 60%; background: $surface; padding: 0 1;
    }
    SimulateScreen #sim-runs { height: 8; }
    SimulateScreen #sim-detail { height: 1fr; }
    SimulateScreen #sim-start { height: auto; display: none; }
    SimulateScreen #sim-start.shown { display: block; }
    SimulateScreen #sim-start Input { width: 1fr; }
    """
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="simulate.close", tooltip="Close"),
        Binding("s", "start_form", "Simulate", id="simulate.start", tooltip="Start a simulation"),
        Binding("r", "reload", "Reload", id="simulate.reload", tooltip="Re-read the runs"),
    ]

    def __init__(self, workspace: Path | None = None) -> None:
        super().__init__()
        self.workspace = workspace
        self.records: list[Any] = []
        self.live: list[str] = []
        self.running: Any = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Simulated conversations", style="bold"), id="sim-title")
            yield DataTable(id="sim-runs", cursor_type="row", zebra_stripes=True)
            with Horizontal(id="sim-start"):
                yield TextField(placeholder="scenario file", id="sim-file")
                yield TextField(placeholder="engine (profile or rasa:URL)", id="sim-engine")
                yield TextField(placeholder="runs", id="sim-count", value="1")
                yield Button("Run", id="sim-go")
            yield Label("", id="sim-live-title")
            with VerticalScroll(id="sim-detail"):
                yield Static("", id="sim-text")

    def on_mount(self) -> None:
        table = self.query_one("#sim-runs", DataTable)
        table.add_columns(*RUN_COLUMNS)
        self.action_reload()

    def action_reload(self) -> None:
        from nlu_tui.runsessions import store_for

        store = store_for(self.app)
        self.records = sorted(
            (r for r in store.list_runs() if r.kind == "simulate"),
            key=lambda r: r.started_at,
            reverse=True,
        )
        table = self.query_one("#sim-runs", DataTable)
        table.clear()
        for record in self.records:
            table.add_row(*(inert(c, newlines=False) for c in run_row(record)), key=record.id)
        if not self.records:
            self._show(["No simulate run yet: press s, or run `nlu-tui simulate FILE --engine E`."])
        else:
            self._show_run(self.records[0].id)

    @on(DataTable.RowHighlighted, "#sim-runs")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is not None and event.row_key.value is not None and self.running is None:
            self._show_run(str(event.row_key.value))

    def _show_run(self, run_id: str) -> None:
        from nlu_tui.runsessions import store_for

        items = store_for(self.app).load_items(run_id)
        self._show(run_lines(items))

    def _show(self, lines: list[str]) -> None:
        self.query_one("#sim-text", Static).update(Text("\n".join(inert(x) for x in lines)))

    # --- a run started here, shown turn by turn -------------------------------------------

    def action_start_form(self) -> None:
        self.query_one("#sim-start").add_class("shown")
        self.query_one("#sim-file", Input).focus()

    @on(Button.Pressed, "#sim-go")
    def _go(self) -> None:
        from nlu_tui.conversation.simulate import SimulateRequest

        file = self.query_one("#sim-file", Input).value.strip()
        engine = self.query_one("#sim-engine", Input).value.strip()
        count = self.query_one("#sim-count", Input).value.strip() or "1"
        if not count.isdigit():
            self.notify("runs must be a whole number", severity="error")
            return
        path = Path(file).expanduser()
        if not path.is_absolute() and self.workspace is not None:
            path = self.workspace / path
        request = SimulateRequest(
            path=path, engine=engine or None, runs=int(count), workspace=self.workspace
        )
        self._run(request)

    @work(
        exclusive=True,
        group="simulate",
        exit_on_error=False,
        name="simulate-run",
        description="Running the simulated conversations",
    )
    async def _run(self, request: Any) -> None:
        from nlu_tui.conversation.simulate import open_simulate_run
        from nlu_tui.errors import NluTuiError
        from nlu_tui.runsessions import store_for

        try:
            run = open_simulate_run(request, store_for(self.app))
        except NluTuiError as exc:
            self.notify(str(exc), title="Cannot simulate", severity="error", markup=False)
            return
        self.running = run
        self.live = []
        run.on_progress = self._progress
        record = run.prepare()
        self.query_one("#sim-live-title", Label).update(
            inert(f"Running {record.id}: {record.suite_name} on {record.engine_name}")
        )
        try:
            final = await run.execute()
        finally:
            self.running = None
        self.query_one("#sim-live-title", Label).update(
            inert(f"Run {final.id} {final.status.value}")
        )
        self.action_reload()

    def _progress(self, progress: Any) -> None:
        if progress.live is not None:
            self.live += live_lines(progress.live)
        elif progress.last is not None:
            d = progress.last.data
            self.live.append(
                f"[{progress.done}/{progress.total}] {progress.last.outcome.upper()} "
                f"{d.get('name')} #{d.get('repeat')}"
            )
        else:
            return
        self._show(self.live[-400:])

    def action_close(self) -> None:
        if self.running is not None:
            self.running.cancel()
        self.dismiss(None)


def open_simulate(app: Any, workspace: Path | None = None) -> None:
    app.push_screen(SimulateScreen(workspace))
