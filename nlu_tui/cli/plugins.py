"""``nlu-tui plugins``: the engine types and file formats installed, built-ins included, and
the distribution each comes from (``docs/development/plugins.md``)."""

from __future__ import annotations

import argparse
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say, say_error, say_warning


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``plugins`` to the parser."""
    p = sub.add_parser(
        "plugins",
        help="list the engine types and file formats installed (entry points)",
        description=(
            "List every engine type (nlu_tui.engines) and file format (nlu_tui.formats): the "
            "built-ins and those installed packages add, with the distribution of each. "
            "Exit codes: 0 listed, 2 --check found a plug-in that does not load."
        ),
    )
    p.add_argument(
        "--check", action="store_true", help="import every plug-in and report those that fail"
    )
    p.set_defaults(handler=run_plugins)


def run_plugins(args: argparse.Namespace) -> int:
    from nlu_tui.plugin_service import list_plugins

    report = list_plugins(check=args.check)
    group = None
    width = max((len(row.name) for row in report.rows), default=0)
    for row in report.rows:
        if row.group != group:
            if group is not None:
                say()
            group = row.group
            say(f"{group}:")
        origin = "built-in" if row.builtin else row.distribution
        state = "" if row.problem is None else "  BROKEN"
        say(f"  {row.name:<{width}}  {origin:<24} {row.value}{state}")
    for line in report.ignored:
        say_warning(line)
    for row in report.broken:
        say_error(row.problem)
    return exitcodes.BAD_INPUT if report.broken else exitcodes.OK
