"""End to end in a real 80x24 terminal: open the Cases tab, "Generate…" test cases for an
intent from a loopback LLM, reject one, add the rest, and find them in the suite file."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tmux_support import SAMPLES, app_in_tmux, needs_tmux, palette_command, tmux, wait_for_screen

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
            # the cases table itself (the first rows are a preview that takes no focus: F3
            # before the table is built focuses nothing; see issue 23, keys typed early)
            wait_for_screen(session, r"54 of 54 cases")
            tmux("send-keys", "-t", session, "F3")
            wait_for_screen(session, r"a Add\s+e Edit")  # the table's keys: it has the focus
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


FLOW_PROPOSED = [
    {"utterance": "pls add @new_pal to my contacts", "slots": {"handle": "@new_pal"}},
    {"utterance": "I want to add someone to my contact list", "slots": {}},
    {"utterance": "make a contact for my boss", "slots": {}},
]


def test_generate_dut_cases_for_a_flow_in_tmux(tmp_path: Path) -> None:
    """The DUT editor's ctrl+g at 80x24: pick the flow, generate, reject the duplicate of the
    file's own message, add the rest; the DUT file gains them after its own text."""
    from nlu_tui.formats.e2e_cases import read

    peer = LLMPeer([Reply(json.dumps(FLOW_PROPOSED))])
    names = ("contacts.dut.yml", "contacts.flows.yml", "contacts.nlu.yml")
    files = tuple(SAMPLES / name for name in names)
    before = (SAMPLES / "contacts.dut.yml").read_text(encoding="utf-8")
    with peer.serving() as url:
        env = {"NLU_TUI_LLM_BASE_URL": url, "NLU_TUI_LLM_MODEL": "loop-model"}
        with app_in_tmux(tmp_path, files, width=80, height=24, extra_env=env) as app:
            session = app.session
            wait_for_screen(session, r"\^p palette")
            wait_for_screen(session, r"68 of 68 cases")  # the first screen, built
            time.sleep(0.5)
            palette_command(session, "dut: Edit DUT", "dut: Edit DUT test cases")
            wait_for_screen(session, r"start flow add_contact")
            tmux("send-keys", "-t", session, "C-g")
            wait_for_screen(session, r"Generate DUT test cases for a flow")
            wait_for_screen(session, r"model loop-model")
            tmux("send-keys", "-t", session, "g")  # the first flow: add_contact
            wait_for_screen(session, r"3 shown, 3 to add")
            time.sleep(0.3)
            tmux("send-keys", "-t", session, "Down")
            wait_for_screen(session, r"! duplicate of user message")
            tmux("send-keys", "-t", session, "Space")
            wait_for_screen(session, r"3 shown, 2 to add")
            tmux("send-keys", "-t", session, "C-s")
            wait_for_screen(session, r"Added 2 generated test cases")
            tmux("send-keys", "-t", session, "C-q")
    path = app.workspace / "contacts.dut.yml"
    assert path.read_text(encoding="utf-8").startswith(before.rstrip("\n"))
    added = read(path).test_cases[-2:]
    assert [(c.name, c.steps[0].text, c.steps[0].commands) for c in added] == [
        ("generated add_contact 1", "pls add @new_pal to my contacts",
         ["start flow add_contact", "set slot handle @new_pal"]),
        ("generated add_contact 2", "make a contact for my boss", ["start flow add_contact"]),
    ]  # fmt: skip
    assert "start the flow 'add_contact'" in peer.requests[0].messages[1]["content"]
