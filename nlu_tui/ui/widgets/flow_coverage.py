"""The Coverage view of a conversation or DUT run: each flow's testable steps marked ✓
(visited) or ✗ (not), with their line ranges, and ``+``/``-`` for a step visited now but not
in the previous run of the same tests (or the other way round). The figures are those kept
with the run by ``--coverage-report`` (:mod:`nlu_tui.coverage_reports`)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from nlu_tui.coverage_reports import SUMMARY_KEY, previous_coverage, step_lines
from nlu_tui.textsafe import inert

NO_COVERAGE = (
    "No flow coverage kept with this run: run it from the command line with "
    "--coverage-report (nlu-tui test e2e ... --coverage-report --flows data/)."
)


def coverage_text(current: dict[str, Any] | None, previous: dict[str, Any] | None) -> Text:
    """The view's text: per group (passed, failed), per flow its coverage, then its steps."""
    if not current:
        return Text(NO_COVERAGE)
    out = Text()
    for status in ("passed", "failed"):
        report = (current.get("reports") or {}).get(status)
        out.append(f"{status.capitalize()} tests", style="bold")
        if not isinstance(report, dict):
            out.append("\n  no flow step visited\n\n")
            continue
        total = report.get("total_coverage")
        out.append(f"  {total:.2f}%\n" if isinstance(total, float | int) else "\n")
        coverage = {f["flow"]: f["coverage"] for f in report.get("flows", [])}
        flow = None
        for line in step_lines(current, previous, status):
            if line.flow != flow:
                flow = line.flow
                out.append(f"  {inert(flow)}  {coverage.get(flow, 0.0):.2f}%\n", style="bold")
            mark, style = ("✓", "green") if line.visited else ("✗", "red")
            out.append(f"    {mark} ", style=style)
            out.append(f"{inert(line.step_id)}  lines {inert(line.lines)}")
            if line.change:
                out.append(f"  {line.change}", style="green" if line.change == "+" else "red")
            out.append("\n")
        out.append("\n")
    if previous is None:
        out.append("No earlier run of these tests with coverage to compare.", style="italic")
    else:
        out.append("+ visited now, not before; - visited before, not now.", style="italic")
    return out


class FlowCoverageScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    FlowCoverageScreen { align: center middle; }
    FlowCoverageScreen > VerticalScroll {
        width: 95%; height: 95%;
        border: thick $primary 60%; background: $surface; padding: 0 1;
    }
    """
    BINDINGS = [Binding("escape,q", "close", "Close", id="coverage.close", tooltip="Close")]

    def __init__(self, title: str, text: Text) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Text(inert(self.title_text), style="bold"), id="coverage-title")
            yield Static(self.text, id="coverage-steps")

    def action_close(self) -> None:
        self.dismiss(None)


def open_flow_coverage(app: Any, run_id: str | None) -> None:
    """Show the coverage kept with a run and its change since the previous run."""
    from nlu_tui.runsessions import store_for

    if run_id is None:
        app.notify("No run shown yet.", severity="warning")
        return
    store = store_for(app)
    run = store.get_run(run_id)
    current = (run.summary or {}).get(SUMMARY_KEY)
    previous = previous_coverage(store, run) if current else None
    title = f"Flow coverage of run {run.id}: {run.suite_name} on {run.engine_name}"
    app.push_screen(FlowCoverageScreen(title, coverage_text(current, previous)))
