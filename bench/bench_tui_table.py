"""Open a 100,000-case suite in the workbench and sort its cases table; prints the times.

Targets (issue 5): the app is usable within 1 s whatever the suite size (the suite loads in a
worker after the first paint), the 100,000-row table mounts within 1 s of the suite being
loaded, and a sort takes under 0.3 s. Run: ``.venv/bin/python bench/bench_tui_table.py [N]
[--no-cache]``; ``--no-cache`` turns the parsed-suite cache off, as on a suite changed on disk
since the suites panel read it (otherwise the panel's start-up read leaves a cache entry and
the open arrives as one chunk, so the first cases and all cases show together).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path


def make_suite(path: Path, n: int) -> None:
    from nlu_tui.formats.native import dump_suite
    from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase

    intents = [f"intent_{i:03d}" for i in range(60)]
    cases = [
        TestCase(
            utterance=f"utterance number {i} about {intents[(i * 7) % 60]} and item {i % 997}",
            intents=[ExpectedIntent(intents[(i * 7) % 60])],
            entities=[ExpectedEntity("item", str(i % 997))] if i % 3 == 0 else [],
            tags=["bench"] if i % 5 == 0 else [],
            id=f"c{i:07d}",
        )
        for i in range(n)
    ]
    path.write_text(dump_suite(Suite(name=f"Bench {n}", cases=cases)), encoding="utf-8")


async def measure(root: Path, n: int) -> dict[str, float]:
    from nlu_tui.ui.app import NluTuiApp
    from nlu_tui.ui.widgets.cases_view import CasesView
    from nlu_tui.workspace import open_workspace

    figures: dict[str, float] = {}
    started = time.perf_counter()
    app = NluTuiApp(open_workspace(root), cursor_blink=False, user_themes=False)
    async with app.run_test(size=(120, 36)) as pilot:
        figures["first screen (s)"] = time.perf_counter() - started
        view = app.screen.query_one(CasesView)
        first: float | None = None
        while app.suite is None:
            if first is None and view.table is not None and view.table.row_count:
                first = time.perf_counter()
                figures["first cases shown (s)"] = first - started
                figures["  rows in the first view"] = float(view.table.row_count)
            await asyncio.sleep(0.005)
        loaded = time.perf_counter()
        figures["suite file parsed, in a worker (s)"] = loaded - started
        while view.table is None or view.table.row_count != n or view.loading_path is not None:
            await asyncio.sleep(0.005)
        figures["all cases shown (s)"] = time.perf_counter() - started
        if "first cases shown (s)" not in figures:  # arrived as one chunk (cache, small suite)
            figures["first cases shown (s)"] = figures["all cases shown (s)"]
            figures["  rows in the first view"] = float(n)
        figures["  partial views shown while loading"] = float(view.partial_views)
        figures["table of all rows shown after load (s)"] = time.perf_counter() - loaded
        figures["table rows built in worker (ms)"] = view.last_build_ms
        await app.workers.wait_for_complete()
        figures["validation done, problems flagged (s)"] = time.perf_counter() - loaded
        await pilot.press("f3")
        for key, label in (("4", "utterance"), ("5", "intents"), ("1", "position")):
            shown = view.views_shown
            t0 = time.perf_counter()
            await pilot.press(key)
            while view.views_shown == shown:
                await asyncio.sleep(0.002)
            await pilot.pause()  # the repaint of the new rows
            figures[f"sort by {label} (s)"] = time.perf_counter() - t0
            figures[f"  {label}: filter+sort in the worker (ms)"] = view.last_build_ms
        filt = app.screen.query_one("#filter")
        shown = view.views_shown
        t0 = time.perf_counter()
        filt.value = "intent:intent_007"  # type: ignore[attr-defined]
        while view.views_shown == shown:
            await asyncio.sleep(0.002)
        await pilot.pause()
        figures["filter intent:intent_007 (s)"] = time.perf_counter() - t0
        figures["rows after filter"] = float(view.table.row_count)
    return figures


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 100_000
    if "--no-cache" in sys.argv:
        from nlu_tui.formats import suite_cache

        suite_cache.MIN_BYTES = 1 << 62
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NLU_TUI_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ["NLU_TUI_CONFIG_DIR"] = str(Path(tmp) / "config")
        root = Path(tmp) / "ws"
        root.mkdir()
        t0 = time.perf_counter()
        make_suite(root / "bench.suite.yaml", n)
        print(f"generated a {n:,}-case suite in {time.perf_counter() - t0:.2f} s")
        figures = asyncio.run(measure(root, n))
    for name, value in figures.items():
        print(f"{name:45s} {value:10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
