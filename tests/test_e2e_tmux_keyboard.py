"""End to end at 80×24 in tmux with the keyboard only: F4 shows the Runs tab, ``r`` opens the
start dialog (buttons visible), Tab Tab reaches the note, Enter starts; the run finishes on
screen and ``nlu-tui runs`` lists it with the note."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from tmux_support import (
    NLU_TUI,
    SAMPLES,
    app_in_tmux,
    capture,
    needs_tmux,
    tmux,
    wait_for_screen,
)

pytestmark = needs_tmux
FILES = (SAMPLES / "banking_bot.suite.yaml", SAMPLES / "banking_bot.nlu.yml")


def keys(session: str, *names: str) -> None:
    """Send keys one at a time: a burst can reach the app as one read."""
    for name in names:
        tmux("send-keys", "-t", session, name)
        time.sleep(0.3)


def test_start_run_with_keys_only_at_80x24(tmp_path: Path) -> None:
    with app_in_tmux(tmp_path, FILES, width=80, height=24) as app:
        session = app.session
        wait_for_screen(session, r"54 cases")
        wait_for_screen(session, r"Help[^\n]*palette")  # the footer, drawn
        footer = capture(session).splitlines()[-1]
        assert "Help" in footer and "palette" in footer, footer  # nothing cut at 80 columns
        keys(session, "F4")
        wait_for_screen(session, r"Runs of Banking bot")
        keys(session, "r")
        wait_for_screen(session, r"Run Banking bot")
        dialog = capture(session)
        assert "Start (enter)" in dialog and "Cancel (esc)" in dialog, dialog
        keys(session, "Tab", "Tab")
        tmux("send-keys", "-t", session, "-l", "keyboard only")
        wait_for_screen(session, r"Note\s+keyboard only")  # in the note field before Enter
        keys(session, "Enter")
        wait_for_screen(session, r"✔ success", timeout=120)
        wait_for_screen(session, r"F1 0\.9348")
        tmux("send-keys", "-t", session, "C-q")
    runs = subprocess.run(
        [str(NLU_TUI), "runs"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **app.env},
    )
    assert runs.returncode == 0, runs.stderr
    assert "keyboard only" in runs.stdout and "success" in runs.stdout, runs.stdout
