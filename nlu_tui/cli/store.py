"""``nlu-tui store``: where the run store is, and ``store copy FROM TO`` between backends."""

from __future__ import annotations

import argparse
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``store`` (``store info``, ``store copy``) to the parser."""
    p = sub.add_parser(
        "store",
        help="the run store: where it is (info), copy history between stores (copy)",
        description=(
            "The run store is an SQLite file (the default) or a PostgreSQL database a team "
            "shares: --store URL, NLU_TUI_STORE_URL or `store:` in settings.yaml "
            "(sqlite:////abs/file, postgresql://user@host/db). Passwords come from PGPASSWORD "
            "or ~/.pgpass and are never shown. Exit codes: 0 done, 2 a store cannot be used."
        ),
    )
    actions = p.add_subparsers(dest="store_command", metavar="ACTION")
    info = actions.add_parser("info", help="the store in use: backend, location, schema, runs")
    info.add_argument("url", nargs="?", help="another store than the configured one")
    info.set_defaults(handler=run_info)
    copy = actions.add_parser(
        "copy",
        help="copy every run (with cases, results, items) from one store to another",
        description=(
            "Copy the run history of FROM into TO, oldest first, one transaction per run. "
            "Runs TO already holds are skipped, so a stopped copy is finished by running it "
            "again. FROM and TO are store URLs or SQLite file paths."
        ),
    )
    copy.add_argument("source", metavar="FROM")
    copy.add_argument("destination", metavar="TO")
    copy.set_defaults(handler=run_copy)
    p.set_defaults(handler=lambda _args: (p.print_help(), exitcodes.BAD_INPUT)[1])


def run_info(args: argparse.Namespace) -> int:
    from nlu_tui.store import RunStore

    with RunStore(args.url, detect_interrupted=False) as store:
        say(f"backend: {store.backend}")
        say(f"store:   {store.label}")
        say(f"schema:  {store.schema_version()}")
        say(f"runs:    {store.count_runs()}")
    return exitcodes.OK


def run_copy(args: argparse.Namespace) -> int:
    from nlu_tui.errors import InputError
    from nlu_tui.store import RunStore
    from nlu_tui.store.copy import copy_history
    from nlu_tui.store_location import parse

    source_location, destination_location = parse(args.source), parse(args.destination)
    if source_location == destination_location:
        raise InputError("FROM and TO are the same store")
    if source_location.path is not None and not source_location.path.is_file():
        raise InputError(f"{source_location.path}: no such run store file")
    with (
        RunStore(args.source, detect_interrupted=False) as source,
        RunStore(args.destination, detect_interrupted=False) as destination,
    ):
        report = copy_history(source, destination)
        say(
            f"copied {len(report.copied)} run(s) ({report.rows} rows) from {source.label} "
            f"to {destination.label}; {len(report.skipped)} already there"
            + (f"; {len(report.comparisons)} comparison(s)" if report.comparisons else "")
        )
    return exitcodes.OK
