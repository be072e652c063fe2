"""Dialogs about one run, shared by the Runs and Results panes: its note, cancelling it."""

from __future__ import annotations

from collections.abc import Callable

from rich.markup import escape
from textual.widget import Widget

from nlu_tui.runsessions import RunSession, store_for


def edit_note(widget: Widget, run_id: str, on_saved: Callable[[str], None] | None = None) -> None:
    """Open the note dialog for a run (running or not) and save what the user writes."""
    from nlu_tui.ui.screens.dialogs import NoteDialog

    store = store_for(widget.app)
    try:
        record = store.get_run(run_id)
    except Exception as exc:
        widget.notify(escape(str(exc)), severity="error")
        return

    def saved(text: str | None) -> None:
        if text is None:
            return
        try:
            store.set_note(run_id, text)
        except Exception as exc:
            widget.notify(escape(str(exc)), title="Note not saved", severity="error")
            return
        widget.notify("Note saved.", timeout=2)
        if on_saved is not None:
            on_saved(run_id)

    widget.app.push_screen(NoteDialog(record.note, f"Note for run {run_id}"), saved)


def confirm_cancel(widget: Widget, session: RunSession) -> None:
    """Ask, then cancel a running run (it stops within a second and keeps its results)."""
    from nlu_tui.ui.screens.dialogs import ConfirmDialog

    progress = session.progress()
    done = progress.done if progress else 0

    def answer(yes: bool | None) -> None:
        if yes and not session.finished:
            session.cancel()
            widget.notify(f"Canceling run {session.run_id}…", timeout=2)

    widget.app.push_screen(
        ConfirmDialog(
            "Cancel this run?",
            f"{session.suite_name} on {session.engine_name}: {done}/{session.total} done. "
            "Finished results are kept; the run can be resumed later.",
            yes="Cancel run",
            no="Keep running",
        ),
        answer,
    )
