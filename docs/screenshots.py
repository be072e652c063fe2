"""Draw the documentation's screenshots with the workbench itself (``make screenshots``).

Opens the workbench headless (Textual's ``run_test``) at 120×35 on a copy of the sample suite
and its training data, in fresh data and config directories, and writes:

- ``workbench.svg``: the suites panel and the sample suite's cases, as the workbench opens;
- ``results.svg``: the Results tab after a run of the sample suite on the embedded engine.

Usage: ``python docs/screenshots.py [--out DIR]`` (default ``docs/images``). With ``--text``
it also writes each screen as plain text (``<name>.txt``), which
``tests/test_docs_screenshots.py`` compares with a fresh drawing to tell a stale picture.
Keys only, as a user presses them: no internals of the app are touched.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_suites"
SIZE = (120, 35)
TITLE = "nlu-tui"

_VOLATILE = [
    (re.compile(r"\b[0-9a-f]{12}\b"), "<run-id>"),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?"), "<date>"),
    (re.compile(r"\b\d+(\.\d+)? ?(ms|s|/s)\b"), "<time>"),
    (re.compile(r"\b\d\d:\d\d(:\d\d)?\b"), "<time>"),
    (re.compile(r"\b(p50|p90|p99|mean|max) \d+(\.\d+)?"), r"\1 <ms>"),
    (re.compile(r"/\S*/nlu-tui-shots-[^/]+/"), "<tmp>/"),
]
"""What differs from one drawing to the next however the app behaves: run ids, dates, latencies,
durations, rates and the temporary folder. Replaced in the text form only (the SVG shows the
real values)."""


def normalise(text: str) -> str:
    """The screen's text with volatile values replaced and trailing spaces removed."""
    lines = []
    for line in text.splitlines():
        for pattern, repl in _VOLATILE:
            line = pattern.sub(repl, line)
        lines.append(line.rstrip())
    return "\n".join(lines).rstrip() + "\n"


def _screen_text(app: Any) -> str:
    from textual.strip import Strip

    update = app.screen._compositor.render_full_update(simplify=True)
    return "\n".join(Strip.join(s).text.rstrip() for s in update.strips)


async def _settle(pilot: Any) -> None:
    from textual.worker import WorkerCancelled

    for _ in range(4):
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def _wait_for(pilot: Any, predicate: Any, what: str, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"the workbench never showed {what}:\n{_screen_text(pilot.app)}")
        await pilot.pause(0.1)


async def draw(out: Path, *, text: bool = False) -> list[Path]:
    """Open the workbench on a copy of the sample suite and save the screenshots into ``out``."""
    from nlu_tui.ui.app import NluTuiApp
    from nlu_tui.workspace import open_workspace

    root = Path(tempfile.mkdtemp(prefix="nlu-tui-shots-"))
    try:
        workspace = root / "banking"
        workspace.mkdir()
        for name in ("banking_bot.suite.yaml", "banking_bot.nlu.yml"):
            shutil.copy(SAMPLES / name, workspace / name)
        os.environ["NLU_TUI_DATA_DIR"] = str(root / "data")
        os.environ["NLU_TUI_CONFIG_DIR"] = str(root / "config")
        app = NluTuiApp(open_workspace(workspace), cursor_blink=False, user_themes=False)
        written: list[Path] = []

        def save(name: str) -> None:
            (out / f"{name}.svg").write_text(app.export_screenshot(title=TITLE), encoding="utf-8")
            written.append(out / f"{name}.svg")
            if text:
                (out / f"{name}.txt").write_text(normalise(_screen_text(app)), encoding="utf-8")
                written.append(out / f"{name}.txt")

        async with app.run_test(size=SIZE) as pilot:
            await _settle(pilot)
            await _wait_for(
                pilot, lambda: "54 of 54 cases" in _screen_text(app), "the sample suite's cases"
            )
            await _settle(pilot)
            save("workbench")

            await pilot.press("f4")  # the Runs tab
            await _settle(pilot)
            await pilot.press("r")  # start a run: the embedded engine beside the suite
            await pilot.pause()
            await pilot.press("ctrl+s")
            await _wait_for(pilot, lambda: "54/54" in _screen_text(app), "the finished run")
            await _settle(pilot)
            await pilot.press("f6")  # the Results tab
            await _settle(pilot)
            await _wait_for(pilot, lambda: "F1 0.9348" in _screen_text(app), "the run's F1")
            await _settle(pilot)
            save("results")
        return written
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images")
    parser.add_argument("--text", action="store_true", help="also write each screen as text")
    args = parser.parse_args(argv)
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    os.environ["TZ"] = "UTC"
    time.tzset()
    args.out.mkdir(parents=True, exist_ok=True)
    for path in asyncio.run(draw(args.out, text=args.text)):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
