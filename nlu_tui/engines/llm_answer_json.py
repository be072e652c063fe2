"""Reading JSON out of a chat model's answer, for every LLM feature alike.

Models wrap JSON in a ```json fence or in a sentence; both the ``llm`` engine (an object) and
test-case generation (an array) accept either, and each names its own error when nothing
parses.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
_NOTHING = object()


def loose_json(text: str, brackets: str) -> Any:
    """The JSON value of ``text``: the whole (unfenced) answer, else the span from the first
    ``brackets[0]`` to the last ``brackets[1]``; :data:`_NOTHING` when neither parses."""
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text.strip()
    try:
        return json.loads(body)
    except ValueError:
        start, end = body.find(brackets[0]), body.rfind(brackets[1])
        if 0 <= start < end:
            try:
                return json.loads(body[start : end + 1])
            except ValueError:
                pass
    return _NOTHING


def found(value: Any) -> bool:
    """Whether :func:`loose_json` found a value (``null`` is a value)."""
    return value is not _NOTHING
