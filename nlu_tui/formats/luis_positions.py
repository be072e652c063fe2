"""Entity positions as NLU.DevOps converts them: LUIS's inclusive ``startPos``/``endPos`` to
``(matchText, matchIndex)`` and back.

Shared by the LUIS batch and NLU.DevOps formats and by ``compare`` (which reads NLU.DevOps
generic utterances), so it lives with the formats.
"""

from __future__ import annotations

MAX_MATCH_INDEX_STEPS = 100_000
"""Guard for the LUIS position converter's search loop (it can cycle on overlapping text)."""


def luis_match(text: str, start: int, end: int) -> tuple[str, int]:
    """``startPos``/``endPos`` (inclusive) → ``(matchText, matchIndex)`` as NLU.DevOps converts them.

    ``matchIndex`` counts the non-overlapping hits of ``matchText`` found before ``start`` by the
    converter's own loop (which, like .NET's, restarts after a miss at ``length - 1``).
    Raises ValueError when ``start > end`` or a position is outside the text.
    """
    if not (0 <= start <= end < len(text)):
        raise ValueError(
            f"invalid start position {start} or end position {end} "
            f"for an utterance of {len(text)} characters"
        )
    match_text = text[start : end + 1]
    length = len(match_text)
    pos = 0
    for index in range(MAX_MATCH_INDEX_STEPS):
        pos = text.find(match_text, pos)
        if pos == start:
            return match_text, index
        pos += length
    raise ValueError(f"cannot place {match_text!r} at position {start}")


def occurrence_start(text: str, match_text: str, match_index: int) -> int | None:
    """Where the ``match_index``-th non-overlapping occurrence of ``match_text`` starts, if any."""
    if not match_text:
        return None
    pos = 0
    for _ in range(match_index + 1):
        found = text.find(match_text, pos)
        if found < 0:
            return None
        start = found
        pos = found + len(match_text)
    return start
