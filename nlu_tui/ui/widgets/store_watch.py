"""Live refresh: the workbench hears when any writer (a CLI, CI, a colleague's workbench)
changes the runs of its store, and the panes that show runs read them again.

One daemon thread per app (not a Textual worker: it lives as long as the app, and waiting for
the app's workers to finish must not wait for it) waits on the core's :class:`~nlu_tui.store.changes.ChangeFeed`
(PostgreSQL ``LISTEN``/``NOTIFY``, or a poll of the store's change counter on SQLite) and
publishes :func:`runs_changed`'s signal on the UI thread; the Runs pane and the suites panel
subscribe and reload, each in its own worker. Nothing here touches the store on the UI thread.
"""

from __future__ import annotations

import threading
import time
from typing import Any
from weakref import WeakKeyDictionary

from textual.app import App
from textual.dom import DOMNode
from textual.signal import Signal

START_DELAY_S = 1.0
"""The feed opens its store this long after the first subscriber: the first paint needs none."""
WAIT_S = 0.5
"""Each wait of the feed, so the thread notices within this time that the app has ended."""

_SIGNALS: WeakKeyDictionary[App[Any], Signal[int]] = WeakKeyDictionary()


def runs_changed(node: DOMNode) -> Signal[int]:
    """The app's "another writer changed the runs" signal; the first call starts the thread
    that watches the store."""
    app = node.app
    signal = _SIGNALS.get(app)
    if signal is None:
        signal = _SIGNALS[app] = Signal(app, "runs-changed")
        threading.Thread(
            target=_watch, args=(app, signal), name="nlu-tui store watch", daemon=True
        ).start()
    return signal


def _watch(app: App[Any], signal: Signal[int]) -> None:
    deadline = time.monotonic() + START_DELAY_S
    while time.monotonic() < deadline:
        if not app.is_running:
            return
        time.sleep(0.05)
    from nlu_tui.store.changes import ChangeFeed

    feed = ChangeFeed()
    try:
        feed.prime()
        while app.is_running:
            if feed.wait(WAIT_S) and app.is_running:
                try:
                    app.call_from_thread(signal.publish, 0)
                except RuntimeError:  # the app is gone
                    return
    finally:
        feed.close()
