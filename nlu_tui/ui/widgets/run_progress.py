"""A live run's progress: the panel above the runs history, and the messages a run posts.

A run's worker posts :class:`RunUpdated` (coalesced: a burst is drawn once) as results arrive
and :class:`RunEnded` when it ends; :class:`RunProgressPanel` draws the session's progress.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import ProgressBar, Static

from nlu_tui.runsessions import RunSession
from nlu_tui.textsafe import inert
from nlu_tui.views.summary_text import progress_text


class RunUpdated(Message):
    """A run made progress (coalesced: only the newest of a burst is handled)."""

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.run_id = run_id

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RunUpdated) and message.run_id == self.run_id


class RunEnded(Message):
    """A run of this app ended (any status)."""

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.run_id = run_id


def short_engine(name: str) -> str:
    kind, sep, rest = name.partition(":")
    if sep and kind in ("embedded",):
        return f"{kind}:{Path(rest).name}"
    return name


class RunProgressPanel(Vertical):
    """Progress of the suite's active run: bar, done/total, rate, ETA, elapsed, live counts."""

    DEFAULT_CSS = """
    RunProgressPanel { height: auto; padding: 0 1; border: round $accent; display: none; }
    RunProgressPanel > Horizontal { height: 1; }
    RunProgressPanel ProgressBar { width: 1fr; }
    RunProgressPanel Bar { width: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="progress-title")
        with Horizontal(classes="bar-row"):
            yield ProgressBar(total=100, show_eta=False, id="run-progress-bar")
        yield Static("", id="progress-text")

    def show(self, session: RunSession | None) -> None:
        # shown by its own display, not a class: a class change restyles the panel and its
        # progress bar's parts, and ``u`` drew this panel (in the Runs tab it leaves) in the
        # step that shows the Results tab (issue 23, fast keys)
        self.display = session is not None
        if session is None:
            return
        title = Text("▶ ", style="bold cyan")
        title.append(
            inert(
                f"Running {session.suite_name} on {short_engine(session.engine_name)}"
                f" ({session.stage}) · run {session.run_id}",
                newlines=False,
            )
        )
        if session.cancel_requested:
            title.append("  canceling…", style="bold dark_orange")
        title.append("   esc/ctrl+x: cancel · n: note", style="dim")
        self.query_one("#progress-title", Static).update(title)
        event = session.progress()
        bar = self.query_one(ProgressBar)
        if event is None:
            bar.update(total=max(session.total, 1), progress=0)
            self.query_one("#progress-text", Static).update(Text("starting…"))
            return
        bar.update(total=max(event.total, 1), progress=event.done)
        self.query_one("#progress-text", Static).update(progress_text(event))
