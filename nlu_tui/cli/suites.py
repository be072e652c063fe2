"""CLI commands for suite files: ``import``, ``export`` and ``validate``.

Import never overwrites a suite without ``--force`` (a suite is something people edit); export
overwrites its target (an export is derived and can be made again). A bad input file ends in one
``nlu-tui: error: FILE, row N, field 'x': ...`` line and exit code 2, with nothing written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say, say_warning, write_json

IMPORT_EPILOG = """The format is detected from the content when --format is not given.
A suite with an engine profile configured for it runs at once against both versions
(development, published), as Kore.ai runs a new test suite: the profile visible from OUT that
says new_suites: true, else the only profile there (new_suites: false turns it off); --no-run
skips the runs. The exit code is the import's; the runs are stored as any run.
exit codes: 0 imported; 2 the file is malformed or OUT exists (nothing written)."""

EXPORT_EPILOG = """Warnings on stderr list what the target format cannot hold.
exit codes: 0 exported; 2 bad input (nothing written)."""

VALIDATE_EPILOG = """exit codes:
  0  no errors (warnings allowed unless --fail-on-warnings)
  1  warnings found and --fail-on-warnings given
  2  errors found, or a file could not be read"""


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``import``, ``export`` and ``validate``."""
    fmt_help = (
        "kore-json, kore-csv, rasa, nludevops, luis, lex-csv, dialogflow-cx, native or a "
        "plug-in's format"
    )
    imp = sub.add_parser(
        "import",
        help="turn a Kore.ai, Rasa, NLU.DevOps, LUIS, Lex or Dialogflow CX file into a suite",
        description="Read FILE and write it as a native suite (*.suite.yaml).",
        epilog=IMPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    imp.add_argument("file", metavar="FILE", type=Path)
    imp.add_argument("--format", "-f", dest="fmt", metavar="F", help=fmt_help)
    imp.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        type=Path,
        help="the suite to write (default: FILE's name with .suite.yaml, beside it)",
    )
    imp.add_argument("--name", metavar="N", help="the suite's name (default: the file name)")
    imp.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    imp.add_argument(
        "--no-run",
        action="store_true",
        help="do not run the new suite against its engine's two versions",
    )
    imp.set_defaults(handler=run_import)

    exp = sub.add_parser(
        "export",
        help="write a suite as Kore.ai, Rasa, NLU.DevOps, LUIS, Lex or Dialogflow CX",
        description="Read SUITE (any supported format) and write it in format F.",
        epilog=EXPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    exp.add_argument("suite", metavar="SUITE", type=Path)
    exp.add_argument(
        "--format",
        "-f",
        dest="fmt",
        metavar="F",
        help=f"{fmt_help} (default: from the extension of FILE when unambiguous)",
    )
    exp.add_argument("-o", "--output", metavar="FILE", type=Path, required=True)
    exp.set_defaults(handler=run_export)

    val = sub.add_parser(
        "validate",
        help="check suites for mistakes before running them",
        description="Check each SUITE (any supported format) and list errors and warnings.",
        epilog=VALIDATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    val.add_argument("suites", metavar="SUITE", type=Path, nargs="+")
    val.add_argument(
        "--fail-on-warnings", action="store_true", help="exit 1 when there are warnings (for CI)"
    )
    val.add_argument("--json", action="store_true", help="print problems as a JSON array")
    val.add_argument("--format", "-f", dest="fmt", metavar="F", help=fmt_help)
    val.add_argument(
        "--engine",
        "-e",
        metavar="SPEC",
        help="also check each raw: check against this engine's answer shape (a profile, "
        "embedded:PATH, rasa:URL...; the engine is not contacted)",
    )
    val.set_defaults(handler=run_validate)


def _warn(lines: list[str]) -> None:
    for line in lines:
        say_warning(line)


def default_output(path: Path) -> Path:
    name = path.name
    for suffix in (".json", ".csv", ".yaml", ".yml", ".lu", ".txt"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    return path.with_name(name + ".suite.yaml")


def run_import(args: argparse.Namespace) -> int:
    from nlu_tui.errors import InputError
    from nlu_tui.formats.native import save_suite
    from nlu_tui.formats.registry import detect_format, import_suite

    source: Path = args.file
    if not source.is_file():
        raise InputError("no such file", path=source)
    out: Path = args.output or default_output(source)
    if out.exists() and not args.force:
        raise InputError("already exists; pass --force to overwrite it", path=out)
    fmt = args.fmt or detect_format(source)
    result = import_suite(source, fmt)
    if args.name:
        result.suite.name = args.name
    _warn(result.warnings)
    suite = result.suite
    suite.path = None
    suite.loaded_digest = None
    save_suite(suite, out, force=True)
    say(f"imported {len(suite.cases)} cases from {source} ({fmt}) into {out}")
    if not args.no_run and suite.cases:
        first_runs(out)
    return exitcodes.OK


def first_runs(suite_path: Path) -> None:
    """Run a new suite against both versions of the engine configured for it (see
    :mod:`nlu_tui.first_runs`); a run that cannot start or fails is a warning."""
    import asyncio

    from nlu_tui.cli.run_output import run_line
    from nlu_tui.errors import NluTuiError
    from nlu_tui.first_runs import plan_first_runs
    from nlu_tui.runservice import open_run

    plan = plan_first_runs(suite_path.resolve(), Path.cwd())
    if not plan:
        if "no engine profile" not in plan.reason:  # nothing configured: nothing to say
            say_warning(plan.reason)
        return
    say(f"first runs: {plan.reason}")
    from nlu_tui.cli.runs import _store

    store = _store()
    for request in plan.requests(suite_path.resolve(), Path.cwd()):
        try:
            job = open_run(request, store, warn=say_warning)
        except NluTuiError as exc:
            say_warning(f"first run on {request.engine} [{request.stage}] not started: {exc}")
            continue
        outcome = asyncio.run(job.execute())
        say(job.redact(f"{run_line(outcome.record)} [{job.stage}]"))


def _format_for_output(path: Path) -> str | None:
    from nlu_tui.formats.registry import builtin_format, format_module, format_names

    name = path.name.lower()
    # the built-ins first: a plug-in is imported only when no built-in takes the name
    builtins = [fmt for fmt in format_names() if builtin_format(fmt)]
    others = [fmt for fmt in format_names() if not builtin_format(fmt)]
    matches: list[str] = []
    for names in (builtins, others):
        longest = {
            fmt: max(
                (len(ext) for ext in format_module(fmt).EXTENSIONS if name.endswith(ext)),
                default=0,
            )
            for fmt in names
        }
        best = max(longest.values(), default=0)
        # the most specific name wins: x.lex.csv is a Lex test set, x.csv a Kore.ai file
        matches = [fmt for fmt, length in longest.items() if length and length == best]
        if matches:
            break
    if "native" in matches:
        return "native"
    return matches[0] if len(matches) == 1 else None


def run_export(args: argparse.Namespace) -> int:
    from nlu_tui.errors import InputError
    from nlu_tui.formats.registry import export_suite, format_module, import_suite

    fmt = args.fmt or _format_for_output(args.output)
    if fmt is None:
        raise InputError(
            f"cannot tell the format from the name {args.output.name!r}; pass --format",
            field="--format",
        )
    format_module(fmt)  # unknown format: a clear error before reading anything
    if not args.suite.is_file():
        raise InputError("no such file", path=args.suite)
    result = import_suite(args.suite)
    _warn(result.warnings)
    warnings = export_suite(result.suite, args.output, fmt)
    _warn(warnings)
    say(f"exported {len(result.suite.cases)} cases to {args.output} ({fmt})")
    return exitcodes.OK


RAW_NEVER_MATCHES = "raw-never-matches"
"""``validate --engine``: a raw: check whose path can never match the engine's answer shape."""


def _raw_shape_problems(suite: Any, spec: str, path: Path) -> list[Any]:
    from nlu_tui.engines.profiles import resolve_engine
    from nlu_tui.raw_checks import shape_warnings
    from nlu_tui.validation import WARNING, Problem

    if not any(case.raw_checks for case in suite.cases):
        return []
    engine = resolve_engine(spec, path).engine  # built, not opened: nothing is sent
    shape = getattr(engine, "answer_shape", None)
    if shape is None:
        return []
    return [
        Problem(
            WARNING,
            RAW_NEVER_MATCHES,
            f"{check!r} can never match a {engine.type_name} answer ({why})",
            path,
            case.id,
            case.line,
        )
        for case in suite.cases
        if case.raw_checks
        for check, why in shape_warnings(case.raw_checks, shape)
    ]


def run_validate(args: argparse.Namespace) -> int:
    from nlu_tui.errors import InputError
    from nlu_tui.formats.registry import import_suite
    from nlu_tui.validation import ERROR, Problem, count, validate_suite

    problems: list[Problem] = []
    unreadable = 0
    for path in args.suites:
        try:
            if not path.is_file():
                raise InputError("no such file", path=path)
            result = import_suite(path, args.fmt)
        except InputError as exc:
            unreadable += 1
            message = exc.message + (f" (field '{exc.field}')" if exc.field else "")
            problems.append(Problem(ERROR, "unreadable", message, Path(path), None, exc.line))
            continue
        suite = result.suite
        if suite.path is None:
            suite.path = path
        problems.extend(validate_suite(suite))
        if args.engine:
            problems.extend(_raw_shape_problems(suite, args.engine, Path(path)))
    errors, warnings = count(problems)
    if args.json:
        import json  # here, not at the top: `nlu-tui --help` stays light

        write_json(json.dumps([p.to_dict() for p in problems], ensure_ascii=False, indent=2) + "\n")
    else:
        for problem in problems:
            say(problem)
        files = len(args.suites)
        say(
            f"{errors} error{'s' if errors != 1 else ''}, {warnings} "
            f"warning{'s' if warnings != 1 else ''} in {files} file{'s' if files != 1 else ''}",
            file=sys.stderr,
        )
    if errors or unreadable:
        return exitcodes.BAD_INPUT
    if warnings and args.fail_on_warnings:
        return exitcodes.GATE_FAILED
    return exitcodes.OK
