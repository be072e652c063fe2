"""The keys an ``engines.yaml`` profile may hold, per engine type, and where a typo is caught.

A misspelt key (``intnet:`` for ``intent:``) used to be ignored, and every case then failed with
an unrelated error (the default path found nothing). Every mapping of a profile is checked
against this table: the file's top level, the profile, its stage overrides and the generic
HTTP engine's ``ranking:`` and ``entities:`` mappings. ``headers``, ``query`` and ``body`` are
the user's own data and hold any keys. Kept as plain data (no engine module is imported) so
reading profiles stays cheap; plug-in engines declare ``profile_keys`` on their class (a set of
top-level keys), or are not checked.

When an engine reads a new setting, add its key here (tests/test_engines_profile_keys.py
builds every built-in engine from a profile using every key listed).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

TOP_KEYS = frozenset({"engines"})
"""Keys of the file itself."""

STAGE_KEYS = frozenset({"development", "published"})
"""Stage overrides: only at a profile's top level (an override holds the other keys)."""

_HTTP_BASE = frozenset({"timeout"})
ENGINE_KEYS: dict[str, frozenset[str]] = {
    "embedded": frozenset({"nlu", "path", "training_data", "threshold", "parent_boost", "cache"}),
    "rasa": _HTTP_BASE | {"url", "token", "jwt"},
    "rasa-pro": _HTTP_BASE | {"url", "token", "jwt"},
    "http": _HTTP_BASE
    | {
        "url",
        "method",
        "headers",
        "query",
        "body",
        "intent",
        "confidence",
        "ranking",
        "entities",
        "no_intent",
        "traits",
        "bot",
        "commands",
        "commands_dsl",
        "component",
        "llm_output",
        "usage",
    },
    "wit": _HTTP_BASE | {"url", "token", "version", "n", "tag"},
    "luis": _HTTP_BASE | {"endpoint", "app_id", "key", "slot", "version", "log", "method"},
    "clu": _HTTP_BASE | {"endpoint", "key", "project", "deployment", "language", "api_version"},
    "lex": _HTTP_BASE
    | {
        "url",
        "region",
        "bot_id",
        "bot_alias_id",
        "locale",
        "models_url",
        "access_key_id",
        "secret_access_key",
        "session_token",
        "credentials_file",
        "aws_profile",
    },
    "kore": _HTTP_BASE
    | {
        "url",
        "bot_id",
        "client_id",
        "client_secret",
        "language",
        "bot_name",
        "version",
        "thresholds",
        "batch_poll_seconds",  # kore-batch:PROFILE (runner/kore_batch.py)
        "batch_deadline_seconds",
    },
    "dialogflow-es": _HTTP_BASE
    | {
        "url",
        "credentials_file",
        "token_url",
        "project",
        "language",
        "environment",
        "location",
        "time_zone",
    },
    "dialogflow-cx": _HTTP_BASE
    | {
        "url",
        "credentials_file",
        "token_url",
        "project",
        "language",
        "environment",
        "location",
        "agent",
        "call",
        "time_zone",
    },
    "llm": _HTTP_BASE
    | {
        "nlu",
        "training_data",
        "base_url",
        "model",
        "api_key",
        "temperature",
        "max_tokens",
        "headers",
        "examples",
    },
    "llm-commands": _HTTP_BASE
    | {"flows", "base_url", "model", "api_key", "temperature", "max_tokens", "headers"},
}
"""The engine settings of each built-in type (besides ``type``, the run limits and stages)."""

NESTED_KEYS: dict[tuple[str, str], frozenset[str]] = {
    ("http", "ranking"): frozenset({"path", "name", "score"}),
    ("http", "usage"): frozenset({"path", "prompt", "completion"}),
    ("http", "entities"): frozenset(
        {"path", "name", "value", "start", "end", "text", "confidence", "role", "group"}
    ),
}
"""Mappings inside a setting whose keys are fixed: (engine type, setting) -> keys."""


def engine_keys(kind: str) -> frozenset[str] | None:
    """The engine settings a profile of type ``kind`` may hold (None: not known, not checked)."""
    known = ENGINE_KEYS.get(kind)
    if known is not None:
        return known
    from nlu_tui.engines.base import loaded_engine_factory

    # a plug-in is checked once its module is imported (profiles.py imports it before building)
    declared = getattr(loaded_engine_factory(kind), "profile_keys", None)
    return frozenset(declared) if declared is not None else None


def closest(key: str, valid: Iterable[str]) -> str | None:
    """The valid key ``key`` was most likely meant to be (difflib), or None."""
    found = difflib.get_close_matches(key, sorted(valid), n=1, cutoff=0.6)
    return found[0] if found else None


def unknown_key_message(key: str, valid: Iterable[str], where: str) -> str:
    """``unknown key 'intnet' in <where> (did you mean 'intent'?); valid keys: ...``."""
    valid = sorted(valid)
    guess = closest(key, valid)
    hint = f" (did you mean {guess!r}?)" if guess else ""
    return f"unknown key {key!r} in {where}{hint}; valid keys: {', '.join(valid)}"


def unknown_keys(
    body: Mapping[str, Any], kind: str, common: Iterable[str]
) -> Iterable[tuple[tuple[str, ...], str]]:
    """Every unknown key of one profile: (path of keys to it, message), in file order.

    ``common`` are the keys any profile holds whatever its type (``type`` and the run limits,
    ``profiles.RUN_KEYS``), so a new run limit is valid as soon as profiles reads it.
    """
    settings = engine_keys(kind)
    if settings is None:
        return
    shared = frozenset(common) - STAGE_KEYS
    yield from _unknown(
        body, (), shared | settings | STAGE_KEYS, f"a profile of type {kind!r}", kind
    )
    for stage in sorted(STAGE_KEYS):
        over = body.get(stage)
        if not isinstance(over, Mapping):
            continue
        stage_kind = over.get("type", kind)
        stage_kind = stage_kind if isinstance(stage_kind, str) else kind
        stage_settings = engine_keys(stage_kind)
        if stage_settings is not None:
            yield from _unknown(
                over, (stage,), shared | stage_settings, f"the {stage} overrides", stage_kind
            )


def _unknown(
    node: Mapping[str, Any], prefix: tuple[str, ...], valid: frozenset[str], where: str, kind: str
) -> Iterable[tuple[tuple[str, ...], str]]:
    for key, value in node.items():
        name = str(key)
        if name not in valid:
            yield (*prefix, name), unknown_key_message(name, valid, where)
            continue
        nested = NESTED_KEYS.get((kind, name))
        if nested is not None and isinstance(value, Mapping):
            for sub in value:
                if str(sub) not in nested:
                    yield (
                        (*prefix, name, str(sub)),
                        unknown_key_message(str(sub), nested, f"'{name}'"),
                    )
