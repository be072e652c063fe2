"""``nlu-tui run``, ``runs``, ``show``, ``note`` and ``delete``: runs without the workbench.

``run`` exits 0 when the run finished (with or without warnings) and every gate passed, 1 when a
regression gate or ``--fail-on`` condition failed, 2 for bad input (nothing is run or written),
3 when the run failed, 130 when canceled with Ctrl-C (results so far are kept; ``--resume``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.engine_options import add_strict_permissions
from nlu_tui.cli.say import say, say_warning, write_json, write_machine

if TYPE_CHECKING:
    from nlu_tui.runservice import RunJob, RunOutcome, RunRequest
    from nlu_tui.store.runstore import RunStore

FAIL_ON_HELP = (
    "comma-separated conditions that make the exit code 1: errors, fp, fn, any (any FP, FN or "
    "error), or METRIC<VALUE with METRIC one of f1, precision, recall, intent, entity "
    "(e.g. 'errors,f1<0.9')"
)
SHOW_FORMATS_CHOICES = ("summary", "json", "csv", "junit", "rasa", "nludevops", "html", "markdown")
DEFAULT_RUNS_SHOWN = 50
"""``nlu-tui runs`` lists the latest 50 runs unless given --all or --limit N."""


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``run``, ``runs``, ``show``, ``note`` and ``delete`` to the parser."""
    p = sub.add_parser(
        "run",
        help="run a suite against an engine",
        description=(
            "Run SUITE against an engine and store the results. Exit codes: 0 ran (every gate "
            "passed), 1 a gate or --fail-on condition failed, 2 bad input, 3 the run failed, "
            "130 canceled (resume it with --resume RUN_ID)."
        ),
    )
    p.add_argument("suite", nargs="?", type=Path, metavar="SUITE", help="suite file (any format)")
    p.add_argument(
        "--engine",
        "-e",
        metavar="E",
        action="append",
        help="profile name, embedded:PATH, rasa:URL or kore-batch:PROFILE; give it 2 to 8 "
        "times to run the suite on each engine and compare them side by side (one run each, "
        "linked as a comparison: nlu-tui show CMP_ID)",
    )
    add_strict_permissions(p)
    p.add_argument("--stage", choices=("development", "published"), default=None)
    p.add_argument("--concurrency", type=int, metavar="N", help="requests in flight")
    p.add_argument("--rate-limit", type=float, metavar="R", help="at most R requests a second")
    p.add_argument("--timeout", type=float, metavar="S", help="seconds per attempt")
    p.add_argument("--retries", type=int, metavar="N", help="retries on 429, 5xx, resets")
    p.add_argument(
        "--max-raw-bytes",
        type=int,
        metavar="N",
        help="store engine answers above N bytes cut, with a marker (default 65536)",
    )
    p.add_argument(
        "--max-error-rate",
        type=float,
        metavar="X",
        default=0.5,
        help="stop and fail when more than this share of cases errored (default 0.5)",
    )
    p.add_argument("--note", default="", metavar="TEXT", help="why this run (<= 1,024 chars)")
    p.add_argument("--json", type=Path, metavar="F", help="write the JSON report")
    p.add_argument("--csv", type=Path, metavar="F", help="write the Kore.ai-style CSV report")
    p.add_argument("--junit", type=Path, metavar="F", help="write JUnit XML")
    p.add_argument(
        "--rasa",
        type=Path,
        metavar="DIR",
        help="write what `rasa test nlu` writes (intent and per-extractor entity reports) into DIR",
    )
    _rasa_switches(p)
    p.add_argument(
        "--baseline",
        metavar="RUN_ID|statistics.json",
        help="compare with a stored run or an NLU.DevOps statistics.json",
    )
    p.add_argument(
        "--thresholds", type=Path, metavar="F", help="NLU.DevOps test settings with thresholds"
    )
    p.add_argument("--fail-on", metavar="COND", help=FAIL_ON_HELP)
    p.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help="send each case N times and report how stable the answers are: agreement per "
        "case, stability per intent, the flaky cases (default 1)",
    )
    p.add_argument(
        "--quarantine-flaky",
        action="store_true",
        help="with --repeat: leave the flaky cases out of --fail-on and the gates",
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the profile's answer cache (cache: true) in this run",
    )
    p.add_argument(
        "--cache-repeats",
        action="store_true",
        help="with --repeat: answer repeats from the answer cache too (by default a repeated "
        "run sends every attempt)",
    )
    p.add_argument(
        "--store-retry",
        type=float,
        metavar="S",
        help="when the run store goes away mid-run, keep the results not yet written and retry "
        "for S seconds (default 60) before the run ends interrupted (resume it with --resume)",
    )
    p.add_argument("--resume", metavar="RUN_ID", help="finish a canceled or interrupted run")
    p.add_argument(
        "--rerun-failed",
        metavar="RUN_ID",
        help="send only the failed and errored cases of RUN_ID again (its suite, engine and "
        "version unless given), as a child run; prints the merged result (RUN_ID's passes and "
        "the child's answers), which --fail-on and the gates judge",
    )
    p.add_argument(
        "--shard",
        metavar="I/N",
        help="send only shard I of N (1 <= I <= N) of the shared run --run-id (or --resume): "
        "each case is in one shard, by a stable hash of its id; the last shard finishes the run",
    )
    p.add_argument(
        "--run-id",
        metavar="ID",
        help="with --shard: the id of the sharded run, the same in every shard",
    )
    p.add_argument(
        "--finish",
        metavar="RUN_ID",
        help="end a sharded run whose shards are all in: summary, gates and reports "
        "(exit 2 when cases are still missing)",
    )
    p.add_argument(
        "--robustness",
        action="store_true",
        help="run SUITE, then a perturbed copy of it (--typos, --case, --punctuation, "
        "--drop-words, --seed; default: all four) as a second run linked to the first, and "
        "print the F1 change per intent and the cases that flip",
    )
    from nlu_tui.cli.perturb import add_perturbation_options

    add_perturbation_options(p, seed_default=0)
    p.set_defaults(handler=cmd_run)

    p = sub.add_parser(
        "runs",
        help="list stored runs",
        description=f"List stored runs, newest first (the latest {DEFAULT_RUNS_SHOWN} unless "
        "--all or --limit N).",
    )
    p.add_argument(
        "suite", nargs="?", metavar="SUITE", help="only runs of this suite (path or name)"
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help=f"show the latest N runs (default {DEFAULT_RUNS_SHOWN})",
    )
    shown.add_argument("--all", action="store_true", help="show every run")
    p.set_defaults(handler=cmd_runs)

    p = sub.add_parser("show", help="show or export a stored run or comparison")
    p.add_argument(
        "run_id",
        metavar="RUN_ID",
        help="a run id (or a unique prefix), or a comparison id (cmp-...: engines side by "
        "side, shown as summary, json, csv or html)",
    )
    p.add_argument("--format", "-f", default="summary", choices=SHOW_FORMATS_CHOICES)
    p.add_argument("-o", "--output", type=Path, metavar="F", help="write here (rasa: a folder)")
    p.add_argument(
        "--charts",
        action="store_true",
        help="draw the Rasa export's plots in the terminal (confusion matrices, histograms)",
    )
    p.add_argument(
        "--diff-with",
        metavar="RUN_ID",
        help="-f markdown: also list what broke and was fixed since this baseline run",
    )
    _rasa_switches(p)
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser(
        "diff",
        help="what changed between two runs of a suite (broke, fixed, moved)",
        description="Compare an older run (BEFORE) with a newer one (AFTER) of the same suite, "
        "as the workbench's diff screen does: cases that broke, got fixed, changed intent or "
        "moved confidence, by case id. Two runs with the same outcomes say 'no changes'. "
        "Runs of E2E tests, test stories, DUT tests or simulated users are compared by test "
        "case (broke, fixed, still failing; DUT: command F1; simulate: pass rates).",
    )
    p.add_argument("before", metavar="BEFORE", help="the older run's id (or a unique prefix)")
    p.add_argument("after", metavar="AFTER", help="the newer run's id (or a unique prefix)")
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        metavar="X",
        help="report a confidence change of at least X (0..1, default 0.1)",
    )
    p.set_defaults(handler=cmd_diff)

    p = sub.add_parser("note", help="set the note of a run (also while it runs)")
    p.add_argument("run_id", metavar="RUN_ID")
    p.add_argument("text", metavar="TEXT", help="up to 1,024 characters ('' clears it)")
    p.set_defaults(handler=cmd_note)

    p = sub.add_parser("delete", help="delete a stored run and its results")
    p.add_argument("run_id", metavar="RUN_ID")
    p.set_defaults(handler=cmd_delete)


# --- helpers ------------------------------------------------------------------------------------


def _store() -> RunStore:
    from nlu_tui.store.runstore import RunStore

    store = RunStore()
    store.mark_interrupted()
    return store


def _rasa_switches(p: argparse.ArgumentParser) -> None:
    """``rasa test nlu``'s own switches for the Rasa reports."""
    p.add_argument(
        "--rasa-successes",
        action="store_true",
        help="rasa: also intent_successes.json and <Extractor>_successes.json (rasa --successes)",
    )
    p.add_argument(
        "--rasa-no-errors",
        action="store_true",
        help="rasa: no intent_errors.json nor <Extractor>_errors.json (rasa --no-errors)",
    )
    p.add_argument(
        "--rasa-no-plot",
        action="store_true",
        help="rasa: no confusion matrix nor histogram PNGs (rasa --no-plot)",
    )


# --- run ----------------------------------------------------------------------------------------


def _request(args: argparse.Namespace) -> RunRequest:
    from nlu_tui.runservice import RunRequest

    reports = {
        fmt: flag
        for flag, fmt in (
            (args.json, "json"),
            (args.csv, "csv"),
            (args.junit, "junit"),
            (args.rasa, "rasa"),
        )
        if flag is not None
    }
    engines = args.engine or []
    return RunRequest(
        suite_path=args.suite,
        engine=engines[0] if len(engines) == 1 else None,
        stage=args.stage,
        note=args.note,
        resume=args.resume,
        rerun_failed=args.rerun_failed,
        store_retry=args.store_retry,
        no_cache=args.no_cache,
        cache_repeats=args.cache_repeats,
        max_error_rate=args.max_error_rate,
        concurrency=args.concurrency,
        rate_limit=args.rate_limit,
        timeout=args.timeout,
        retries=args.retries,
        max_raw_bytes=args.max_raw_bytes,
        reports=reports,
        fail_on=args.fail_on,
        baseline=args.baseline,
        thresholds=args.thresholds,
        rasa_successes=args.rasa_successes,
        rasa_errors=not args.rasa_no_errors,
        repeat=args.repeat,
        quarantine_flaky=args.quarantine_flaky,
        rasa_plots=not args.rasa_no_plot,
        shard=args.shard,
        run_id=args.run_id,
        finish=args.finish,
    )


def _quiet_collector() -> None:
    """Keep Python's cyclic collector out of the run's way (this process ends with the run).

    Measured on 20,000 cases against a 20 ms server (bench/bench_runner_throughput.py), the
    collector took 0.57 s of an 11 s run, each pass stalling every request in flight: about
    500 young passes (an answer allocates a few dozen containers, nearly all freed by
    reference counting at once, yet the default threshold of 700 starts a pass every ~20
    answers, each walking the state of the 50 requests in flight), and three full passes of
    0.1 s that walked the suite's cases again. The suite and the run's cases, which live
    until the process exits, are parked outside the collector (``gc.freeze``), and young
    passes start every 5,000 net allocations: 0.02 s in all, and cycles are still collected.
    """
    import gc

    from nlu_tui.gcpause import park_long_lived

    park_long_lived()
    threshold0, threshold1, threshold2 = gc.get_threshold()
    gc.set_threshold(max(threshold0, 5000), threshold1, threshold2)


def cmd_run(args: argparse.Namespace) -> int:
    """Run (or resume) through the run service; this face shows progress and maps exit codes."""
    from nlu_tui.runner.client import http_stack_needed, preload_http
    from nlu_tui.runservice import check_request, read_before_the_store

    if len(args.engine or []) > 1:
        if args.robustness:
            from nlu_tui.errors import InputError

            raise InputError("compare engines, or test robustness: not both", field="--robustness")
        return _run_comparison(args, list(args.engine))
    if args.rerun_failed and args.suite is None:
        kind = _store().get_run(args.rerun_failed).kind
        if kind != "suite":
            return _rerun_with_own_command(args, kind)
    request = _request(args)
    if args.robustness:
        return _run_robustness(args, request)
    _no_perturbation_without_robustness(args)
    check_request(request)  # before the store is opened: bad input changes nothing
    if http_stack_needed(request.engine):  # not for the embedded engine, nor plain http://
        preload_http()  # in a thread, while the suite is read and the run stored
    request = read_before_the_store(request, warn=say_warning)  # still no store: bad input
    return _open_and_execute(args, request)[0]


def _no_perturbation_without_robustness(args: argparse.Namespace) -> None:
    from nlu_tui.errors import InputError

    for flag, given in (
        ("--typos", args.typos is not None),
        ("--case", args.case),
        ("--punctuation", args.punctuation),
        ("--drop-words", args.drop_words is not None),
    ):
        if given:
            raise InputError("goes with --robustness", field=flag)


DEFAULT_ROBUSTNESS = {"typos": 0.1, "case": True, "punctuation": True, "drop_words": 0.05}
"""``run --robustness`` without perturbation switches: all four."""


def _run_robustness(args: argparse.Namespace, request: Any) -> int:
    """``run --robustness``: the suite, then its perturbed copy linked to that run (two runs
    through the one kernel), then the robustness report. The exit code is the worse one."""
    from dataclasses import replace

    from nlu_tui.cli.perturb import perturb_options
    from nlu_tui.errors import InputError
    from nlu_tui.perturbation import perturb_suite
    from nlu_tui.robustness import run_robustness
    from nlu_tui.runner.client import http_stack_needed, preload_http
    from nlu_tui.runservice import check_request, read_before_the_store
    from nlu_tui.scoring.robustness import robustness_lines

    for flag, given in (
        ("--resume", args.resume),
        ("--rerun-failed", args.rerun_failed),
        ("--shard", args.shard),
        ("--finish", args.finish),
        ("--baseline", args.baseline),
    ):
        if given:
            raise InputError("cannot go with --robustness", field=flag)
    if not (args.typos or args.case or args.punctuation or args.drop_words):
        args = argparse.Namespace(**{**vars(args), **DEFAULT_ROBUSTNESS})
    options = perturb_options(args)
    check_request(request)
    if http_stack_needed(request.engine):
        preload_http()
    request = read_before_the_store(request, warn=say_warning)
    if request.suite is None:
        raise InputError("give a SUITE file", field="SUITE")
    perturbed = perturb_suite(request.suite, options)
    for note in perturbed.notes:
        say_warning(note)
    perturbed.suite.path = None  # held in memory; `nlu-tui perturb` writes it to a file
    code, clean_id = _open_and_execute(args, request)
    if clean_id is None or code not in (exitcodes.OK, exitcodes.GATE_FAILED):
        return code
    reports = {fmt: _perturbed_path(path) for fmt, path in request.reports.items()}
    second = replace(
        request, suite=perturbed.suite, suite_path=None, robustness_of=clean_id, reports=reports
    )
    code2, perturbed_id = _open_and_execute(args, second)
    if perturbed_id is None or code2 not in (exitcodes.OK, exitcodes.GATE_FAILED):
        return code2
    store = _store()
    report = run_robustness(store, store.get_run(perturbed_id))
    assert report is not None
    say("\n".join(robustness_lines(report)))
    return max(code, code2)


def _with_robustness(store: Any, run: Any, text: str) -> str:
    """The JSON report with ``robustness`` added when the run is one of a clean/perturbed pair."""
    import json

    from nlu_tui.robustness import run_robustness

    report = run_robustness(store, run)
    if report is None:
        return text
    data = json.loads(text)
    data["robustness"] = report.as_dict()
    return json.dumps(data, ensure_ascii=False) + ("\n" if text.endswith("\n") else "")


def _perturbed_path(path: Path) -> Path:
    """Where the perturbed run's report goes: ``out.json`` → ``out.perturbed.json``."""
    if path.suffix:
        return path.with_name(f"{path.stem}.perturbed{path.suffix}")
    return path.with_name(path.name + ".perturbed")


def _open_and_execute(args: argparse.Namespace, request: Any) -> tuple[int, str | None]:
    """Open and run one request, showing progress; (exit code, run id)."""
    from nlu_tui.runservice import open_run

    job = open_run(request, _store(), warn=say_warning)
    _quiet_collector()
    outcome = _execute(job)
    return _exit_code(job, outcome, args), outcome.record.id


def _execute(job: RunJob) -> RunOutcome:
    """Run an opened job with a progress view; Ctrl-C or SIGTERM cancels it (results kept)."""
    import asyncio
    import signal

    from nlu_tui.cli.run_output import ProgressView, merged_line, run_line

    view = ProgressView(sys.stdout)
    job.on_progress = view
    say(f"run {job.run_id}: {job.record.suite_name} on {job.engine_name} [{job.stage}]", flush=True)
    if job.plan.rerun_of is not None:
        parent = job.plan.rerun_of.id
        say(f"rerun of {parent}: {job.record.total} failed and errored cases", flush=True)

    async def main() -> RunOutcome:
        loop = asyncio.get_running_loop()
        stopped = {"n": 0}

        def on_signal() -> None:
            stopped["n"] += 1
            if stopped["n"] == 1:
                print("\ncanceling (results so far are kept)...", file=sys.stderr, flush=True)
            job.cancel()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal)
        try:
            with view:
                final = await job.runner.execute()
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
        say(job.redact(run_line(final)))
        cache = getattr(getattr(job.runner, "kernel", None), "cache", None)
        if cache is not None:
            say(
                f"answer cache ({cache.profile}): {cache.hits} answered from it, {cache.misses} sent"
            )
        from nlu_tui.runner.kore_batch import disagreement_lines

        for line in disagreement_lines(final):  # kore-batch: Kore.ai's verdict and ours
            say(job.redact(line))
        outcome = job.finish(final)
        if outcome.merged is not None and job.plan.rerun_of is not None:
            say(merged_line(job.plan.rerun_of.id, outcome.merged, outcome.merged_total))
        return outcome

    return asyncio.run(main())


def _exit_code(job: RunJob, outcome: RunOutcome, args: argparse.Namespace) -> int:
    """What the run's end means for the exit code (and the lines that say why)."""
    from nlu_tui.model import RunStatus

    if outcome.stability is not None and outcome.stability.cases:  # none: nothing was run
        from nlu_tui.scoring.stability import stability_lines

        cases = job.store.load_cases(job.run_id) if job.resumed else job.plan.suite.cases
        said = {c.id: c.utterance for c in cases}
        lines = stability_lines(
            outcome.stability, said, quarantined=job.plan.request.quarantine_flaky
        )
        say(job.redact("\n".join(lines)))
    shard = f" --shard {args.shard}" if args.shard else ""
    if outcome.status == RunStatus.CANCELED:
        print(f"resume with: nlu-tui run --resume {outcome.record.id}{shard}", file=sys.stderr)
        return exitcodes.CANCELED
    if outcome.status == RunStatus.INTERRUPTED:  # the run store went away and stayed away
        print(
            f"run {outcome.record.id} interrupted: {outcome.record.reason}\n"
            f"resume with: nlu-tui run --resume {outcome.record.id}{shard}",
            file=sys.stderr,
        )
        return exitcodes.RUN_FAILED
    if outcome.waiting:
        record = outcome.record
        if args.finish:
            from nlu_tui.errors import InputError

            raise InputError(
                f"run {record.id}: {record.missing} of {record.total} cases are not in yet; "
                f"resume the missing shards with nlu-tui run --resume {record.id} --shard I/N",
                field="--finish",
            )
        say(
            f"shard {args.shard} done; run {record.id} has {record.done} of {record.total} "
            "cases: the last shard finishes it (or: nlu-tui run --finish "
            f"{record.id})"
        )
        return exitcodes.OK
    if not outcome.completed:
        return exitcodes.RUN_FAILED
    for gate in outcome.gates:
        if gate.passed:  # a failed gate is one of the problems, printed once on stderr
            say(gate.description)
    for problem in outcome.problems:
        say(f"FAIL {problem}", file=sys.stderr)
    return exitcodes.GATE_FAILED if outcome.problems else exitcodes.OK


RERUN_COMMANDS = {"e2e": "e2e", "stories": "stories", "dut": "du"}
"""The kinds of run of items and the ``nlu-tui test`` command that reruns their failures."""


def _rerun_with_own_command(args: argparse.Namespace, kind: str) -> int:
    """``run --rerun-failed RUN`` of a conversation or DUT run: its own command does it
    (``nlu-tui test e2e|stories|du --rerun-failed RUN [--engine E]``), with its defaults."""
    from nlu_tui.errors import InputError

    command = RERUN_COMMANDS.get(kind)
    if command is None:
        raise InputError(
            f"run {args.rerun_failed} is a {kind} run: it cannot be rerun", field="--rerun-failed"
        )
    given = [
        flag
        for flag, value in (
            ("--resume", args.resume),
            ("--shard", args.shard),
            ("--repeat", args.repeat),
            ("--fail-on", args.fail_on),
            ("--json", args.json),
            ("--junit", args.junit),
        )
        if value
    ]
    if given:
        raise InputError(
            f"run {args.rerun_failed} is a {kind} run: give {given[0]} to nlu-tui test "
            f"{command} --rerun-failed {args.rerun_failed}",
            field=given[0],
        )
    parser = argparse.ArgumentParser(prog="nlu-tui test")
    kinds = parser.add_subparsers()
    if command == "du":
        from nlu_tui.cli.du import register
    elif command == "e2e":
        from nlu_tui.cli.e2e import register
    else:
        from nlu_tui.cli.stories import register
    register(kinds)
    argv = [command, "--rerun-failed", args.rerun_failed]
    if args.engine:
        argv += ["--engine", args.engine[0]]
    if args.note:
        argv += ["--note", args.note]
    parsed = parser.parse_args(argv)
    code: int = parsed.handler(parsed)
    return code


def _run_comparison(args: argparse.Namespace, engines: list[str]) -> int:
    """``run SUITE --engine a --engine b ...``: every engine checked first (bad input: nothing
    runs or is stored), then one ordinary run per engine, in the order given, each added to
    one stored comparison as it starts; the comparison table at the end. Gates and
    ``--fail-on`` judge each run; the exit code is the worst run's (130 canceled > 3 failed >
    1 a gate failed > 0)."""
    from dataclasses import replace

    from nlu_tui.engine_compare import check_engines, compare_stored
    from nlu_tui.engine_compare_report import render_text
    from nlu_tui.model import RunStatus
    from nlu_tui.runner.client import http_stack_needed, preload_http
    from nlu_tui.runservice import (
        check_request,
        open_run,
        read_before_the_store,
        resolve_engine_spec,
    )
    from nlu_tui.store.comparisons import add_run, create_comparison, get_comparison

    base = _request(args)
    check_engines(engines, base)
    requests = [replace(base, engine=spec) for spec in engines]
    for request in requests:
        check_request(request)
    if any(http_stack_needed(request.engine) for request in requests):
        preload_http()
    first = read_before_the_store(requests[0], warn=say_warning)  # the suite, read once
    requests = [first, *(replace(r, suite=first.suite) for r in requests[1:])]
    for request in requests[1:]:
        resolve_engine_spec(request)  # every engine is checked before the first run
    suite = first.suite
    assert suite is not None
    store = _store()
    comparison = create_comparison(store, suite.name, suite.path)
    say(f"comparison {comparison.id}: {suite.name} on {len(engines)} engines", flush=True)
    _quiet_collector()
    worst = exitcodes.OK
    for request in requests:
        job = open_run(request, store, warn=say_warning)
        add_run(store, comparison.id, job.run_id)
        outcome = _execute(job)
        if outcome.status == RunStatus.CANCELED:
            worst = exitcodes.CANCELED
            break
        if not outcome.completed:
            worst = exitcodes.RUN_FAILED
            continue
        for gate in outcome.gates:
            if gate.passed:
                say(f"{job.engine_name}: {gate.description}")
        for problem in outcome.problems:
            say(f"FAIL {job.engine_name}: {problem}", file=sys.stderr)
        if outcome.problems and worst == exitcodes.OK:
            worst = exitcodes.GATE_FAILED
    result = compare_stored(store, get_comparison(store, comparison.id))
    say("")
    say(render_text(result), end="")
    if worst == exitcodes.CANCELED:
        unfinished = [
            c.run_id for c in result.engines if c.status in ("canceled", "interrupted", "failed")
        ]
        for run_id in unfinished:
            print(f"resume with: nlu-tui run --resume {run_id}", file=sys.stderr)
        missing = len(engines) - len(result.engines)
        if missing:
            print(f"{missing} engine(s) not run", file=sys.stderr)
    say(f"show it again: nlu-tui show {comparison.id} [-f html|json|csv]")
    return worst


# --- runs, show, note, delete -------------------------------------------------------------------


def _names_a_missing_file(suite: str) -> bool:
    """A SUITE that is written as a file (a folder or a file extension) but does not exist:
    a typo to report, not a suite without runs."""
    looks_like_file = any(sep in suite for sep in ("/", "\\")) or Path(suite).suffix.lower() in (
        ".yaml",
        ".yml",
        ".json",
        ".csv",
    )
    return looks_like_file and not Path(suite).expanduser().exists()


def cmd_runs(args: argparse.Namespace) -> int:
    import json

    from nlu_tui.cli.run_output import print_runs_table, runs_json, shown_text
    from nlu_tui.errors import InputError

    if args.limit is not None and args.limit < 1:
        raise InputError("must be at least 1", field="--limit")
    limit = None if args.all else (args.limit or DEFAULT_RUNS_SHOWN)
    store = _store()
    runs = store.list_runs(args.suite, limit=limit)
    if not runs and args.suite and _names_a_missing_file(args.suite):
        raise InputError("no such file, and no stored run names it", path=args.suite)
    # Only count when the page is full: fewer rows than the limit are all there is.
    total = store.count_runs(args.suite) if limit is not None and len(runs) == limit else len(runs)
    if args.json:
        write_json(json.dumps(runs_json(runs), ensure_ascii=False, indent=2) + "\n")
    elif runs:
        print_runs_table(runs)
    else:
        say("no runs yet" + (f" of {args.suite}" if args.suite else ""))
    if total > len(runs):
        # On stderr with --json, so that stdout stays one JSON document.
        say(shown_text(len(runs), total), file=sys.stderr if args.json else sys.stdout)
    return exitcodes.OK


def cmd_show(args: argparse.Namespace) -> int:
    from nlu_tui.cli.run_output import render, write
    from nlu_tui.repeats import run_stability
    from nlu_tui.run_pages import PAGE_KINDS  # here, not at the top: keeps --help light

    store = _store()
    from nlu_tui.store.comparisons import is_comparison_id

    if is_comparison_id(args.run_id):
        return _show_comparison(store, args)
    run = store.get_run(args.run_id)
    if run.kind in PAGE_KINDS and args.format in ("html", "markdown") and not args.charts:
        return _show_page(store, run, args.format, args.output, args.diff_with)
    if run.kind != "suite" and (
        args.output is not None or args.charts or args.format not in ("summary", "json")
    ):
        from nlu_tui.errors import InputError

        asked = "--charts" if args.charts else ("-o" if args.output is not None else "-f")
        raise InputError(
            f"run {run.id} is a {run.kind} run: show prints its report, or -f json"
            + (", -f html or -f markdown (-o FILE)" if run.kind in PAGE_KINDS else "")
            + "; the report formats (-f csv/junit/rasa/nludevops) and --charts are for "
            "batch-test runs",
            field=asked,
        )
    if run.kind in ("e2e", "stories"):  # conversation tests: their own report
        from nlu_tui.cli.conversation_run import show_run

        return show_run(run, list(store.load_items(run.id)), args.format)
    if run.kind == "simulate":  # simulated conversations: pass rates per scenario
        from nlu_tui.cli.simulate import show_run as show_simulate_run

        return show_simulate_run(run, list(store.load_items(run.id)), args.format)
    if run.kind == "dut":  # dialogue understanding tests: Rasa Pro's report
        from nlu_tui.cli.du import show_dut_run

        return show_dut_run(run, args.format)
    if run.kind == "nlu-comparison" and args.format == "summary" and args.output is None:
        # a pipeline comparison stores models, not cases: its F1 table is its result
        say(comparison_summary(run), end="")
        return exitcodes.OK
    if args.diff_with is not None and args.format != "markdown":
        from nlu_tui.errors import InputError

        raise InputError("--diff-with goes with -f markdown", field="--diff-with")
    rows = store.load_results(run.id)
    stability = run_stability(store, run, rows)
    if args.format == "markdown":
        return _show_markdown(store, run, rows, args.diff_with, args.output)
    if args.charts:
        from nlu_tui.cli.run_output import print_charts

        print_charts(run, rows)
        return exitcodes.OK
    if args.output is not None:
        from nlu_tui.reports.rasa_report import RasaOptions

        rasa = RasaOptions(
            successes=args.rasa_successes,
            errors=not args.rasa_no_errors,
            plots=not args.rasa_no_plot,
        )
        for path in write(args.format, run, rows, args.output, rasa=rasa, stability=stability):
            say(f"wrote {path}", file=sys.stderr)
    elif args.format == "summary":
        say(render(args.format, run, rows, stability), end="")
        from nlu_tui.reruns import merged_summary, parent_of

        parent = parent_of(run)
        if parent is not None:  # a rerun: what the suite now scores
            from nlu_tui.cli.run_output import merged_lines

            say("\n".join(merged_lines(parent, merged_summary(store, run))))
        from nlu_tui.evaluation.text import stored_lines

        for line in stored_lines(run):  # a `test nlu` run: its own figures too
            say(line)
        from nlu_tui.robustness import run_robustness

        robustness = run_robustness(store, run)
        if robustness is not None:  # a run of a perturbed suite, or of its original
            from nlu_tui.scoring.robustness import robustness_lines

            say("\n".join(robustness_lines(robustness)))
    elif args.format in ("json", "rasa", "nludevops"):
        text = render(args.format, run, rows, stability)
        if args.format == "json":
            text = _with_robustness(store, run, text)
        write_json(text)
        if args.format == "rasa":
            say(
                "(intent_report.json only; -o DIR writes the whole `rasa test nlu` folder: "
                "entity and response reports, errors, plots)",
                file=sys.stderr,
            )
    else:
        write_machine(render(args.format, run, rows, stability))
    return exitcodes.OK


def _show_comparison(store: RunStore, args: argparse.Namespace) -> int:
    """``show CMP_ID [-f summary|json|csv|html] [-o F]``: engines side by side."""
    from nlu_tui.engine_compare import compare_stored
    from nlu_tui.engine_compare_report import FORMATS, render
    from nlu_tui.errors import InputError
    from nlu_tui.store.comparisons import get_comparison

    if args.format not in FORMATS:
        raise InputError(
            f"a comparison is shown as {', '.join(FORMATS)}; -f {args.format} is for one run "
            "(nlu-tui show RUN_ID)",
            field="-f",
        )
    if args.charts or args.diff_with is not None:
        raise InputError(
            "--charts and --diff-with are for one run",
            field="--charts" if args.charts else "--diff-with",
        )
    result = compare_stored(store, get_comparison(store, args.run_id))
    text = render(args.format, result)
    if args.output is not None:
        from nlu_tui.fileio import atomic_write_text

        atomic_write_text(args.output, text)
        say(f"wrote {args.output}", file=sys.stderr)
    elif args.format == "json":
        write_json(text)
    elif args.format == "summary":
        say(text, end="")
    else:
        write_machine(text)
    return exitcodes.OK


def _show_page(
    store: RunStore, run: Any, fmt: str, output: Path | None, baseline: str | None
) -> int:
    """``show -f html|markdown`` of a conversation or DUT run: printed, or written to FILE
    (:mod:`nlu_tui.run_pages`, as the workbench's Export writes it)."""
    from nlu_tui.run_pages import page_text, write_page

    if output is None:
        text = page_text(store, run, fmt, baseline)
        write_machine(text if text.endswith("\n") else text + "\n")
        return exitcodes.OK
    write_page(store, run.id, fmt, output, baseline)
    say(f"wrote {output}", file=sys.stderr)
    return exitcodes.OK


def _show_markdown(
    store: RunStore, run: Any, rows: list[Any], baseline: str | None, output: Path | None
) -> int:
    """``show -f markdown [--diff-with RUN]``: the pull-request summary, printed or written."""
    from nlu_tui.reports.common import RunMeta
    from nlu_tui.reports.markdown_report import render_markdown

    diff = None
    if baseline is not None:
        from nlu_tui.rundiff import DEFAULT_CONFIDENCE_THRESHOLD, compute_diff

        before = store.get_run(baseline)  # an unknown id: one line, exit 2
        if before.kind != "suite":
            from nlu_tui.errors import InputError

            raise InputError(
                f"run {before.id} is a {before.kind} run; --diff-with takes a batch-test run",
                field="--diff-with",
            )
        diff = compute_diff(store, before.id, run.id, DEFAULT_CONFIDENCE_THRESHOLD, None).diff
        baseline = before.id
    text = render_markdown(RunMeta.from_record(run), list(rows), diff=diff, baseline=baseline)
    if output is None:
        write_machine(text)
        return exitcodes.OK
    from nlu_tui.fileio import atomic_write_text

    atomic_write_text(output, text)
    say(f"wrote {output}", file=sys.stderr)
    return exitcodes.OK


def comparison_summary(run: Any) -> str:
    """``show`` of a ``test nlu`` comparison: what ran, how it ended, the F1 table."""
    from nlu_tui.cli.run_output import header_lines
    from nlu_tui.evaluation.text import stored_lines

    lines = [
        *header_lines(run, reason=" ({})"),
        f"models     {run.done} of {run.total} trained and tested",
    ]
    if run.note:
        lines.append(f"note       {run.note.splitlines()[0]}")
    return "\n".join([*lines, *stored_lines(run)]) + "\n"


def cmd_diff(args: argparse.Namespace) -> int:
    """``nlu-tui diff BEFORE AFTER``: the diff screen's figures, as lines."""
    from nlu_tui.errors import InputError
    from nlu_tui.rundiff import DEFAULT_CONFIDENCE_THRESHOLD, NO_CHANGES, compute_diff
    from nlu_tui.textsafe import inert

    threshold = DEFAULT_CONFIDENCE_THRESHOLD if args.threshold is None else args.threshold
    if not 0 <= threshold <= 1:
        raise InputError("must be a number from 0 to 1", field="--threshold")
    store = _store()
    runs = [store.get_run(args.before), store.get_run(args.after)]  # unknown: one line, exit 2
    if runs[0].kind != runs[1].kind:
        raise InputError(
            f"run {runs[0].id} is a {runs[0].kind} run and run {runs[1].id} a {runs[1].kind} "
            "run; diff compares two runs of one kind",
            field="RUN_ID",
        )
    if runs[0].kind in ITEM_DIFF_KINDS:
        return _diff_item_runs(store, runs[0], runs[1])
    for run in runs:
        if run.kind != "suite":
            raise InputError(
                f"run {run.id} is a {run.kind} run; diff compares runs of test cases "
                f"({', '.join(('suite', *ITEM_DIFF_KINDS))})",
                field="RUN_ID",
            )
    result = compute_diff(store, runs[0].id, runs[1].id, threshold, None)
    diff = result.diff
    f1 = [r.summary.f1 for r in (result.before, result.after)]
    for label, run, value in zip(("before", "after "), runs, f1, strict=True):
        name = inert(f"{run.suite_name} on {run.engine_name}", newlines=False)
        say(f"{label}  {run.id}  {name}  F1 {value:.4f}")
    if diff.unchanged:
        say(NO_CHANGES)
        return exitcodes.OK
    counts = ", ".join(f"{kind.replace('_', ' ')} {n}" for kind, n in diff.counts().items())
    say(counts + f" (confidence threshold {diff.threshold:g})")
    for change in diff.changes:
        b, a = change.before, change.after
        say(
            inert(
                f"  {change.kind.value:<18} {change.case_id}  {change.utterance!r}  "
                f"{b.result.value} {b.matched_intent or '-'} -> "
                f"{a.result.value} {a.matched_intent or '-'}",
                newlines=False,
            )
        )
    if diff.only_before or diff.only_after:
        say(f"cases only in AFTER: {len(diff.only_after)}, only in BEFORE: {len(diff.only_before)}")
    return exitcodes.OK


ITEM_DIFF_KINDS = ("e2e", "stories", "dut", "simulate")
"""Kinds of run whose items ``diff`` pairs by id (as ``test e2e|stories --diff-with``,
``test du --diff-with`` and ``simulate --diff-with`` do)."""


def _diff_item_runs(store: Any, before: Any, after: Any) -> int:
    """``nlu-tui diff`` of two runs of items of one kind: the lines its own ``--diff-with``
    prints (test cases broke, fixed, still failing; DUT: command F1; simulate: pass rates)."""
    from nlu_tui.rundiff import NO_CHANGES
    from nlu_tui.textsafe import inert

    items = [store.load_items(before.id), store.load_items(after.id)]
    for label, run, rows in zip(("before", "after "), (before, after), items, strict=True):
        name = inert(f"{run.suite_name} on {run.engine_name}", newlines=False)
        passed = sum(1 for i in rows if i.outcome == "passed")
        say(f"{label}  {run.id}  {name}  {passed} of {len(rows)} passed")
    if after.kind == "simulate":
        from nlu_tui.conversation.simulate_report import diff_lines

        lines = diff_lines(items[0], items[1])
    else:
        from nlu_tui.reports.item_diff import diff_items

        lines = diff_items(items[0], items[1]).lines()
        if after.kind == "dut":
            from nlu_tui.dut.service import diff_runs

            lines += diff_runs(before.summary or {}, after.summary or {})
    say("\n".join(inert(line, newlines=False) for line in lines) if lines else NO_CHANGES)
    return exitcodes.OK


def cmd_note(args: argparse.Namespace) -> int:
    run = _store().set_note(args.run_id, args.text)
    print(f"run {run.id}: note set ({len(run.note)} characters)")
    return exitcodes.OK


def cmd_delete(args: argparse.Namespace) -> int:
    store = _store()
    run = store.get_run(args.run_id)
    if run.status.value == "running":
        from nlu_tui.errors import ConflictError

        raise ConflictError(f"run {run.id} is still running; cancel it first")
    store.delete_run(run.id)
    print(f"deleted run {run.id}")
    return exitcodes.OK
