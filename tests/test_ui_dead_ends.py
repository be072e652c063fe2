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
from ui_runs_support import predictions_v1, screen_text, settle, small_suite, stored_run, wait_for
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
        await wait_for(pilot, lambda: "No conversation tests here yet" in screen_text(app))
        shown = screen_text(app)
        assert "No conversation tests here yet" in shown, shown
        assert ".e2e.yml" in shown and "tests/" in shown
        assert not app.screen.query_one("#conv-tabs").display  # no empty tables (nor tabs)
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


# --- after a restart, the Results tab opens the suite's last run ------------------------------


async def test_results_tab_opens_the_suites_last_run_after_a_restart(tmp_path: Path) -> None:
    from ui_support import SAMPLE, make_workspace

    from nlu_tui.formats.native import load_suite
    from nlu_tui.model import Prediction

    root = make_workspace(tmp_path, SAMPLE)
    suite = load_suite(root / SAMPLE.name)
    store = RunStore()
    answers = [Prediction(c.intents[0].name if c.intents else None, 0.9) for c in suite.cases]
    older = stored_run(store, suite, answers[:3] + [Prediction(None, 0.1)] * 51)
    latest = stored_run(store, suite, answers, note="the latest")
    store.close()
    assert older != latest
    app = new_app(root)  # a new session: nothing open yet
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        app.screen.query_one("#main-tabs").active = "tab-results"
        await pilot.pause()
        await settle(pilot)
        from nlu_tui.ui.widgets.results_pane import ResultsPane

        pane = app.screen.query_one(ResultsPane)
        await wait_for(pilot, lambda: pane.run_id == latest)
        assert pane.run_id == latest
        shown = screen_text(app)
        assert "No run open" not in shown and latest in shown, shown


async def test_results_tab_of_a_suite_never_run_says_how_to_run_it(tmp_path: Path) -> None:
    from ui_support import SAMPLE, make_workspace

    app = new_app(make_workspace(tmp_path, SAMPLE))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.query_one("#main-tabs").active = "tab-results"
        await pilot.pause()
        await settle(pilot)
        await wait_for(pilot, lambda: "F5 runs it" in screen_text(app))
        shown = screen_text(app)
        assert "No run of Banking bot yet: F5 runs it" in shown, shown
        from nlu_tui.ui.widgets.results_pane import ResultsPane

        app.screen.query_one(ResultsPane).show_tab("tab-res-intents")  # its keys apply
        await wait_for(
            pilot,
            lambda: (
                app.screen.focused is not None
                and any(isinstance(n, ResultsPane) for n in app.screen.focused.ancestors)
            ),
        )
        assert app.screen.focused is not None
        assert any(isinstance(n, ResultsPane) for n in app.screen.focused.ancestors)
        actions = footer_actions(app)
        for dead in ("focus_search", "cycle_type", "pick_sort", "export", "edit_case"):
            assert dead not in actions, actions  # no run open: nothing for them to act on
        assert "run_suite" in actions  # F5 does something

        # the Runs tab of a suite never run says how to start one, and shows no run keys
        app.screen.query_one("#main-tabs").active = "tab-runs"
        await pilot.pause()
        app.screen.query_one("#runs-table").focus()
        await settle(pilot)
        await wait_for(pilot, lambda: "No runs of this suite yet" in screen_text(app))
        assert "No runs of this suite yet: F5 (or r here) starts" in screen_text(app)
        actions = footer_actions(app)
        assert "start_run" in actions or "run_suite" in actions, actions
        for dead in ("note", "open_results", "mark", "diff", "resume", "delete_run"):
            assert dead not in actions, actions


# --- the help screen at 80 columns -----------------------------------------------------------


def _lines_per_row(rendered: str) -> list[int]:
    """How many lines each row of a rendered Rich table takes (a row starts where its Key cell
    is not blank)."""
    counts: list[int] = []
    for line in rendered.splitlines():
        if "│" not in line:
            continue
        key = line.split("│", 1)[0]
        if key.strip():
            counts.append(1)
        elif counts:
            counts[-1] += 1
    return counts


async def test_help_keys_do_not_wrap_over_many_lines_at_80_columns(tmp_path: Path) -> None:
    import io

    from rich.console import Console
    from ui_support import SAMPLE, make_workspace

    from nlu_tui.ui.screens.help import HelpScreen

    app = new_app(make_workspace(tmp_path, SAMPLE))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        width = screen.query_one("#help-keys").size.width
        shown = len(screen.key_rows)
        console = Console(width=width, file=io.StringIO(), record=True)
        console.print(screen._table())  # the table the screen shows, drawn again
        rows = _lines_per_row(console.export_text())
        assert len(rows) == shown > 20
        # before: three narrow columns, 4-5 lines for a key with a long description
        assert max(rows) <= 3, rows
        assert sum(rows) / len(rows) < 1.8, rows


# --- the screenshot command -------------------------------------------------------------------


def _notes(app: App[Any]) -> str:
    return "\n".join(f"{note.title}: {note.message}" for note in app._notifications)


async def test_screenshot_makes_the_missing_downloads_folder(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from ui_support import SAMPLE, make_workspace

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # no user-dirs.dirs
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    downloads = home / "Downloads"
    assert not downloads.exists()
    app = new_app(make_workspace(tmp_path, SAMPLE))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.deliver_screenshot("shot.svg")  # what the palette's "Screenshot" runs
        await wait_for(
            pilot, lambda: (downloads / "shot.svg").is_file() and "Saved screenshot" in _notes(app)
        )
        assert (downloads / "shot.svg").read_text(encoding="utf-8").startswith("<svg")
        assert "Saved screenshot" in _notes(app)


async def test_screenshot_says_why_it_cannot_make_the_folder(tmp_path: Path) -> None:
    from ui_support import SAMPLE, make_workspace

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    app = new_app(make_workspace(tmp_path, SAMPLE))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        assert app.deliver_screenshot("shot.svg", str(blocker / "shots")) is None
        await pilot.pause()
        shown = _notes(app)
        assert "Cannot save the screenshot in" in shown, shown
        assert "Not a directory" in shown or "File exists" in shown, shown
