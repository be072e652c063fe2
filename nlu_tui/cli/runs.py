"""CLI commands: placeholder until its issue lands (registers nothing yet)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add this module's subcommands to the parser."""
