"""Where the LLM endpoint is configured, and how a configuration is checked.

Once, in the user config folder's ``settings.yaml`` (the file the theme choice lives in)::

    llm:
      base_url: http://127.0.0.1:8080/v1     # llama.cpp, vLLM, Ollama (…:11434/v1), or hosted
      model: qwen2.5-7b-instruct
      api_key: ${OPENAI_API_KEY}             # only as an ${ENV} reference; omit for local servers
      timeout: 60                            # seconds per request
      retries: 3                             # on 429 and 5xx, with backoff
      temperature: 0.7

An ``engines.yaml`` profile of ``type: llm`` takes the same keys (see
:mod:`nlu_tui.engines.llm`). ``NLU_TUI_LLM_BASE_URL`` / ``NLU_TUI_LLM_MODEL`` /
``NLU_TUI_LLM_API_KEY`` override the file's keys one by one (handy in CI). Literal keys are refused: a secret
only ever comes from the environment.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui import paths
from nlu_tui.engines.httpcall import safe_url
from nlu_tui.errors import InputError, NluTuiError
from nlu_tui.formats import yaml_loader

CONFIG_KEYS = frozenset(
    {"base_url", "model", "api_key", "timeout", "retries", "temperature", "max_tokens", "headers"}
)
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class LLMError(NluTuiError):
    """The endpoint failed or answered something that is not a chat completion. The message
    never carries the API key."""


class LLMNotConfiguredError(LLMError):
    """No endpoint is configured; the message says how to configure one."""


@dataclass(frozen=True)
class LLMConfig:
    """A checked endpoint configuration. ``api_key`` is the resolved secret (never shown:
    ``describe`` and ``repr`` leave it out)."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0
    retries: int = 3
    temperature: float | None = None
    max_tokens: int | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    source: str = ""
    backoff: float = 0.5
    """Seconds before the first retry (doubled each time; a ``Retry-After`` header wins)."""

    @property
    def secrets(self) -> list[str]:
        found = [self.api_key] if self.api_key else []
        return found + [v for v in self.headers.values() if v]

    @property
    def chat_url(self) -> str:
        """``base_url`` + ``/chat/completions`` (a URL that already ends so is kept)."""
        url = self.base_url.rstrip("/")
        return url if url.endswith("/chat/completions") else url + "/chat/completions"

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"base_url": safe_url(self.base_url), "model": self.model}
        if self.temperature is not None:
            info["temperature"] = self.temperature
        return info


def configuration_help() -> str:
    """What to write, and where, to configure an endpoint (shown when none is)."""
    return (
        f"no LLM endpoint is configured. Add to {paths.settings_path()}:\n"
        "  llm:\n"
        "    base_url: http://127.0.0.1:11434/v1   # Ollama; llama.cpp/vLLM: http://HOST:PORT/v1;"
        " OpenAI: https://api.openai.com/v1\n"
        "    model: llama3.1\n"
        "    api_key: ${OPENAI_API_KEY}            # hosted APIs only, as an ${ENV} reference\n"
        "or set NLU_TUI_LLM_BASE_URL and NLU_TUI_LLM_MODEL (and NLU_TUI_LLM_API_KEY)."
    )


def _resolve(value: str, where: str, key: str) -> str:
    def sub(match: re.Match[str]) -> str:
        found = os.environ.get(match.group(1))
        if found is None:
            raise LLMError(f"{where}: {key}: environment variable {match.group(1)} is not set")
        return found

    return _ENV_REF.sub(sub, value)


def _number(raw: Mapping[str, Any], key: str, where: str, kind: type, low: float) -> Any:
    value = raw.get(key)
    if value is None:
        return None
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        ok = ok and float(value).is_integer()
    if not ok or value < low:
        raise LLMError(f"{where}: {key} must be a number ≥ {low}, got {value!r}")
    return kind(value)


def llm_config_from_mapping(raw: Mapping[str, Any], where: str = "llm") -> LLMConfig:
    """Check and resolve one ``llm:`` mapping (LLMError naming ``where`` and the key)."""
    unknown = sorted(str(k) for k in raw if str(k) not in CONFIG_KEYS and k != "type")
    if unknown:
        raise LLMError(
            f"{where}: unknown key {unknown[0]!r}; valid keys: {', '.join(sorted(CONFIG_KEYS))}"
        )
    base_url = raw.get("base_url")
    if not isinstance(base_url, str) or not base_url.strip().startswith(("http://", "https://")):
        raise LLMError(f"{where}: base_url must be an http:// or https:// URL, got {base_url!r}")
    model = raw.get("model")
    if not isinstance(model, str) or not model.strip():
        raise LLMError(f"{where}: model must name the model to use (e.g. llama3.1)")
    key = raw.get("api_key")
    api_key: str | None = None
    if key not in (None, ""):
        if not isinstance(key, str) or _ENV_REF.sub("", key).strip():
            raise LLMError(
                f"{where}: api_key must be an environment reference such as ${{OPENAI_API_KEY}}, "
                "never the key itself"
            )
        api_key = _resolve(key, where, "api_key") or None
    headers_raw = raw.get("headers") or {}
    if not isinstance(headers_raw, Mapping):
        raise LLMError(f"{where}: headers must be a mapping")
    headers = {str(k): _resolve(str(v), where, f"headers.{k}") for k, v in headers_raw.items()}
    timeout = _number(raw, "timeout", where, float, 0.001)
    retries = _number(raw, "retries", where, int, 0)
    temperature = _number(raw, "temperature", where, float, 0)
    max_tokens = _number(raw, "max_tokens", where, int, 1)
    return LLMConfig(
        base_url=base_url.strip(),
        model=model.strip(),
        api_key=api_key,
        timeout=60.0 if timeout is None else timeout,
        retries=3 if retries is None else retries,
        temperature=temperature,
        max_tokens=max_tokens,
        headers=headers,
        source=where,
    )


def load_llm_config(settings_file: Path | None = None) -> LLMConfig:
    """The configured endpoint: ``llm:`` in the user settings, each of its ``base_url``,
    ``model`` and ``api_key`` overridden by ``NLU_TUI_LLM_BASE_URL`` / ``_MODEL`` /
    ``_API_KEY`` when set (the file's other keys stay). LLMNotConfiguredError (with
    :func:`configuration_help`) when neither gives a base_url."""
    path = settings_file or paths.settings_path()
    overrides: dict[str, Any] = {}
    if os.environ.get("NLU_TUI_LLM_BASE_URL"):
        overrides["base_url"] = os.environ["NLU_TUI_LLM_BASE_URL"]
    if os.environ.get("NLU_TUI_LLM_MODEL"):
        overrides["model"] = os.environ["NLU_TUI_LLM_MODEL"]
    if os.environ.get("NLU_TUI_LLM_API_KEY"):
        overrides["api_key"] = "${NLU_TUI_LLM_API_KEY}"
    entry = _read_settings(path).get("llm")
    if entry is None and "base_url" not in overrides:
        raise LLMNotConfiguredError(configuration_help())
    if entry is not None and not isinstance(entry, Mapping):
        raise LLMError(f"{path}: 'llm' must be a mapping with base_url and model")
    if not overrides:
        assert entry is not None
        return llm_config_from_mapping(entry, f"{path}: llm")
    names = " and ".join(f"NLU_TUI_LLM_{key.upper()}" for key in overrides)
    where = names if entry is None else f"{path}: llm with {names}"
    return llm_config_from_mapping({**(entry or {}), **overrides}, where)


def _read_settings(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise LLMError(f"cannot read {path}: {exc}") from None
    try:
        raw = yaml_loader.load(text, path)
    except InputError as exc:
        raise LLMError(str(exc)) from None
    return raw if isinstance(raw, dict) else {}
