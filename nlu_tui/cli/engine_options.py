"""Options every command that takes an engine shares, and how they reach the engine layer.

``--strict-permissions`` sets :data:`nlu_tui.engines.credential_files.STRICT_VARIABLE` for the
process (as ``--data-dir`` sets the data folder's), so a credentials file group or others can
access is refused wherever the engine is built; without it such a file is used with a warning,
shown here as one ``nlu-tui: warning:`` line.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

STRICT_VARIABLE = "NLU_TUI_STRICT_PERMISSIONS"  # credential_files.STRICT_VARIABLE (kept light)
CREDENTIALS_LOGGER = "nlu_tui.credentials"  # credential_files.LOGGER


def add_strict_permissions(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--strict-permissions",
        action="store_true",
        help="refuse a credentials file (credentials_file of a profile) that group or others "
        "can access, as ssh refuses such a private key (default: use it with a warning)",
    )


def apply(args: argparse.Namespace | Any) -> None:
    """Before a command runs: strict permissions when asked; credentials warnings as lines."""
    if getattr(args, "strict_permissions", False):
        os.environ[STRICT_VARIABLE] = "1"
    # imported here, not at the top: building the parser (`nlu-tui --help`) needs no logging
    import logging

    from nlu_tui.cli.warning_line import WarningLine

    logger = logging.getLogger(CREDENTIALS_LOGGER)
    if not any(isinstance(h, WarningLine) for h in logger.handlers):
        logger.addHandler(WarningLine(logging.WARNING))
        logger.propagate = False
