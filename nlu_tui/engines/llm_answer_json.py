"""Reading JSON out of a chat model's answer, for every LLM feature alike.

Models wrap JSON in a ```json fence or in a sentence; both the ``llm`` engine (an object) and
test-case generation (an array) accept either, and each names its own error when nothing
parses. An answer nested deeper than :data:`MAX_DEPTH` is refused (:class:`AnswerTooDeep`) by a
linear scan before the decoder sees it: Python's decoder recurses, and a 50,000-deep answer
would end in a RecursionError.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
_NOTHING = object()
MAX_DEPTH = 64
"""Deepest nesting of arrays and objects read from a model's answer (real answers use 3–4)."""
_BRACKETS_OR_QUOTE = re.compile(r'[\[\]{}"]')
_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


class AnswerTooDeep(ValueError):
    """The answer nests arrays/objects deeper than :data:`MAX_DEPTH`."""


def check_depth(text: str, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`AnswerTooDeep` when ``text`` opens more than ``limit`` brackets at once.

    One pass (brackets inside JSON strings do not count), so a hostile answer costs its length.
    """
    depth = 0
    position = 0
    search = _BRACKETS_OR_QUOTE.search
    while (found_at := search(text, position)) is not None:
        char = found_at.group()
        position = found_at.end()
        if char == '"':
            rest = _STRING_REST.match(text, position)
            if rest is None:
                return  # an unterminated string: the decoder will refuse it
            position = rest.end()
        elif char in "[{":
            depth += 1
            if depth > limit:
                raise AnswerTooDeep(f"the answer is nested more than {limit} levels deep")
        else:
            depth = max(0, depth - 1)


def loose_json(text: str, brackets: str) -> Any:
    """The JSON value of ``text``: the whole (unfenced) answer, else the span from the first
    ``brackets[0]`` to the last ``brackets[1]``; :data:`_NOTHING` when neither parses.
    :class:`AnswerTooDeep` (a ``ValueError``) when it nests more than :data:`MAX_DEPTH` deep."""
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text.strip()
    check_depth(body)
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
