"""The command line: ``nlu-tui [WORKSPACE]`` opens the workbench; subcommands run headless.

Each command group lives in its own module with ``register(subparsers)``; handlers import what
they need when they run, so ``nlu-tui --help`` stays fast.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING

from nlu_tui import __version__
from nlu_tui.cli import exitcodes

if TYPE_CHECKING:
    import argparse

COMMANDS: dict[str, tuple[str, ...]] = {
    "nlu_tui.cli.suites": ("import", "export", "validate"),
    "nlu_tui.cli.runs": ("run", "runs", "show", "diff", "note", "delete"),
    "nlu_tui.cli.compare": ("compare",),  # NLU.DevOps
    "nlu_tui.cli.serve": ("serve",),  # the embedded engine over HTTP
    "nlu_tui.cli.analyze": ("analyze",),  # threshold sweep and calibration
    "nlu_tui.cli.testing": ("test",),  # test nlu|stories|e2e|du (one module a kind)
    "nlu_tui.cli.simulate": ("simulate",),  # simulated users against a bot
    "nlu_tui.cli.data": ("data",),  # data split nlu, data successes
    "nlu_tui.cli.coverage": ("coverage",),  # test coverage, leakage, recommendations
    "nlu_tui.cli.generate": ("generate",),  # test cases from an LLM
    "nlu_tui.cli.web": ("web",),  # the workbench in a browser (textual-serve)
    "nlu_tui.cli.plugins": ("plugins",),  # engine types and formats from entry points
    "nlu_tui.cli.cache": ("cache",),  # the answer cache of paid engines
    "nlu_tui.cli.trend": ("trend",),  # a suite's figures over its runs
    "nlu_tui.cli.kore": ("kore",),  # Kore.ai live: suites pulled and pushed
    "nlu_tui.cli.store": ("store",),  # the run store: info, copy between backends
    "nlu_tui.cli.perturb": ("perturb",),  # robustness copies of a suite
}
"""Each command module and the commands its ``register`` adds (a test keeps the two equal).

Known statically so that one command builds only its own parser, and the workbench none:
building all of them imports every command module (~0.1 s of each start)."""

COMMAND_MODULES = tuple(COMMANDS)

EPILOG = """exit codes:
  0    done (and every gate passed)
  1    a regression gate or --fail-on condition failed (compare: the number of failed gates)
  2    bad input: a file, an option or a profile is wrong; nothing was written
  3    the run failed: the engine was unreachable or errored too often
  130  canceled with Ctrl-C (results so far are kept)
"""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``only`` just the module that registers that command."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="nlu-tui",
        description="Batch-test NLU engines. With no command, open the workbench on WORKSPACE.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"nlu-tui {__version__}")
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help="keep the run store and models here instead of the user data directory",
    )
    parser.add_argument(
        "--store",
        metavar="URL",
        help="the run store: sqlite:////path/file (default: in the data directory) or "
        "postgresql://user@host/db (password from PGPASSWORD or ~/.pgpass); "
        "also NLU_TUI_STORE_URL or `store:` in settings.yaml",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, commands in COMMANDS.items():
        if only is None or only in commands:
            importlib.import_module(name).register(sub)
    return parser


def _usage_error(parser: argparse.ArgumentParser, message: str) -> int:
    """argparse's way: the usage line, then one ``nlu-tui: error:`` line; exit 2."""
    from nlu_tui.cli.say import say_error

    parser.print_usage(sys.stderr)
    say_error(message)
    return exitcodes.BAD_INPUT


def _open_workbench(argv: list[str], commands: set[str]) -> int:
    """Only an existing folder (or none: the default workspace) opens the workbench, and only
    in a terminal: a mistyped command must not create a folder, and a CI job must not hang."""
    import os
    from pathlib import Path

    words = workbench_words(argv)
    if words is None:  # anything else than the plain words: argparse reads it
        import argparse

        parser = argparse.ArgumentParser(prog="nlu-tui", add_help=False)
        parser.add_argument("workspace", nargs="?")
        parser.add_argument("--data-dir", metavar="DIR")
        parser.add_argument("--store", metavar="URL")
        args, unknown = parser.parse_known_args(argv)
        if unknown:
            return _usage_error(build_parser(), f"unrecognized arguments: {' '.join(unknown)}")
        words = (args.workspace, args.data_dir, args.store)
    workspace, data_dir, store = words
    if workspace is not None and not Path(workspace).expanduser().is_dir():
        import difflib

        close = difflib.get_close_matches(workspace, sorted(commands), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        what = "a file, not a folder" if Path(workspace).exists() else "no such folder"
        return _usage_error(
            build_parser(), f"{workspace!r} is not a command, and {what} to open{hint}"
        )
    served = os.environ.get("TEXTUAL_DRIVER") == "textual.drivers.web_driver:WebDriver"
    if not served and not (os.isatty(0) and os.isatty(1)):  # `nlu-tui web` draws in a browser
        from nlu_tui.cli.say import say_error

        say_error(
            "the workbench needs a terminal (stdin and stdout are not one); "
            "use a command such as `nlu-tui run` in scripts (see nlu-tui --help)"
        )
        return exitcodes.BAD_INPUT
    _apply_data_dir(data_dir)
    _apply_store(store)
    from nlu_tui.cli.tui import open_workbench

    return open_workbench(workspace)


def workbench_words(argv: list[str]) -> tuple[str | None, str | None, str | None] | None:
    """``(WORKSPACE, --data-dir, --store)`` when ``argv`` holds only those, each option once
    and spelled in full (``--data-dir DIR`` or ``--data-dir=DIR``), read as argparse reads
    them, without importing argparse (the workbench's start-up); None for anything else
    (abbreviations, ``--``, a missing value, unknown words), which argparse then reads."""
    workspace: str | None = None
    options: dict[str, str] = {}
    words = iter(argv)
    for word in words:
        name, equals, value = word.partition("=")
        if name in ("--data-dir", "--store") and name not in options:
            if not equals:
                following = next(words, None)
                if following is None or following.startswith("-"):
                    return None
                value = following
            options[name] = value
        elif word.startswith("-") or workspace is not None:
            return None
        else:
            workspace = word
    return workspace, options.get("--data-dir"), options.get("--store")


def _apply_data_dir(data_dir: str | None) -> None:
    if data_dir:
        import os

        os.environ["NLU_TUI_DATA_DIR"] = data_dir


def _apply_store(url: str | None) -> None:
    """``--store URL`` for this process and the processes it starts; a bad URL is refused
    here, before any command runs (one line, exit 2)."""
    if url is not None:
        import os

        from nlu_tui.store_location import ENV_VAR, parse

        parse(url)
        os.environ[ENV_VAR] = url


def _positionals(argv: list[str]) -> list[str]:
    """The words that are not options, skipping the value of ``--data-dir DIR``."""
    words: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--data-dir", "--store"):
            skip = True
        elif not arg.startswith("-"):
            words.append(arg)
    return words


def _skip_httpx_command_line() -> None:
    """httpx's ``__init__`` imports its own command-line client (``httpx._main``: click, Rich,
    Pygments; about a third of importing httpx) whenever click is installed, and falls back to
    a stub when that import fails. nlu-tui never runs httpx's client: marking the module absent
    before httpx is first imported keeps every run's start-up without it."""
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


def run(argv: list[str]) -> int:
    _skip_httpx_command_line()
    commands = {command for names in COMMANDS.values() for command in names}
    positional = _positionals(argv)
    command = positional[0] if positional and positional[0] in commands else None
    wants_help = any(a in ("-h", "--help", "--version") for a in argv)
    if not wants_help and command is None:
        from nlu_tui.errors import NluTuiError

        try:
            return _open_workbench(argv, commands)
        except NluTuiError as exc:  # e.g. a run store that is not SQLite: one line, exit 2
            from nlu_tui.cli.say import say_error

            say_error(exc)
            return exitcodes.BAD_INPUT
    # `nlu-tui CMD --help` needs CMD's parser only; `nlu-tui --help` lists every command
    parser = build_parser(only=command if command is not None and positional else None)
    args = parser.parse_args(argv)
    _apply_data_dir(args.data_dir)
    try:
        _apply_store(args.store)
    except Exception as exc:
        from nlu_tui.cli.say import say_error

        say_error(exc)
        return exitcodes.BAD_INPUT
    from nlu_tui.cli import engine_options

    engine_options.apply(args)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return exitcodes.BAD_INPUT
    try:
        return int(handler(args))
    except KeyboardInterrupt:
        print("canceled", file=sys.stderr)
        return exitcodes.CANCELED
    except BrokenPipeError:
        return exitcodes.OK
    except Exception as exc:  # errors we know become one clear line
        from nlu_tui.errors import NluTuiError

        if isinstance(exc, NluTuiError):
            from nlu_tui.cli.say import say_error

            say_error(exc)  # the message may quote a file or an engine
            return exitcodes.BAD_INPUT
        raise
