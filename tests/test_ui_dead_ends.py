"""Issue 23, "No dead ends": every screen says what to do when it has nothing to show, and no
footer key does nothing; two identical runs diff to "no changes" (CLI and workbench)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from textual.app import App
from textual.widgets import DataTable, Static
from ui_runs_support import predictions_v1, screen_text, settle, small_suite, stored_run
from ui_support import REPO, new_app

from nlu_tui.rundiff import NO_CHANGES, compute_diff
from nlu_tui.store import RunStore
from nlu_tui.ui.screens.conversation_tests import ConversationScreen
from nlu_tui.ui.screens.run_diff import DiffScreen


def footer_actions(app: App[Any]) -> set[str]:
    """The actions of the keys the footer shows (enabled) on the current screen."""
    return {
        active.binding.action
        for active in app.screen.active_bindings.values()
        if active.enabled and active.binding.show
    }


# --- the conversation tests screen without E2E files ---------------------------------------------


async def test_conversation_screen_without_test_files_says_what_to_add(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    app = new_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.push_screen(ConversationScreen())
        await pilot.pause()
        await pilot.pause()
        shown = screen_text(app)
        assert "No conversation tests here yet" in shown, shown
        assert ".e2e.yml" in shown and "tests/" in shown
        assert not app.screen.query_one("#conv-body").display  # no empty tables
        actions = footer_actions(app)
        for dead in ("run", "resume", "cancel", "edit_failed", "focus_engine"):
            assert dead not in actions, actions
        await pilot.press("r")  # does nothing, and says nothing is broken
        await pilot.pause()
        assert isinstance(app.screen, ConversationScreen)


async def test_conversation_screen_footer_follows_the_run(tmp_path: Path) -> None:
    """With a test file: Run is there; Cancel only while a run goes, Resume only when the
    shown run can be resumed."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "shop.e2e.yml").write_text(
        "test_cases:\n  - test_case: greet\n    steps:\n      - user: hi\n"
        "      - utter: utter_greet\n",
        encoding="utf-8",
    )
    app = new_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.push_screen(ConversationScreen())
        await pilot.pause()
        await settle(pilot)
        actions = footer_actions(app)
        assert "run" in actions
        assert "cancel" not in actions and "resume" not in actions, actions


# --- two identical runs ------------------------------------------------------------------------


def _identical_runs() -> tuple[RunStore, str, str]:
    store = RunStore()
    suite = small_suite()
    first = stored_run(store, suite, predictions_v1())
    second = stored_run(store, suite, predictions_v1())
    return store, first, second


def test_the_cli_diff_of_identical_runs_says_no_changes(tmp_path: Path) -> None:
    store, first, second = _identical_runs()
    store.close()
    proc = subprocess.run(
        [sys.executable, "-m", "nlu_tui", "diff", first, second],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert proc.returncode == 0, proc.stderr
    assert NO_CHANGES in proc.stdout, proc.stdout
    assert first in proc.stdout and second in proc.stdout


def test_the_cli_diff_lists_what_changed(tmp_path: Path) -> None:
    from ui_runs_support import predictions_v2

    store = RunStore()
    suite = small_suite()
    first = stored_run(store, suite, predictions_v1())
    second = stored_run(store, suite, predictions_v2())
    store.close()
    proc = subprocess.run(
        [sys.executable, "-m", "nlu_tui", "diff", first, second],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert proc.returncode == 0, proc.stderr
    assert NO_CHANGES not in proc.stdout and "broke" in proc.stdout, proc.stdout


async def test_the_diff_screen_of_identical_runs_says_no_changes() -> None:
    store, first, second = _identical_runs()
    result = compute_diff(store, first, second, 0.1, None)
    assert result.diff.unchanged

    class DiffApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(DiffScreen(first, second, result))

    app = DiffApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        none = app.screen.query_one("#diff-none", Static)
        assert none.display and "No changes" in str(none.render())
        assert not app.screen.query_one("#diff-cases", DataTable).display
        assert "No changes" in str(app.screen.query_one("#diff-header", Static).render())
        assert "edit_case" not in footer_actions(app)  # nothing to open
    store.close()
