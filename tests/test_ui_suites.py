"""Pilot tests of the suites panel and dialogs: create, rename, duplicate, delete + undo,
import with a bad row, export, external-change conflicts, help and the command palette."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, DataTable, Input, OptionList, Static, TextArea
from ui_runs_support import wait_for
from ui_support import FIXTURES, SIZE, cases_view, make_workspace, new_app, settle

from nlu_tui.formats.native import load_suite
from nlu_tui.ui.screens.dialogs import ConflictScreen
from nlu_tui.ui.screens.import_dialog import ImportScreen


def _suite_names(app) -> list[str]:  # type: ignore[no-untyped-def]
    panel = app.screen.query_one("#suites")
    return sorted(info.name for info in panel.infos.values())


@pytest.mark.slow
async def test_create_rename_duplicate_delete_and_undo(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "suite-list"
        await pilot.press("n")
        await pilot.pause()
        await pilot.press(*"Card [b]ops[/b]")
        app.screen.query_one("#description", Input).value = "card questions"
        await pilot.press("enter")
        await settle(pilot)
        created = root / "card-b-ops-b.suite.yaml"
        assert created.exists()
        suite = load_suite(created)
        assert suite.name == "Card [b]ops[/b]" and suite.description == "card questions"
        assert suite.cases == []
        # the new suite is selected and open
        assert app.suite is not None and app.suite.path == created.resolve()
        assert "Card [b]ops[/b]" in _suite_names(app)

        await pilot.press("e")  # Rename (r is no longer a suite key)
        await pilot.pause()
        app.screen.query_one("#name", Input).value = "Cards"
        await pilot.press("enter")
        await settle(pilot)
        assert not created.exists()
        assert load_suite(root / "cards.suite.yaml").name == "Cards"

        await pilot.press("c")
        await settle(pilot)
        await wait_for(pilot, lambda: (root / "cards-copy.suite.yaml").is_file())
        assert load_suite(root / "cards-copy.suite.yaml").name == "Cards (copy)"

        await pilot.press("delete")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        remaining = sorted(p.name for p in root.glob("*.suite.yaml"))
        assert len(remaining) == 2
        assert list((root / ".trash").iterdir())
        await pilot.press("u")
        await settle(pilot)
        await wait_for(pilot, lambda: len(list(root.glob("*.suite.yaml"))) == 3)
        assert len(list(root.glob("*.suite.yaml"))) == 3


@pytest.mark.slow
async def test_import_with_a_bad_row_then_a_good_file(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, ImportScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        dialog = app.screen
        assert isinstance(dialog, ImportScreen)
        dialog.query_one("#path", Input).value = str(FIXTURES / "bad_row_kore.csv")
        await pilot.press("f5")
        await settle(pilot)
        errors = str(dialog.query_one("#import-errors", Static).render())
        assert "row 3" in errors and "intent" in errors
        assert dialog.query_one("#import-btn", Button).disabled
        await pilot.press("ctrl+s")  # refused: nothing previewed
        await pilot.pause()
        assert app.screen is dialog
        assert len(list(root.glob("*.suite.yaml"))) == 1

        dialog.query_one("#path", Input).value = str(FIXTURES / "good_kore.csv")
        await pilot.press("f5")
        await settle(pilot)
        await wait_for(pilot, lambda: dialog.query_one("#preview", DataTable).row_count == 2)
        assert dialog.query_one("#preview", DataTable).row_count == 2
        assert not dialog.query_one("#import-btn", Button).disabled
        await pilot.press("ctrl+s")
        await settle(pilot)
        await wait_for(pilot, lambda: not isinstance(app.screen, ImportScreen))
        assert not isinstance(app.screen, ImportScreen)
    imported = root / "good-kore.suite.yaml"
    suite = load_suite(imported)
    assert [c.utterance for c in suite.cases] == ["send 20 dollars to Ann", "what is my balance"]


async def test_export_to_kore_csv(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    target = tmp_path / "out.csv"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()
        app.screen.query_one("#path", Input).value = str(target)
        from textual.widgets import Select

        app.screen.query_one("#format", Select).value = "kore-csv"
        await pilot.click("#ok")
        await settle(pilot)
    await wait_for(pilot, lambda: target.exists())
    assert target.exists()
    assert target.read_text(encoding="utf-8").startswith("input,intent")


async def _add_case(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("a")
    await pilot.pause()
    editor = pilot.app.screen
    editor.query_one("#utterances", TextArea).text = text
    editor.query_one("#intent-1", Input).value = "check_balance"
    await pilot.pause()
    await pilot.press("ctrl+s")
    await settle(pilot)


@pytest.mark.slow
async def test_external_change_is_never_overwritten_save_as(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    path = root / "banking_bot.suite.yaml"
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        # someone else edits the file while it is open
        outside = path.read_text(encoding="utf-8").replace(
            "name: Banking bot", "name: Banking bot (edited elsewhere)"
        )
        path.write_text(outside, encoding="utf-8")
        await _add_case(pilot, "a change made in the app")
        assert isinstance(app.screen, ConflictScreen)
        assert path.read_text(encoding="utf-8") == outside  # untouched
        app.screen.query_one("#new-name", Input).value = "Banking mine"
        await pilot.click("#save-as")
        await settle(pilot)
    assert path.read_text(encoding="utf-8") == outside
    mine = load_suite(root / "banking-mine.suite.yaml")
    assert mine.cases[-1].utterance == "a change made in the app"


@pytest.mark.slow
async def test_external_change_reload(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    path = root / "banking_bot.suite.yaml"
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        outside = path.read_text(encoding="utf-8").replace(
            "name: Banking bot", "name: Banking bot v2"
        )
        path.write_text(outside, encoding="utf-8")
        await _add_case(pilot, "lost on reload")
        assert isinstance(app.screen, ConflictScreen)
        await pilot.press("r")
        await settle(pilot)
        await wait_for(pilot, lambda: app.suite is not None and app.suite.name == "Banking bot v2")
        assert app.suite is not None and app.suite.name == "Banking bot v2"
        assert all(c.utterance != "lost on reload" for c in app.suite.cases)
        # after the reload, edits save normally again
        await pilot.press("f3")
        await _add_case(pilot, "saved after reload")
    saved = load_suite(path)
    assert saved.name == "Banking bot v2"
    assert saved.cases[-1].utterance == "saved after reload"


@pytest.mark.slow
async def test_help_screen_lists_keys_and_closes(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        from nlu_tui.ui.screens.help import HelpScreen

        assert isinstance(app.screen, HelpScreen)
        actions = {row[1] for row in app.screen.key_rows}
        assert {"Quit", "Help", "Import", "New", "Suites", "Cases"} <= actions
        assert any("ctrl+q" in row[0].lower() or "^q" in row[0] for row in app.screen.key_rows)
        await pilot.press("escape")
        await pilot.pause()
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, HelpScreen)


@pytest.mark.slow
async def test_palette_commands_are_grouped_and_run(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        names = [c.name for c in app.palette_commands()]
        for wanted in ("suite: New", "suite: Import", "cases: Add", "cases: Sort by Intents"):
            assert wanted in names
        assert all(": " in n for n in names)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"suite: New")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        from nlu_tui.ui.screens.dialogs import SuiteFormScreen

        assert isinstance(app.screen, SuiteFormScreen)


@pytest.mark.slow
async def test_typing_question_mark_in_a_form_does_not_open_help(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"why? q")
        await wait_for(
            pilot, lambda: app.screen.query_one("#utterances", TextArea).text == "why? q"
        )
        assert app.screen.query_one("#utterances", TextArea).text == "why? q"
        await pilot.press("slash")  # also literal inside the form
        assert cases_view(app) is not None


async def test_small_terminal_80x24(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        view = cases_view(app)
        assert view.table is not None and view.table.size.height >= 10
        assert app.screen.query_one(OptionList).size.width >= 20
        await pilot.press("a")
        await pilot.pause()
        save = app.screen.query_one("#save", Button)
        assert save.region.bottom <= 24 and save.region.width > 0


@pytest.mark.slow
async def test_theme_switch_is_remembered(tmp_path: Path) -> None:
    from nlu_tui import themes
    from nlu_tui.ui.app import NluTuiApp
    from nlu_tui.workspace import open_workspace

    root = make_workspace(tmp_path)
    app = NluTuiApp(open_workspace(root), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "nlu-dark"
        await pilot.press("f9")
        await pilot.pause()
        await wait_for(pilot, lambda: app.theme == "nlu-light")
        assert app.theme == "nlu-light"
    assert themes.remembered_theme() == "nlu-light"
    again = NluTuiApp(open_workspace(root), cursor_blink=False)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.theme == "nlu-light"


async def test_developer_utterances_suite_is_read_only(tmp_path: Path) -> None:
    from ui_support import SAMPLE

    root = make_workspace(tmp_path, SAMPLE, SAMPLE.parent / "banking_bot.nlu.yml")
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert any(i.read_only for i in app.screen.query_one("#suites").infos.values())
        await pilot.press("down")
        await settle(pilot)
        await wait_for(
            pilot, lambda: app.suite is not None and app.suite.read_only and app.suite.cases
        )
        assert app.suite is not None and app.suite.read_only and app.suite.cases
        await pilot.press("f3")
        await pilot.press("a")
        await pilot.pause()
        from nlu_tui.ui.screens.case_editor import CaseEditorScreen

        assert not isinstance(app.screen, CaseEditorScreen)
    assert sorted(p.name for p in root.iterdir()) == [
        "banking_bot.nlu.yml",
        "banking_bot.suite.yaml",
    ]


async def test_two_training_files_are_told_apart_in_a_narrow_panel(tmp_path: Path) -> None:
    from textual.geometry import Region
    from ui_support import SAMPLE

    root = make_workspace(
        tmp_path, SAMPLE.parent / "banking_bot.nlu.yml", SAMPLE.parent / "contacts.nlu.yml"
    )
    app = new_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        options = app.screen.query_one("#suites").query_one(OptionList)
        width, height = options.size
        shown = [strip.text for strip in options.render_lines(Region(0, 0, width, height))]
        names = [line.strip() for line in shown if "developer" in line]
        # each entry starts with its training file (the panel is 24 cells wide at 80 columns)
        assert [n.split(":")[0] for n in names] == ["banking_bot", "contacts"], shown
        assert all(n.endswith("…") for n in names)  # the rest is cut, not the file's name
