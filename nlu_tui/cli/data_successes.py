"""``nlu-tui data successes SOURCE --out FILE``: the "Successful user utterances" suite from a
Rasa tracker store (an SQLAlchemy URL; ``${ENV}`` references in it are filled from the
environment, so a password never has to be typed on the command line) or from a Kore.ai
analytics export (a JSON file of Get Analytics answers). See :mod:`nlu_tui.successes` and
:mod:`nlu_tui.successes_kore`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say, say_error, say_warning

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def register(commands: argparse._SubParsersAction[Any]) -> None:
    p = commands.add_parser(
        "successes",
        help="a suite of the user messages that matched an intent, from a Rasa tracker store "
        "or a Kore.ai analytics export",
        description=(
            "Import the user messages of a Rasa SQL tracker store that matched an intent and "
            "whose turn completed (no fallback, no rejected action), or the utterances of a "
            "Kore.ai Get Analytics export whose intent was found and whose task completed, as "
            "a regression suite: one case per distinct utterance, expecting the intent it "
            "matched."
        ),
    )
    p.add_argument(
        "url",
        metavar="SOURCE",
        nargs="?",
        help="SQLAlchemy URL of the tracker store, e.g. sqlite:///rasa.db or "
        "'postgresql://rasa:${PGPASSWORD}@db/rasa' (quoted, ${VAR} read from the environment); "
        "or a JSON file of Kore.ai getAnalytics answers (types successintent and successtask)",
    )
    p.add_argument(
        "--kore",
        metavar="PROFILE",
        help="read the bot's Get Analytics live (a kore profile; with --from and --to) "
        "instead of a SOURCE",
    )
    p.add_argument("--from", dest="since", metavar="DATE", help="--kore: first day (YYYY-MM-DD)")
    p.add_argument("--to", dest="until", metavar="DATE", help="--kore: last day (YYYY-MM-DD)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE", help="the suite to write")
    p.add_argument("--name", default="Successful user utterances", help="the suite's name")
    p.add_argument("--table", default="events", help="the events table (default events)")
    p.add_argument(
        "--bot-names",
        action="store_true",
        help="Kore.ai: pair each intent with the bot that answered (a universal bot's child)",
    )
    p.add_argument("--force", action="store_true", help="overwrite an existing suite file")
    p.set_defaults(handler=cmd_successes)


def _expand(url: str) -> str:
    from nlu_tui.errors import InputError

    def sub(match: re.Match[str]) -> str:
        value = os.environ.get(match.group(1))
        if value is None:
            raise InputError(f"environment variable {match.group(1)} is not set", field="URL")
        from urllib.parse import quote

        return quote(value, safe="")

    return _ENV_REF.sub(sub, url)


def cmd_successes(args: argparse.Namespace) -> int:
    from nlu_tui.errors import InputError
    from nlu_tui.formats.native import save_suite
    from nlu_tui.successes import read_tracker_store, successful_suite

    if args.out.is_dir():
        raise InputError("is a folder; give a file name", path=args.out, field="--out")
    if args.out.exists() and not args.force:  # said before a big tracker store is read
        raise InputError("already exists; pass --force to overwrite it", path=args.out)
    if args.kore:
        return _from_kore_live(args)
    if not args.url:
        raise InputError("give a SOURCE, or --kore PROFILE --from DATE --to DATE", field="SOURCE")
    if "://" not in args.url:
        return _from_kore(args)
    events = read_tracker_store(_expand(args.url), args.table)
    suite = successful_suite(events, name=args.name)
    path = save_suite(suite, args.out, force=args.force)
    conversations = len({sender for sender, _event in events})
    say(
        f"{len(suite.cases)} successful user utterances from {conversations} conversations "
        f"({len(events)} events)"
    )
    say(f"wrote {path}", file=sys.stderr)
    return exitcodes.OK


def _from_kore_live(args: argparse.Namespace) -> int:
    from nlu_tui.engines.kore_platform import KoreApiError
    from nlu_tui.errors import InputError
    from nlu_tui.formats.native import save_suite
    from nlu_tui.kore_sync import live_success_records
    from nlu_tui.successes_kore import kore_successful_suite

    if args.url:
        raise InputError("give either a SOURCE or --kore PROFILE, not both", field="--kore")
    if not args.since or not args.until:
        raise InputError("--kore needs --from DATE and --to DATE", field="--from")
    try:
        records, pages = live_success_records(args.kore, args.since, args.until)
    except KoreApiError as exc:
        say_error(exc)
        return exitcodes.BAD_INPUT if exc.bad_input else exitcodes.RUN_FAILED
    built = kore_successful_suite(records, name=args.name, bot_names=args.bot_names)
    for warning in built.warnings:
        say_warning(f"Kore.ai Get Analytics: {warning}")
    path = save_suite(built.suite, args.out, force=args.force)
    say(
        f"{len(built.suite.cases)} successful user utterances from {built.records} Kore.ai "
        f"records in {pages} pages ({built.found} intents found, {built.completed} tasks "
        f"completed, {built.skipped} left out)"
    )
    say(f"wrote {path}", file=sys.stderr)
    return exitcodes.OK


def _from_kore(args: argparse.Namespace) -> int:
    from nlu_tui.errors import InputError
    from nlu_tui.formats.native import save_suite
    from nlu_tui.successes_kore import kore_successful_suite, read_kore_analytics

    source = Path(args.url)
    if not source.is_file():
        raise InputError(
            "neither an SQLAlchemy URL (sqlite:///rasa.db) nor a Kore.ai analytics JSON file",
            path=source,
            field="SOURCE",
        )
    built = kore_successful_suite(
        read_kore_analytics(source), name=args.name, bot_names=args.bot_names
    )
    for warning in built.warnings:
        say_warning(f"{source}: {warning}")
    path = save_suite(built.suite, args.out, force=args.force)
    say(
        f"{len(built.suite.cases)} successful user utterances from {built.records} Kore.ai "
        f"records ({built.found} intents found, {built.completed} tasks completed, "
        f"{built.skipped} left out)"
    )
    say(f"wrote {path}", file=sys.stderr)
    return exitcodes.OK
