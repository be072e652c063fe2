"""Open the Textual workbench (the only CLI module that may import the UI)."""

from __future__ import annotations


def open_workbench(workspace: str | None) -> int:
    import gc

    # Start-up builds long-lived objects (modules, styles, widgets): the cyclic collector
    # would walk them again and again, a full pass of ~70 ms landing before the first full
    # screen. The app turns it back on, with those objects parked, once the screen is up.
    gc.disable()
    from nlu_tui.ui.app import run_app

    return run_app(workspace)
