"""Generating test cases against the loopback LLM: the prompt's content, review (reject,
edit), "generate more" without repeats, leakage and duplicate flags, and adding the accepted
cases to the suite file through the comment-preserving save."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.formats.native import load_suite
from nlu_tui.formats.rasa_yaml import load_training_data
from nlu_tui.llm import ChatClient, LLMError, llm_config_from_mapping
from nlu_tui.llm.generate import CaseGenerator, add_to_suite, parse_proposals
from tests.llm_peer import LLMPeer, Reply

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"

ROUND_1 = [
    {
        "utterance": "how much is sitting in my savings right now",
        "entities": [{"entity": "account_type", "value": "savings", "text": "savings"}],
    },
    {"utterance": "check my balance"},  # identical to a training example: leakage
    {"utterance": "how much money do I have left"},  # near-identical (91%)
    {"utterance": "yo whats left on my card"},
]
ROUND_2 = [
    {"utterance": "yo whats left on my card"},  # a repeat of round 1: dropped
    {"utterance": "HOW MUCH is sitting in my savings right now"},  # a repeat, other case
    {"utterance": "tell me the balance of the joint account"},
]


def _suite(tmp_path: Path) -> Path:
    for name in ("banking_bot.suite.yaml", "banking_bot.nlu.yml"):
        (tmp_path / name).write_bytes((SAMPLES / name).read_bytes())
    return tmp_path / "banking_bot.suite.yaml"


def _config(url: str):  # type: ignore[no-untyped-def]
    return llm_config_from_mapping({"base_url": url, "model": "gen-model", "retries": 0})


def test_generation_flow_prompt_review_more_and_flags(tmp_path: Path) -> None:
    suite_path = _suite(tmp_path)
    suite = load_suite(suite_path)
    training = load_training_data(tmp_path / "banking_bot.nlu.yml")
    training.intent_metadata["check_balance"]["description"] = "the user asks how much money"
    peer = LLMPeer([Reply(json.dumps(ROUND_1)), Reply("```json\n" + json.dumps(ROUND_2) + "\n```")])
    generator = CaseGenerator("check_balance", suite, training, count=4)

    async def two_rounds() -> None:
        async with ChatClient(_config(url)) as client:
            first = await generator.generate(client)
            assert [p.utterance for p in first] == [item["utterance"] for item in ROUND_1]
            generator.set_accepted(3, False)  # rejected: must not come back either
            await generator.generate(client)

    with peer.serving() as url:
        asyncio.run(two_rounds())

    # the first prompt: the intent's name, description, training examples, entity values
    prompt = peer.requests[0].messages[1]["content"]
    assert prompt.startswith("Write 4 new test utterances for the intent 'check_balance'")
    assert "Intent description: the user asks how much money\n" in prompt
    assert "- what's my balance\n- how much money do I have\n" in prompt
    assert "account_type: checking, savings, current, business, joint" in prompt
    assert "already proposed" not in prompt
    # the second prompt lists everything shown, the rejected one included
    second = peer.requests[1].messages[1]["content"]
    assert "Do not repeat or rephrase any of these (already proposed):" in second
    for item in ROUND_1:
        assert f"- {item['utterance']}\n" in second

    shown = [p.utterance for p in generator.proposals]
    assert shown == [*(i["utterance"] for i in ROUND_1), "tell me the balance of the joint account"]
    assert generator.dropped_repeats == 2
    flags = {p.utterance: p.flags for p in generator.proposals}
    assert flags["check my balance"] == [
        "leakage: identical to training example 'check my balance' (check_balance)"
    ]
    assert flags["how much money do I have left"] == [
        "leakage: 91% like training example 'how much money do I have' (check_balance)"
    ]
    assert flags[ROUND_1[0]["utterance"]] == []
    assert generator.proposals[0].entities[0].value == "savings"

    # an existing case is flagged as a duplicate; an edit re-checks
    edited = generator.edit(0, "how much money is in my checking account?")
    assert any("existing case" in f for f in edited.flags)
    generator.edit(0, "how much is sitting in my savings right now")
    generator.set_accepted(1, False)
    generator.set_accepted(2, False)
    cases = generator.accepted_cases()
    assert [c.utterance for c in cases] == [
        "how much is sitting in my savings right now",
        "tell me the balance of the joint account",
    ]
    before = suite_path.read_text(encoding="utf-8")
    add_to_suite(suite_path, cases)
    after = suite_path.read_text(encoding="utf-8")
    assert after.startswith(before.rstrip("\n"))  # comments and layout kept: appended only
    saved = load_suite(suite_path)
    added = saved.cases[-2:]
    assert [c.utterance for c in added] == [c.utterance for c in cases]
    assert all(c.tags == ["generated"] and c.intents[0].name == "check_balance" for c in added)
    assert [(e.name, e.value) for e in added[0].entities] == [("account_type", "savings")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Here are some ideas: hello", "not a JSON array of utterances"),
        ('{"foo": 1}', "expected a JSON array of utterances, got dict"),
        ('[{"text": "x"}]', "item 1 has no 'utterance' text"),
        ('[{"utterance": "x", "entities": [{"value": 1}]}]', "an entity has no 'entity' type"),
    ],
)
def test_malformed_generation_answers(text: str, expected: str) -> None:
    with pytest.raises(LLMError) as err:
        parse_proposals(text)
    assert expected in str(err.value)


def test_plain_strings_and_wrapped_lists_are_read() -> None:
    assert [p.utterance for p in parse_proposals('["a  b", "c"]')] == ["a b", "c"]
    assert [p.utterance for p in parse_proposals('{"utterances": ["x"]}')] == ["x"]


def _cli(tmp_path: Path, *args: str, url: str | None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
    }
    env.pop("NLU_TUI_LLM_BASE_URL", None)
    if url:
        env.update(NLU_TUI_LLM_BASE_URL=url, NLU_TUI_LLM_MODEL="gen-model")
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", "generate", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,  # not a terminal: no review, as in CI
    )


def test_cli_generate_adds_clean_cases(tmp_path: Path) -> None:
    suite_path = _suite(tmp_path)
    peer = LLMPeer([Reply(json.dumps(ROUND_1))])
    with peer.serving() as url:
        ran = _cli(tmp_path, str(suite_path), "--intent", "check_balance", "--count", "4",
                   "--add", url=url)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "4 proposals for check_balance from gen-model" in ran.stdout
    assert "  2 ✗! check my balance" in ran.stdout  # flagged: not added
    assert "added 2 case(s)" in ran.stdout
    utterances = [c.utterance for c in load_suite(suite_path).cases]
    assert ROUND_1[0]["utterance"] in utterances and ROUND_1[3]["utterance"] in utterances
    assert utterances.count("check my balance") == 0


def test_cli_without_endpoint_says_how_to_configure(tmp_path: Path) -> None:
    suite_path = _suite(tmp_path)
    ran = _cli(tmp_path, str(suite_path), "--intent", "check_balance", url=None)
    assert ran.returncode == 2
    assert "no LLM endpoint is configured" in ran.stderr
    assert "base_url" in ran.stderr


def test_cli_unknown_intent_and_llm_error(tmp_path: Path) -> None:
    suite_path = _suite(tmp_path)
    ran = _cli(tmp_path, str(suite_path), "--intent", "nope", url="http://127.0.0.1:1/v1")
    assert ran.returncode == 2 and "intent 'nope' is not in the training data" in ran.stderr
    peer = LLMPeer([Reply(raw=b"<html>")])
    with peer.serving() as url:
        ran = _cli(tmp_path, str(suite_path), "--intent", "check_balance", url=url)
    assert ran.returncode != 0 and "not valid JSON" in ran.stderr
    assert load_suite(suite_path) == load_suite(SAMPLES / "banking_bot.suite.yaml")


def test_a_rephrased_repeat_of_a_rejected_proposal_is_flagged(tmp_path: Path) -> None:
    suite = load_suite(_suite(tmp_path))
    peer = LLMPeer(
        [
            Reply(json.dumps(["yo whats left on my card", "balance of the joint account pls"])),
            Reply(json.dumps(["yo whats left on my cards", "how much is in savings right now"])),
        ]
    )
    generator = CaseGenerator("check_balance", suite, None, count=2)

    async def two_rounds() -> None:
        async with ChatClient(_config(url)) as client:
            await generator.generate(client)
            generator.set_accepted(0, False)
            await generator.generate(client)

    with peer.serving() as url:
        asyncio.run(two_rounds())
    flags = {p.utterance: p.flags for p in generator.proposals}
    assert flags["yo whats left on my cards"] == [
        "98% like the rejected proposal 'yo whats left on my card'"
    ]
    assert flags["how much is in savings right now"] == []
