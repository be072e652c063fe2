"""End to end at 80×24 in tmux with the keyboard only: F4 shows the Runs tab, ``r`` opens the
start dialog (buttons visible), Tab Tab reaches the note, Enter starts; the run finishes on
screen and ``nlu-tui runs`` lists it with the note."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from test_e2e_tmux_run import NLU_TUI, SAMPLES, capture, tmux, wait_for_screen

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def keys(session: str, *names: str) -> None:
    """Send keys one at a time: a burst can reach the app as one read."""
    for name in names:
        tmux("send-keys", "-t", session, name)
        time.sleep(0.3)


def test_start_run_with_keys_only_at_80x24(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for name in ("banking_bot.suite.yaml", "banking_bot.nlu.yml"):
        shutil.copy(SAMPLES / name, workspace / name)
    env = {
        "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
        "TERM": "xterm-256color",
    }
    exports = " ".join(f"{k}={v}" for k, v in env.items())
    session = f"nlu-tui-kbd-{uuid.uuid4().hex[:8]}"
    tmux(
        "new-session",
        "-d",
        "-s",
        session,
        "-x",
        "80",
        "-y",
        "24",
        f"env {exports} {NLU_TUI} {workspace}",
    )
    try:
        wait_for_screen(session, r"54 cases")
        time.sleep(0.5)
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
        time.sleep(0.3)
        keys(session, "Enter")
        wait_for_screen(session, r"✔ success", timeout=120)
        wait_for_screen(session, r"F1 0\.9348")
        tmux("send-keys", "-t", session, "C-q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, timeout=30)
    runs = subprocess.run(
        [str(NLU_TUI), "runs"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert runs.returncode == 0, runs.stderr
    assert "keyboard only" in runs.stdout and "success" in runs.stdout, runs.stdout
