"""Keep secrets out of reasons and stored answers.

Engines' errors may quote a URL (Rasa's ``?token=``) or echo headers, and an engine may echo a
request back in its answer: a ``${ENV}`` value then comes back URL-encoded (``%2F``, ``+``),
JSON-escaped (``\\u00e9``, ``\\/``) or case-folded (a URL host is lower-cased). Every one of
those forms is masked here before a reason, an error or a raw answer is stored, shown or logged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import quote, quote_plus

_URL_QUERY = re.compile(r"(https?://[^\s'\"?#]+)\?[^\s'\"#]*")
_AUTH = re.compile(
    r"(?i)(authorization|auth|token|api[-_]?key|secret|password)(['\"]?\s*[:=]\s*['\"]?)[^\s'\",}&]+"
)

MASK = "***"
MIN_SECRET = 3
"""Shorter values are not masked: masking every ``a`` would make all text unreadable."""


def secret_forms(secret: str) -> set[str]:
    """The spellings under which ``secret`` may come back: plain, URL-encoded, JSON-escaped."""
    forms = {secret, quote(secret, safe=""), quote(secret), quote_plus(secret)}
    forms.add(quote_plus(secret, safe="/"))
    for ascii_only in (True, False):
        escaped = json.dumps(secret, ensure_ascii=ascii_only)[1:-1]
        forms.add(escaped)
        forms.add(escaped.replace("/", "\\/"))  # JSON may escape '/' too
    # A JSON-escaped URL-encoding and the other way round (an echoed query inside JSON).
    forms.update(json.dumps(f, ensure_ascii=True)[1:-1] for f in list(forms))
    return {f for f in forms if len(f) >= MIN_SECRET}


@lru_cache(maxsize=64)
def _pattern(secrets: frozenset[str]) -> re.Pattern[str] | None:
    forms: set[str] = set()
    for secret in secrets:
        if len(secret) >= MIN_SECRET:
            forms |= secret_forms(secret)
    if not forms:
        return None
    alternatives = sorted(forms, key=len, reverse=True)  # the longest spelling wins
    # Case-insensitive: a host name or a percent-escape may come back in another case.
    return re.compile("|".join(re.escape(f) for f in alternatives), re.IGNORECASE)


def mask_secrets(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every form of every secret (see :func:`secret_forms`) replaced by ``***``."""
    pattern = _pattern(frozenset(str(s) for s in secrets if s))
    return pattern.sub(MASK, text) if pattern is not None and text else text


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Mask known secret values, URL query strings and ``token=...``-like pairs."""
    text = mask_secrets(text, secrets)
    text = _URL_QUERY.sub(r"\1?" + MASK, text)
    return _AUTH.sub(r"\1\2" + MASK, text)


def redact_data(data: Any, secrets: Iterable[str]) -> Any:
    """Mask every form of the secrets anywhere inside JSON-like data (raw engine answers)."""
    pattern = _pattern(frozenset(str(s) for s in secrets if s))
    if pattern is None:
        return data

    def walk(obj: Any) -> Any:
        if isinstance(obj, str):
            return pattern.sub(MASK, obj)
        if isinstance(obj, dict):
            return {walk(k): walk(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            return [walk(v) for v in obj]
        return obj

    return walk(data)


def redact_prediction(prediction: Any, secrets: Iterable[str]) -> None:
    """Mask the secrets everywhere in an engine's answer, in place: the raw answer, the error,
    and what was read from it (intent names, entity values), since all of it is stored and shown."""
    values = tuple(secrets)
    if _pattern(frozenset(str(s) for s in values if s)) is None:
        return
    prediction.raw = redact_data(prediction.raw, values)
    if prediction.error:
        prediction.error = redact(prediction.error, values)
    if prediction.intent:
        prediction.intent = mask_secrets(prediction.intent, values)
    for score in prediction.ranking:
        score.name = mask_secrets(score.name, values)
    for entity in prediction.entities:
        entity.name = mask_secrets(entity.name, values)
        entity.value = redact_data(entity.value, values)
        for name in ("text", "role", "group", "extractor"):
            value = getattr(entity, name)
            if isinstance(value, str):
                setattr(entity, name, mask_secrets(value, values))
