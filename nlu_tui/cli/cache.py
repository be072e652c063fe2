"""``nlu-tui cache clear [PROFILE]``: forget the answers a profile's answer cache keeps
(``cache: true`` in ``engines.yaml``; ``nlu_tui.runner.answer_cache``)."""

from __future__ import annotations

import argparse
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``cache clear`` to the parser."""
    cache = sub.add_parser(
        "cache",
        help="the answer cache of paid engines (cache: true in engines.yaml)",
        description="The answers a profile with `cache: true` keeps in the run store.",
    )
    actions = cache.add_subparsers(dest="cache_command", metavar="ACTION")
    clear = actions.add_parser(
        "clear",
        help="forget cached answers (of one profile, or all)",
        description=(
            "Forget the cached answers of PROFILE (every profile's when none is given): the "
            "next run sends every case to the engine again. Exit codes: 0 done, 2 bad input."
        ),
    )
    clear.add_argument("profile", nargs="?", metavar="PROFILE", help="a profile name")
    clear.set_defaults(handler=cmd_cache_clear)


def cmd_cache_clear(args: argparse.Namespace) -> int:
    from nlu_tui.store.runstore import RunStore

    with RunStore(detect_interrupted=False) as store:
        n = store.clear_cache(args.profile)
    whose = f" of {args.profile}" if args.profile else ""
    say(f"cleared {n} cached answer{'s' if n != 1 else ''}{whose}")
    return exitcodes.OK
