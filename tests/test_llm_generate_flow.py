"""Generating DUT test cases for a flow against the loopback LLM: the prompt (flow, slots, other
flows, messages that already start it), the checks (leakage, duplicates of the DUT file's
messages, unknown slots, values not in the text), "generate more" without repeats, the
conversation mode, appending to the DUT file with its comments kept, and ``nlu-tui test du``
reading and running what was added."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.dialogue_understanding.commands import CommandSpec
from nlu_tui.dialogue_understanding.flows import load_flows
from nlu_tui.dut.reader import read_dut
from nlu_tui.errors import InputError
from nlu_tui.formats.rasa_yaml import load_training_data
from nlu_tui.llm import ChatClient, LLMError, llm_config_from_mapping
from nlu_tui.llm.generate_flow import (
    FlowCaseGenerator,
    add_to_dut_file,
    load_dut_file,
    parse_flow_proposals,
)
from tests.llm_peer import LLMPeer, Reply

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"

ROUND_1 = [
    {
        "utterance": "add @tim_k to my contacts please",
        "slots": {"handle": "@tim_k"},
        "answers": [{"slot": "name", "text": "Tim Kowalski", "value": "Tim Kowalski"}],
    },
    {"utterance": "I want to add someone to my contact list", "slots": {}},  # leakage, dup
    {"utterance": "save Jo as a new contact", "slots": {"name": "Jo", "phone": "123"}},
    {
        "utterance": "new contact @anna, she's called Anna",
        "slots": [{"slot": "handle", "value": "@anna"}, {"slot": "name", "value": "Anna B"}],
    },
]
ROUND_2 = [
    {"utterance": "ADD @tim_k to my contacts please"},  # a repeat: dropped
    {"utterance": "could u put @zed in my contacts", "slots": {"handle": "@zed"}},
]


def _copy(tmp_path: Path) -> Path:
    for name in ("contacts.dut.yml", "contacts.flows.yml", "contacts.nlu.yml"):
        (tmp_path / name).write_bytes((SAMPLES / name).read_bytes())
    return tmp_path / "contacts.dut.yml"


def _config(url: str):  # type: ignore[no-untyped-def]
    return llm_config_from_mapping({"base_url": url, "model": "gen-model", "retries": 0})


def test_flow_generation_prompt_checks_more_and_add(tmp_path: Path) -> None:
    dut_path = _copy(tmp_path)
    flows = load_flows(tmp_path / "contacts.flows.yml")
    training = load_training_data(tmp_path / "contacts.nlu.yml")
    generator = FlowCaseGenerator(
        "add_contact", flows, load_dut_file(dut_path), training, count=4, conversation=True
    )
    peer = LLMPeer([Reply(json.dumps(ROUND_1)), Reply(json.dumps(ROUND_2))])

    async def two_rounds() -> None:
        async with ChatClient(_config(url)) as client:
            await generator.generate(client)
            generator.set_accepted(1, False)
            await generator.generate(client)

    with peer.serving() as url:
        asyncio.run(two_rounds())

    prompt = peer.requests[0].messages[1]["content"]
    assert prompt.startswith(
        "Write 4 new messages a user might send to a chatbot to start the flow 'add_contact'.\n"
        "Flow description: add a contact to your contact list\n"
        "The flow collects these slots: handle, name\n"
    )
    assert "- remove_contact: remove a contact from your contact list\n" in prompt
    assert "- transfer_money: send money" in prompt
    assert "- please add @maria to my contacts\n" in prompt  # a training example
    assert '"answers": [{"slot": "<slot>"' in prompt  # conversation mode asks for answers
    assert "already proposed" not in prompt
    second = peer.requests[1].messages[1]["content"]
    for item in ROUND_1:  # the rejected one too
        assert f"- {item['utterance']}\n" in second

    shown = [p.utterance for p in generator.proposals]
    assert shown == [*(i["utterance"] for i in ROUND_1), "could u put @zed in my contacts"]
    assert generator.dropped_repeats == 1
    by_text = {p.utterance: p for p in generator.proposals}
    leaked = by_text["I want to add someone to my contact list"]
    assert leaked.flags == [
        "leakage: identical to training example 'I want to add someone to my contact list' "
        "(add_contact)",
        "duplicate of user message 'I want to add someone to my contact list' of test case "
        "'user_adds_contact_to_their_list'",
    ]
    assert by_text["save Jo as a new contact"].errors == [
        "slot 'phone' is not one of the slots of add_contact: handle, name"
    ]
    assert by_text["new contact @anna, she's called Anna"].flags == [
        "slot name: the value 'Anna B' is not in the text"
    ]
    assert by_text["add @tim_k to my contacts please"].flags == []
    assert by_text["add @tim_k to my contacts please"].summary() == (
        "start flow add_contact; set slot handle @tim_k"
    )

    # an edit drops a slot whose value left the text, and checks again
    edited = generator.edit(4, "could you put zed in my contacts")
    assert edited.slots == {}
    generator.edit(4, "could u put @zed in my contacts")
    assert generator.proposals[4].slots == {"handle": "@zed"}

    cases = generator.accepted_cases()  # the rejected and the one with an error are left out
    assert [c.name for c in cases] == [f"generated add_contact {n}" for n in (1, 2, 3)]
    first = cases[0]
    assert [(s.kind.value, s.text, s.commands) for s in first.steps] == [
        ("user", "add @tim_k to my contacts please",
         ["start flow add_contact", "set slot handle @tim_k"]),
        ("utter", "utter_ask_name", None),
        ("user", "Tim Kowalski", ["set slot name Tim Kowalski"]),
    ]  # fmt: skip

    before = dut_path.read_text(encoding="utf-8")
    assert add_to_dut_file(dut_path, cases) is True
    after = dut_path.read_text(encoding="utf-8")
    assert after.startswith(before.rstrip("\n"))  # comments and layout kept: appended only
    suite = read_dut(dut_path, CommandSpec(), flows.ids)  # as `test du` reads it
    added = [c for c in suite.cases if c.name.startswith("generated")]
    assert [c.steps[0].text for c in added] == [
        "add @tim_k to my contacts please",
        "new contact @anna, she's called Anna",
        "could u put @zed in my contacts",
    ]
    assert [c.to_dsl("v2") for c in added[0].steps[2].commands] == ["set slot name Tim Kowalski"]

    # `nlu-tui test du` runs them with the embedded command generator
    env = {
        **os.environ,
        "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
    }
    ran = subprocess.run(
        [
            *(sys.executable, "-m", "nlu_tui", "test", "du", str(dut_path)),
            *("--engine", f"embedded:{tmp_path / 'contacts.nlu.yml'}", "--no-output"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert "contacts.dut.yml::generated add_contact 3" in ran.stdout, ran.stderr
    assert "8 passed test cases" not in ran.stdout  # the sample's own failures stay
    passed = ran.stdout.split("passed test cases:")[1].split("failed test cases:")[0]
    assert "generated add_contact 3" in passed  # "@zed" → start flow + set slot handle


def test_a_dut_file_whose_last_key_is_not_test_cases_is_rewritten(tmp_path: Path) -> None:
    flows = load_flows(SAMPLES / "contacts.flows.yml")
    dut_path = tmp_path / "t.dut.yml"
    dut_path.write_text(
        "test_cases:\n  - test_case: a\n    steps:\n      - user: hi\n"
        "        commands: [offtopic reply]\nfixtures:\n  - f1:\n      - handle: x\n",
        encoding="utf-8",
    )
    generator = FlowCaseGenerator("check_balance", flows, load_dut_file(dut_path))
    generator.proposals = parse_flow_proposals('["whats my balance"]')
    assert add_to_dut_file(dut_path, generator.accepted_cases()) is False
    cases = read_dut(dut_path, CommandSpec(), flows.ids).cases
    assert [c.name for c in cases] == ["a", "generated check_balance 1"]
    new = tmp_path / "new.dut.yml"  # a missing file is created
    assert add_to_dut_file(new, generator.accepted_cases()) is True
    assert [c.name for c in read_dut(new, CommandSpec(), flows.ids).cases] == [
        "generated check_balance 1"
    ]


def test_unknown_flow_and_malformed_answers() -> None:
    flows = load_flows(SAMPLES / "contacts.flows.yml")
    with pytest.raises(InputError) as err:
        FlowCaseGenerator("order_pizza", flows)
    assert "flow 'order_pizza' is not in the flows file (flows: add_contact," in str(err.value)
    for text, expected in [
        ("sure thing", "not a JSON array"),
        ('[{"text": "x"}]', "item 1 has no 'utterance' text"),
        ('[{"utterance": "x", "slots": 3}]', "'slots' is neither a mapping nor a list"),
        ('[{"utterance": "x", "answers": [{"text": "y"}]}]', "an answer has no 'slot' name"),
    ]:
        with pytest.raises(LLMError) as llm_err:
            parse_flow_proposals(text)
        assert expected in str(llm_err.value)


def _cli(tmp_path: Path, *args: str, url: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
        "NLU_TUI_LLM_BASE_URL": url,
        "NLU_TUI_LLM_MODEL": "gen-model",
    }
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", "generate", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_cli_generate_for_a_flow(tmp_path: Path) -> None:
    dut_path = _copy(tmp_path)
    before = dut_path.read_bytes()
    peer = LLMPeer([Reply(json.dumps(ROUND_1)), Reply(json.dumps(ROUND_1))])
    with peer.serving() as url:
        printed = _cli(tmp_path, str(dut_path), "--flow", "add_contact", "--count", "4", url=url)
        added = _cli(tmp_path, str(dut_path), "--flow", "add_contact", "--yes", url=url)
        wrong = _cli(tmp_path, str(dut_path), "--flow", "nope", url=url)
    assert printed.returncode == 0, printed.stderr
    assert "4 proposals for flow add_contact from gen-model" in printed.stdout
    assert "  3 ✓⛔ save Jo as a new contact   [start flow add_contact; set slot name Jo; " in (
        printed.stdout
    )
    assert "nothing added (review on a terminal, or --yes" in printed.stdout
    assert "bot asks" not in printed.stdout  # no --conversation: openings only
    assert added.returncode == 0, added.stderr
    assert "added 1 DUT test case(s)" in added.stdout  # flagged and erroneous left out
    assert dut_path.read_bytes().startswith(before.rstrip(b"\n"))
    names = [c.name for c in load_dut_file(dut_path).test_cases]  # type: ignore[union-attr]
    assert names[-1] == "generated add_contact 1"
    assert wrong.returncode == 2 and "flow 'nope' is not in the flows file" in wrong.stderr
    assert len(peer.requests) == 2


def test_conversation_answers_follow_the_flow_slot_order() -> None:
    flows = load_flows(SAMPLES / "contacts.flows.yml")
    generator = FlowCaseGenerator("transfer_money", flows, conversation=True)
    answer = [
        {
            "utterance": "send money to Tre",
            "slots": {"transfer_money_recipient": "Tre"},
            "answers": [
                {"slot": "transfer_money_final_confirmation", "text": "yes", "value": True},
                {"slot": "transfer_money_amount_of_money", "text": "50$ please", "value": 50},
                {"slot": "transfer_money_amount_of_money", "text": "60", "value": "60"},
            ],
        }
    ]
    (proposal,) = generator.parse(json.dumps(answer), "answer")
    generator.check(proposal)
    generator.proposals.append(proposal)
    assert proposal.flags == ["2 answers for 'transfer_money_amount_of_money': the first is used"]
    (case,) = generator.accepted_cases()
    assert [(s.kind.value, s.text, s.commands) for s in case.steps] == [
        ("user", "send money to Tre",
         ["start flow transfer_money", "set slot transfer_money_recipient Tre"]),
        ("utter", "utter_ask_transfer_money_amount_of_money", None),
        ("user", "50$ please", ["set slot transfer_money_amount_of_money 50"]),
        ("utter", "utter_ask_transfer_money_final_confirmation", None),
        ("user", "yes", ["set slot transfer_money_final_confirmation True"]),
    ]  # fmt: skip


@pytest.mark.parametrize("indented", [True, False])
def test_appended_cases_follow_the_files_list_layout(tmp_path: Path, indented: bool) -> None:
    """Generated DUT test cases appended to a file whose lists are indented under their key
    (`steps:` then `  - user:`, as the sample and Rasa's docs write them) are indented the
    same way, and an indentless file stays indentless (the appended block used PyYAML's
    indentless layout in both)."""
    from nlu_tui.conversation_model import E2EStep, E2ETestCase, StepKind

    pad = "  " if indented else ""
    dut = tmp_path / "t.dut.yml"
    dut.write_text(
        "# my tests\ntest_cases:\n  - test_case: one\n    steps:\n"
        f"    {pad}- user: hi\n    {pad}  commands:\n      {pad}{pad}- start flow greet\n",
        encoding="utf-8",
    )
    case = E2ETestCase(
        "generated greet 1",
        [E2EStep(StepKind.USER, "hello there", commands=["start flow greet"])],
    )
    assert add_to_dut_file(dut, [case]) is True
    text = dut.read_text(encoding="utf-8")
    added = text[text.index("  - test_case: generated greet 1") :]
    assert f"\n    {pad}- user: hello there\n" in added
    assert f"\n      {pad}{pad}- start flow greet\n" in added
