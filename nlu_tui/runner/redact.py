"""Keep secrets out of reasons and stored answers.

Engines' errors may quote a URL (Rasa's ``?token=``) or echo headers; reasons pass through here
before they reach the store, the screen or a log.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_URL_QUERY = re.compile(r"(https?://[^\s'\"?#]+)\?[^\s'\"#]*")
_AUTH = re.compile(
    r"(?i)(authorization|auth|token|api[-_]?key|secret|password)(['\"]?\s*[:=]\s*['\"]?)[^\s'\",}&]+"
)

MASK = "***"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Mask known secret values, URL query strings and ``token=...``-like pairs."""
    for secret in secrets:
        if secret and len(secret) >= 3:
            text = text.replace(secret, MASK)
    text = _URL_QUERY.sub(r"\1?" + MASK, text)
    return _AUTH.sub(r"\1\2" + MASK, text)


def redact_data(data: Any, secrets: Iterable[str]) -> Any:
    """Mask known secret values anywhere inside JSON-like data (raw engine answers)."""
    values = tuple(s for s in secrets if s and len(s) >= 3)
    if not values:
        return data

    def walk(obj: Any) -> Any:
        if isinstance(obj, str):
            for secret in values:
                obj = obj.replace(secret, MASK)
            return obj
        if isinstance(obj, dict):
            return {walk(k): walk(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            return [walk(v) for v in obj]
        return obj

    return walk(data)
