"""The import dialog saves the sample Kore.ai batch-test files (JSON and CSV), as Kore.ai's
new-suite dialog offers them, and previews the JSON one."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_ui_runs_rundiff import _palette, _wait_for
from textual.widgets import DataTable, DirectoryTree
from ui_runs_support import wait_for
from ui_support import SAMPLE, SIZE, make_workspace, new_app, settle

from nlu_tui.samples import SAMPLE_FILES, save_sample_files


def test_sample_files_are_saved_without_overwriting(tmp_path: Path) -> None:
    first = save_sample_files(tmp_path)
    again = save_sample_files(tmp_path)
    assert [p.name for p in first] == list(SAMPLE_FILES)
    assert [p.name for p in again] == ["banking_bot-2.kore.json", "banking_bot-2.kore.csv"]
    source = SAMPLE.parent
    assert all(p.read_bytes() == (source / p.name).read_bytes() for p in first)


@pytest.mark.slow
async def test_import_dialog_saves_and_previews_the_samples(tmp_path: Path) -> None:
    from nlu_tui.ui.screens.import_dialog import ImportScreen

    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.push_screen(ImportScreen())
        await settle(pilot)
        await _palette(pilot, "save the sample", "import: Save the sample files")
        screen = app.screen
        assert isinstance(screen, ImportScreen)
        await _wait_for(pilot, lambda: screen.previewed is not None)
        assert (root / "banking_bot.kore.json").is_file() and (
            root / "banking_bot.kore.csv"
        ).is_file()
        assert screen.previewed is not None and len(screen.previewed.cases) == 54
        # the file picker shows the files just written (the CSV is picked from it next)
        tree = screen.query_one("#tree", DirectoryTree)

        def listed() -> set[str]:
            return {Path(str(n.data.path)).name for n in tree.root.children if n.data}

        await _wait_for(pilot, lambda: "banking_bot.kore.csv" in listed(), timeout=5)
        assert set(SAMPLE_FILES) <= listed()
        # at 80 columns the preview still shows #, Utterance and Intents: long utterances are cut with "…"
        table = screen.query_one("#preview", DataTable)
        await pilot.pause()
        widths = [column.get_render_width(table) for column in table.columns.values()]
        assert len(widths) == 4 and sum(widths[:3]) < table.size.width, (widths, table.size)
        cells = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        assert any(c.endswith("…") for c in cells)


@pytest.mark.slow
async def test_an_imported_suite_runs_on_both_versions_in_the_workbench(tmp_path: Path) -> None:
    """With one engine profile beside the suites, the import starts a development and a
    published run through the Runs pane (the run service), as Kore.ai runs a new suite."""
    from nlu_tui.ui.screens.import_dialog import ImportScreen
    from nlu_tui.ui.widgets.suites_panel import SuitesPanel

    root = make_workspace(tmp_path)
    (root / "engines.yaml").write_text(
        f"engines:\n  bot:\n    type: embedded\n    nlu: {SAMPLE.parent / 'banking_bot.nlu.yml'}\n"
        "    published: {threshold: 0.99}\n",
        encoding="utf-8",
    )
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one(SuitesPanel).action_import()
        await settle(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, ImportScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        screen = app.screen
        assert isinstance(screen, ImportScreen)
        screen.query_one("#path").value = str(SAMPLE.parent / "banking_bot.kore.csv")  # type: ignore[attr-defined]
        screen.action_preview()
        await _wait_for(pilot, lambda: screen.previewed is not None)
        screen.action_do_import()
        await _wait_for(
            pilot,
            lambda: (
                len(app.run_sessions) == 2 and all(s.finished for s in app.run_sessions.values())
            ),
            timeout=120,
        )
        sessions = sorted(app.run_sessions.values(), key=lambda s: s.stage)
        assert [(s.engine_name, s.stage, s.status.value) for s in sessions] == [
            ("bot", "development", "success"),
            ("bot", "published", "success"),
        ]
        assert all(s.record is not None and s.record.note == "first run of a new suite"
                   for s in sessions)  # fmt: skip
        dev, pub = (s.record for s in sessions)
        assert dev is not None and pub is not None and pub.tp < dev.tp
        # one after the other, as the command line runs them (not both at once on one bot)
        assert dev.finished_at is not None and pub.started_at >= dev.finished_at
