"""Text and JSON comparison exactly as NLU.DevOps does it in .NET.

Python's regular-expression classes differ from .NET's (``\\w`` keeps ``²`` and drops combining
marks; ``\\s`` includes U+001C..U+001F), so both classes are spelled out here from Unicode
categories. .NET strings are UTF-16: a character outside the BMP is two surrogates (category Cs),
which are never word characters, so such characters are deleted too.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from nlu_tui.compare.netdates import date_ticks

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


@dataclass(frozen=True)
class JsonRules:
    """How JSON values compare. The defaults are NLU.DevOps' (Newtonsoft's ``JToken``).

    - ``numbers``: ``"token"`` (upstream) — an integer never equals a float (``2`` ≠ ``2.0``,
      ``JToken.DeepEquals`` needs the same token type; floats equal within Newtonsoft's
      ``ApproxEquals``); ``"value"`` — ``2`` equals ``2.0``.
    - ``expected_null``: ``"exact"`` (upstream) — a ``null`` inside an expected value needs a
      ``null`` in the actual one; ``"any"`` — it matches anything, even a missing property.
    - ``dates``: ``"newtonsoft"`` (upstream) — strings NLU.DevOps' reader takes for dates
      compare as instants (:mod:`nlu_tui.compare.netdates`); ``"text"`` — plain strings.
    """

    numbers: str = "token"
    expected_null: str = "exact"
    dates: str = "newtonsoft"


UPSTREAM_RULES = JsonRules()


def _date(value: Any, rules: JsonRules) -> int | None:
    if rules.dates != "newtonsoft" or not isinstance(value, str):
        return None
    return date_ticks(value)


def _approx_equal(a: float, b: float) -> bool:
    """Newtonsoft's ``MathUtils.ApproxEquals`` (floats read from JSON compare with it)."""
    if a == b or (math.isnan(a) and math.isnan(b)):
        return True
    tolerance = (abs(a) + abs(b) + 10.0) * 2.2204460492503131e-16
    return -tolerance < a - b < tolerance


def equals_normalized_json(a: Any, b: Any, rules: JsonRules = UPSTREAM_RULES) -> bool:
    """String-only normalised equality of two JSON values (any non-string never matches;
    a string NLU.DevOps reads as a date is not a string token)."""
    if not (isinstance(a, str) and isinstance(b, str)):
        return False
    if _date(a, rules) is not None or _date(b, rules) is not None:
        return False
    return equals_normalized(a, b)


def json_equal(a: Any, b: Any, rules: JsonRules = UPSTREAM_RULES) -> bool:
    """Deep JSON equality as ``JToken.DeepEquals``: ``true`` is not ``1``, object order
    ignored, numbers and dates as ``rules`` say."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if rules.numbers == "value":
            return a == b
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        if isinstance(a, float) and isinstance(b, float):
            return _approx_equal(a, b)
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k], rules) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y, rules) for x, y in zip(a, b, strict=True))
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) and isinstance(b, str):
        da, db = _date(a, rules), _date(b, rules)
        if da is not None or db is not None:
            return da == db
    return type(a) is type(b) and bool(a == b)


_MISSING = object()


def contains_subtree(expected: Any, actual: Any, rules: JsonRules = UPSTREAM_RULES) -> bool:
    """Whether ``actual`` contains the JSON subtree ``expected`` (NLU.DevOps ``ContainsSubtree``).

    Objects: every expected property is contained recursively (a property missing from the
    actual object fails, even for an expected ``null``); arrays: every expected item is
    contained in some actual item (order ignored, extras allowed); scalars, ``null``
    included: deep equality. The top-level ``null`` (no value) is never checked by callers.
    """
    return _contains(expected, actual, rules)


def _contains(expected: Any, actual: Any, rules: JsonRules) -> bool:
    if expected is None and rules.expected_null == "any":
        return True
    if actual is _MISSING:
        return False
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            _contains(v, actual.get(k, _MISSING), rules) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return isinstance(actual, list) and all(
            any(_contains(item, candidate, rules) for candidate in actual) for item in expected
        )
    return json_equal(expected, actual, rules)
