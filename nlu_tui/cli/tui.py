"""Open the Textual workbench (the only CLI module that may import the UI)."""

from __future__ import annotations


def open_workbench(workspace: str | None) -> int:
    from nlu_tui.ui.app import run_app

    return run_app(workspace)
