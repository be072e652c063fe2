"""Evaluate a training file (``*.nlu.yml``): held-out split, cross-validation or comparison.

The screen gathers the options of the chosen mode (split: training fraction; cross-validation:
folds and runs; comparison: runs, excluded percentages and the configurations), then awaits
:func:`nlu_tui.evaluation.service.evaluate` in a worker. The Progress tab lists each fold or
configuration with its state and time as it goes (a running unit's seconds count up), Cancel
stops after the unit under way (finished folds stay stored), and the results follow in tabs:
Figures (per-fold table with mean ± std, or the comparison's F1 per percentage), Intents (the
per-intent report of any report directory written), Confusion, and the F1 curve. Report files
go to ``results/<file>-<mode>/`` in the workspace, as ``rasa test nlu`` writes ``results/``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, ScrollableContainer
from textual.screen import Screen
from textual.widgets import Button, DataTable, Input, Select, Static, TabbedContent, TabPane
from textual.widgets.data_table import ColumnKey

from nlu_tui.errors import InputError, NluTuiError
from nlu_tui.runsessions import store_for
from nlu_tui.textsafe import inert
from nlu_tui.ui.state import hosting_workbench
from nlu_tui.ui.widgets.charts import Chart
from nlu_tui.ui.widgets.footer import BudgetFooter
from nlu_tui.ui.widgets.inert_fields import TextField
from nlu_tui.ui.workers import ReportsFailedWorkers

if TYPE_CHECKING:
    from nlu_tui.evaluation.service import Cancel, EvalOutcome, EvalRequest

MODES = (
    ("Held-out split", "split"),
    ("Cross-validation", "cross-validation"),
    ("Compare configs", "comparison"),
)
OPTIONS: dict[str, tuple[str, ...]] = {
    "split": ("eval-fraction", "eval-configs"),
    "cross-validation": ("eval-folds", "eval-runs", "eval-jobs", "eval-configs"),
    "comparison": ("eval-runs", "eval-percentages", "eval-jobs", "eval-configs"),
}
"""The option inputs each mode shows (the others are hidden)."""
DEFAULT_RUNS = {"cross-validation": "1", "comparison": "3"}
CONFIG_GLOBS = ("*.config.yml", "*.config.yaml")


def workspace_configs(workspace: Path) -> list[str]:
    """Training configurations at the workspace's top level (``*.config.yml``), by name."""
    found = {p.name for pattern in CONFIG_GLOBS for p in Path(workspace).glob(pattern)}
    return sorted(found)


class EvaluateScreen(ReportsFailedWorkers, Screen[None]):
    """Train and test one NLU training file."""

    DEFAULT_CSS = """
    EvaluateScreen #eval-title { height: 1; padding: 0 1; background: $boost; }
    EvaluateScreen .eval-row { height: 3; }
    EvaluateScreen #eval-mode { width: 26; }
    EvaluateScreen #eval-engine { width: 1fr; }
    EvaluateScreen #eval-seed { width: 10; }
    EvaluateScreen #eval-folds, EvaluateScreen #eval-runs, EvaluateScreen #eval-jobs { width: 11; }
    EvaluateScreen #eval-fraction { width: 20; }  /* "train fraction" whole in the border */
    EvaluateScreen #eval-percentages { width: 1fr; }
    EvaluateScreen #eval-configs { width: 2fr; }
    EvaluateScreen Button { min-width: 8; width: auto; }
    EvaluateScreen #eval-tabs { height: 1fr; }
    EvaluateScreen #eval-progress { height: 1fr; }
    EvaluateScreen #eval-report { width: 1fr; }
    EvaluateScreen #eval-intents { height: 1fr; }
    EvaluateScreen #eval-fold-table { height: auto; max-height: 100%; display: none; }
    EvaluateScreen .eval-scroll { height: 1fr; }
    EvaluateScreen #eval-text, EvaluateScreen #eval-confusion { width: auto; }
    EvaluateScreen TabPane { padding: 0; }
    """

    BINDINGS = [
        Binding(
            "escape",
            "back",
            "Back",
            id="eval.back",
            tooltip="Back to the workbench (asks first while an evaluation is under way).",
        ),
        Binding("ctrl+s", "start", "Start", id="eval.start", tooltip="Train and test."),
        Binding(
            "ctrl+k,f8",
            "cancel",
            "Cancel",
            key_display="^k",
            priority=True,  # an Input would take Ctrl+K (delete to the end) otherwise
            id="eval.cancel",
            tooltip="Stop after the unit under way; finished folds are kept.",
        ),
        Binding(
            "f6",
            "next_tab(1)",
            "Next tab",
            id="eval.next-tab",
            tooltip="Show the next tab: Progress, Figures, Intents, Confusion, F1 curve.",
        ),
        Binding(
            "shift+f6",
            "next_tab(-1)",
            "Previous tab",
            show=False,
            id="eval.previous-tab",
            tooltip="Show the previous result tab.",
        ),
    ]
    TABS = (
        "eval-tab-progress",
        "eval-tab-figures",
        "eval-tab-intents",
        "eval-tab-confusion",
        "eval-tab-curve",
    )

    def __init__(self, path: Path, workspace: Path) -> None:
        super().__init__()
        self.path = Path(path)
        self.workspace = Path(workspace)
        self._cancel: Cancel | None = None
        self._unit_rows: dict[str, int] = {}
        self._under_way: dict[str, float] = {}
        """Units under way: when they started (their seconds count up)."""
        self._unit_columns: list[ColumnKey] = []
        self._report_dirs: list[tuple[str, Path]] = []
        self._auto_configs: str | None = None
        """The configurations the comparison mode filled in (taken out again for the others)."""
        self.outcome: EvalOutcome | None = None

    def compose(self) -> ComposeResult:
        yield Static(inert(f"Evaluate {self.path.name}"), id="eval-title", markup=False)
        with Horizontal(classes="eval-row"):
            yield Select(MODES, value="cross-validation", allow_blank=False, id="eval-mode")
            yield TextField("embedded", placeholder="engine", compact=False, id="eval-engine")
            yield TextField("42", placeholder="seed", compact=False, id="eval-seed")
            yield Button("Start", id="eval-start", variant="primary")
            yield Button("Cancel", id="eval-cancel", disabled=True)
        with Horizontal(classes="eval-row"):
            yield TextField("0.8", placeholder="0.8", compact=False, id="eval-fraction")
            yield TextField("5", placeholder="5", compact=False, id="eval-folds")
            yield TextField("1", placeholder="1", compact=False, id="eval-runs")
            yield TextField(
                "0 25 50 75", placeholder="0 25 50 75", compact=False, id="eval-percentages"
            )
            yield TextField(
                "1",
                placeholder="1",
                compact=False,
                id="eval-jobs",
                tooltip="Folds or configurations trained at once, in processes (embedded engine)",
            )
            yield TextField(
                "", placeholder="config files, space-separated", compact=False, id="eval-configs"
            )
        with TabbedContent(id="eval-tabs", initial="eval-tab-progress"):
            with TabPane("Progress", id="eval-tab-progress"):
                yield DataTable(id="eval-progress", cursor_type="row")
            with (
                TabPane("Figures", id="eval-tab-figures"),
                ScrollableContainer(classes="eval-scroll"),
            ):
                yield DataTable(id="eval-fold-table", cursor_type="row", show_cursor=False)
                yield Static(
                    "Pick a mode and its options, then Start (Ctrl+S).",
                    id="eval-text",
                    markup=False,
                )
            with TabPane("Intents", id="eval-tab-intents"):
                yield Select([], prompt="report", id="eval-report")
                yield DataTable(id="eval-intents", cursor_type="row")
            with (
                TabPane("Confusion", id="eval-tab-confusion"),
                ScrollableContainer(classes="eval-scroll"),
            ):
                yield Static("", id="eval-confusion")
            with (
                TabPane("F1 curve", id="eval-tab-curve"),
                ScrollableContainer(classes="eval-scroll", id="eval-curve-box"),
            ):
                yield Chart(id="eval-curve")
        yield BudgetFooter()

    def on_mount(self) -> None:
        table = self.query_one("#eval-progress", DataTable)
        self._unit_columns = table.add_columns("unit", "state", "seconds")
        from nlu_tui.evaluation.text import FOLD_COLUMNS

        self.query_one("#eval-fold-table", DataTable).add_columns(*FOLD_COLUMNS)
        self.query_one("#eval-intents", DataTable).add_columns(
            "intent", "precision", "recall", "F1", "support", "confused with"
        )
        titles = {
            "eval-engine": "engine",
            "eval-seed": "seed",
            "eval-fraction": "train fraction",
            "eval-folds": "folds",
            "eval-runs": "runs",
            "eval-percentages": "exclude %",
            "eval-jobs": "jobs",
            "eval-configs": "configs",
        }
        for widget_id, title in titles.items():
            self.query_one(f"#{widget_id}", Input).border_title = title
        self._show_options("cross-validation")
        self.query_one("#eval-curve", Chart).update(
            "The F1 curve is drawn by a comparison of configurations."
        )
        self.set_interval(1.0, self._tick)

    def action_next_tab(self, step: int) -> None:
        tabs = self.query_one("#eval-tabs", TabbedContent)
        index = self.TABS.index(tabs.active) if tabs.active in self.TABS else 0
        tabs.active = self.TABS[(index + step) % len(self.TABS)]

    # --- options ------------------------------------------------------------------------------

    def _show_options(self, mode: str) -> None:
        shown = OPTIONS.get(mode, ())
        for widget_id in (
            "eval-fraction",
            "eval-folds",
            "eval-runs",
            "eval-percentages",
            "eval-jobs",
        ):
            self.query_one(f"#{widget_id}", Input).display = widget_id in shown
        configs = self.query_one("#eval-configs", Input)
        configs.border_title = "configs to compare" if mode == "comparison" else "config"
        runs = self.query_one("#eval-runs", Input)
        if mode in DEFAULT_RUNS and runs.value in DEFAULT_RUNS.values():
            runs.value = DEFAULT_RUNS[mode]
        if mode == "comparison" and not configs.value.strip():
            configs.value = self._auto_configs = " ".join(workspace_configs(self.workspace))
        elif mode != "comparison" and configs.value and configs.value == self._auto_configs:
            # the configurations offered for a comparison are not this mode's (it takes one)
            configs.value = ""

    @on(Select.Changed, "#eval-mode")
    def _mode_changed(self, event: Select.Changed) -> None:
        self._show_options(str(event.value))

    def _number(self, widget_id: str, kind: type[int] | type[float], what: str) -> Any:
        text = self.query_one(f"#{widget_id}", Input).value.strip()
        try:
            return kind(text)
        except ValueError:
            raise InputError(f"{what}: not a number: {text!r}", field=what) from None

    def _request(self) -> EvalRequest:
        from nlu_tui.evaluation import service

        mode = str(self.query_one("#eval-mode", Select).value)
        seed_text = self.query_one("#eval-seed", Input).value.strip()
        seed = self._number("eval-seed", int, "seed") if seed_text else None
        folds = self._number("eval-folds", int, "folds") if mode == service.CROSS_VALIDATION else 5
        runs = self._number("eval-runs", int, "runs") if mode != service.SPLIT else 1
        jobs = self._number("eval-jobs", int, "jobs") if mode != service.SPLIT else 1
        fraction = (
            self._number("eval-fraction", float, "train fraction") if mode == service.SPLIT else 0.8
        )
        percentages = [0, 25, 50, 75]
        if mode == service.COMPARISON:
            text = self.query_one("#eval-percentages", Input).value
            try:
                percentages = [int(p) for p in text.replace(",", " ").split()]
            except ValueError:
                raise InputError(
                    f"exclude %: whole numbers separated by spaces, not {text!r}", field="exclude %"
                ) from None
        configs = [
            (self.workspace / c) if not Path(c).is_absolute() else Path(c)
            for c in self.query_one("#eval-configs", Input).value.split()
        ]
        return service.EvalRequest(
            nlu=self.path,
            engine=self.query_one("#eval-engine", Input).value.strip() or "embedded",
            mode=mode,
            configs=configs,
            folds=folds,
            seed=seed,
            runs=runs,
            jobs=jobs,
            percentages=percentages,
            training_fraction=fraction,
            out=self.workspace / "results" / f"{self.path.name.split('.')[0]}-{mode}",
            workspace=self.workspace,
            plots=False,  # drawing them would hold the screen for seconds
        )

    # --- running ------------------------------------------------------------------------------

    @on(Button.Pressed, "#eval-start")
    def action_start(self) -> None:
        if self._cancel is not None:
            return
        try:
            request = self._request()
        except NluTuiError as exc:
            self.notify(inert(str(exc)), severity="error", markup=False)
            return
        self.query_one("#eval-progress", DataTable).clear()
        self._unit_rows.clear()
        self._under_way.clear()
        self.query_one("#eval-text", Static).update("planning…")
        self.query_one("#eval-fold-table", DataTable).display = False
        self.query_one("#eval-tabs", TabbedContent).active = "eval-tab-progress"
        self._evaluate(request)

    def action_back(self) -> None:
        """Back to the workbench; leaving stops an evaluation under way, so that asks first."""
        if self._cancel is None:
            self.app.pop_screen()
            return
        from nlu_tui.ui.screens.dialogs import ConfirmDialog

        def leave(confirmed: bool | None) -> None:
            if confirmed and self.is_attached and self.app.screen is self:
                self.action_cancel()
                self.app.pop_screen()

        self.app.push_screen(
            ConfirmDialog(
                "Leave and cancel the evaluation?",
                "The folds and configurations finished so far stay in the store.",
                yes="Leave (y)",
                no="Stay (n)",
            ),
            leave,
        )

    @on(Button.Pressed, "#eval-cancel")
    def action_cancel(self) -> None:
        cancel = self._cancel
        if cancel is not None:
            cancel.set()
            self.notify("Canceling after the unit under way; finished units are kept.")

    def _progress(self, key: str, state: str, seconds: float | None) -> None:
        table = self.query_one("#eval-progress", DataTable)
        if state == "training":
            self._under_way[key] = time.monotonic()
        finished = state in ("done", "failed")
        if finished:
            self._under_way.pop(key, None)
        took = f"{seconds:.1f}" if seconds is not None and finished else ""
        if key not in self._unit_rows:
            self._unit_rows[key] = len(self._unit_rows)
            table.add_row(inert(key), state, took, key=key)
        else:
            table.update_cell(key, self._unit_columns[1], state)
            if took or finished:
                table.update_cell(key, self._unit_columns[2], took)
        table.move_cursor(row=self._unit_rows[key])

    def _tick(self) -> None:
        """Count up the seconds of the units under way."""
        if not self._under_way:
            return
        table = self.query_one("#eval-progress", DataTable)
        now = time.monotonic()
        for key, started in self._under_way.items():
            if key in self._unit_rows:
                table.update_cell(key, self._unit_columns[2], f"{now - started:.0f}…")

    @work(
        exclusive=True,
        group="evaluate",
        exit_on_error=False,
        name="evaluate",
        description="Evaluating the training data",
    )
    async def _evaluate(self, request: EvalRequest) -> None:
        import asyncio

        from nlu_tui.evaluation import service

        text = self.query_one("#eval-text", Static)
        try:
            plan = await asyncio.to_thread(service.plan, request)
        except NluTuiError as exc:
            self._failed(exc)
            return
        cancel = service.Cancel()
        self._cancel = cancel
        self.query_one("#eval-cancel", Button).disabled = False
        text.update("running…")
        try:
            outcome = await service.evaluate(plan, store_for(self.app), self._progress, cancel)
        except NluTuiError as exc:
            self._failed(exc)
            return
        finally:
            self._cancel = None
            self._under_way.clear()
            self.query_one("#eval-cancel", Button).disabled = True
            self._history_changed()
        self.show_outcome(outcome, plan.request, plan.dropped)

    def _failed(self, exc: NluTuiError) -> None:
        """Bad input or a failed training: the message in the Figures tab and as a toast
        (the tab's text does not wrap; the toast does, at any width)."""
        self.query_one("#eval-text", Static).update(inert(str(exc)))
        self.query_one("#eval-tabs", TabbedContent).active = "eval-tab-figures"
        self.notify(inert(str(exc)), severity="error", markup=False, timeout=10)

    def _history_changed(self) -> None:
        """The evaluation stored runs (finished, canceled or failed): the workbench's Runs tab
        and suites panel under this screen read the history again."""
        from nlu_tui.ui.widgets.runs_pane import RunsPane

        for screen in self.app.screen_stack:
            for pane in screen.query(RunsPane):
                pane.reload()
        host = hosting_workbench(self)
        if host is not None:
            host.refresh_suites()

    # --- results ------------------------------------------------------------------------------

    def show_outcome(
        self, outcome: EvalOutcome, request: EvalRequest, dropped: dict[str, int]
    ) -> None:
        """Fill the result tabs from a finished (or canceled) evaluation."""
        from nlu_tui.evaluation import service
        from nlu_tui.evaluation.results import report_dirs
        from nlu_tui.evaluation.text import fold_cells, outcome_lines

        self.outcome = outcome
        folds = self.query_one("#eval-fold-table", DataTable)
        folds.clear()
        folds.display = outcome.mode == service.CROSS_VALIDATION
        for cells in fold_cells(outcome):
            folds.add_row(*(inert(c) for c in cells), *([""] * (8 - len(cells))))
        lines = outcome_lines(outcome, request.percentages, fold_table=False)
        if dropped:
            listed = ", ".join(f"{k} ({v})" for k, v in dropped.items())
            lines.insert(0, f"dropped intents with too few examples: {listed}")
        self.query_one("#eval-text", Static).update(inert("\n".join(lines)))
        self._report_dirs = report_dirs(outcome.files, request.out)
        select = self.query_one("#eval-report", Select)
        with select.prevent(Select.Changed):
            select.set_options(
                [(inert(label), str(i)) for i, (label, _d) in enumerate(self._report_dirs)]
            )
            if self._report_dirs:
                select.value = "0"
        self._show_report(self._report_dirs[0][1] if self._report_dirs else None)
        chart = self.query_one("#eval-curve", Chart)
        if outcome.mode == service.COMPARISON:
            chart.set_f1_curve(outcome.results, outcome.examples)
        tabs = self.query_one("#eval-tabs", TabbedContent)
        tabs.active = "eval-tab-curve" if outcome.mode == service.COMPARISON else "eval-tab-figures"
        self.call_after_refresh(chart.redraw)  # the curve tab's height is known once it shows

    @on(Select.Changed, "#eval-report")
    def _report_chosen(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value.isdigit():
            index = int(event.value)
            if index < len(self._report_dirs):
                self._show_report(self._report_dirs[index][1])

    def _show_report(self, directory: Path | None) -> None:
        from nlu_tui.evaluation.results import confusion_of, intent_rows
        from nlu_tui.views.rasa_charts_text import confusion_text

        table = self.query_one("#eval-intents", DataTable)
        table.clear()
        rows = intent_rows(directory) if directory is not None else []
        for row in rows:
            table.add_row(
                inert(row.name),
                f"{row.precision:.3f}",
                f"{row.recall:.3f}",
                f"{row.f1:.3f}",
                str(row.support),
                inert(row.confused_with),
            )
        static = self.query_one("#eval-confusion", Static)
        chart = confusion_of(directory) if directory is not None else None
        if chart is None:
            static.update("No confusion matrix: no report was written.")
            return
        width = max(40, self.query_one("#eval-tabs").size.width - 2)
        static.update(confusion_text(chart, width))
