"""Evaluate a training file (``*.nlu.yml``): held-out split, cross-validation or comparison.

The screen gathers the options, then awaits :func:`nlu_tui.evaluation.service.evaluate` in a
worker: each fold or configuration shows its state and time as it goes, Cancel stops after the
unit under way (finished folds stay stored), and the results follow: the per-fold table with
mean ± std or the F1 curve, the per-intent report with its confusions. Report files go to
``results/<file>-<mode>/`` in the workspace, as ``rasa test nlu`` writes ``results/``.
"""

from __future__ import annotations

import json
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, ScrollableContainer
from textual.screen import Screen
from textual.widgets import Button, DataTable, Input, Select, Static
from textual.widgets.data_table import ColumnKey

from nlu_tui.errors import NluTuiError
from nlu_tui.runsessions import store_for
from nlu_tui.textsafe import inert
from nlu_tui.ui.widgets.footer import BudgetFooter

MODES = (
    ("Held-out split (80/20)", "split"),
    ("Cross-validation", "cross-validation"),
    ("Compare configurations", "comparison"),
)


def report_lines(directory: Path) -> list[str]:
    """The per-intent report of ``intent_report.json`` in ``directory``, with confusions."""
    path = directory / "intent_report.json"
    if not path.is_file():
        return []
    report = json.loads(path.read_text(encoding="utf-8"))
    out = ["intent                          precision  recall     F1  support  confused with"]
    for name, row in sorted(report.items()):
        if not isinstance(row, dict) or name.endswith(" avg"):
            continue
        confused = ", ".join(
            f"{k or '(no intent)'} ({v})" for k, v in (row.get("confused_with") or {}).items()
        )
        out.append(
            f"{name[:30]:<30} {row['precision']:10.3f} {row['recall']:7.3f} "
            f"{row['f1-score']:6.3f} {int(row['support']):8d}  {confused}"
        )
    return out


class EvaluateScreen(Screen[None]):
    """Train and test one NLU training file."""

    DEFAULT_CSS = """
    EvaluateScreen #eval-title { height: 1; padding: 0 1; background: $boost; }
    EvaluateScreen #eval-controls { height: 3; }
    EvaluateScreen #eval-mode { width: 24; }
    EvaluateScreen #eval-engine { width: 2fr; }
    EvaluateScreen #eval-folds { width: 7; }
    EvaluateScreen #eval-seed { width: 9; }
    EvaluateScreen #eval-configs { width: 2fr; }
    EvaluateScreen Button { min-width: 8; width: auto; }
    EvaluateScreen #eval-progress { height: 8; }
    EvaluateScreen #eval-results { height: 1fr; }
    EvaluateScreen #eval-text { width: auto; }
    """

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="eval.back", tooltip="Back to the workbench."),
        Binding("ctrl+s", "start", "Start", id="eval.start", tooltip="Train and test."),
        Binding("ctrl+k", "cancel", "Cancel", id="eval.cancel", tooltip="Stop after this unit."),
    ]

    def __init__(self, path: Path, workspace: Path) -> None:
        super().__init__()
        self.path = Path(path)
        self.workspace = Path(workspace)
        self._cancel: object | None = None
        self._started: dict[str, int] = {}
        self._columns: list[ColumnKey] = []

    def compose(self) -> ComposeResult:
        yield Static(inert(f"Evaluate {self.path.name}"), id="eval-title", markup=False)
        with Horizontal(id="eval-controls"):
            yield Select(MODES, value="cross-validation", allow_blank=False, id="eval-mode")
            yield Input("embedded", placeholder="engine", id="eval-engine")
            yield Input("5", placeholder="folds", id="eval-folds")
            yield Input("42", placeholder="seed", id="eval-seed")
            yield Input("", placeholder="config files (space-separated)", id="eval-configs")
            yield Button("Start", id="eval-start", variant="primary")
            yield Button("Cancel", id="eval-cancel", disabled=True)
        yield DataTable(id="eval-progress", cursor_type="row")
        with ScrollableContainer(id="eval-results"):
            yield Static("", id="eval-text", markup=False)
        yield BudgetFooter()

    def on_mount(self) -> None:
        table = self.query_one("#eval-progress", DataTable)
        self._columns = table.add_columns("unit", "state", "seconds")

    def _request(self) -> object:
        from nlu_tui.errors import InputError
        from nlu_tui.evaluation import service

        mode = str(self.query_one("#eval-mode", Select).value)
        try:
            folds = int(self.query_one("#eval-folds", Input).value or "5")
            seed_text = self.query_one("#eval-seed", Input).value.strip()
            seed = int(seed_text) if seed_text else None
        except ValueError:
            raise InputError("folds and seed are whole numbers", field="folds/seed") from None
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
            runs=3 if mode == service.COMPARISON else 1,
            percentages=[0, 25, 50, 75],
            out=self.workspace / "results" / f"{self.path.name.split('.')[0]}-{mode}",
            plots=False,  # drawing them would hold the screen for seconds
        )

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
        self._started.clear()
        self.query_one("#eval-text", Static).update("planning…")
        self._evaluate(request)

    @on(Button.Pressed, "#eval-cancel")
    def action_cancel(self) -> None:
        cancel = self._cancel
        if cancel is not None:
            cancel.set()  # type: ignore[attr-defined]
            self.notify("Canceling after the unit under way; finished units are kept.")

    def _progress(self, key: str, state: str, seconds: float | None) -> None:
        table = self.query_one("#eval-progress", DataTable)
        took = f"{seconds:.1f}" if seconds is not None and state in ("done", "failed") else ""
        if key not in self._started:
            self._started[key] = len(self._started)
            table.add_row(inert(key), state, took, key=key)
        else:
            table.update_cell(key, self._columns[1], state)
            table.update_cell(key, self._columns[2], took)
        table.move_cursor(row=self._started[key])

    @work(exclusive=True, group="evaluate")
    async def _evaluate(self, request: object) -> None:
        import asyncio

        from nlu_tui.evaluation import service
        from nlu_tui.evaluation.text import outcome_lines

        text = self.query_one("#eval-text", Static)
        try:
            plan = await asyncio.to_thread(service.plan, request)  # type: ignore[arg-type]
        except NluTuiError as exc:
            text.update(inert(str(exc)))
            return
        cancel = service.Cancel()
        self._cancel = cancel
        self.query_one("#eval-cancel", Button).disabled = False
        text.update("running…")
        try:
            outcome = await service.evaluate(plan, store_for(self.app), self._progress, cancel)
        except NluTuiError as exc:
            text.update(inert(str(exc)))
            return
        finally:
            self._cancel = None
            self.query_one("#eval-cancel", Button).disabled = True
        lines = outcome_lines(outcome, plan.request.percentages)
        if plan.dropped:
            dropped = ", ".join(f"{k} ({v})" for k, v in plan.dropped.items())
            lines.insert(0, f"dropped intents with too few examples: {dropped}")
        directory = plan.request.out
        if directory is not None and outcome.mode != service.COMPARISON:
            lines += ["", *report_lines(directory)]
        text.update(inert("\n".join(lines)))
