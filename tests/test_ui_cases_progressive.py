"""Pilot tests of progressive opening: a big suite's first cases show while the rest is read."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import Label
from ui_support import SIZE, new_app, settle

from nlu_tui.formats import suite_cache
from nlu_tui.formats.native import dump_suite
from nlu_tui.model import ExpectedIntent, Suite, TestCase
from nlu_tui.ui.widgets.cases_view import CasesView

N = 6000


def _write_suite(path: Path, n: int) -> None:
    cases = [
        TestCase(
            utterance=f"utterance number {i} about intent_{i % 40:02d}",
            intents=[ExpectedIntent(f"intent_{i % 40:02d}")],
            tags=["even"] if i % 2 == 0 else [],
            id=f"c{i:06d}",
        )
        for i in range(n)
    ]
    path.write_text(dump_suite(Suite(name="Big", cases=cases)), encoding="utf-8")


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 500 cases, and no parsed-suite cache: the suites panel reads every suite at
    start-up (for its counts), which would otherwise leave a cache entry that the open then
    uses as a single chunk."""
    monkeypatch.setattr(CasesView, "chunk_size", 500)
    monkeypatch.setattr(suite_cache, "MIN_BYTES", 1 << 40)


@pytest.mark.slow
async def test_big_suite_shows_first_cases_before_the_load_finishes(
    tmp_path: Path, small_chunks: None
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    _write_suite(root / "big.suite.yaml", N)
    app = new_app(root)
    partial: list[tuple[int, str, bool]] = []
    async with app.run_test(size=SIZE) as pilot:
        view = app.screen.query_one(CasesView)
        status = view.query_one("#cases-status", Label)
        for _ in range(6000):
            if app.suite is not None:  # type: ignore[attr-defined]
                break
            table = view.table
            if table is not None and view.loading_path is not None:
                # rows are on screen, the suite is not complete, nothing can be edited
                partial.append((table.row_count, str(status.content), view._editable() is None))
            await asyncio.sleep(0.002)
        await settle(pilot)
        assert partial, "no cases were shown before the suite finished loading"
        rows, text, locked = partial[0]
        assert 0 < rows < N
        assert rows % 500 == 0
        assert text.startswith("loading big.suite.yaml") and "cases so far" in text
        assert locked
        assert view.partial_views >= 1
        # the end: every case, the complete suite set once, editing possible again
        assert len(app.suite.cases) == N  # type: ignore[attr-defined]
        assert view.suite is app.suite  # type: ignore[attr-defined]
        assert view.loading_path is None
        assert view.table.row_count == N
        assert str(status.content).startswith(f"{N} of {N} cases")
        assert view._editable() is app.suite  # type: ignore[attr-defined]
        assert view.view_ids[-1] == f"c{N - 1:06d}"


@pytest.mark.slow
async def test_error_after_some_chunks_discards_the_shown_cases(
    tmp_path: Path, small_chunks: None
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    path = root / "broken.suite.yaml"
    _write_suite(path, 3000)
    with path.open("a", encoding="utf-8") as out:
        out.write("  - id: bad\n    intents: [x]\n")  # no utterance: an error at the very end
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        view = app.screen.query_one(CasesView)
        await settle(pilot)
        await settle(pilot)
        assert view.partial_views >= 1  # the first chunk was shown ...
        assert app.suite is None  # type: ignore[attr-defined]
        assert view.loading_path is None
        assert view.table is None  # ... and replaced by the error
        shown = str(view.query_one("#cases-host").children[0].render())
        assert "broken.suite.yaml" in shown
