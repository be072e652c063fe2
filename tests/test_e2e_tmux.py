"""End to end in a real terminal: start ``nlu-tui WORKSPACE`` in tmux, add a case, quit, and find
the case in the suite file."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from ui_support import REPO, SAMPLE

from nlu_tui.formats.native import load_suite

pytestmark = pytest.mark.tmux

TMUX = shutil.which("tmux")


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def _wait_for(session: str, needle: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux("capture-pane", "-p", "-t", session)
        if needle in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{needle!r} did not appear; the screen was:\n{screen}")


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
def test_add_a_case_in_tmux_and_find_it_in_the_file(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    shutil.copy(SAMPLE, root / SAMPLE.name)
    session = f"nlu-tui-e2e-{os.getpid()}"
    env = (
        f"NLU_TUI_DATA_DIR={tmp_path / 'data'} NLU_TUI_CONFIG_DIR={tmp_path / 'config'} "
        "TEXTUAL_ANIMATIONS=none"
    )
    command = f"cd {REPO} && {env} {REPO / '.venv/bin/nlu-tui'} {root}"
    _tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", command)
    try:
        _wait_for(session, "54 of 54 cases")
        _tmux("send-keys", "-t", session, "F3")
        _wait_for(session, "a Add")  # the cases table has the focus (its keys are in the footer)
        _tmux("send-keys", "-t", session, "a")
        _wait_for(session, "Utterances")
        _tmux("send-keys", "-t", session, "-l", "what is my savings balance from tmux")
        _wait_for(session, "balance from tmux")
        _tmux("send-keys", "-t", session, "Tab")
        time.sleep(0.6)
        _tmux("send-keys", "-t", session, "-l", "check_balance")
        # the whole intent must be in its field (the form is valid after the first letter)
        _wait_for(session, "│ check_balance ")
        _wait_for(session, "ready to save 1 case")
        _tmux("send-keys", "-t", session, "C-s")
        _wait_for(session, "55 of 55 cases")
        _tmux("send-keys", "-t", session, "C-q")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            # exit status 1 once the last session is gone (the tmux server quits with it)
            listed = subprocess.run(
                ["tmux", "list-sessions", "-F", "#{session_name}"], capture_output=True, text=True
            )
            if listed.returncode != 0 or session not in listed.stdout:
                break
            time.sleep(0.2)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    suite = load_suite(root / SAMPLE.name)
    added = suite.cases[-1]
    assert added.utterance == "what is my savings balance from tmux"
    assert added.intent_names == ["check_balance"]
