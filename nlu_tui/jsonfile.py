"""Reading a whole JSON file with errors a tester can act on (file, line and column), within
the nesting limit every reader shares (:data:`nlu_tui.formats.yaml_loader.MAX_DEPTH`)."""

from __future__ import annotations

import json
import re
from itertools import accumulate
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects accepted (the same limit as for YAML)."""

_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET_OR_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}]')
_DELTA = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_error(text: str, path: Path | str | None, limit: int = MAX_DEPTH) -> InputError | None:
    """An error naming the line where ``text`` (JSON) first nests deeper than ``limit``.

    Strings are skipped, so brackets inside them do not count. The common case (few brackets,
    or shallow ones) is decided by C-speed scans; the line is looked for only when too deep.
    """
    if text.count("[") + text.count("{") <= limit:
        return None
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if max(accumulate(_DELTA[c] for c in brackets), default=0) <= limit:
        return None
    depth = 0
    for match in _BRACKET_OR_STRING.finditer(text):
        depth += _DELTA.get(match.group(), 0)
        if depth > limit:
            line = text.count("\n", 0, match.start()) + 1
            return InputError(
                f"nested more than {limit} levels deep (the limit)", path=path, line=line
            )
    return None  # pragma: no cover - the scan above found the same depth


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE_ESCAPE = re.compile(
    r"(?<!\\)(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
    r"|(?<![0-9a-fA-F]{2}\\u[dD][89abAB])(?<![0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_error(text: str, path: Path | str | None) -> InputError:
    """An error naming the line of an unpaired UTF-16 surrogate escape (``\\udcff``), which
    decodes to no character: no file can hold it as text, so nothing can write it back."""
    match = _LONE_SURROGATE_ESCAPE.search(text)
    line = text.count("\n", 0, match.start()) + 1 if match is not None else None
    shown = match.group(1) if match is not None else "\\ud800-\\udfff"
    return InputError(
        f"the escape {shown} is half of a UTF-16 surrogate pair, not a character",
        path=path,
        line=line,
    )


def has_surrogate_escape(text: str) -> bool:
    """Whether JSON text escapes a surrogate at all (paired ones spell emoji and are fine)."""
    return _SURROGATE_ESCAPE.search(text) is not None


def has_lone_surrogate(text: str) -> bool:
    """Whether a decoded string holds a lone surrogate (a code point in U+D800..U+DFFF)."""
    return _LONE_SURROGATE.search(text) is not None


def decode(data: bytes, path: Path | str | None, what: str = "file") -> str:
    """UTF-8 text (a BOM is dropped); anything else names the line of the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{what} is not UTF-8 text (byte 0x{data[exc.start]:02x}); save it as UTF-8",
            path=path,
            line=line,
        ) from None


def loads(text: str, path: Path | str | None = None) -> Any:
    """Parse JSON text; errors (syntax, depth) are :class:`InputError` naming file and line."""
    error = nesting_error(text, path)
    if error is not None:
        raise error
    try:
        data = json.loads(text)
        if has_surrogate_escape(text) and has_lone_surrogate(json.dumps(data, ensure_ascii=False)):
            raise surrogate_error(text, path)
        return data
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg} (column {exc.colno})", path=path, line=exc.lineno
        ) from None
    except ValueError as exc:  # an integer of more than 4,300 digits (int_max_str_digits)
        raise InputError(f"invalid JSON: {exc}".split(";")[0], path=path) from None
    except RecursionError:  # pragma: no cover - the scan above refuses such depth first
        raise InputError(
            f"nested more than {MAX_DEPTH} levels deep (the limit)", path=path
        ) from None


def read_json(path: Path | str, *, what: str = "file") -> Any:
    """The parsed file; an InputError names the unreadable ``what`` or the syntax error's line."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", path=path) from None
    return loads(decode(data, path, what), path)
