"""``nlu-tui test du PATH --engine E``: Dialogue Understanding Tests as ``rasa test du`` runs
them, plus the two conversion tools of seed 003 in Rasa Pro's shape:
``nlu-tui test du convert-e2e PATH --output-folder DIR`` and
``nlu-tui test du convert-dsl --dut-tests-dir D --output-dir O --dsl-mappings M.yml``.

Exit codes: 0 every test case passed (and no gate failed), 1 a test case failed or a gate
failed, 2 bad input, 3 the engine failed, 130 canceled (resume with ``--resume RUN``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from nlu_tui.cli.engine_options import add_strict_permissions

DEFAULT_PATH = "dialogue_understanding_tests/"


class _AnyWord(dict[str, Any]):
    """The sub-commands, as argparse's ``choices``: every first word is accepted (a PATH)."""

    def __init__(self, commands: dict[str, Any]) -> None:
        super().__init__()
        self.commands = commands

    def __contains__(self, word: object) -> bool:
        return True

    def __iter__(self) -> Any:
        return iter(self.commands)

    def keys(self) -> Any:
        return self.commands.keys()


class _CommandOrPath(argparse._SubParsersAction):  # type: ignore[type-arg]
    """``test du``'s sub-commands, where any other first word is a test PATH.

    ``convert-dsl`` and ``convert-e2e`` are argparse sub-commands with their own options and
    ``--help``; anything else (``tests/``, ``./convert-dsl``) and what follows it is parsed as
    the run's PATH and options, so a test file named ``convert-dsl`` runs as ``./convert-dsl``.
    """

    run_parser: argparse.ArgumentParser

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.choices = _AnyWord(self._name_parser_map)  # a PATH is not an "invalid choice"

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if values and values[0] in self._name_parser_map:
            super().__call__(parser, namespace, values, option_string)
            return
        parsed, extra = self.run_parser.parse_known_args(values)
        for key, value in vars(parsed).items():
            setattr(namespace, key, value)
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")


def _add_run_options(p: argparse.ArgumentParser, *, defaults: bool = True) -> None:
    """The run's options; without ``defaults`` (the options after the PATH) an option not
    given is left out, so it does not undo the same option given before the PATH."""

    def default(value: Any) -> Any:
        return value if defaults else argparse.SUPPRESS

    p.add_argument("--engine", help="profile name, embedded:NLU.yml, rasa-pro:URL, http:URL...")
    add_strict_permissions(p)
    p.add_argument("--flows", type=Path, help="flows file (default: <stem>.flows.yml beside)")
    p.add_argument("--dsl", default=default("auto"), choices=["auto", "v1", "v2", "v3"])
    p.add_argument(
        "--additional-commands",
        type=Path,
        metavar="FILE",
        help="YAML file declaring custom commands by pattern",
    )
    p.add_argument(
        "--remove-default-commands",
        nargs="+",
        default=default([]),
        metavar="NAME",
        help="default commands to remove, e.g. CancelFlow ClarifyCommand",
    )
    p.add_argument(
        "--output-file",
        type=Path,
        help="structured report (YAML, Rasa's keys; default "
        "dialogue_understanding_test_<date>.yml)",
    )
    p.add_argument(
        "--no-output", action="store_true", default=default(False), help="write no report file"
    )
    p.add_argument(
        "--output-prompt",
        action="store_true",
        default=default(False),
        help="show and keep the prompts",
    )
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the report as JSON")
    p.add_argument("--junit", type=Path, metavar="FILE", help="also write JUnit XML")
    p.add_argument("--fail-on", help="gates, e.g. f1<0.9,set_slot.f1<0.8,accuracy<1")
    p.add_argument("--concurrency", type=int, default=default(4))
    p.add_argument("--retries", type=int, default=default(3))
    p.add_argument("--timeout", type=float, default=default(60.0))
    p.add_argument(
        "--repeat",
        type=int,
        default=default(None),
        metavar="N",
        help="send each test case N times and report per test case stability (flaky: "
        "passed in some attempts, failed in others)",
    )
    p.add_argument(
        "--quarantine-flaky",
        action="store_true",
        default=default(False),
        help="with --repeat: leave the flaky test cases out of --fail-on and the exit code",
    )
    p.add_argument("--resume", metavar="RUN", help="finish a canceled or interrupted DUT run")
    p.add_argument(
        "--no-cache",
        action="store_true",
        default=default(False),
        help="neither read nor write the profile's answer cache (cache: true) in this run",
    )
    p.add_argument(
        "--rerun-failed",
        metavar="RUN",
        help="send only the failed and errored test cases of DUT run RUN again (its test "
        "files, engine, flows and DSL unless given), as a child run; --fail-on and the exit "
        "code judge the merged result (RUN's passes and the child's answers)",
    )
    p.add_argument("--diff-with", metavar="RUN", help="compare with an earlier DUT run")
    p.add_argument("--note", default=default(""))
    p.add_argument(
        "--coverage-report",
        action="store_true",
        default=default(False),
        help="write flow-step coverage and the command histogram (needs the flows)",
    )
    p.add_argument(
        "--coverage-output-path",
        type=Path,
        default=default(Path("e2e_coverage_results")),
        metavar="DIR",
        help="folder of the coverage files (default e2e_coverage_results)",
    )


def register(kinds: argparse._SubParsersAction[Any]) -> None:
    p = kinds.add_parser(
        "du",
        help="dialogue understanding tests: expected commands per step (rasa test du)",
        description="Run Dialogue Understanding Tests: every user step's predicted commands "
        "against the expected ones, with Rasa Pro's metrics. Sub-commands: `test du "
        "convert-e2e PATH --engine E --output-folder DIR` and `test du convert-dsl "
        "--dut-tests-dir D --output-dir O --dsl-mappings M.yml` (a test file named like one "
        "runs as ./convert-dsl).",
    )
    _add_run_options(p)
    p.set_defaults(handler=cmd_du, paths=[])
    commands = p.add_subparsers(
        action=_CommandOrPath,
        dest="du_command",
        metavar="PATH | convert-e2e | convert-dsl",
        help=f"test file or folder (default {DEFAULT_PATH}), then the run's options; or a "
        "sub-command",
    )
    # The run's PATH and the options after it; SUPPRESS keeps options given before the PATH.
    run = argparse.ArgumentParser(prog=f"{p.prog} PATH", argument_default=argparse.SUPPRESS)
    run.add_argument("paths", nargs="*", metavar="PATH")
    _add_run_options(run, defaults=False)
    commands.run_parser = run

    e2e = commands.add_parser(
        "convert-e2e",
        help="turn E2E tests into DUT tests by running them (rasa test du convert-e2e)",
        description="Run E2E tests against an engine that reports commands and write them as "
        "DUT test cases: the ready ones, and those to review.",
    )
    e2e.add_argument("path", type=Path, metavar="PATH", help="E2E test file or folder")
    e2e.add_argument("--engine", help="an engine that converses and reports commands")
    e2e.add_argument("--output-folder", type=Path, default=Path("dialogue_understanding_tests"))
    e2e.add_argument("--dsl", default="auto", choices=["auto", "v1", "v2", "v3"])
    e2e.set_defaults(handler=cmd_convert_e2e)

    dsl = commands.add_parser(
        "convert-dsl",
        help="rewrite DUT tests' commands from one DSL to another (rasa test du convert-dsl)",
        description="Rewrite the commands of a folder of DUT tests with a DSL mapping file, "
        "keeping the folder structure.",
    )
    dsl.add_argument("--dut-tests-dir", type=Path)
    dsl.add_argument("--output-dir", type=Path)
    dsl.add_argument("--dsl-mappings", type=Path)
    dsl.set_defaults(handler=cmd_convert_dsl)


def _failures(work: Any, args: argparse.Namespace) -> int:
    """``work(args)``, with bad input, engine and other failures said and mapped to exit codes."""
    from nlu_tui.cli import exitcodes
    from nlu_tui.cli.say import say_error
    from nlu_tui.errors import EngineError, InputError, NluTuiError

    try:
        return int(work(args))
    except InputError as exc:
        say_error(exc)
        return exitcodes.BAD_INPUT
    except EngineError as exc:
        say_error(exc)
        return exitcodes.RUN_FAILED
    except NluTuiError as exc:
        say_error(exc)
        return exitcodes.RUN_FAILED


def cmd_convert_dsl(args: argparse.Namespace) -> int:
    return _failures(_convert_dsl, args)


def cmd_convert_e2e(args: argparse.Namespace) -> int:
    return _failures(_convert_e2e, args)


def cmd_du(args: argparse.Namespace) -> int:
    return _failures(_run, args)


def _convert_dsl(args: argparse.Namespace) -> int:
    from nlu_tui.cli import exitcodes
    from nlu_tui.cli.say import say
    from nlu_tui.dut.convert_dsl import convert_dsl
    from nlu_tui.errors import InputError

    missing = [
        flag
        for flag, value in (
            ("--dut-tests-dir", args.dut_tests_dir),
            ("--output-dir", args.output_dir),
            ("--dsl-mappings", args.dsl_mappings),
        )
        if value is None
    ]
    if missing:
        raise InputError(f"convert-dsl needs {', '.join(missing)}", field=missing[0].lstrip("-"))
    done = convert_dsl(args.dut_tests_dir, args.output_dir, args.dsl_mappings)
    for item in done:
        say(f"{item.source} -> {item.target} ({item.changed} command(s) changed)")
    say(f"Transformation complete. Output written to: {args.output_dir}")
    return exitcodes.OK


def _convert_e2e(args: argparse.Namespace) -> int:
    import asyncio

    from nlu_tui.cli import exitcodes
    from nlu_tui.cli.say import say
    from nlu_tui.dut.convert_e2e import convert_e2e
    from nlu_tui.errors import InputError

    if not args.engine:
        raise InputError(
            "convert-e2e runs the E2E tests: give --engine (one that converses and reports "
            "commands, e.g. rasa-pro:URL)",
            field="engine",
        )
    summary = asyncio.run(convert_e2e(args.path, args.output_folder, args.engine, _dsl(args)))
    for line in summary:
        say(line)
    return exitcodes.OK


def _dsl(args: argparse.Namespace) -> str:
    return "v2" if args.dsl == "auto" else str(args.dsl)


def _spec(args: argparse.Namespace) -> Any:
    from nlu_tui.dialogue_understanding.commands import CommandSpec
    from nlu_tui.dut.reader import load_custom_commands

    custom = load_custom_commands(args.additional_commands) if args.additional_commands else []
    return CommandSpec(args.dsl, list(args.remove_default_commands), custom)


def _run(args: argparse.Namespace) -> int:
    import asyncio
    import shutil
    import sys

    from nlu_tui.cli import exitcodes
    from nlu_tui.cli.say import say, say_error
    from nlu_tui.dut.result import console_lines, junit_xml
    from nlu_tui.dut.runner import DutRunSettings
    from nlu_tui.dut.service import DutRequest, run_dut
    from nlu_tui.errors import InputError
    from nlu_tui.fileio import atomic_write_text
    from nlu_tui.textsafe import inert

    paths = args.paths
    rerun = getattr(args, "rerun_failed", None)
    if not paths and (args.resume or rerun):  # the run's own test files, as `test e2e` does
        from nlu_tui.store.runstore import RunStore

        with RunStore() as store:
            stored = store.get_run(str(args.resume or rerun)).suite_path
        paths = [stored] if stored else []
    paths = paths or [DEFAULT_PATH]
    if len(paths) != 1:
        raise InputError("give one test file or folder", field="path")
    if args.concurrency < 1 or args.retries < 0 or args.timeout <= 0:
        raise InputError("concurrency >= 1, retries >= 0, timeout > 0", field="concurrency")
    request = DutRequest(
        path=Path(paths[0]),
        engine=args.engine,
        flows=args.flows,
        spec=_spec(args),
        settings=DutRunSettings(args.concurrency, args.retries, args.timeout),
        output_prompt=args.output_prompt,
        fail_on=args.fail_on,
        resume=args.resume,
        note=args.note,
        repeat=args.repeat,
        quarantine_flaky=args.quarantine_flaky,
        rerun_failed=rerun,
        no_cache=bool(getattr(args, "no_cache", False)),
    )
    if not request.path.exists():
        raise InputError("no such file or directory", request.path, field="path")
    graph = None
    if args.coverage_report:
        from nlu_tui.coverage_reports import prepare
        from nlu_tui.dut.service import find_flows

        graph = prepare(args.coverage_output_path, find_flows(request, None))
    from nlu_tui.dut.reader import removal_warnings

    for warning in removal_warnings(request.spec.removed):
        say(f"warning: {inert(warning)}", file=sys.stderr)

    def progress(result: Any, done: int, total: int) -> None:
        mark = "passed" if result.passed else "FAILED"
        say(f"[{done}/{total}] {mark} {inert(result.case.full_name)}", file=sys.stderr)

    try:
        outcome = asyncio.run(run_dut(request, on_case=progress))
    except KeyboardInterrupt:
        say_error("canceled; resume with --resume RUN (see `nlu-tui runs`)")
        return exitcodes.CANCELED
    width = shutil.get_terminal_size((80, 20)).columns
    for line in console_lines(outcome.report, output_prompt=args.output_prompt, width=width):
        say(inert(line))
    report = outcome.report
    if not args.no_output:
        import datetime  # here, not at the top: `nlu-tui --help` stays light

        target = args.output_file or Path(
            f"dialogue_understanding_test_{datetime.datetime.now():%Y%m%d-%H%M%S}.yml"
        )
        _write_yaml(target, report)
        say(f"Results written to '{target}'.")
    if args.json:
        import json

        atomic_write_text(args.json, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        say(f"wrote {args.json}", file=sys.stderr)
    if args.junit:
        atomic_write_text(args.junit, junit_xml(report, outcome.results, request.path.name))
        say(f"wrote {args.junit}", file=sys.stderr)
    if outcome.stability:
        from nlu_tui.repeats import item_stability_lines

        for line in item_stability_lines(outcome.stability):
            say(line)
    say(f"run {outcome.run.id} stored (nlu-tui runs)", file=sys.stderr)
    if outcome.cache is not None:
        cache = outcome.cache
        say(f"answer cache ({cache.profile}): {cache.hits} answered from it, {cache.misses} sent")
    from nlu_tui.reruns import MERGED, merged_item_line, parent_of

    parent = parent_of(outcome.run)
    if parent is not None and MERGED in outcome.run.summary:
        say(merged_item_line(parent, outcome.run.summary[MERGED]))
    if graph is not None:
        from nlu_tui.coverage_reports import dut_tested, summary_lines
        from nlu_tui.coverage_reports import report as coverage_files

        done = coverage_files(
            graph,
            ((r.passed, dut_tested(r.case, graph)) for r in outcome.results),
            args.coverage_output_path,
        )
        for line in summary_lines(done):
            say(inert(line))
        from nlu_tui.coverage_reports import keep_with_run
        from nlu_tui.store.runstore import RunStore

        with RunStore() as store:
            keep_with_run(store, outcome.run.id, done)
        say(f"Coverage data and result is written to {args.coverage_output_path}.")
    if args.diff_with:
        _print_diff(args.diff_with, outcome.run.id)
    if outcome.canceled:
        return exitcodes.CANCELED
    for failure in outcome.gate_failures:
        say_error(f"gate failed: {failure}")
    if outcome.gate_failures or outcome.failed_cases:
        return exitcodes.GATE_FAILED
    return exitcodes.OK


def _write_yaml(target: Path, report: dict[str, Any]) -> None:
    import yaml

    from nlu_tui.fileio import atomic_write_text

    atomic_write_text(target, yaml.safe_dump(report, allow_unicode=True, sort_keys=False))


def _print_diff(old_id: str, new_id: str) -> None:
    from nlu_tui.cli.say import say
    from nlu_tui.dut.kind import DUT_RUN
    from nlu_tui.dut.service import diff_runs
    from nlu_tui.errors import InputError
    from nlu_tui.store.runstore import RunStore

    with RunStore() as store:
        old, new = store.get_run(old_id), store.get_run(new_id)
        if old.kind != DUT_RUN:
            raise InputError(f"run {old_id} is a {old.kind} run, not dut", field="diff-with")
        say(f"--- diff with run {old_id} ---")
        for line in diff_runs(old.summary, new.summary):
            say(line)


def show_dut_run(run: Any, fmt: str) -> int:
    """``nlu-tui show RUN`` for a DUT run: the console report, or the report as JSON."""
    import json

    from nlu_tui.cli import exitcodes
    from nlu_tui.cli.say import say, write_json
    from nlu_tui.dut.result import console_lines
    from nlu_tui.textsafe import inert

    summary = dict(run.summary)
    if fmt == "json":
        write_json(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
        return exitcodes.OK
    say(f"run {run.id}: {inert(run.suite_name)} on {inert(run.engine_name)} ({run.status})")
    if "command_metrics" not in summary:
        say("no figures stored (the run ended before any test case finished)")
        return exitcodes.OK
    summary.setdefault("failed_test_steps", [])
    for line in console_lines(summary):
        say(inert(line))
    if summary.get("stability"):
        from nlu_tui.repeats import item_stability_lines

        for line in item_stability_lines(summary["stability"]):
            say(line)
    return exitcodes.OK
