"""The header of the Results pane: the open run's summary, a live run's progress, or why no
run is shown."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from nlu_tui.reports.run_data import RunData
from nlu_tui.runsessions import RunSession
from nlu_tui.textsafe import inert
from nlu_tui.views.summary_text import progress_text, summary_text


class RunHeader(Static):
    """One block (id ``results-header``) above the results' tabs."""

    def __init__(self) -> None:
        super().__init__(Text("No run open. Open one from the Runs tab."), id="results-header")

    def show_text(self, text: str, style: str = "") -> None:
        """A sentence: loading, or why the run cannot be shown (its text made inert)."""
        self.update(Text(inert(text), style=style))

    def show_summary(self, data: RunData) -> None:
        """A finished run: engine, version, figures, note (computed by the core)."""
        self.update(summary_text(data.record, data.summary, data.stability))

    def show_live(self, session: RunSession) -> Any:
        """A run under way; returns its newest progress event (None before the first)."""
        header = Text()
        header.append("▶ running  ", style="bold cyan")
        header.append(inert(session.suite_name, newlines=False), style="bold")
        from nlu_tui.repeats import repeat_of

        repeat = repeat_of(session.run.record)
        header.append(
            inert(
                f" · {session.engine_name} ({session.stage}) · run {session.run_id}", newlines=False
            )
            + (f" · each case ×{repeat}" if repeat > 1 else "")
            + "\n"
        )
        event = session.progress()
        if event is not None:
            header.append_text(progress_text(event))
        self.update(header)
        return event
