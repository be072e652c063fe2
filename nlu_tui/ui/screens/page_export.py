"""Export of a conversation (E2E, stories) or DUT run from the workbench: the HTML page or the
Markdown summary, written by the same call as ``nlu-tui show RUN -f html|markdown -o FILE``
(:func:`nlu_tui.run_pages.write_page`), so the file is the same whichever face wrote it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markup import escape
from textual.app import App
from textual.dom import DOMNode

EXPORT_TOOLTIP = "Write the shown run as an HTML page or a Markdown summary (as `nlu-tui show`)."


def export_run_page(host: DOMNode, run_id: str, suite_path: str | Path | None) -> None:
    """Ask for a format and a path (the Export dialog, with the pages of this kind of run),
    then write the page off the UI thread and say where it went (or why it could not)."""
    from nlu_tui.run_pages import PAGE_FORMATS
    from nlu_tui.ui.screens.dialogs import ExportDialog
    from nlu_tui.ui.widgets.results_pane import export_dir

    app = host.app

    def chosen(value: tuple[str, Path, dict[str, bool]] | None) -> None:
        if value is None:
            return
        fmt, path, _switches = value
        host.run_worker(
            lambda: _write(app, run_id, fmt, path),
            thread=True,
            exclusive=True,
            group="run-page-export",
            exit_on_error=False,
            name="run-page-export",
            description="Exporting the run",
        )

    dialog = ExportDialog(PAGE_FORMATS, export_dir(app, suite_path), f"run-{run_id}")
    app.push_screen(dialog, chosen)


def _write(app: App[Any], run_id: str, fmt: str, path: Path) -> None:
    from nlu_tui.run_pages import write_page
    from nlu_tui.runsessions import store_for

    try:
        written = write_page(store_for(app), run_id, fmt, path)
    except Exception as exc:  # a folder that cannot be written, a run deleted meanwhile
        app.call_from_thread(app.notify, escape(str(exc)), title="Export failed", severity="error")
        return
    app.call_from_thread(app.notify, escape(f"Wrote {written}"), title=f"Exported {fmt}")
