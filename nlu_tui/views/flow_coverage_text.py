"""The Coverage tab of the conversation tests screen: each flow's testable steps marked ✓
(visited) or ✗ (not), with their line ranges, and ``+``/``-`` for a step visited now but not
in the previous run of the same tests (or the other way round). The figures are those kept
with the run by ``--coverage-report`` (:mod:`nlu_tui.coverage_reports`)."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from rich.text import Text

from nlu_tui.coverage_reports import step_lines
from nlu_tui.textsafe import inert

NO_COVERAGE = (
    "No flow coverage kept with this run: run it from the command line with "
    "--coverage-report (nlu-tui test e2e ... --coverage-report --flows data/)."
)


def _short(flow: str) -> str:
    """``data/flows.yml::transfer money`` (Rasa Pro's flow column: its file, ``::``, its
    name) with the file's folder left out: the tab is narrow, the CSV files keep the path."""
    file, sep, name = flow.rpartition("::")
    return f"{PurePath(file).name}{sep}{name}" if sep else flow


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
                out.append(
                    f"  {inert(_short(flow))}  {coverage.get(flow, 0.0):.2f}%\n", style="bold"
                )
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
