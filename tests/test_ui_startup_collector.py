"""The workbench pauses Python's cyclic collector for its start-up (``cli.tui.open_workbench``)
and the app turns it back on once the first screen is up, with what start-up built parked
outside it (``gcpause.end_start_up_pause``): a collector left off would let cyclic garbage grow
for the whole session."""

from __future__ import annotations

import gc
from pathlib import Path

from ui_support import SIZE, make_workspace, new_app

from nlu_tui import gcpause
from nlu_tui.ui.app import COLLECTOR_RESUMES_AFTER
from tests.conftest import SAMPLES


async def test_the_collector_paused_for_start_up_runs_again(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, SAMPLES / "banking_bot.suite.yaml")
    gcpause.pause_for_start_up()
    try:
        app = new_app(root, prebuild=True)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(COLLECTOR_RESUMES_AFTER + 0.5)
            assert gc.isenabled()
            assert gc.get_freeze_count() > 0  # start-up's objects were parked
    finally:
        gcpause.release_parked()
        gc.enable()


async def test_a_collector_that_was_never_paused_is_left_alone(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, SAMPLES / "banking_bot.suite.yaml")
    assert gc.isenabled()
    before = gc.get_freeze_count()
    app = new_app(root, prebuild=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(COLLECTOR_RESUMES_AFTER + 0.5)
        assert gc.isenabled()
        assert gc.get_freeze_count() == before


async def _dialogs_built(pilot: object) -> None:
    import asyncio
    import time

    from nlu_tui.ui.reuse import spare
    from nlu_tui.ui.screens.run_diff import DiffScreen

    app = pilot.app  # type: ignore[attr-defined]
    deadline = time.monotonic() + 60
    while spare(app, DiffScreen) is None or any(w.group == "prebuild" for w in app.workers):
        assert time.monotonic() < deadline, "the dialogs were never built ahead"
        await asyncio.sleep(0.02)


async def test_the_dialogs_built_ahead_are_parked_too_when_start_up_paused_it(
    tmp_path: Path,
) -> None:
    """The dialogs built after the first screen (ui/reuse.py) live as long as the app: when the
    app turned the collector back on, they are parked outside it as start-up's objects are."""
    root = make_workspace(tmp_path, SAMPLES / "banking_bot.suite.yaml")
    gcpause.pause_for_start_up()
    try:
        app = new_app(root, prebuild=True)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(COLLECTOR_RESUMES_AFTER + 0.2)
            while not gc.isenabled():
                await pilot.pause(0.05)
            await _dialogs_built(pilot)
            # parked: out of the collector's generations, whether they were built before the
            # collector resumed (parked with start-up's objects) or after (parked on their own)
            from nlu_tui.ui.reuse import spare
            from nlu_tui.ui.screens.run_diff import DiffScreen

            dialog = spare(app, DiffScreen)
            assert dialog is not None
            assert not any(o is dialog for o in gc.get_objects())
    finally:
        gcpause.release_parked()
        gc.enable()


async def test_a_collector_never_paused_is_left_alone_by_the_dialogs_built_ahead(
    tmp_path: Path,
) -> None:
    root = make_workspace(tmp_path, SAMPLES / "banking_bot.suite.yaml")
    before = gc.get_freeze_count()
    app = new_app(root, prebuild=True)
    async with app.run_test(size=SIZE) as pilot:
        await _dialogs_built(pilot)
        assert gc.get_freeze_count() == before
