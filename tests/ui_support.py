"""Helpers shared by the workbench's Pilot tests (tests/test_ui_*.py)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

from nlu_tui.ui.app import NluTuiApp
from nlu_tui.workspace import open_workspace

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_suites" / "banking_bot.suite.yaml"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ui"
SIZE = (120, 36)


def make_workspace(tmp_path: Path, *files: Path) -> Path:
    """A workspace folder holding copies of ``files`` (the sample suite by default)."""
    root = tmp_path / "ws"
    root.mkdir()
    for src in files or (SAMPLE,):
        shutil.copy(src, root / src.name)
    return root


def new_app(root: Path, *, prebuild: bool = False) -> NluTuiApp:
    """The workbench on ``root``. Its dialogs are built on their keys unless ``prebuild``
    (built ahead, a second after start-up, as the real app does: ``NluTuiApp.prebuild_after``);
    building three dialogs in every UI test would cost CI minutes."""
    app = NluTuiApp(open_workspace(root), cursor_blink=False, user_themes=False)
    if not prebuild:
        app.prebuild_after = None
    return app


LONG_LIVED_GROUPS = {"_loader"}
"""Workers that run for the widget's lifetime (DirectoryTree's loader): never waited for."""


async def settle(pilot: Any, rounds: int = 4) -> None:
    """Wait until workers (which may start other workers) and their callbacks are done."""
    for _ in range(rounds):
        workers = [
            w
            for w in pilot.app.workers
            if w.group not in LONG_LIVED_GROUPS and type(w.node).__name__ != "DirectoryTree"
        ]
        if workers:  # one replaced by a newer one of its exclusive group ends as cancelled
            await asyncio.gather(*(w.wait() for w in workers), return_exceptions=True)
        await pilot.pause()


def cases_view(app: NluTuiApp) -> Any:
    from nlu_tui.ui.widgets.cases_view import CasesView

    return (
        app.screen.query_one(CasesView)
        if not _modal(app)
        else app.screen_stack[1].query_one(CasesView)
    )


def _modal(app: NluTuiApp) -> bool:
    from textual.screen import ModalScreen

    return isinstance(app.screen, ModalScreen)


def utterances_shown(app: NluTuiApp) -> list[str]:
    view = cases_view(app)
    by_id = {c.id: c for c in view.suite.cases}
    return [by_id[i].utterance for i in view.view_ids]
