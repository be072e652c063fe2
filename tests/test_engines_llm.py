"""The ``llm`` engine contract-tested against the loopback OpenAI-compatible server: the prompt
it sends (intents, descriptions, examples), how it reads answers, and malformed answers as
clear case errors in a real ``nlu-tui run``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.engines.base import ParseContext, create_engine
from nlu_tui.engines.httpcall import BadResponseError
from nlu_tui.engines.llm import parse_llm_answer
from nlu_tui.errors import EngineError
from tests.llm_peer import LLMPeer, Reply, Request

MINI = Path(__file__).parent / "fixtures" / "engines" / "mini.nlu.yml"
INTENTS = ["greet", "affirm", "transfer_money", "check_balance", "confirm_transfer"]
SECRET = "sk-llm-engine-secret-987654"


async def test_prompt_lists_intents_and_examples_and_answer_is_read(tmp_path: Path) -> None:
    nlu = tmp_path / "nlu.yml"
    nlu.write_text(
        MINI.read_text(encoding="utf-8").replace(
            "- intent: greet\n",
            "- intent: greet\n  metadata:\n    description: the user says hello\n",
        ),
        encoding="utf-8",
    )
    answer = (
        '```json\n{"intent": "transfer_money", "confidence": 0.91, "entities": '
        '[{"entity": "payee", "value": "Anna", "text": "anna"}, '
        '{"entity": "amount", "value": "20 dollars", "text": "20 dollars"}]}\n```'
    )
    peer = LLMPeer([Reply(answer)])
    with peer.serving() as url:
        engine = create_engine(
            "llm", {"nlu": str(nlu), "base_url": url, "model": "m1", "examples": 2}
        )
        await engine.open(None)
        prediction = await engine.parse("send 20 dollars to anna", ParseContext())
        await engine.close()
    (request,) = peer.requests
    system, user = request.messages
    assert user == {"role": "user", "content": "send 20 dollars to anna"}
    prompt = system["content"]
    assert "- greet: the user says hello\n" in prompt
    assert '    e.g. "hello"\n    e.g. "hi there"\n- affirm\n' in prompt  # 2 examples each
    assert '"good morning"' not in prompt
    assert "Entity types: account, amount, payee" in prompt
    assert request.body["temperature"] == 0.0 and request.body["model"] == "m1"
    assert prediction.intent == "transfer_money" and prediction.confidence == 0.91
    assert [(e.name, e.value, e.text, e.start, e.end) for e in prediction.entities] == [
        ("amount", "20 dollars", "20 dollars", 5, 15),
        ("payee", "Anna", "anna", 19, 23),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I think it is greet", "not a JSON object: 'I think it is greet'"),
        ('{"intent": "order_pizza"}', "intent not in the training data: 'order_pizza'"),
        ('{"confidence": 0.5}', "has no 'intent'"),
        ('{"intent": "greet", "confidence": 7}', "confidence is outside 0..1"),
        ('{"intent": "greet", "entities": {"a": 1}}', "'entities' is not a list"),
        ("[1]", "JSON list, not an object"),
    ],
)
def test_malformed_model_answers(text: str, expected: str) -> None:
    with pytest.raises(BadResponseError) as err:
        parse_llm_answer(text, "hi", INTENTS)
    assert expected in str(err.value)


def test_null_intent_is_no_intent() -> None:
    prediction = parse_llm_answer('{"intent": null, "entities": []}', "blah", INTENTS)
    assert prediction.intent is None and prediction.ranking == []
    assert parse_llm_answer('{"intent": "None"}', "blah", INTENTS).intent is None


def test_missing_training_data_and_endpoint_are_clear(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(EngineError, match="set 'nlu'"):
        create_engine("llm", {"base_url": "http://127.0.0.1:9/v1", "model": "m"})
    monkeypatch.setenv("NLU_TUI_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("NLU_TUI_LLM_BASE_URL", raising=False)
    with pytest.raises(EngineError, match="no LLM endpoint is configured"):
        create_engine("llm", {"nlu": str(MINI)})


def test_run_against_loopback_llm_scores_and_reports_bad_answers(tmp_path: Path) -> None:
    """A real ``nlu-tui run`` with a ``type: llm`` profile: right answers score, a malformed
    answer is that case's error, the key reaches the server and nowhere else."""

    def answer(request: Request) -> Reply:
        text = request.last_user
        if text == "hello friend":
            return Reply('{"intent": "greet", "confidence": 0.9}')
        if text == "what is in savings":
            return Reply(
                '{"intent": "check_balance", "confidence": 0.8, "entities": '
                '[{"entity": "account", "value": "savings", "text": "savings"}]}'
            )
        return Reply("Sure! The intent is probably affirm.")

    suite = tmp_path / "s.suite.yaml"
    suite.write_text(
        "nlu_tui_suite: 1\nname: llm\ncases:\n"
        "  - utterance: hello friend\n    intents: [greet]\n"
        "  - utterance: what is in savings\n    intents: [check_balance]\n"
        "    entities:\n      - {name: account, value: savings}\n"
        "  - utterance: yep\n    intents: [affirm]\n",
        encoding="utf-8",
    )
    peer = LLMPeer(answer)
    with peer.serving() as url:
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  llm-bot:\n    type: llm\n    nlu: {MINI}\n    base_url: {url}\n"
            "    model: tiny\n    api_key: ${LLM_ENGINE_KEY}\n    concurrency: 1\n"
            "    retries: 0\n",
            encoding="utf-8",
        )
        env = {
            **os.environ,
            "LLM_ENGINE_KEY": SECRET,
            "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
            "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
        }
        report = tmp_path / "report.json"
        ran = subprocess.run(
            [
                *(sys.executable, "-m", "nlu_tui", "run", str(suite)),
                *("--engine", "llm-bot", "--json", str(report)),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env=env,
        )
    output = ran.stdout + ran.stderr + report.read_text(encoding="utf-8")
    assert SECRET not in output
    assert all(r.headers["authorization"] == f"Bearer {SECRET}" for r in peer.requests)
    assert len(peer.requests) == 3
    results = {r["utterance"]: r for r in json.loads(report.read_text(encoding="utf-8"))["results"]}
    assert results["hello friend"]["result"] == "TP"
    assert results["what is in savings"]["result"] == "TP"
    assert results["yep"]["result"] == "ERROR"
    assert "not a JSON object: 'Sure! The intent is probably affirm.'" in results["yep"]["error"]


def test_parent_intent_context_reaches_the_prompt_in_a_real_run(tmp_path: Path) -> None:
    """A case's parent-intent path goes into a second system message (the utterance stays the
    bare user message); follow-up intents are marked in the instructions. The loopback model
    answers the follow-up intent only when it was told the context, so the case with the
    parent path passes and the same words without it do not."""

    def answer(request: Request) -> Reply:
        system = [m["content"] for m in request.messages if m["role"] == "system"]
        if (
            len(system) == 2
            and "Follow-up intents of 'transfer_money': confirm_transfer" in (system[1])
        ):
            return Reply('{"intent": "confirm_transfer", "confidence": 0.9}')
        return Reply('{"intent": "affirm", "confidence": 0.6}')

    suite = tmp_path / "s.suite.yaml"
    suite.write_text(
        "nlu_tui_suite: 1\nname: ctx\ncases:\n"
        "  - utterance: yes go ahead\n    intents: [confirm_transfer]\n"
        "    parent_intents: [transfer_money]\n"
        "  - utterance: yes go ahead now\n    intents: [confirm_transfer]\n",
        encoding="utf-8",
    )
    peer = LLMPeer(answer)
    with peer.serving() as url:
        env = {
            **os.environ,
            "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
            "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
        }
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  llm-bot:\n    type: llm\n    nlu: {MINI}\n    base_url: {url}\n"
            "    model: tiny\n    concurrency: 1\n    retries: 0\n",
            encoding="utf-8",
        )
        report = tmp_path / "report.json"
        subprocess.run(
            [
                *(sys.executable, "-m", "nlu_tui", "run", str(suite)),
                *("--engine", "llm-bot", "--json", str(report)),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env=env,
        )
    by_text = {r.last_user: r for r in peer.requests}
    with_parent, without = by_text["yes go ahead"], by_text["yes go ahead now"]
    assert [m["role"] for m in with_parent.messages] == ["system", "system", "user"]
    assert with_parent.messages[1]["content"] == (
        "Conversation context: the user is answering inside the intent 'transfer_money' "
        "(context path: transfer_money).\nFollow-up intents of 'transfer_money': "
        "confirm_transfer. Prefer one of them when the message fits it; otherwise classify "
        "the message as usual."
    )
    assert [m["role"] for m in without.messages] == ["system", "user"]
    instructions = with_parent.messages[0]["content"]
    assert "- confirm_transfer (follow-up of transfer_money)\n" in instructions
    assert "- transfer_money\n" in instructions
    results = {r["utterance"]: r for r in json.loads(report.read_text(encoding="utf-8"))["results"]}
    assert results["yes go ahead"]["result"] == "TP"
    assert results["yes go ahead now"]["result"] != "TP"


async def test_context_message_of_a_parent_without_follow_ups(tmp_path: Path) -> None:
    peer = LLMPeer([Reply('{"intent": "greet", "confidence": 1}')])
    with peer.serving() as url:
        engine = create_engine("llm", {"nlu": str(MINI), "base_url": url, "model": "m"})
        assert engine.capabilities.parent_intent_context
        await engine.open(None)
        await engine.parse("hi", ParseContext(parent_intents=["greet", "affirm"]))
        await engine.close()
    context = peer.requests[0].messages[1]["content"]
    assert "inside the intent 'affirm' (context path: greet > affirm)" in context
    assert "'affirm' has no follow-up intents" in context
