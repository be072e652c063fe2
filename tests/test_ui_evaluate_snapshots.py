"""The Evaluate view at the sizes testers use (80×24 and 120×35): the comparison options, the F1
curve, the per-intent report and the confusion matrix of real (seeded, deterministic) embedded
evaluations of the sample bot. The Progress and Figures tabs carry times and run ids, so the
Pilot tests (test_ui_evaluate.py) check those instead. Update with ``--snapshot-update`` after a
deliberate change and look at the pictures."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from ui_support import settle

from tests.conftest import SAMPLES

APP = str(Path(__file__).parent / "fixtures" / "ui" / "snap_app.py")
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 35), id="120x35")]
CONFIGS = ("embedded_default.config.yml", "embedded_words_nb.config.yml")


async def _screen(pilot: Any, mode: str) -> Any:
    from textual.widgets import Select

    from nlu_tui.ui.screens.evaluate import EvaluateScreen

    await settle(pilot)
    root = pilot.app.workspace.root
    for name in CONFIGS:
        shutil.copy(SAMPLES / name, root / name)
    screen = EvaluateScreen(SAMPLES / "banking_bot.nlu.yml", root)
    await pilot.app.push_screen(screen)
    await settle(pilot)
    screen.query_one("#eval-mode", Select).value = mode
    await pilot.pause()
    return screen


async def _options(pilot: Any) -> None:
    await _screen(pilot, "comparison")


async def _curve(pilot: Any) -> None:
    from textual.widgets import Input

    screen = await _screen(pilot, "comparison")
    screen.query_one("#eval-runs", Input).value = "2"
    screen.query_one("#eval-percentages", Input).value = "0 50 75"
    screen.action_start()
    await settle(pilot, rounds=12)


def _cross_validation(tab: str) -> Any:
    async def before(pilot: Any) -> None:
        from textual.widgets import Input, TabbedContent

        screen = await _screen(pilot, "cross-validation")
        screen.query_one("#eval-folds", Input).value = "3"
        screen.action_start()
        await settle(pilot, rounds=10)
        screen.query_one("#eval-tabs", TabbedContent).active = tab
        await settle(pilot)

    return before


SCENES = {
    "options": _options,
    "curve": _curve,
    "intents": _cross_validation("eval-tab-intents"),
    "confusion": _cross_validation("eval-tab-confusion"),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scene", list(SCENES))
def test_snapshot_evaluate(snap_compare: Any, scene: str, size: tuple[int, int]) -> None:
    assert snap_compare(APP, terminal_size=size, run_before=SCENES[scene])
