"""Key remapping by binding id: the core parser of settings.yaml's ``keymap:`` and the app."""

from __future__ import annotations

from pathlib import Path

import pytest
from ui_support import SIZE, make_workspace, settle

from nlu_tui import keymap, paths
from nlu_tui.ui.app import NluTuiApp, known_binding_ids
from nlu_tui.workspace import open_workspace


def _write_settings(text: str) -> None:
    config = paths.config_dir()
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.yaml").write_text(text, encoding="utf-8")


def test_parse_keymap_keeps_good_entries() -> None:
    entries, problems = keymap.parse_keymap({"app.theme": "f12", "results.export": "x, ctrl+x "})
    assert entries == {"app.theme": "f12", "results.export": "x,ctrl+x"}
    assert problems == []
    assert keymap.parse_keymap(None) == ({}, [])


def test_parse_keymap_skips_bad_entries() -> None:
    entries, problems = keymap.parse_keymap(
        {"app.theme": "f12", 3: "a", "help.close": 5, "app.help": "", "app.quit": "a,,b"}
    )
    assert entries == {"app.theme": "f12"}
    assert len(problems) == 4
    assert any("3" in p and "not a binding id" in p for p in problems)
    assert any("help.close" in p and "string" in p for p in problems)
    assert any("app.help" in p and "empty key" in p for p in problems)
    assert any("app.quit" in p and "empty key" in p for p in problems)
    entries, problems = keymap.parse_keymap(["app.theme", "f12"])
    assert entries == {} and len(problems) == 1 and "mapping" in problems[0]


def test_load_keymap_reads_settings_file() -> None:
    assert keymap.load_keymap() == ({}, [])
    _write_settings("theme: nlu-dark\nkeymap:\n  app.theme: f12\n  app.help: ''\n")
    entries, problems = keymap.load_keymap()
    assert entries == {"app.theme": "f12"}
    assert len(problems) == 1 and "app.help" in problems[0]


def test_known_binding_ids_cover_screens_and_widgets() -> None:
    ids = known_binding_ids()
    assert {"app.theme", "help.close", "results.export", "cases.add", "main.focus-suites"} <= ids


def _toasts(app: NluTuiApp) -> list[str]:
    return [f"{note.title}\n{note.message}" for note in app._notifications]


@pytest.mark.slow
@pytest.mark.parametrize("user_settings", [True, False])
async def test_keymap_remaps_keys_and_reports_unknown_ids(
    tmp_path: Path, user_settings: bool
) -> None:
    _write_settings(
        "keymap:\n  app.theme: f12\n  no.such-binding: ctrl+y\n  help.close: [escape]\n"
    )
    app = NluTuiApp(
        open_workspace(make_workspace(tmp_path)), cursor_blink=False, user_themes=user_settings
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        toasts = "\n".join(_toasts(app))
        before = app.theme
        await pilot.press("f12")
        await settle(pilot)
        remapped = app.theme != before
        await pilot.press("f1")
        await settle(pilot)
        from nlu_tui.ui.screens.help import HelpScreen

        assert isinstance(app.screen, HelpScreen)
        theme_row = next(row for row in app.screen.key_rows if row[3] == "app.theme")
        ids = {row[3] for row in app.screen.key_rows}
        assert {"app.quit", "app.help", "main.focus-suites"} <= ids
        if not user_settings:  # tests' isolation: the user's settings.yaml is not read
            assert not remapped
            assert "f9" in theme_row[0].lower()
            assert "no.such-binding" not in toasts
            assert app.user_keymap == {}
            return
        assert remapped, "f12 should switch the theme"
        assert theme_row[0].lower() == "f12", theme_row
        assert "keymap entries were ignored" in toasts
        assert "no.such-binding" in toasts and "help.close" in toasts
        assert app.user_keymap == {"app.theme": "f12"}
        # the old key no longer switches the theme
        await pilot.press("escape")
        await settle(pilot)
        current = app.theme
        await pilot.press("f9")
        await settle(pilot)
        assert app.theme == current
