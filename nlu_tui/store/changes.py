"""Telling a reader that the runs of a store changed, whoever changed them.

Every change to ``runs`` (a run added, ended, resumed, deleted, a note edited, a run copied
in) moves the one-row counter ``store_changes`` in the same transaction
(:meth:`~nlu_tui.store.backend.Database.runs_changed`); on PostgreSQL the transaction also
sends ``NOTIFY nlu_tui_runs``. :class:`ChangeFeed` waits for that counter to move: on
PostgreSQL it ``LISTEN``\\ s and wakes on the notification, with a poll of the counter as the
fallback; on SQLite (no notifications between processes) it polls the counter, one row read.

Changes this process made itself are not reported (:func:`~nlu_tui.store.backend.own_changes`:
a workbench reloads after its own writes already, and a reload it did not ask for would race
the one it did). The feed opens its own connection, never creates a store (a fresh install's SQLite file is
waited for, not made), and never raises while the store is away: it reports no change and
tries again. :meth:`ChangeFeed.wait` blocks: call it from a thread (the workbench does, in a
worker, and refreshes its Runs tab and suites panel when it returns a new counter).
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from nlu_tui.store.backend import CHANGES_CHANNEL, StoreError, own_changes
from nlu_tui.store.runstore import RunStore
from nlu_tui.store_location import StoreLocation, resolve

POLL_S = 0.5
"""How often the counter is read when no notification wakes the feed first."""


class ChangeFeed:
    """The change counter of one store, and a blocking wait for it to move."""

    def __init__(self, where: Path | str | None = None, *, poll: float = POLL_S) -> None:
        self.location: StoreLocation = resolve(where)
        self.poll = poll
        self._store: RunStore | None = None
        self._listener: Any = None
        self._listen_again_at = 0.0
        self._seen: int | None = None
        self._own_used = own_changes()

    @property
    def listening(self) -> bool:
        """Whether PostgreSQL notifications wake the feed (else it only polls)."""
        return self._listener is not None

    def counter(self) -> int | None:
        """The store's change counter; None while there is no store (no SQLite file yet)."""
        if self._store is None:
            path = self.location.path
            if path is not None and not path.exists():
                return None
            self._store = RunStore(self.location.url, detect_interrupted=False)
        return self._store.change_counter()

    def prime(self) -> None:
        """Take the counter as it is now as seen (a store that is away: no store yet)."""
        try:
            self._seen = self.counter()
        except StoreError:
            self._seen = None
        self._own_used = own_changes()

    def changed(self) -> bool:
        """Whether another writer changed the runs since the last call (or :meth:`prime`).

        This process's own changes are credits (:func:`own_changes`, counted before their
        commit) that the counter's moves use up first: a move beyond them is another's."""
        try:
            now = self.counter()
        except StoreError:
            return False
        moved = (now or 0) - (self._seen or 0)
        used = max(0, min(own_changes() - self._own_used, moved))
        self._own_used += used
        self._seen = now
        return moved > used

    def wait(self, timeout: float) -> bool:
        """Block until another writer changes the runs (True) or ``timeout`` seconds pass
        (False); a store that is away is "no change"."""
        deadline = time.monotonic() + timeout
        while True:
            if self.changed():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._pause(min(self.poll, left))

    def _pause(self, seconds: float) -> None:
        """Sleep, or less: until a PostgreSQL notification arrives."""
        listener = self._listen()
        if listener is None:
            time.sleep(seconds)
            return
        try:
            for _notice in listener.notifies(timeout=seconds, stop_after=1):
                pass
        except Exception:  # the server went away: poll until it is back
            self._drop_listener()
            time.sleep(seconds)

    def _listen(self) -> Any:
        if self.location.backend != "postgresql":
            return None
        if self._listener is None and time.monotonic() >= self._listen_again_at:
            import psycopg

            try:
                self._listener = psycopg.connect(
                    self.location.url,
                    autocommit=True,
                    connect_timeout=5,
                    application_name="nlu-tui watch",
                )
                self._listener.execute(f"LISTEN {CHANGES_CHANNEL}")
            except Exception:  # the server is away: poll, and try again in a while
                self._drop_listener()
                self._listen_again_at = time.monotonic() + 10.0
        return self._listener

    def _drop_listener(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(Exception):
                self._listener.close()
        self._listener = None

    def close(self) -> None:
        self._drop_listener()
        if self._store is not None:
            self._store.close()
            self._store = None
