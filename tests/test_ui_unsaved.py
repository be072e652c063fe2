"""Pilot tests: a save that fails (a full disk) is shown, retried, and quitting asks first.

Issue 10, item 14: after a failed save the edit stayed on screen, a toast said
``Cannot save [Errno 28]``, and Ctrl+Q quit at once: the edit was gone.
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Label
from ui_runs_support import wait_for
from ui_support import SIZE, cases_view, make_workspace, new_app, settle

from nlu_tui.formats import native
from nlu_tui.formats.native import load_suite
from nlu_tui.ui.screens.dialogs import UnsavedQuitScreen
from nlu_tui.ui.widgets.suites_panel import SuitesPanel


def _no_space(path: Path, *_args: object, **_kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device", str(path))


def _notes(app: Any) -> str:
    return "\n".join(f"{n.title}\n{n.message}" for n in app._notifications)


def _suite_file(root: Path) -> Path:
    return root / "banking_bot.suite.yaml"


async def _tag_first_case(pilot: Any, tag: str) -> None:
    await pilot.press("t")  # tags the case under the cursor
    await pilot.pause()
    pilot.app.screen.query_one("#value", Input).value = tag
    await pilot.press("enter")
    await settle(pilot)


def _main_panel(app: Any) -> SuitesPanel:
    return app.screen_stack[1].query_one(SuitesPanel)  # type: ignore[no-any-return]


async def _start(pilot: Any) -> None:
    await settle(pilot)
    await pilot.press("f3")
    await settle(pilot)


async def test_failed_save_is_marked_retried_with_ctrl_s_and_quit_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_workspace(tmp_path)
    path = _suite_file(root)
    before = path.read_bytes()
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _start(pilot)
        monkeypatch.setattr(native, "atomic_write_bytes", _no_space)
        await _tag_first_case(pilot, "nightly")
        assert path.read_bytes() == before
        assert "Cannot save" in _notes(app) and "[Errno 28]" in _notes(app)
        assert "NOT saved" in _notes(app)
        # shown: the status line and the suites panel's mark
        status = str(cases_view(app).query_one("#cases-status", Label).render())
        assert "NOT SAVED" in status
        info = _main_panel(app).infos[str(path)]
        assert info.unsaved
        # the edit stays on screen
        assert "nightly" in cases_view(app).suite.cases[0].tags

        # quitting asks; Escape stays in the app with the edit
        await pilot.press("ctrl+q")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, UnsavedQuitScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, UnsavedQuitScreen)
        await wait_for(
            pilot, lambda: app.screen.focused is not None and app.screen.focused.id == "save"
        )
        assert app.screen.focused is not None and app.screen.focused.id == "save"
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: not isinstance(app.screen, UnsavedQuitScreen) and not app._exit
        )
        assert not isinstance(app.screen, UnsavedQuitScreen) and not app._exit

        # retry while the disk is still full: still unsaved, and said so
        await pilot.press("ctrl+s")
        await settle(pilot)
        await wait_for(
            pilot, lambda: "Still not saved" in _notes(app) and app.workspace.is_unsaved(path)
        )
        assert "Still not saved" in _notes(app) and app.workspace.is_unsaved(path)

        # the disk has room again: Ctrl+S saves, the marks go
        monkeypatch.setattr(native, "atomic_write_bytes", _real_write)
        await pilot.press("ctrl+s")
        await settle(pilot)
        await wait_for(pilot, lambda: not app.workspace.is_unsaved(path))
        assert not app.workspace.is_unsaved(path)
        assert not _main_panel(app).infos[str(path)].unsaved
        assert "NOT SAVED" not in str(cases_view(app).query_one("#cases-status", Label).render())
        await pilot.press("ctrl+q")  # nothing unsaved: quits at once
        await pilot.pause()
        await wait_for(pilot, lambda: app._exit)
        assert app._exit
    assert "nightly" in load_suite(path).cases[0].tags


async def test_the_next_edit_retries_and_save_and_quit_saves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_workspace(tmp_path)
    path = _suite_file(root)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _start(pilot)
        monkeypatch.setattr(native, "atomic_write_bytes", _no_space)
        await _tag_first_case(pilot, "first")
        monkeypatch.setattr(native, "atomic_write_bytes", _real_write)
        await _tag_first_case(pilot, "second")  # this save carries the first edit too
        assert not app.workspace.unsaved()
        saved = load_suite(path).cases
        assert {"first", "second"} <= set(saved[0].tags)

        monkeypatch.setattr(native, "atomic_write_bytes", _no_space)
        await _tag_first_case(pilot, "third")
        await pilot.press("ctrl+q")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, UnsavedQuitScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, UnsavedQuitScreen)
        monkeypatch.setattr(native, "atomic_write_bytes", _real_write)
        await pilot.press("s")  # Save and quit
        await settle(pilot)
        await wait_for(pilot, lambda: app._exit)
        assert app._exit
    assert "third" in load_suite(path).cases[0].tags


async def test_quit_without_saving_is_an_explicit_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_workspace(tmp_path)
    path = _suite_file(root)
    before = path.read_bytes()
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _start(pilot)
        monkeypatch.setattr(native, "atomic_write_bytes", _no_space)
        await _tag_first_case(pilot, "lost")
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("s")  # Save and quit, but the disk is still full: stay
        await settle(pilot)
        await wait_for(pilot, lambda: not app._exit and "Still not saved" in _notes(app))
        assert not app._exit and "Still not saved" in _notes(app)
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("d")  # Quit without saving
        await pilot.pause()
        await wait_for(pilot, lambda: app._exit)
        assert app._exit
    assert path.read_bytes() == before


_real_write = native.atomic_write_bytes


async def test_quit_during_a_save_that_fails_still_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl+Q pressed while a save is still being written waits for its outcome."""
    import threading

    root = make_workspace(tmp_path)
    release = threading.Event()

    def slow_full_disk(path: Path, *_args: object, **_kwargs: object) -> None:
        release.wait(10)
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _start(pilot)
        monkeypatch.setattr(native, "atomic_write_bytes", slow_full_disk)
        await pilot.press("t")
        await pilot.pause()
        app.screen.query_one("#value", Input).value = "slow"
        await pilot.press("enter")
        await pilot.pause()
        assert not app.workspace.unsaved()  # the save is still under way
        threading.Timer(0.2, release.set).start()
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert not app._exit
        assert isinstance(app.screen, UnsavedQuitScreen)
