"""Typed values read out of an engine's JSON answer, one rule for every engine: JSON booleans
are never numbers (``true`` is not a confidence of 1.0 or a span offset of 1)."""

from __future__ import annotations

from typing import Any


def json_number(value: Any) -> float | None:
    """A JSON number as a float; anything else (a string, a boolean, null) is None."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def json_int(value: Any) -> int | None:
    """A JSON integer (a character offset); anything else is None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
