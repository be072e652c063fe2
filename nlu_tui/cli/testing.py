"""``nlu-tui test nlu|stories|e2e|du``: Rasa's ``rasa test`` family, one module a kind.

Each kind registers itself in the ``test`` group from its own module (listed in
:data:`TEST_MODULES`), so a new kind is one module plus one line here.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

TEST_MODULES: tuple[str, ...] = (
    "nlu_tui.cli.nlu_eval",
    "nlu_tui.cli.stories",
    "nlu_tui.cli.e2e",
    "nlu_tui.cli.du",
)
"""Modules with ``register(test_subparsers)``, one per kind of test."""


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add the ``test`` group to the parser."""
    p = sub.add_parser(
        "test",
        help="evaluate as `rasa test` does (nlu, stories, e2e, du)",
        description="Evaluate an engine the way `rasa test` does; one sub-command per kind.",
    )
    kinds = p.add_subparsers(dest="test_kind", metavar="KIND")
    for name in TEST_MODULES:
        importlib.import_module(name).register(kinds)
    p.set_defaults(handler=lambda _args: _help(p))


def _help(parser: argparse.ArgumentParser) -> int:
    from nlu_tui.cli import exitcodes

    parser.print_help()
    return exitcodes.BAD_INPUT
