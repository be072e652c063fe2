"""Text and JSON comparison exactly as NLU.DevOps does it in .NET.

Python's regular-expression classes differ from .NET's (``\\w`` keeps ``²`` and drops combining
marks; ``\\s`` includes U+001C..U+001F), so both classes are spelled out here from Unicode
categories. .NET strings are UTF-16: a character outside the BMP is two surrogates (category Cs),
which are never word characters, so such characters are deleted too.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Any

_WORD_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Nd", "Pc"})
_SPACE_CATEGORIES = frozenset({"Zs", "Zl", "Zp"})
_SPACE_CHARS = frozenset("\f\n\r\t\v\x85")


@lru_cache(maxsize=4096)
def is_dotnet_word_char(ch: str) -> bool:
    """``\\w`` in .NET: ``[\\p{L}\\p{Mn}\\p{Nd}\\p{Pc}]``, evaluated on UTF-16 code units."""
    if ord(ch) > 0xFFFF:
        return False
    return unicodedata.category(ch) in _WORD_CATEGORIES


@lru_cache(maxsize=4096)
def is_dotnet_space(ch: str) -> bool:
    """``\\s`` in .NET: ``[\\f\\n\\r\\t\\v\\x85\\p{Z}]``."""
    return ch in _SPACE_CHARS or unicodedata.category(ch) in _SPACE_CATEGORIES


def normalize(text: str) -> str:
    """``\\s+`` → one space, delete ``[^\\w ]``, trim (the steps of ``EqualsNormalized``)."""
    out: list[str] = []
    in_space = False
    for ch in text:
        if is_dotnet_space(ch):
            if not in_space:
                out.append(" ")
            in_space = True
            continue
        in_space = False
        if is_dotnet_word_char(ch):
            out.append(ch)
    return "".join(out).strip(" ")


def _simple_upper(text: str) -> str:
    """Per-character upper case without expansions (``ß`` stays ``ß``), like OrdinalIgnoreCase."""
    chars = []
    for ch in text:
        up = ch.upper()
        chars.append(up if len(up) == 1 else ch)
    return "".join(chars)


@lru_cache(maxsize=65536)
def comparison_key(text: str) -> str:
    """What two texts must share to be ``EqualsNormalized`` (cached: entity texts repeat)."""
    return _simple_upper(normalize(text))


def equals_normalized(a: str | None, b: str | None) -> bool:
    """Normalised, ordinal case-insensitive equality; ``None`` equals only ``None``."""
    if a is None or b is None:
        return a is None and b is None
    return comparison_key(a) == comparison_key(b)


def equals_normalized_json(a: Any, b: Any) -> bool:
    """String-only normalised equality of two JSON values (any non-string never matches)."""
    return isinstance(a, str) and isinstance(b, str) and equals_normalized(a, b)


def json_equal(a: Any, b: Any) -> bool:
    """Deep JSON equality: ``true`` is not ``1``, ``1`` equals ``1.0``, object order ignored."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if a is None or b is None:
        return a is None and b is None
    return type(a) is type(b) and bool(a == b)


def contains_subtree(expected: Any, actual: Any) -> bool:
    """Whether ``actual`` contains the JSON subtree ``expected`` (NLU.DevOps ``ContainsSubtree``).

    Objects: every expected property is contained recursively; arrays: every expected item is
    contained in some actual item (order ignored, extras allowed); scalars: deep equality.
    """
    if expected is None:
        return True
    if actual is None:
        return False
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            contains_subtree(v, actual.get(k)) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return isinstance(actual, list) and all(
            any(contains_subtree(item, candidate) for candidate in actual) for item in expected
        )
    return json_equal(expected, actual)
