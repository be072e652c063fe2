"""The store's change feed (what the workbench's live refresh waits on), on both backends:
another process adding a run moves the counter; PostgreSQL wakes the feed by NOTIFY (long
before its poll), SQLite by polling; a feed never creates a store and survives its absence."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

from store_backends import pg_server, pg_url, store_where  # noqa: F401  (fixtures)

# ruff: noqa: F811  (a fixture imported from store_backends is an argument of the tests)
from nlu_tui.model import RunStatus, Suite, TestCase
from nlu_tui.store import RunStore
from nlu_tui.store.changes import ChangeFeed

ADD_RUN = textwrap.dedent(
    """
    import sys
    from nlu_tui.model import Suite, TestCase
    from nlu_tui.store import RunStore

    with RunStore(sys.argv[1]) as store:
        store.create_run(Suite(name="s", cases=[TestCase("hi", id="c0")]), engine_name="e")
    """
)


def _add_run_elsewhere(where: Path | str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", ADD_RUN, str(where)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_every_change_to_runs_moves_the_counter(store_where: Path | str) -> None:
    store = RunStore(store_where)
    seen = [store.change_counter()]
    run = store.create_run(Suite(name="s", cases=[TestCase("hi", id="c0")]), engine_name="e")
    seen.append(store.change_counter())
    store.set_note(run.id, "why")
    seen.append(store.change_counter())
    store.finish_run(run.id, RunStatus.SUCCESS)
    seen.append(store.change_counter())
    store.delete_run(run.id)
    seen.append(store.change_counter())
    assert seen == sorted(set(seen)), seen  # each moved it
    _add_run_elsewhere(store_where)
    assert store.change_counter() > seen[-1]


def test_the_feed_wakes_when_another_process_adds_a_run(store_where: Path | str) -> None:
    store = RunStore(store_where)
    postgres = isinstance(store_where, str)
    feed = ChangeFeed(store_where, poll=30.0 if postgres else 0.2)
    try:
        feed.prime()
        assert not feed.wait(0.3)  # nothing changed: the wait times out
        if postgres:
            assert feed.listening  # LISTEN nlu_tui_runs
        # this process's own change is not another writer's
        store.create_run(Suite(name="s", cases=[TestCase("hi", id="c0")]), engine_name="e")
        assert not feed.wait(0.5)
        began = time.monotonic()
        _add_run_elsewhere(store_where)
        changed = feed.wait(60.0)
        took = time.monotonic() - began
    finally:
        feed.close()
        store.close()
    assert changed
    # PostgreSQL: woken by NOTIFY, not by the 30 s poll
    assert took < 20.0


def test_a_feed_never_creates_a_store_and_sees_the_first_run(tmp_path: Path) -> None:
    path = tmp_path / "later.sqlite3"
    feed = ChangeFeed(path, poll=0.1)
    try:
        feed.prime()
        assert feed.counter() is None and not feed.wait(0.3)
        assert not path.exists()
        _add_run_elsewhere(path)
        assert feed.wait(10.0)
    finally:
        feed.close()
