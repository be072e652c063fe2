"""Moving between the main screen's tabs from anywhere on it."""

from __future__ import annotations

from typing import Any

from nlu_tui.ui.state import hosting_workbench


def show_main_tab(widget: Any, pane_id: str) -> None:
    """Switch the main screen's tabs (``tab-runs``, ``tab-results``) from a pane on it."""
    from textual.widgets import TabbedContent

    for tabs in widget.screen.query(TabbedContent):
        if tabs.id == "main-tabs":
            tabs.active = pane_id
            return
    host = hosting_workbench(widget)
    if host is not None:
        host.show_tab(pane_id)
