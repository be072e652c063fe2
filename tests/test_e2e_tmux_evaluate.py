"""End to end in a real 80x24 terminal: the Evaluate view compares the two sample embedded
configurations on the sample bot's training file, every unit shows done with its time, the F1
curve is drawn, and the comparison's files are written."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from tmux_support import (
    SAMPLES,
    app_in_tmux,
    capture,
    needs_tmux,
    palette_command,
    tmux,
    wait_for_screen,
)

pytestmark = needs_tmux
FILES = ("banking_bot.nlu.yml", "embedded_default.config.yml", "embedded_words_nb.config.yml")


def _keys(session: str, *keys: str) -> None:
    for key in keys:  # one at a time: a burst can reach the app as one escape sequence
        tmux("send-keys", "-t", session, key)
        time.sleep(0.25)


def test_compare_configurations_in_tmux(tmp_path: Path) -> None:
    with app_in_tmux(tmp_path, tuple(SAMPLES / n for n in FILES), width=80, height=24) as app:
        session = app.session
        wait_for_screen(session, r"\^p palette")
        wait_for_screen(session, r"193 of 193 cases")  # the first screen, built
        time.sleep(0.5)
        palette_command(session, "Evaluate training", "run: Evaluate training data")
        wait_for_screen(session, r"Evaluate banking_bot\.nlu\.yml")
        _keys(session, "Enter")  # the mode list: Compare configs
        wait_for_screen(session, r"esc Dismiss menu")  # the list is open
        _keys(session, "Down", "Enter")
        wait_for_screen(session, r"configs to compare")
        wait_for_screen(session, r"embedded_default\.config\.yml embed")
        _keys(session, "Tab", "Tab", "Tab", "Tab")  # engine, seed, Start, runs
        _keys(session, "End", "BSpace", "2")
        wait_for_screen(session, r"▊  2\s+▎▊  0 25 50 75")  # 2 in the runs field before Ctrl+S
        _keys(session, "C-s")
        wait_for_screen(session, r"● embedded_default\.config", timeout=120)
        curve = capture(session)
        _keys(session, "F6")  # round to the Progress tab
        wait_for_screen(session, r"unit\s+state\s+seconds")
        progress = capture(session)
        _keys(session, "C-q")
    assert "Weighted F1 on the test set by training examples" in curve
    assert "■ embedded_words_nb.config" in curve
    # 2 runs x 4 percentages x 2 configurations, each done with its seconds
    rows = re.findall(r"run (\d) · (\d+)% · (\S+)\s+done\s+(\d+\.\d)", progress)
    assert ("2", "75", "embedded_words_nb.config") in {r[:3] for r in rows}
    out = app.workspace / "results" / "banking_bot-comparison"
    results = json.loads((out / "results.json").read_text())
    assert {name: len(runs) for name, runs in results.items()} == {
        "embedded_default.config": 2,
        "embedded_words_nb.config": 2,
    }
    assert (out / "nlu_model_comparison_graph.svg").is_file()
