"""Snapshot tests of the main screens at a fixed size (animations and cursor blink off)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ui_support import settle

APP = str(Path(__file__).parent / "fixtures" / "ui" / "snap_app.py")
SIZE = (120, 36)


async def _ready(pilot: Any) -> None:
    await settle(pilot)
    await pilot.press("f3")
    await settle(pilot)


def test_snapshot_main_screen(snap_compare: Any) -> None:
    assert snap_compare(APP, terminal_size=SIZE, run_before=_ready)


def test_snapshot_main_screen_80x24(snap_compare: Any) -> None:
    assert snap_compare(APP, terminal_size=(80, 24), run_before=_ready)


@pytest.mark.slow
def test_snapshot_case_editor(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        await _ready(pilot)
        await pilot.press("e")
        await settle(pilot)

    assert snap_compare(APP, terminal_size=SIZE, run_before=run_before)


def test_snapshot_untrusted_markup_shows_literally(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("down")  # the markup suite comes second
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)

    assert snap_compare(APP, terminal_size=SIZE, run_before=run_before)


@pytest.mark.slow
def test_snapshot_help(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        await _ready(pilot)
        await pilot.press("f1")
        await settle(pilot)

    assert snap_compare(APP, terminal_size=SIZE, run_before=run_before)
