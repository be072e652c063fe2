"""End to end in a real terminal: open the workbench in tmux, run the sample suite from the
command palette, wait for the finished state on screen, read the F1 off the screen and compare
it with ``nlu-tui show RUN --format json``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

from tmux_support import (
    NLU_TUI,
    SAMPLES,
    app_in_tmux,
    capture,
    needs_tmux,
    palette_command,
    tmux,
    wait_for_screen,
)

pytestmark = needs_tmux
FILES = (SAMPLES / "banking_bot.suite.yaml", SAMPLES / "banking_bot.nlu.yml")


def test_run_sample_suite_in_tmux(tmp_path: Path) -> None:
    with app_in_tmux(tmp_path, FILES, width=140, height=40) as app:
        session = app.session
        wait_for_screen(session, r"54 cases")
        time.sleep(0.5)
        palette_command(session, "run: Start", "run: Start")
        wait_for_screen(session, r"Run Banking bot")
        wait_for_screen(session, r"embedded \(banking_bot\.nlu\.yml\)")
        tmux("send-keys", "-t", session, "C-s")
        wait_for_screen(session, r"✔ success", timeout=120)
        screen = capture(session)
        f1 = re.search(r"F1 (\d\.\d{4})", screen)
        run = re.search(r"run ([0-9a-f]{12})", screen)
        assert f1 is not None and run is not None, screen
        tmux("send-keys", "-t", session, "C-q")

    shown = subprocess.run(
        [str(NLU_TUI), "show", run.group(1), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **app.env},
    )
    assert shown.returncode == 0, shown.stderr
    summary = json.loads(shown.stdout)["summary"]
    assert f"{summary['f1']:.4f}" == f1.group(1)
    assert summary["cases"] == 54
