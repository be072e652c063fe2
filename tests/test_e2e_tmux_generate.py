"""End to end in a real 80x24 terminal: open the Cases tab, "Generate…" test cases for an
intent from a loopback LLM, reject one, add the rest, and find them in the suite file."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tmux_support import SAMPLES, app_in_tmux, needs_tmux, tmux, wait_for_screen

from nlu_tui.formats.native import load_suite
from tests.llm_peer import LLMPeer, Reply

pytestmark = needs_tmux
PROPOSED = [
    "how much cash is in savings rn",
    "check my balance",
    "whats left on the joint account",
]


def test_generate_reject_one_add_the_rest_in_tmux(tmp_path: Path) -> None:
    peer = LLMPeer([Reply(json.dumps(PROPOSED))])
    files = (SAMPLES / "banking_bot.suite.yaml", SAMPLES / "banking_bot.nlu.yml")
    with peer.serving() as url:
        env = {"NLU_TUI_LLM_BASE_URL": url, "NLU_TUI_LLM_MODEL": "loop-model"}
        with app_in_tmux(tmp_path, files, width=80, height=24, extra_env=env) as app:
            session = app.session
            wait_for_screen(session, r"Banking bot")
            time.sleep(0.5)
            tmux("send-keys", "-t", session, "F3")
            wait_for_screen(session, r"54 of 54 cases")
            tmux("send-keys", "-t", session, "G")
            wait_for_screen(session, r"Generate test cases with an LLM")
            wait_for_screen(session, r"model loop-model")
            tmux("send-keys", "-t", session, "g")
            wait_for_screen(session, r"3 new proposal")
            time.sleep(0.3)  # the list has the focus once proposals arrive
            tmux("send-keys", "-t", session, "Down")  # "check my balance"
            wait_for_screen(session, r"leakage: identical to training")
            tmux("send-keys", "-t", session, "Space")
            wait_for_screen(session, r"✗.? check my balance")
            wait_for_screen(session, r"3 shown, 2 to add")
            tmux("send-keys", "-t", session, "C-s")
            wait_for_screen(session, r"Added 2 generated cases")
            tmux("send-keys", "-t", session, "C-q")
    cases = load_suite(app.workspace / "banking_bot.suite.yaml").cases
    added = [c for c in cases if "generated" in c.tags]
    assert [c.utterance for c in added] == [PROPOSED[0], PROPOSED[2]]
    assert all(c.intents[0].name == "check_balance" for c in added)
    assert len(peer.requests) == 1
