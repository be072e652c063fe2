"""The diff of two runs: cases that broke, got fixed or moved; per-intent F1 deltas; gates.

Both runs are loaded and compared in a thread worker with :func:`nlu_tui.rundiff.diff_runs`
(and the CLI's gates through :func:`nlu_tui.rundiff.check_run_gates`); the screen only shows
what came back. The Runs tab computes the diff ``D`` would show ahead, in a thread, when its
cursor settles on a run (:func:`nlu_tui.rundiff.diff_ahead`): ``D`` then shows the figures in its first frame.
Without one, the screen is shown at once and the diff is computed after that first frame, so
the computation does not hold the interpreter lock while the screen is drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Input, Select, Static, TabbedContent, TabPane

from nlu_tui.rundiff import (
    DEFAULT_CONFIDENCE_THRESHOLD,
    NO_CHANGES,
    ChangeKind,
    ComputedDiff,
    DiffResult,
    compute_diff,
    default_thresholds,
)
from nlu_tui.runsessions import store_for
from nlu_tui.textsafe import inert
from nlu_tui.ui.commands import PaletteCommand
from nlu_tui.ui.reuse import ReusedScreen
from nlu_tui.ui.state import workspace_root
from nlu_tui.ui.widgets.footer import BudgetFooter
from nlu_tui.ui.widgets.inert_fields import TextField
from nlu_tui.ui.workers import ReportsFailedWorkers
from nlu_tui.views.summary_text import num, run_title

if TYPE_CHECKING:
    pass


KIND_LABEL = {
    ChangeKind.BROKE: ("broke", "bold red"),
    ChangeKind.FIXED: ("fixed", "bold green"),
    ChangeKind.INTENT_CHANGED: ("intent changed", "yellow"),
    ChangeKind.CONFIDENCE_CHANGED: ("confidence moved", "cyan"),
}


class DiffScreen(ReportsFailedWorkers, ReusedScreen, Screen[None]):
    """Compare an older run (before) with a newer one (after).

    The Runs tab's ``D`` builds it once in idle time (:meth:`blank`) and refills it for each
    pair of runs (:meth:`refill`; :mod:`nlu_tui.ui.reuse`)."""

    DEFAULT_CSS = """
    DiffScreen #diff-header { height: auto; padding: 0 1; background: $boost; }
    DiffScreen #diff-controls { height: 1; }
    DiffScreen #diff-controls .diff-label { width: auto; }
    DiffScreen #diff-threshold { width: 8; }
    DiffScreen #diff-gates-path { width: 1fr; }
    DiffScreen #diff-controls Select { width: 34; }
    DiffScreen DataTable { height: 1fr; }
    DiffScreen #diff-gates-text { height: auto; padding: 0 1; }
    DiffScreen #diff-none { height: auto; padding: 1 2; display: none; }
    """

    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back", id="diff.back", tooltip="Back to the runs."),
        Binding(
            "t",
            "focus_threshold",
            "Threshold",
            id="diff.threshold",
            tooltip="Change the confidence threshold.",
        ),
        Binding(
            "g",
            "focus_gates",
            "Gates file",
            id="diff.gates",
            tooltip="Check the regression gates of a thresholds file.",
        ),
        Binding(
            "e",
            "edit_case",
            "Edit case",
            id="diff.edit",
            tooltip="Open the selected case in the editor.",
        ),
    ]

    def __init__(self, before_id: str, after_id: str, result: DiffResult | None = None) -> None:
        """``result`` shows an already computed diff (no store access)."""
        super().__init__()
        self._set_data(before_id, after_id, result)

    def _set_data(self, before_id: str, after_id: str, result: DiffResult | None) -> None:
        self.before_id = before_id
        self.after_id = after_id
        self.result: DiffResult | None = result
        self.threshold = DEFAULT_CONFIDENCE_THRESHOLD
        self.thresholds_path: Path | None = None
        self.kind_filter: str = ""
        self._use = getattr(self, "_use", 0) + 1
        """Counts the uses of a reused screen: a diff computed for an earlier use is dropped."""

    @classmethod
    def blank(cls) -> DiffScreen:
        """A diff screen to build in idle time and :meth:`refill` for its first use."""
        return cls("", "")

    def _header_waiting(self) -> Text:
        return Text(f"Comparing run {self.before_id} with {self.after_id}…")

    def refill(self, before_id: str, after_id: str, ahead: ComputedDiff | None = None) -> None:
        """Compare ``before_id`` with ``after_id``, as a new screen would: the controls, the
        tables, the tab and the focus are set anew. ``ahead`` (computed for this very pair
        and state of the runs: the caller checks its key) is shown at once; without it the
        diff is computed once the screen has been drawn."""
        self._set_data(before_id, after_id, None)
        with self.app.batch_update():
            self.query_one("#diff-header", Static).update(self._header_waiting())
            with self.prevent(Select.Changed, Input.Changed):
                kind = self.query_one("#diff-kind", Select)
                kind.value = ""
                self.query_one("#diff-threshold", Input).value = str(self.threshold)
                self.query_one("#diff-gates-path", Input).value = ""
            self.query_one("#diff-tabs", TabbedContent).active = "tab-diff-cases"
            for table in self.query(DataTable):
                table.clear()
                table.scroll_home(animate=False)
            self.query_one("#diff-gates-text", Static).update("")
            none = self.query_one("#diff-none", Static)
            none.display = False
            self.query_one("#diff-cases", DataTable).display = True
            self.set_focus(kind, scroll_visible=False)
            if ahead is not None:
                self._show(self._use, ahead.result, ahead.thresholds)
        self._compute_on_resume = ahead is None

    _compute_on_resume = False
    """The diff is to be computed after the screen's next first frame (see :meth:`refill`)."""

    def on_screen_resume(self) -> None:
        if self._compute_on_resume:
            self._compute_on_resume = False
            self.call_after_refresh(self._recompute)

    def compose(self) -> ComposeResult:
        yield Static(self._header_waiting(), id="diff-header")
        with Horizontal(id="diff-controls"):
            yield Select(
                [("All changes", ""), *[(label, k.value) for k, (label, _) in KIND_LABEL.items()]],
                value="",
                allow_blank=False,
                id="diff-kind",
                compact=True,
            )
            yield Static(" Δ conf ≥ ", classes="diff-label")
            yield TextField(
                str(self.threshold),
                id="diff-threshold",
                placeholder="0..1",
                compact=True,
            )
            yield Static(" gates: ", classes="diff-label")
            yield TextField(
                "",
                id="diff-gates-path",
                placeholder="thresholds file (g), enter to check",
                compact=True,
            )
        with TabbedContent(id="diff-tabs"):
            with TabPane("Cases", id="tab-diff-cases"):
                yield Static("", id="diff-none")
                yield DataTable(id="diff-cases", cursor_type="row", zebra_stripes=True)
            with TabPane("Per-intent F1", id="tab-diff-intents"):
                yield DataTable(id="diff-intents", cursor_type="row", zebra_stripes=True)
            with TabPane("Gates", id="tab-diff-gates"):
                yield Static("", id="diff-gates-text")
        yield BudgetFooter()

    def on_mount(self) -> None:
        cases = self.query_one("#diff-cases", DataTable)
        for key, label in [
            ("kind", "Change"),
            ("utterance", "Utterance"),
            ("before", "Before"),
            ("after", "After"),
            ("conf_before", "Conf before"),
            ("conf_after", "Conf after"),
            ("delta", "Δ conf"),
        ]:
            cases.add_column(label, key=key)
        intents = self.query_one("#diff-intents", DataTable)
        for key, label in [
            ("intent", "Intent"),
            ("f1_before", "F1 before"),
            ("f1_after", "F1 after"),
            ("delta", "Δ F1"),
        ]:
            intents.add_column(label, key=key)
        if self.result is None:
            self._recompute()
        else:
            self._draw()

    def _recompute(self) -> None:
        self._compute(self.threshold, self.thresholds_path)

    @work(
        thread=True,
        exclusive=True,
        group="diff",
        exit_on_error=False,
        name="diff",
        description="Comparing two runs",
    )
    def _compute(self, threshold: float, thresholds: Path | None) -> None:
        if not self.before_id:  # built ahead, not used yet
            return
        use = self._use
        store = store_for(self.app)
        try:
            if thresholds is None and self.thresholds_path is None and self.result is None:
                record = store.get_run(self.after_id)
                workspace = workspace_root(self)
                thresholds = default_thresholds(record.suite_path, workspace)
            result = compute_diff(store, self.before_id, self.after_id, threshold, thresholds)
        except Exception as exc:
            self.app.call_from_thread(self._failed, use, exc)
            return
        self.app.call_from_thread(self._show, use, result, thresholds)

    def _failed(self, use: int, exc: Exception) -> None:
        if use != self._use:  # computed for an earlier use of the screen
            return
        self.query_one("#diff-header", Static).update(
            Text(inert(f"Cannot diff: {exc}"), style="red")
        )
        self.notify(escape(str(exc)), title="Cannot diff", severity="error")

    def _show(self, use: int, result: DiffResult, thresholds: Path | None) -> None:
        if use != self._use:
            return
        self.result = result
        if thresholds is not None:
            self.thresholds_path = thresholds
            with self.prevent(Input.Changed):
                self.query_one("#diff-gates-path", Input).value = str(thresholds)
        self._draw()

    def _draw(self) -> None:
        result = self.result
        if result is None:
            return
        diff = result.diff
        header = Text("Before: ", style="bold")
        header.append_text(run_title(result.before.record))
        header.append("\nAfter:  ", style="bold")
        header.append_text(run_title(result.after.record))
        header.append("\n")
        counts = diff.counts()
        for kind, (label, style) in KIND_LABEL.items():
            header.append(f"{label} {counts[kind.value]}", style=style)
            header.append("   ")
        header.append(
            f"F1 {num(result.before.summary.f1)} → {num(result.after.summary.f1)}", style="bold"
        )
        if diff.only_after or diff.only_before:
            header.append(f"   new cases {len(diff.only_after)}, removed {len(diff.only_before)}")
        header.append(f"   confidence threshold {diff.threshold:g}")
        if diff.unchanged:
            header.append(f"\n{NO_CHANGES.capitalize()}.", style="bold green")
        if result.gates is not None:
            failed = sum(not g.passed for g in result.gates)
            header.append("\nGates: ", style="bold")
            header.append(
                f"{len(result.gates) - failed} passed, {failed} failed",
                style="bold red" if failed else "bold green",
            )
        self.query_one("#diff-header", Static).update(header)
        self._fill_cases()
        self._fill_intents()
        self._fill_gates()

    def _fill_cases(self) -> None:
        assert self.result is not None
        table = self.query_one("#diff-cases", DataTable)
        table.clear()
        for change in self.result.diff.changes:
            if self.kind_filter and change.kind.value != self.kind_filter:
                continue
            label, style = KIND_LABEL[change.kind]
            b, a = change.before, change.after
            delta = change.confidence_delta
            table.add_row(
                Text(label, style=style),
                Text(inert(change.utterance, newlines=False)),
                Text(inert(f"{b.result.value} {b.matched_intent or '-'}", newlines=False)),
                Text(inert(f"{a.result.value} {a.matched_intent or '-'}", newlines=False)),
                num(b.confidence),
                num(a.confidence),
                "-" if delta is None else f"{delta:+.4f}",
                key=change.case_id,
            )
        none = self.query_one("#diff-none", Static)
        none.display = table.display = False
        if table.row_count:
            table.display = True
        else:  # an empty table says nothing: say why it is empty
            none.display = True
            if self.result.diff.unchanged:
                none.update(Text(f"{NO_CHANGES.capitalize()}.", style="bold green"))
            else:
                label = KIND_LABEL[ChangeKind(self.kind_filter)][0] if self.kind_filter else ""
                none.update(
                    f"No {label} cases at this confidence threshold; pick All changes above."
                    if label
                    else "No case changed at this confidence threshold; cases were only added "
                    "or removed (see the header)."
                )
        self.refresh_bindings()

    def _fill_intents(self) -> None:
        assert self.result is not None
        table = self.query_one("#diff-intents", DataTable)
        table.clear()
        for d in self.result.diff.intent_deltas:
            delta = d.delta
            style = "" if delta is None or abs(delta) < 1e-12 else ("red" if delta < 0 else "green")
            table.add_row(
                Text(inert(d.intent, newlines=False)),
                num(d.f1_before),
                num(d.f1_after),
                Text("-" if delta is None else f"{delta:+.4f}", style=style),
                key=d.intent,
            )

    def _fill_gates(self) -> None:
        assert self.result is not None
        text = Text()
        if self.result.gates_error:
            text.append(inert(f"Thresholds file: {self.result.gates_error}"), style="red")
        elif self.result.gates is None:
            text.append(
                "No thresholds file. Type one above (g) to check the regression gates "
                "that `nlu-tui run --thresholds` checks."
            )
        elif not self.result.gates:
            text.append("The thresholds file has no gates.")
        else:
            text.append(
                "Gates with NLU.DevOps compare's definitions (pooled counts: a wrong intent is "
                "one FN and one FP), not the Kore.ai figures of the runs above:\n",
                style="dim",
            )
            for gate in self.result.gates:
                style = "green" if gate.passed else "bold red"
                text.append(inert(gate.description) + "\n", style=style)
        self.query_one("#diff-gates-text", Static).update(text)

    @on(Select.Changed, "#diff-kind")
    def _kind(self, event: Select.Changed) -> None:
        self.kind_filter = str(event.value or "")
        if self.result is not None:
            self._fill_cases()

    @on(Input.Submitted, "#diff-threshold")
    def _threshold(self, event: Input.Submitted) -> None:
        try:
            value = float(event.value)
            if not 0 <= value <= 1:
                raise ValueError
        except ValueError:
            self.notify("The threshold is a number from 0 to 1.", severity="error")
            return
        self.threshold = value
        self._recompute()

    @on(Input.Submitted, "#diff-gates-path")
    def _gates(self, event: Input.Submitted) -> None:
        raw = event.value.strip()
        self.thresholds_path = Path(raw).expanduser() if raw else None
        self._compute(self.threshold, self.thresholds_path)
        self.query_one("#diff-tabs", TabbedContent).active = "tab-diff-gates"

    def action_focus_threshold(self) -> None:
        self.query_one("#diff-threshold", Input).focus()

    def action_focus_gates(self) -> None:
        self.query_one("#diff-gates-path", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``e`` is in the footer only while there is a changed case to open."""
        if action == "edit_case":
            tables = self.query("#diff-cases").results(DataTable)
            return any(table.row_count > 0 for table in tables)
        return True

    def action_edit_case(self) -> None:
        from nlu_tui.ui.messages import EditCaseRequested

        table = self.query_one("#diff-cases", DataTable)
        if table.row_count == 0:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if key is not None:
            self.app.pop_screen()
            self.app.screen.post_message(EditCaseRequested(str(key)))

    def palette_commands(self) -> list[PaletteCommand]:
        """One entry per key of :attr:`BINDINGS`, running the same action."""
        return [
            PaletteCommand("diff: Back", self.app.pop_screen, "Close the diff (Esc)"),
            PaletteCommand(
                "diff: Set threshold…",
                self.action_focus_threshold,
                "Change the confidence threshold (t)",
            ),
            PaletteCommand(
                "diff: Check gates…",
                self.action_focus_gates,
                "Check a thresholds file's regression gates (g)",
            ),
            PaletteCommand(
                "diff: Edit case",
                self.action_edit_case,
                "Open the selected case in the editor (e)",
            ),
        ]
