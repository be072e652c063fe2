"""End to end in a real 80x24 terminal: start a run with Repeat 5 from the start dialog against
a loopback engine that answers 4 utterances at random, read the stability line off the screen,
filter the flaky cases, and compare with ``nlu-tui show RUN --format json``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

from runner_loopback import LoopbackNlu, make_suite, write_suite
from tmux_support import (
    NLU_TUI,
    app_in_tmux,
    capture,
    needs_tmux,
    palette_command,
    tmux,
    wait_for_screen,
)

pytestmark = needs_tmux
RANDOM_AT = (2, 5, 9, 14)


def test_repeat_run_from_the_start_dialog_in_tmux(tmp_path: Path) -> None:
    cases = make_suite(20).cases
    randomly = {cases[i].utterance: ("greet", "bye", "pay") for i in RANDOM_AT}
    files = tmp_path / "files"
    files.mkdir()
    suite = write_suite(files / "loop.suite.yaml", 20)
    with LoopbackNlu(randomly=randomly) as server:
        profiles = files / "engines.yaml"
        profiles.write_text(f"engines:\n  loop:\n    type: rasa\n    url: {server.url}\n")
        with app_in_tmux(tmp_path, (suite, profiles), width=80, height=24) as app:
            session = app.session
            wait_for_screen(session, r"20 of 20 cases")  # the table built, not its preview
            time.sleep(0.5)
            tmux("send-keys", "-t", session, "F5")
            wait_for_screen(session, r"Repeat\s+1")
            tmux("send-keys", "-t", session, "Tab", "Tab", "Tab")  # engine -> version -> note
            time.sleep(1.0)
            tmux("send-keys", "-t", session, "BSpace")  # a filled field keeps its text: clear it
            time.sleep(0.3)
            tmux("send-keys", "-t", session, "-l", "5")
            wait_for_screen(session, r"Repeat\s+5\b")
            tmux("send-keys", "-t", session, "Enter")
            found = wait_for_screen(
                session, r"Stability (\d+\.\d)% over 5 attempts: (\d+) flaky of 20", timeout=60
            )
            palette_command(session, "Show flaky only", "results: Show flaky only")
            # the filter shows "Flaky only" while the closing palette may still cover the rows:
            # read the screen once the palette (its search line) is gone and the rows are in
            deadline = time.monotonic() + 60
            screen = capture(session)
            while time.monotonic() < deadline and (
                "Flaky only" not in screen
                or "\N{RIGHT-POINTING MAGNIFYING GLASS}" in screen
                or len(_result_rows(screen)) != 4
            ):
                time.sleep(0.2)
                screen = capture(session)
            tmux("send-keys", "-t", session, "C-q")

    env = {**os.environ, **app.env}
    listed = subprocess.run(
        [str(NLU_TUI), "runs", "--json"], capture_output=True, text=True, timeout=60, env=env
    )
    (run,) = json.loads(listed.stdout)
    assert run["repeat"] == 5
    shown = subprocess.run(
        [str(NLU_TUI), "show", run["id"], "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert shown.returncode == 0, shown.stderr
    stability = json.loads(shown.stdout)["stability"]
    assert found.group(1) == "80.0" and found.group(2) == "4"
    assert stability["overall"]["stability"] == 0.8
    assert set(stability["flaky"]) == {cases[i].id for i in RANDOM_AT}
    # only the flaky cases are listed: their utterances, no steady one
    rows = _result_rows(screen)
    assert len(rows) == 4, screen


def _result_rows(screen: str) -> list[str]:
    return [line for line in screen.splitlines() if re.search(r"│\s+\d+\s+(TP|TN|FP|FN)", line)]
