"""The CLI's ways to the terminal: every line that may quote a file, an engine or a note.

Suite text, engine answers, run reasons and notes are untrusted; a line carrying them goes out
through here so that escape sequences and control characters arrive inert (``nlu_tui.textsafe``).
Machine formats keep their data exact: JSON only has its unsafe characters written as
``\\uXXXX`` escapes, and CSV/XML are made inert only when they go to a terminal.
"""

from __future__ import annotations

import sys
from typing import TextIO

from nlu_tui.textsafe import inert, inert_json


def say(
    text: object = "", *, file: TextIO | None = None, flush: bool = False, end: str = "\n"
) -> None:
    """Print ``text`` (which may span lines) with everything untrusted in it made inert."""
    print(inert(text), file=file if file is not None else sys.stdout, flush=flush, end=end)


def say_error(message: object, *, prefix: str = "nlu-tui: error: ") -> None:
    """One ``nlu-tui: error:`` line on stderr: a newline in the message cannot split it."""
    print(prefix + inert(message, newlines=False), file=sys.stderr)


def say_warning(message: object) -> None:
    say_error(message, prefix="nlu-tui: warning: ")


def write_json(text: str, *, file: TextIO | None = None) -> None:
    """JSON on stdout: the same data, with C1 controls and bidi overrides escaped."""
    (file if file is not None else sys.stdout).write(inert_json(text))


def write_machine(text: str, *, file: TextIO | None = None) -> None:
    """CSV, XML and the like: exact when piped or redirected, inert on a terminal."""
    stream = file if file is not None else sys.stdout
    isatty = getattr(stream, "isatty", None)
    stream.write(inert(text) if callable(isatty) and isatty() else text)
