"""The one sanitizer for untrusted text on its way to a terminal.

Suite files, engine answers, notes, run reasons and file names are untrusted: an escape sequence in
an utterance could set the clipboard (OSC 52), clear the screen or retitle the window, and Rich
markup could restyle or hide text. Every string from a file or an engine passes through
:func:`inert` (plain output: CLI lines, table cells, logs) or :func:`inert_markup` (text placed
inside Rich/Textual markup) before it reaches the terminal. Nothing here imports Textual.
"""

from __future__ import annotations

import re

# C0 controls except TAB and LF, DEL, and the C1 range (0x80-0x9F; 0x9B is a one-byte CSI).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_OR_NEWLINE = re.compile("[\x00-\x1f\x7f-\x9f]")
# Characters that reorder or hide text on screen (bidi overrides and isolates: "Trojan Source").
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code == 0x1B:
        return "␛"
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␀ … ␟
    if code == 0x7F:
        return "␡"
    return f"\\x{code:02x}"


def _bidi(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def inert(text: object, *, newlines: bool = True) -> str:
    """``text`` as a string with every escape sequence and control character made visible.

    ESC becomes ``␛`` and other C0 controls their Control Pictures (``␇``), DEL ``␡``, C1 controls
    ``\\x9b``, bidi overrides ``\\u202e``. TAB always and LF (when ``newlines``) are kept, so
    multi-line text still wraps; pass ``newlines=False`` for one-line cells, where LF shows as
    ``␊``. Lone surrogates, which cannot be encoded for the terminal, show as ``\\udcff``.
    """
    s = text if isinstance(text, str) else str(text)
    pattern = _CONTROL if newlines else _CONTROL_OR_NEWLINE
    if pattern.search(s):
        s = pattern.sub(_visible, s)
    if _BIDI.search(s):
        s = _BIDI.sub(_bidi, s)
    if not s.isascii():
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            s = s.encode("utf-8", "backslashreplace").decode("utf-8")
    return s


_ANY_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def inert_all(texts: list[str], *, newlines: bool = True) -> list[str]:
    """:func:`inert` over many strings (table columns of 100,000 cells), at C speed when, as
    almost always, none of them needs it: one scan of them all, then only the few that do."""
    if not _ANY_UNSAFE.search("".join(texts)):
        return texts
    return [inert(t, newlines=newlines) if _ANY_UNSAFE.search(t) else t for t in texts]


def _one_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x1B:
        return "␛"
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "␡"
    return "\ufffd"  # C1, bidi, lone surrogates: no picture of their own


def inert_chars(text: str) -> str:
    """:func:`inert` one character for one character, for text being edited (an input field),
    where the cursor's position must stay the same: ESC ``␛``, C0 their pictures (LF
    included; TAB is kept, the field expands it), DEL ``␡``, C1 controls, bidi overrides and lone surrogates ``\ufffd``."""
    return _EDIT_UNSAFE.sub(_one_char, text) if _EDIT_UNSAFE.search(text) else text


_EDIT_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def inert_markup(text: object, *, newlines: bool = True) -> str:
    """:func:`inert`, then Rich markup escaped: for untrusted text placed inside markup."""
    from rich.markup import escape

    return escape(inert(text, newlines=newlines))


# In JSON text these can only sit inside strings, where \uXXXX spells the same character.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def inert_json(text: str) -> str:
    """JSON text made safe for a terminal without changing its data.

    JSON encoders already escape C0 controls (``\\u001b``) but pass DEL, C1 controls (``\\x9b``
    is a one-byte CSI) and bidi overrides through; those are written as ``\\uXXXX`` escapes,
    which decode to the very same string. For machine output printed on stdout.
    """
    if _JSON_UNSAFE.search(text):
        return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def inert_html(text: object) -> str:
    """:func:`inert` (controls and bidi overrides made visible), then HTML-escaped, quotes
    included: for untrusted text placed in an HTML page, as element text or attribute value."""
    from html import escape

    return escape(inert(text), quote=True)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|<>~])")


def inert_markdown(text: object) -> str:
    """:func:`inert` on one line (a newline shows as ``␊``), then every character that Markdown
    or GitHub-flavoured tables give a meaning (``|``, backticks, emphasis, links, raw HTML)
    backslash-escaped: for untrusted text in a Markdown table cell or list item."""
    s = inert(text, newlines=False)
    s = _MARKDOWN_SPECIAL.sub(r"\\\1", s)
    return s.replace("&", "&amp;")
