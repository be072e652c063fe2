"""MkDocs hook: a command's reference page shows its current ``--help``, never a stale copy.

A page writes ``<!-- nlu-tui-help: test du -->`` on a line of its own; the build replaces it
with that command's help, formatted at 100 columns from the parser the program itself builds
(``nlu_tui.cli.main.build_parser``). A marker naming no command fails the build.
"""

from __future__ import annotations

import argparse
import os
import re
from typing import Any

from mkdocs.exceptions import PluginError

MARKER = re.compile(r"^<!-- nlu-tui-help:(?P<command>[^>]*)-->$", re.MULTILINE)
WIDTH = "100"


def command_parser(words: list[str]) -> argparse.ArgumentParser:
    """The parser of ``nlu-tui WORDS...`` (the top-level parser for no words)."""
    from nlu_tui.cli.main import build_parser

    parser = build_parser()
    for word in words:
        actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        choices: dict[str, argparse.ArgumentParser] = actions[0].choices if actions else {}
        if word not in choices:
            raise PluginError(f"nlu-tui has no command {' '.join(words)!r} ({word!r} unknown)")
        parser = choices[word]
    return parser


def command_help(words: list[str]) -> str:
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH  # argparse wraps at the terminal's width
    try:
        return command_parser(words).format_help().rstrip()
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def on_page_markdown(markdown: str, **_: Any) -> str:
    def replace(match: re.Match[str]) -> str:
        return "```text\n" + command_help(match["command"].split()) + "\n```"

    return MARKER.sub(replace, markdown)
