"""``raw:`` checks: assertions on any field of an engine's raw answer.

A check is one line, ``PATH [OP VALUE]``, where PATH is a JSONPath (RFC 9535, read by the
``python-jsonpath`` package) and OP one of:

- ``==`` / ``!=``: equal / not equal. VALUE is JSON when it reads as JSON (``0.5``, ``true``,
  ``null``, ``"quoted text"``), else plain text (``faq/ask_fees``);
- ``>=``, ``<=``, ``>``, ``<``: a numeric bound (VALUE must be a number);
- ``=~``: the value (as text; JSON for a list or object) matches the regular expression VALUE
  (``re.search``: anchor it with ``^…$`` for a full match).

Without an operator the path must find something. A path that finds several values (``[*]``,
filters) passes when one of them satisfies the check; ``!=`` passes when none is equal. A path
that finds nothing fails every check (the reason says so).

Checks are scored against the engine's full answer, before the run store caps it
(``max_raw_bytes``). :func:`never_matching` compares a path with an engine type's declared
answer shape (:data:`ANY`, :data:`SCALAR`, mappings and one-item lists, see
``Engine.answer_shape``), so a path that can never find anything is a validation warning rather
than a silent failure on every case.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from nlu_tui.model import RawCheckResult

# python-jsonpath (the costliest import of reading a suite) is imported where a path is compiled
# or evaluated: reading any suite imports this module, and most suites have no raw checks.

OPERATORS = ("==", "!=", ">=", "<=", "=~", ">", "<")
"""Longest first where one is the start of another."""
NUMERIC = (">=", "<=", ">", "<")
_ACTUAL_CHARS = 200
"""How much of the value found is kept in a result (the stored answer holds the rest)."""


class RawCheckError(ValueError):
    """A check that does not parse (its path, operator or value)."""


@dataclass(frozen=True)
class RawCheck:
    text: str
    path: str
    op: str | None
    value: str | None
    compiled: Any
    number: float | None = None
    pattern: re.Pattern[str] | None = None
    expected: Any = None
    """VALUE read as JSON when it reads as JSON, else VALUE (``==``/``!=``), read once."""
    steps: tuple[str | int, ...] | None = None
    """The path as plain keys and indexes when it is only those (``$.a.b[0]``): walked
    directly, 30 times faster than the general evaluator (:func:`_plain_steps`)."""

    def find(self, answer: Any) -> list[Any]:
        """Every value the path finds in ``answer``."""
        if self.steps is None:
            return [m.obj for m in self.compiled.finditer(answer)]
        node = answer
        for step in self.steps:
            if isinstance(step, str):
                if not isinstance(node, dict) or step not in node:
                    return []
                node = node[step]
            else:
                if not isinstance(node, list) or not -len(node) <= step < len(node):
                    return []
                node = node[step]
        return [node]

    def evaluate(self, answer: Any) -> RawCheckResult:
        """Whether ``answer`` (the engine's raw JSON) satisfies the check."""
        if answer is None:
            return RawCheckResult(self.text, False, None, "the engine returned no raw answer")
        from jsonpath.exceptions import JSONPathError

        try:
            found = self.find(answer)
        except (JSONPathError, TypeError, ValueError) as exc:
            return RawCheckResult(self.text, False, None, f"cannot evaluate: {exc}")
        if not found:
            return RawCheckResult(self.text, False, None, "the path finds nothing")
        if self.op is None:
            return RawCheckResult(self.text, True, _shown(found[0]))
        if self.op == "!=":
            equal = [v for v in found if _equal(v, self.value or "", self.expected)]
            if equal:
                return RawCheckResult(self.text, False, _shown(equal[0]), "equal")
            return RawCheckResult(self.text, True, _shown(found[0]))
        for value in found:
            if self._holds(value):
                return RawCheckResult(self.text, True, _shown(value))
        reason = None
        if self.op in NUMERIC and not any(_number(v) is not None for v in found):
            reason = "not a number"
        return RawCheckResult(self.text, False, _shown(found[0]), reason)

    def _holds(self, value: Any) -> bool:
        op = self.op
        if op == "==":
            return _equal(value, self.value or "", self.expected)
        if op == "=~":
            assert self.pattern is not None
            return self.pattern.search(_text(value)) is not None
        number = _number(value)
        bound = self.number
        if number is None or bound is None:
            return False
        if op == ">=":
            return number >= bound
        if op == "<=":
            return number <= bound
        if op == ">":
            return number > bound
        return number < bound


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _shown(value: Any) -> str:
    text = _text(value)
    return text if len(text) <= _ACTUAL_CHARS else text[: _ACTUAL_CHARS - 1] + "…"


def _as_json(text: str) -> Any:
    """VALUE as JSON when it reads as JSON, else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _equal(value: Any, expected: str, parsed: Any) -> bool:
    if isinstance(value, bool) or isinstance(parsed, bool):
        return value is parsed
    if _number(value) is not None and _number(parsed) is not None:
        return float(value) == float(parsed)
    if value == parsed:
        return True
    return isinstance(value, str) and value == expected


def split_check(text: str) -> tuple[str, str | None, str | None]:
    """(path, operator, value): the first operator outside brackets and quotes ends the path."""
    depth = 0
    quote: str | None = None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote is not None:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif depth == 0:
            for op in OPERATORS:
                if text.startswith(op, i):
                    return text[:i].strip(), op, text[i + len(op) :].strip()
        i += 1
    return text.strip(), None, None


def parse_check(text: str) -> RawCheck:
    """One check, compiled (:class:`RawCheckError` with the reason when it does not parse)."""
    text = str(text).strip()
    path, op, value = split_check(text)
    if not path:
        raise RawCheckError(f"no JSONPath in {text!r}")
    if not path.startswith("$"):
        raise RawCheckError(f"JSONPath {path!r} must start with '$'")
    import jsonpath
    from jsonpath.exceptions import JSONPathError

    try:
        compiled = jsonpath.compile(path)
    except JSONPathError as exc:
        first = str(exc).splitlines()[0]
        raise RawCheckError(f"JSONPath {path!r} does not parse: {first}") from None
    number = None
    pattern = None
    if op is not None and not value:
        raise RawCheckError(f"nothing after {op!r} in {text!r}")
    if op in NUMERIC:
        try:
            number = float(value or "")
        except ValueError:
            raise RawCheckError(f"{op!r} needs a number, not {value!r}") from None
        if not math.isfinite(number):
            raise RawCheckError(f"{op!r} needs a finite number, not {value!r}")
    if op == "=~":
        try:
            pattern = re.compile(value or "")
        except re.error as exc:
            raise RawCheckError(f"regular expression {value!r} does not compile: {exc}") from None
    expected = _as_json(value) if op in ("==", "!=") and value else None
    return RawCheck(
        text, path, op, value, compiled, number, pattern, expected, _plain_steps(compiled)
    )


def _plain_steps(compiled: Any) -> tuple[str | int, ...] | None:
    """The keys and indexes of a path made of nothing else (None: use the evaluator)."""
    steps: list[str | int] = []
    for segment in getattr(compiled, "segments", None) or ():
        if type(segment).__name__ != "JSONPathChildSegment" or len(segment.selectors) != 1:
            return None
        selector = segment.selectors[0]
        kind = type(selector).__name__
        if kind == "NameSelector" and isinstance(selector.name, str):
            steps.append(selector.name)
        elif kind == "IndexSelector" and type(selector.index) is int:
            steps.append(selector.index)
        else:
            return None
    if getattr(compiled, "segments", None) is None:
        return None
    return tuple(steps)


_COMPILED: dict[str, RawCheck] = {}


def compiled_check(text: str) -> RawCheck:
    """:func:`parse_check`, remembered (a suite's checks are compiled once per process)."""
    check = _COMPILED.get(text)
    if check is None:
        if len(_COMPILED) > 10_000:
            _COMPILED.clear()
        check = _COMPILED[text] = parse_check(text)
    return check


def evaluate_checks(checks: list[str], answer: Any) -> list[RawCheckResult]:
    """Every check of a case against the raw answer (a check that does not parse fails,
    naming why: the suite reader refuses such files, so only hand-built cases get here)."""
    out = []
    for text in checks:
        try:
            check = compiled_check(text)
        except RawCheckError as exc:
            out.append(RawCheckResult(text, False, None, str(exc)))
            continue
        out.append(check.evaluate(answer))
    return out


# --- answer shapes ------------------------------------------------------------------------------

ANY = None
"""Any JSON value: every path below it may find something."""
SCALAR = "scalar"
"""A string, number, boolean or null: nothing below it."""
OPEN = "*"
"""In a mapping shape, the shape of every key not listed (a mapping keyed by names)."""


def never_matching(path: str, shape: Any) -> str | None:
    """Why ``path`` can never find anything in an answer of ``shape``, or ``None`` when it may.

    Shapes: :data:`ANY`; :data:`SCALAR`; a ``dict`` of key → shape (closed unless it has the
    :data:`OPEN` key); a one-item ``list`` [item shape]. Only name, index, slice, wildcard and
    filter steps are followed; a descendant step (``..``) may find anything.
    """
    import jsonpath
    from jsonpath.exceptions import JSONPathError

    try:
        compiled = jsonpath.compile(path)
    except JSONPathError:
        return None  # reported as a parse error elsewhere
    segments = getattr(compiled, "segments", None)
    if segments is None:  # a compound path (``|``/``&``): not followed
        return None
    current: list[Any] = [shape]
    walked = "$"
    for segment in segments:
        if type(segment).__name__ != "JSONPathChildSegment":
            return None
        nxt: list[Any] = []
        for node in current:
            if node is ANY:
                return None
            for selector in segment.selectors:
                nxt.extend(_select(node, selector))
        if not nxt:
            names = [getattr(s, "name", None) for s in segment.selectors]
            step = ", ".join(repr(n) for n in names if n is not None) or "this step"
            return f"{step} after {walked} is not in the engine's answer"
        walked += _segment_text(segment)
        current = nxt
    return None


def _segment_text(segment: Any) -> str:
    names = [getattr(s, "name", None) for s in segment.selectors]
    if len(names) == 1 and isinstance(names[0], str):
        return "." + names[0]
    return "[…]"


def _select(node: Any, selector: Any) -> list[Any]:
    kind = type(selector).__name__
    if isinstance(node, str):  # SCALAR
        return []
    if isinstance(node, list):
        if kind == "NameSelector":
            return []
        return [node[0] if node else ANY]
    if isinstance(node, dict):
        if kind == "NameSelector":
            name = selector.name
            if name in node:
                return [node[name]]
            return [node[OPEN]] if OPEN in node else []
        if kind in ("IndexSelector", "SliceSelector"):
            return []
        return list(node.values()) or ([ANY] if OPEN in node else [])
    return [ANY]


def shape_warnings(checks: list[str], shape: Any) -> list[tuple[str, str]]:
    """(check, why it can never match) for each check whose path misses the shape."""
    out = []
    for text in checks:
        try:
            check = compiled_check(text)
        except RawCheckError:
            continue
        why = never_matching(check.path, shape)
        if why is not None:
            out.append((text, why))
    return out
