"""``nlu-tui kore list|pull|push``: Kore.ai batch test suites synced both ways (a ``kore``
profile's bot; docs/guides/kore-live.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say, say_error

EXIT_NOTE = (
    "Exit codes: 0 done; 2 bad input (a profile field, a suite name Kore.ai refuses, a local "
    "or remote change that --force would overwrite); 3 Kore.ai failed (unreachable, rate "
    "limit, an answer of an unexpected shape)."
)


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``kore`` to the parser."""
    p = sub.add_parser(
        "kore",
        help="Kore.ai live: list, pull and push the bot's batch test suites; its ML utterances",
        description="Kore.ai's batch test suites of a kore profile's bot. " + EXIT_NOTE,
    )
    ks = p.add_subparsers(dest="kore_command", metavar="KORE_COMMAND")
    ls = ks.add_parser(
        "list",
        help="the bot's batch test suites with their last run",
        description="List the bot's batch test suites (Get Batch Test Suites) with their last "
        "run. " + EXIT_NOTE,
    )
    ls.add_argument("profile", metavar="PROFILE", help="a kore profile of engines.yaml")
    ls.set_defaults(handler=run_list)
    pl = ks.add_parser(
        "pull",
        help="export the bot's suites into *.suite.yaml files",
        description="Export the bot's custom batch test suites (or the one named) into "
        "*.suite.yaml files, atomically; a file changed locally since the last pull is not "
        "overwritten without --force. " + EXIT_NOTE,
    )
    pl.add_argument("profile", metavar="PROFILE", help="a kore profile of engines.yaml")
    pl.add_argument("suite_name", metavar="SUITE_NAME", nargs="?", help="only this suite")
    pl.add_argument("--dir", type=Path, default=Path("."), help="where the files go (default: .)")
    pl.add_argument("--force", action="store_true", help="overwrite files changed locally")
    pl.set_defaults(handler=run_pull)
    ps = ks.add_parser(
        "push",
        help="import a suite file into the bot",
        description="Import a suite file into the bot as a Kore.ai batch test suite (Upload "
        "File, Import Batch Test Suite); a remote suite changed since the last pull, or never "
        "pulled here, is not overwritten without --force. " + EXIT_NOTE,
    )
    ps.add_argument("suite", metavar="SUITE", type=Path, help="a suite file (any format)")
    ps.add_argument("--profile", help="the kore profile (default: the one it was pulled with)")
    ps.add_argument("--name", help="the remote suite's name (default: as pulled, else the suite's)")
    ps.add_argument("--force", action="store_true", help="overwrite a changed remote suite")
    ps.set_defaults(handler=run_push)
    ut = ks.add_parser(
        "utterances",
        help="save the bot's ML utterances as its 'Developer defined utterances' suite",
        description="Export the bot's ML utterances (ML Utterances Export API, JSON) into "
        "DIR/PROFILE.kore-utterances.json, which the workspace lists as the read-only "
        "'Developer defined utterances' suite: every trained utterance expecting its task. "
        "The export is checked before it is written; the old file is kept if it is refused. "
        + EXIT_NOTE,
    )
    ut.add_argument("profile", metavar="PROFILE", help="a kore profile of engines.yaml")
    ut.add_argument("--dir", type=Path, default=Path("."), help="where the file goes (default: .)")
    ut.add_argument(
        "--published",
        action="store_true",
        help="only the published tasks' utterances (default: the latest copy, in development)",
    )
    ut.set_defaults(handler=run_utterances)
    p.set_defaults(handler=lambda _args: (p.print_help(), exitcodes.BAD_INPUT)[1])


def _guard(work: Any) -> int:
    from nlu_tui.engines.kore_platform import KoreApiError

    try:
        return int(work())
    except KoreApiError as exc:
        say_error(exc)
        return exitcodes.BAD_INPUT if exc.bad_input else exitcodes.RUN_FAILED


def run_list(args: argparse.Namespace) -> int:
    from nlu_tui.kore_sync import list_remote

    def work() -> int:
        suites = list_remote(args.profile)
        for s in suites:
            last = s.last_run
            if last is None:
                run = "never run"
            else:
                counts = last.get("results") if isinstance(last.get("results"), dict) else {}
                figures = (
                    f"F1 {last.get('f1_score')} TP {counts.get('TP', 0)} FP {counts.get('FP', 0)} "
                    f"FN {counts.get('FN', 0)} TN {counts.get('TN', 0)}"
                    if counts
                    else "no result"
                )
                run = f"last run {last.get('_id', '?')} ({last.get('version', '?')}): {figures}"
            say(f"{s.name}  [{s.kind or 'custom'}]  {run}")
        if not suites:
            say("the bot has no batch test suites")
        return exitcodes.OK

    return _guard(work)


def run_pull(args: argparse.Namespace) -> int:
    from nlu_tui.kore_sync import pull

    def work() -> int:
        for item in pull(args.profile, args.dir, args.suite_name, force=args.force):
            state = "unchanged" if item.unchanged else "written"
            say(f"{item.name}: {item.cases} cases -> {item.path} ({state})")
        return exitcodes.OK

    return _guard(work)


def run_push(args: argparse.Namespace) -> int:
    from nlu_tui.kore_sync import push

    def work() -> int:
        done = push(args.suite, args.profile, name=args.name, force=args.force)
        verb = "created" if done.created else "updated"
        say(f"{done.name}: {done.cases} cases {verb} on the bot")
        return exitcodes.OK

    return _guard(work)


def run_utterances(args: argparse.Namespace) -> int:
    from nlu_tui.kore_sync import pull_utterances

    def work() -> int:
        stage = "published" if args.published else "development"
        done = pull_utterances(args.profile, args.dir, stage)
        say(f"{done.utterances} ML utterances ({done.cases} cases) -> {done.path}")
        return exitcodes.OK

    return _guard(work)
