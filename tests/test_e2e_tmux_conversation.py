"""End to end in a real terminal: open the conversation tests screen from the command palette,
point it at a conversation server, run the workspace's E2E file, select the failed test case
and read its diff (expected ``+``, actual ``-``) and its failing line on screen."""

from __future__ import annotations

import re
import time
from pathlib import Path

from conversation_peer import BotState, handler_for
from http_handler_server import serving
from tmux_support import app_in_tmux, needs_tmux, palette_command, tmux, wait_for_screen

pytestmark = needs_tmux

CASES = """\
test_cases:
  - test_case: greet
    steps:
      - user: hello
      - bot: Hey!
  - test_case: book
    steps:
      - user: book a table
      - utter: utter_ask_cuisine
      - user: chinese
      - slot_was_set:
          - cuisine: italian
"""


def keys(session: str, *args: str) -> None:
    tmux("send-keys", "-t", session, *args)
    time.sleep(0.3)


def test_failed_step_diff_is_on_screen(tmp_path: Path) -> None:
    source = tmp_path / "shop.e2e.yml"
    source.write_text(CASES, encoding="utf-8")
    with (
        serving(handler_for(BotState())) as url,
        app_in_tmux(tmp_path, (source,), width=100, height=30) as app,
    ):
        session = app.session
        wait_for_screen(session, r"\^p palette")
        wait_for_screen(session, r"⇄ shop")  # the suites panel, listed
        time.sleep(0.5)
        palette_command(session, "conversation: Tests", "conversation: Tests")
        wait_for_screen(session, r"shop\.e2e\.yml")
        keys(session, "e")
        keys(session, "C-u")
        keys(session, "-l", f"rasa:{url}")
        wait_for_screen(session, re.escape(f"rasa:{url}"))  # in the field before Tab leaves it
        keys(session, "Tab")
        keys(session, "r")
        wait_for_screen(session, r"1 passed, 1 failed.*success")
        keys(session, "Down")
        screen = wait_for_screen(session, r"Mismatch at shop\.e2e\.yml:11").string
        assert "- slot_was_set: cuisine: chinese (str)" in screen
        assert "+ slot_was_set: cuisine: italian (str)" in screen
        assert "✗  slot_was_set: cuisine: italian" in screen


def test_f5_runs_the_suite_and_a_failed_step_is_fixed_in_the_editor(tmp_path: Path) -> None:
    """At 80x24: the conversation suite in the Suites panel, F5 on it, Enter runs against the
    engine typed; ``f`` opens the failed step in the editor, its value is changed and saved:
    the file keeps its comments and only that step changes."""
    source = tmp_path / "shop.e2e.yml"
    source.write_text("# the shop's conversations\n" + CASES, encoding="utf-8")
    with (
        serving(handler_for(BotState())) as url,
        app_in_tmux(tmp_path, (source,), width=80, height=24) as app,
    ):
        session = app.session
        wait_for_screen(session, r"⇄ shop")
        time.sleep(0.5)
        keys(session, "C-o")
        keys(session, "F5")
        wait_for_screen(session, r"⇄ shop\.e2e\.yml")
        keys(session, "C-u")
        keys(session, "-l", f"rasa:{url}")
        # in the field before Enter runs it (read back: a slow machine delivers it late)
        wait_for_screen(session, re.escape(f"rasa:{url}"))
        keys(session, "Enter")
        wait_for_screen(session, r"1 passed, 1 failed.*success")
        keys(session, "Down")
        keys(session, "f")
        wait_for_screen(session, r"✗ step 4 failed in the last run")
        keys(session, "Enter")
        keys(session, "C-u")
        keys(session, "-l", "cuisine: chinese")
        keys(session, "Enter")
        wait_for_screen(session, r"step 4 changed")
        keys(session, "C-s")
        wait_for_screen(session, r"saved shop\.e2e\.yml")
        saved = (app.workspace / "shop.e2e.yml").read_text(encoding="utf-8")
    assert saved == source.read_text(encoding="utf-8").replace(
        "      - slot_was_set:\n          - cuisine: italian\n",
        "      - slot_was_set:\n          - cuisine: chinese\n",
    )
