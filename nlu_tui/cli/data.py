"""``nlu-tui data …``: Rasa's ``rasa data`` family (``data split nlu``), one module a command.

Commands register themselves in the ``data`` group from the modules in :data:`DATA_MODULES`.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

DATA_MODULES: tuple[str, ...] = (
    "nlu_tui.cli.data_split",  # split nlu (training_data.yml / test_data.yml)
    "nlu_tui.cli.data_successes",  # successes (the successful user utterances suite)
    "nlu_tui.cli.data_validate",  # validate [stories] (rasa data validate)
)
"""Modules with ``register(data_subparsers)``."""


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add the ``data`` group to the parser."""
    p = sub.add_parser(
        "data",
        help="prepare and check training data as `rasa data` does (split nlu, validate)",
        description="Prepare training and test data the way `rasa data` does.",
    )
    commands = p.add_subparsers(dest="data_command", metavar="COMMAND")
    for name in DATA_MODULES:
        importlib.import_module(name).register(commands)
    p.set_defaults(handler=lambda _args: _help(p))


def _help(parser: argparse.ArgumentParser) -> int:
    from nlu_tui.cli import exitcodes

    parser.print_help()
    return exitcodes.BAD_INPUT
