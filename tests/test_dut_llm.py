"""The LLM command generator (``type: llm-commands``) contract-tested against the loopback
OpenAI-compatible server: the prompt it sends, the V2 answer it reads, the DUT figures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from llm_peer import LLMPeer, Reply, Request

from nlu_tui.cli.main import run as cli
from nlu_tui.engines.base import create_engine
from nlu_tui.errors import EngineError

SAMPLES = Path(__file__).parents[1] / "sample_suites"
FLOWS = SAMPLES / "contacts.flows.yml"
SECRET = "sk-llm-commands-test-key-4711"

DUT = """\
test_cases:
  - test_case: adds a contact
    steps:
      - user: I want to add someone
        commands:
          - start flow add_contact
      - utter: utter_ask_handle
      - user: it's @barts
        commands:
          - set slot handle @barts
  - test_case: names the contact at once
    steps:
      - user: add Bart to my contacts
        commands:
          - start flow add_contact
          - set slot name Bart
"""

ANSWERS = {
    "I want to add someone": "start flow add_contact",
    # the wrong slot: the step fails, and its diff shows it
    "it's @barts": "set slot name @barts",
    # a flow that does not exist is dropped, as Rasa Pro's parser drops it
    "add Bart to my contacts": "start flow add_contact\nset slot name Bart\nstart flow fly_to_mars",
}


def _last_message(request: Request) -> str:
    found = re.search(r'Commands for the user\'s last message: """(.*)"""', request.last_user)
    assert found, request.last_user
    return found.group(1)


def test_dut_run_with_the_llm_command_generator(tmp_path: Path) -> None:
    peer = LLMPeer(lambda request: Reply(ANSWERS[_last_message(request)]))
    dut = tmp_path / "contacts.dut.yml"
    dut.write_text(DUT, encoding="utf-8")
    report_path = tmp_path / "report.json"
    with peer.serving() as url, pytest.MonkeyPatch.context() as mp:
        mp.setenv("LLM_CMD_KEY", SECRET)
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  gpt-commands:\n    type: llm-commands\n    flows: {FLOWS}\n"
            f"    base_url: {url}\n    model: tiny\n    api_key: ${{LLM_CMD_KEY}}\n",
            encoding="utf-8",
        )
        code = cli(
            [
                *("test", "du", str(dut), "--engine", "gpt-commands", "--no-output"),
                *("--json", str(report_path), "--concurrency", "1"),
            ]
        )
    assert code == 1  # one test case fails
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert (report["number_of_passed_tests"], report["number_of_failed_tests"]) == (1, 1)
    assert (
        report["number_of_passed_user_utterances"],
        report["number_of_failed_user_utterances"],
    ) == (2, 1)
    assert SECRET not in report_path.read_text(encoding="utf-8")
    assert all(r.headers["authorization"] == f"Bearer {SECRET}" for r in peer.requests)
    assert len(peer.requests) == 3  # every user step asked once, none repeated

    prompts = {_last_message(r): r.last_user for r in peer.requests}
    second = prompts["it's @barts"]
    # the flows with their slots, the allowed commands and the conversation so far
    assert '{"name":"add_contact","description":"add a contact to your contact list"' in second
    assert '"slots":[{"name":"handle"},{"name":"name"}]' in second
    assert "* `set slot SLOT VALUE`" in second
    assert "USER: I want to add someone\nAI: utter_ask_handle" in second
    assert "(nothing yet)" in prompts["I want to add someone"]


def test_without_flows_it_says_how_to_give_them(tmp_path: Path) -> None:
    engine = create_engine("llm-commands", {"base_url": "http://127.0.0.1:9/v1", "model": "m"})
    import asyncio

    with pytest.raises(EngineError, match="no flows to prompt with"):
        asyncio.run(engine.open(None))
