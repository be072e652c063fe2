"""End to end in a real terminal: start ``nlu-tui WORKSPACE`` in tmux, add a case, quit, and find
the case in the suite file."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from tmux_support import SAMPLES, app_in_tmux, needs_tmux, tmux, wait_for_screen

from nlu_tui.formats.native import load_suite

pytestmark = needs_tmux
SAMPLE = SAMPLES / "banking_bot.suite.yaml"


def _wait_for(session: str, needle: str, timeout: float = 20.0) -> None:
    wait_for_screen(session, re.escape(needle), timeout)


def test_add_a_case_in_tmux_and_find_it_in_the_file(tmp_path: Path) -> None:
    with app_in_tmux(
        tmp_path, (SAMPLE,), width=100, height=30, extra_env={"TEXTUAL_ANIMATIONS": "none"}
    ) as app:
        session = app.session
        _wait_for(session, "54 of 54 cases")
        tmux("send-keys", "-t", session, "F3")
        _wait_for(session, "a Add")  # the cases table has the focus (its keys are in the footer)
        tmux("send-keys", "-t", session, "a")
        _wait_for(session, "Utterances")
        tmux("send-keys", "-t", session, "-l", "what is my savings balance from tmux")
        _wait_for(session, "balance from tmux")
        tmux("send-keys", "-t", session, "Tab")
        time.sleep(0.6)
        tmux("send-keys", "-t", session, "-l", "check_balance")
        # the whole intent must be in its field (the form is valid after the first letter)
        _wait_for(session, "Intents check_balance ")  # the field, beside its label
        _wait_for(session, "ready to save 1 case")
        tmux("send-keys", "-t", session, "C-s")
        _wait_for(session, "55 of 55 cases")
        tmux("send-keys", "-t", session, "C-q")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            # exit status 1 once the last session is gone (the tmux server quits with it)
            listed = subprocess.run(
                ["tmux", "list-sessions", "-F", "#{session_name}"], capture_output=True, text=True
            )
            if listed.returncode != 0 or session not in listed.stdout:
                break
            time.sleep(0.2)
    suite = load_suite(app.workspace / SAMPLE.name)
    added = suite.cases[-1]
    assert added.utterance == "what is my savings balance from tmux"
    assert added.intent_names == ["check_balance"]
