"""Open the Textual workbench (the only CLI module that may import the UI)."""

from __future__ import annotations

workbench_ran = False
"""Set once the workbench has run in this process: ``nlu-tui``'s entry point then leaves
without tearing the interpreter down (:func:`leave_now`)."""


def open_workbench(workspace: str | None) -> int:
    global workbench_ran
    # Start-up builds long-lived objects (modules, styles, widgets): the cyclic collector
    # would walk them again and again, a full pass of ~70 ms landing before the first full
    # screen. The app turns it back on, with those objects parked, once the screen is up.
    from nlu_tui.gcpause import pause_for_start_up

    pause_for_start_up()
    from nlu_tui.ui.app import run_app

    try:
        return run_app(workspace)
    finally:
        workbench_ran = True


def leave_now(code: int) -> None:
    """End the process after the workbench, skipping the interpreter's teardown.

    Once the app has exited, every edit and result is on disk (atomic writes, the store
    committed) and the terminal is restored; what is left is freeing the modules and objects
    the workbench built, most of a second under load, in which the shell is not back yet and
    the keys typed seem lost (issue 23: quit within 300 ms). The ``atexit`` handlers still run
    and the standard streams are flushed. When another non-daemon thread is still working,
    the normal exit (which waits for it) is kept.
    """
    import atexit
    import contextlib
    import os
    import sys
    import threading

    main = threading.main_thread()
    if any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate()):
        return
    atexit._run_exitfuncs()  # what the interpreter runs at exit, logging's flush included
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
