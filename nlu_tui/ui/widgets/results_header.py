"""The header of the Results pane: the open run's summary, a live run's progress, or why no
run is shown."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from nlu_tui.reports.run_data import RunData
from nlu_tui.runsessions import RunSession
from nlu_tui.textsafe import inert
from nlu_tui.views.summary_text import (
    compact_summary_text,
    progress_counts_text,
    short_engine,
    summary_text,
)


class RunHeader(Static):
    """One block (id ``results-header``) above the results' tabs."""

    def __init__(self) -> None:
        super().__init__(Text("No run open. Open one from the Runs tab."), id="results-header")
        self._data: RunData | None = None

    def show_text(self, text: str, style: str = "") -> None:
        """A sentence: loading, or why the run cannot be shown (its text made inert)."""
        self._data = None
        self.tooltip = None
        self.update(Text(inert(text), style=style))

    def show_summary(self, data: RunData) -> None:
        """A finished run in at most three lines (status, suite, engine by its short name,
        figures, note: computed by the core); everything, with the engine's full spec, is the
        tooltip and the detail pane's "Run" section."""
        self._data = data
        full = summary_text(data.record, data.summary, data.stability)
        full.append(inert(f"\nEngine: {data.record.engine_name}", newlines=False))
        self.tooltip = full
        self._draw()

    def _draw(self) -> None:
        data = self._data
        if data is None:
            return
        width = self.content_region.width or self.app.size.width
        self.update(compact_summary_text(data.record, data.summary, data.stability, width))

    def on_resize(self) -> None:
        self._draw()

    def show_live(self, session: RunSession) -> Any:
        """A run under way, in two lines (what runs, the counts so far; the pane's bar row
        under it says how far: three lines in all); returns its newest progress event (None
        before the first)."""
        self._data = None
        self.tooltip = inert(f"Engine: {session.engine_name}")
        header = Text()
        header.append("▶ running  ", style="bold cyan")
        header.append(inert(session.suite_name, newlines=False), style="bold")
        from nlu_tui.repeats import repeat_of

        repeat = repeat_of(session.run.record)
        header.append(
            inert(
                f" · {short_engine(session.engine_name)} ({session.stage}) · run {session.run_id}",
                newlines=False,
            )
            + (f" · each case ×{repeat}" if repeat > 1 else "")
        )
        event = session.progress()
        if event is not None:
            header.append("\n")
            header.append_text(progress_counts_text(event))
        self.update(one_line_each(header, self.content_region.width or self.app.size.width))
        return event


def one_line_each(text: Text, width: int) -> Text:
    """``text`` with each line cut to ``width`` cells, ending in "…" (a Static wraps a Text
    whatever its ``no_wrap``: a long suite name or the live counts took two lines each)."""
    lines = text.split("\n")
    for line in lines:
        line.truncate(max(width, 1), overflow="ellipsis")
    return Text("\n").join(lines)
