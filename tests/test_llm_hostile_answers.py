"""A hostile LLM answer ends ``generate`` with one line, quickly: 50,000-deep JSON (Python's
decoder used to recurse into a RecursionError traceback, exit 1) and 20,000 proposals for
``--count 5`` (each proposal is checked against the training data and the others: that ran past
120 s). Against the loopback LLM peer, through the real CLI."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nlu_tui.engines.httpcall import BadResponseError
from nlu_tui.engines.llm import parse_llm_answer
from nlu_tui.formats.native import load_suite
from nlu_tui.formats.rasa_yaml import load_training_data
from nlu_tui.llm import ChatClient, LLMError, llm_config_from_mapping
from nlu_tui.llm.generate import CaseGenerator, parse_proposals
from nlu_tui.llm.generate_flow import parse_flow_proposals
from tests.llm_peer import LLMPeer, Reply

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"
DEEP = "[" * 50_000 + "]" * 50_000
MANY = json.dumps([f"what is my balance number {n}" for n in range(20_000)])


def _generate(
    tmp_path: Path, answer: str, *args: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    for name in ("banking_bot.suite.yaml", "banking_bot.nlu.yml"):
        (tmp_path / name).write_bytes((SAMPLES / name).read_bytes())
    peer = LLMPeer([Reply(answer)])
    env = {
        **os.environ,
        "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
        "NLU_TUI_LLM_MODEL": "gen-model",
    }
    with peer.serving() as url:
        env["NLU_TUI_LLM_BASE_URL"] = url
        started = time.perf_counter()
        command = [sys.executable, "-m", "nlu_tui", "generate", "banking_bot.suite.yaml"]
        ran = subprocess.run(
            [*command, "--intent", "check_balance", *args],
            capture_output=True,
            text=True,
            timeout=180,
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        took = time.perf_counter() - started
    return ran, took


def _one_line_error(ran: subprocess.CompletedProcess[str]) -> str:
    assert ran.returncode not in (0, 1), (ran.returncode, ran.stderr[-2000:])
    assert "Traceback" not in ran.stderr and "RecursionError" not in ran.stderr
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1, ran.stderr[-2000:]
    return lines[0]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (DEEP, "nested more than 64 levels deep"),
        (MANY, "20000 proposals for --count 5; at most 20 (4 × the count) are read"),
    ],
    ids=["50000-deep", "20000-proposals"],
)
def test_the_cli_ends_with_one_line(tmp_path: Path, answer: str, expected: str) -> None:
    """The whole command, process start included (seconds on a loaded 2-core machine): the
    bound is loose here and tight on the answer's handling below (< 2 s)."""
    ran, took = _generate(tmp_path, answer, "--count", "5")
    assert expected in _one_line_error(ran)
    assert took < 30.0, f"took {took:.2f} s"


@pytest.mark.parametrize("answer", [DEEP, MANY], ids=["50000-deep", "20000-proposals"])
def test_the_answer_is_refused_within_2_s(answer: str) -> None:
    """From the request to the refusal, in process: the generator's round against the peer."""
    suite = load_suite(SAMPLES / "banking_bot.suite.yaml")
    training = load_training_data(SAMPLES / "banking_bot.nlu.yml")
    generator = CaseGenerator("check_balance", suite, training, count=5)
    peer = LLMPeer([Reply(answer)])

    async def one_round(url: str) -> float:
        config = llm_config_from_mapping({"base_url": url, "model": "gen-model", "retries": 0})
        async with ChatClient(config) as client:
            started = time.perf_counter()
            with pytest.raises(LLMError):
                await generator.generate(client)
            return time.perf_counter() - started

    with peer.serving() as url:
        took = asyncio.run(one_round(url))
    assert took < 2.0, f"took {took:.2f} s"
    assert generator.proposals == []


def test_up_to_four_times_the_count_is_read() -> None:
    twenty = json.dumps([f"balance please {n}" for n in range(20)])
    assert len(parse_proposals(twenty, count=5)) == 20
    with pytest.raises(LLMError, match="21 proposals for --count 5; at most 20"):
        parse_proposals(json.dumps([f"balance please {n}" for n in range(21)]), count=5)
    with pytest.raises(LLMError, match="21 proposals for --count 5"):
        parse_flow_proposals(json.dumps({"messages": ["hi"] * 21}), count=5)


def test_the_depth_check_is_linear_and_ignores_strings() -> None:
    from nlu_tui.engines.llm_answer_json import MAX_DEPTH, AnswerTooDeep, check_depth

    check_depth('["[[[[[[[[", "{{{{{{{{\\\\", "\\"[[["]', limit=1)  # brackets inside strings
    check_depth("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    with pytest.raises(AnswerTooDeep):
        check_depth("[" * (MAX_DEPTH + 1))
    started = time.perf_counter()
    with pytest.raises(AnswerTooDeep):
        check_depth('{"a": ' * 1_000_000)
    check_depth(json.dumps(["x" * 1000] * 2000))
    assert time.perf_counter() - started < 1.0


def test_the_llm_engine_refuses_a_deep_answer() -> None:
    with pytest.raises(BadResponseError, match="nested more than"):
        parse_llm_answer('{"intent": ' + DEEP + "}", "hello", ["greet"])
