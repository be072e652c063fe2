"""The shared LLM client against the loopback OpenAI-compatible server: replies, usage,
retries on 429/5xx, timeouts, malformed answers, and no secret in any error."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from nlu_tui.llm import (
    ChatClient,
    LLMConfig,
    LLMError,
    LLMNotConfiguredError,
    chat_once,
    llm_config_from_mapping,
    load_llm_config,
)
from tests.llm_peer import LLMPeer, Reply

SECRET = "sk-test-very-secret-0123456789"


def config(url: str, **over: object) -> LLMConfig:
    raw = {"base_url": url, "model": "tiny-model", "timeout": 5, "retries": 2, **over}
    cfg = llm_config_from_mapping(raw)
    return LLMConfig(**{**cfg.__dict__, "backoff": 0.01})


def test_reply_text_usage_and_request_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_KEY_T", SECRET)
    peer = LLMPeer([Reply("hello there", prompt_tokens=17, completion_tokens=2)])
    with peer.serving() as url:
        reply = chat_once(
            config(url, api_key="${LLM_KEY_T}", temperature=0.2),
            [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
            seed=7,
        )
    assert reply.text == "hello there"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (17, 2)
    assert reply.usage.total_tokens == 19
    assert reply.model == "tiny-model"
    (request,) = peer.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    assert request.body == {
        "model": "tiny-model",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hi"},
        ],
        "temperature": 0.2,
        "seed": 7,
    }


def test_retries_429_and_5xx_then_succeeds() -> None:
    peer = LLMPeer([Reply(status=429), Reply(status=503), Reply("ok")])
    with peer.serving() as url:
        reply = chat_once(config(url), [{"role": "user", "content": "x"}])
    assert reply.text == "ok"
    assert reply.attempts == 3
    assert len(peer.requests) == 3


def test_gives_up_after_the_configured_retries() -> None:
    peer = LLMPeer([Reply("overloaded", status=503)] * 5)
    with peer.serving() as url, pytest.raises(LLMError) as err:
        chat_once(config(url, retries=1), [{"role": "user", "content": "x"}])
    assert "HTTP 503: overloaded" in str(err.value)
    assert "gave up after 2 attempts" in str(err.value)
    assert len(peer.requests) == 2


def test_retry_after_header_is_honoured() -> None:
    peer = LLMPeer([Reply(status=429, headers={"Retry-After": "0.3"}), Reply("ok")])
    with peer.serving() as url:
        started = time.perf_counter()
        chat_once(config(url), [{"role": "user", "content": "x"}])
    assert time.perf_counter() - started >= 0.3


def test_client_error_is_not_retried_and_names_a_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_KEY_T", SECRET)
    peer = LLMPeer([Reply(f"Incorrect API key provided: {SECRET}", status=401)])
    with peer.serving() as url, pytest.raises(LLMError) as err:
        chat_once(config(url, api_key="${LLM_KEY_T}"), [{"role": "user", "content": "x"}])
    text = str(err.value)
    assert "HTTP 401" in text and "api_key" in text
    assert SECRET not in text and "***" in text
    assert len(peer.requests) == 1


def test_slow_answer_times_out_clearly() -> None:
    peer = LLMPeer([Reply("late", delay=1.0)] * 3)
    with peer.serving() as url, pytest.raises(LLMError) as err:
        chat_once(config(url, timeout=0.2, retries=0), [{"role": "user", "content": "x"}])
    assert "no answer within 0.2 s (timeout)" in str(err.value)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply(raw=b"{not json"), "not valid JSON (starts '{not json')"),
        (Reply(body={"id": "x", "choices": []}), "has no 'choices'"),
        (Reply(body={"choices": [{"message": {"role": "assistant"}}]}), "content is missing"),
        (Reply(body=[1, 2]), "JSON list, not an object"),
        (Reply(body={"error": {"message": "model not loaded"}}), "answered an error: model"),
    ],
)
def test_malformed_answers_are_clear_errors(reply: Reply, expected: str) -> None:
    peer = LLMPeer([reply])
    with peer.serving() as url, pytest.raises(LLMError) as err:
        chat_once(config(url), [{"role": "user", "content": "x"}])
    assert expected in str(err.value)
    assert "tiny-model" in str(err.value)


def test_unreachable_endpoint_is_one_line() -> None:
    with pytest.raises(LLMError) as err:
        chat_once(config("http://127.0.0.1:1/v1", retries=0), [{"role": "user", "content": "x"}])
    assert "cannot connect to http://127.0.0.1:1" in str(err.value)


async def test_one_client_serves_many_requests() -> None:
    peer = LLMPeer(lambda request: Reply(request.last_user.upper()))
    with peer.serving() as url:
        async with ChatClient(config(url)) as llm:
            answers = [(await llm.chat([{"role": "user", "content": w}])).text for w in "ab"]
    assert answers == ["A", "B"]


def test_literal_key_is_refused() -> None:
    with pytest.raises(LLMError) as err:
        llm_config_from_mapping({"base_url": "http://x/v1", "model": "m", "api_key": SECRET})
    assert "environment reference" in str(err.value) and SECRET not in str(err.value)


def test_config_from_settings_and_missing_help(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("NLU_TUI_LLM_BASE_URL", "NLU_TUI_LLM_MODEL", "NLU_TUI_LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NLU_TUI_CONFIG_DIR", str(tmp_path))
    with pytest.raises(LLMNotConfiguredError) as err:
        load_llm_config()
    assert "base_url" in str(err.value) and str(tmp_path / "settings.yaml") in str(err.value)
    (tmp_path / "settings.yaml").write_text(
        "theme: dark\nllm:\n  base_url: http://127.0.0.1:11434/v1\n  model: llama3.1\n"
        "  api_key: ${LLM_KEY_T}\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("LLM_KEY_T", SECRET)
    cfg = load_llm_config()
    assert (cfg.base_url, cfg.model, cfg.api_key) == (
        "http://127.0.0.1:11434/v1",
        "llama3.1",
        SECRET,
    )
    assert SECRET not in repr(cfg) and SECRET not in str(cfg.describe())
    (tmp_path / "settings.yaml").write_text("llm:\n  base_url: x\n", encoding="utf-8")
    with pytest.raises(LLMError, match="base_url must be"):
        load_llm_config()


def test_environment_overrides_each_field_of_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: NLU_TUI_LLM_BASE_URL / _MODEL / _API_KEY override the file — field by field.
    Only a base_url in the environment used to drop the file's model ("model must name the
    model"), and a model or key alone in the environment was silently ignored."""
    for var in ("NLU_TUI_LLM_BASE_URL", "NLU_TUI_LLM_MODEL", "NLU_TUI_LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NLU_TUI_CONFIG_DIR", str(tmp_path))
    (tmp_path / "settings.yaml").write_text(
        "llm:\n  base_url: http://127.0.0.1:11434/v1\n  model: llama3.1\n  timeout: 7\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("NLU_TUI_LLM_BASE_URL", "http://127.0.0.1:8080/v1")
    cfg = load_llm_config()
    assert (cfg.base_url, cfg.model, cfg.timeout) == ("http://127.0.0.1:8080/v1", "llama3.1", 7)
    monkeypatch.delenv("NLU_TUI_LLM_BASE_URL")
    monkeypatch.setenv("NLU_TUI_LLM_MODEL", "qwen2.5")
    monkeypatch.setenv("NLU_TUI_LLM_API_KEY", SECRET)
    cfg = load_llm_config()
    assert (cfg.base_url, cfg.model, cfg.api_key) == (
        "http://127.0.0.1:11434/v1",
        "qwen2.5",
        SECRET,
    )
    # without the file, the environment alone still configures it; a model alone does not
    (tmp_path / "settings.yaml").unlink()
    with pytest.raises(LLMNotConfiguredError):
        load_llm_config()
    monkeypatch.setenv("NLU_TUI_LLM_BASE_URL", "http://127.0.0.1:8080/v1")
    cfg = load_llm_config()
    assert (cfg.base_url, cfg.model, cfg.timeout) == ("http://127.0.0.1:8080/v1", "qwen2.5", 60)
