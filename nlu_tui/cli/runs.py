"""``nlu-tui run``, ``runs``, ``show``, ``note`` and ``delete``: runs without the workbench.

``run`` exits 0 when the run finished (with or without warnings) and every gate passed, 1 when a
regression gate or ``--fail-on`` condition failed, 2 for bad input (nothing is run or written),
3 when the run failed, 130 when canceled with Ctrl-C (results so far are kept; ``--resume``).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.cli import exitcodes

if TYPE_CHECKING:
    from nlu_tui.compare.bridge import Statistics, TestSettings
    from nlu_tui.model import Suite
    from nlu_tui.store.records import RunRecord
    from nlu_tui.store.runstore import RunStore, StoredResult

FAIL_ON_HELP = (
    "comma-separated conditions that make the exit code 1: errors, fp, fn, any (any FP, FN or "
    "error), or METRIC<VALUE with METRIC one of f1, precision, recall, intent, entity "
    "(e.g. 'errors,f1<0.9')"
)
SHOW_FORMATS_CHOICES = ("summary", "json", "csv", "junit", "rasa")
_METRIC = re.compile(r"^(f1|precision|recall|intent|entity)\s*<\s*([0-9]*\.?[0-9]+)$")


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
    p.add_argument("--engine", "-e", metavar="E", help="profile name, embedded:PATH or rasa:URL")
    p.add_argument("--stage", choices=("development", "published"), default=None)
    p.add_argument("--concurrency", type=int, metavar="N", help="requests in flight")
    p.add_argument("--rate-limit", type=float, metavar="R", help="at most R requests a second")
    p.add_argument("--timeout", type=float, metavar="S", help="seconds per attempt")
    p.add_argument("--retries", type=int, metavar="N", help="retries on 429, 5xx, resets")
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
        help="write Rasa's intent_report.json and intent_errors.json into DIR",
    )
    p.add_argument(
        "--baseline",
        metavar="RUN_ID|statistics.json",
        help="compare with a stored run or an NLU.DevOps statistics.json",
    )
    p.add_argument(
        "--thresholds", type=Path, metavar="F", help="NLU.DevOps test settings with thresholds"
    )
    p.add_argument("--fail-on", metavar="COND", help=FAIL_ON_HELP)
    p.add_argument("--resume", metavar="RUN_ID", help="finish a canceled or interrupted run")
    p.set_defaults(handler=cmd_run)

    p = sub.add_parser(
        "runs", help="list stored runs", description="List stored runs, newest first."
    )
    p.add_argument(
        "suite", nargs="?", metavar="SUITE", help="only runs of this suite (path or name)"
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--limit", type=int, default=None, metavar="N")
    p.set_defaults(handler=cmd_runs)

    p = sub.add_parser("show", help="show or export a stored run")
    p.add_argument("run_id", metavar="RUN_ID", help="a run id (or a unique prefix)")
    p.add_argument("--format", "-f", default="summary", choices=SHOW_FORMATS_CHOICES)
    p.add_argument("-o", "--output", type=Path, metavar="F", help="write here (rasa: a folder)")
    p.set_defaults(handler=cmd_show)

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


def _load_suite(path: Path) -> Suite:
    from nlu_tui.errors import InputError

    if not path.is_file():
        raise InputError("no such suite file", path=path)
    name = path.name.lower()
    if name.endswith((".suite.yaml", ".suite.yml")):
        from nlu_tui.formats.native import load_suite

        return load_suite(path)
    from nlu_tui.formats.registry import import_suite

    result = import_suite(path)
    for warning in result.warnings:
        print(f"nlu-tui: warning: {warning}", file=sys.stderr)
    result.suite.path = result.suite.path or path
    return result.suite


@dataclass
class FailOn:
    flags: set[str]
    metrics: list[tuple[str, float]]

    @classmethod
    def parse(cls, text: str | None) -> FailOn:
        from nlu_tui.errors import InputError

        flags: set[str] = set()
        metrics: list[tuple[str, float]] = []
        for raw in (text or "").split(","):
            item = raw.strip().lower()
            if not item:
                continue
            if item in ("errors", "error", "fp", "fn", "any"):
                flags.add("errors" if item == "error" else item)
                continue
            m = _METRIC.match(item)
            if not m:
                raise InputError(f"unknown --fail-on condition {raw.strip()!r}", field="--fail-on")
            metrics.append((m.group(1), float(m.group(2))))
        return cls(flags, metrics)

    def failures(self, rows: list[StoredResult]) -> list[str]:
        from nlu_tui.scoring.summary import summarize

        s = summarize([r for _c, _p, r in rows])
        out = []
        if "errors" in self.flags and s.errors:
            out.append(f"{s.errors} cases errored")
        if "fp" in self.flags and s.fp:
            out.append(f"{s.fp} false positives")
        if "fn" in self.flags and s.fn:
            out.append(f"{s.fn} false negatives")
        if "any" in self.flags and (s.fp or s.fn or s.errors):
            out.append(f"{s.fp + s.fn + s.errors} cases not right")
        values = {
            "f1": s.f1,
            "precision": s.precision,
            "recall": s.recall,
            "intent": s.intent_success,
            "entity": s.entity_success if s.entity_success is not None else 1.0,
        }
        for name, limit in self.metrics:
            if values[name] < limit:
                out.append(f"{name} {values[name]:.4f} < {limit:g}")
        return out


def _gate_inputs(
    args: argparse.Namespace, store: RunStore
) -> tuple[TestSettings | None, Statistics | None]:
    """Read the thresholds and baseline before running, so bad input stops us early."""
    if not args.baseline and not args.thresholds:
        return None, None
    from nlu_tui.compare.bridge import (
        TestSettings,
        Threshold,
        load_settings,
        load_statistics,
        statistics_from_run,
    )

    settings = load_settings(args.thresholds) if args.thresholds else TestSettings()
    if not settings.thresholds:
        # With a baseline and no thresholds: overall intent and entity F1 may not drop.
        settings.thresholds = [Threshold(type="intent"), Threshold(type="entity")]
    baseline = None
    if args.baseline:
        path = Path(args.baseline)
        if path.is_file():
            baseline = load_statistics(path)
        else:
            rows = store.load_results(store.get_run(args.baseline).id)
            baseline = statistics_from_run(
                [c for c, _p, _r in rows], [p for _c, p, _r in rows], settings
            )
    return settings, baseline


def _check_gates(
    settings: TestSettings, baseline: Statistics | None, rows: list[StoredResult]
) -> list[str]:
    from nlu_tui.compare.bridge import check_gates, statistics_from_run

    current = statistics_from_run([c for c, _p, _r in rows], [p for _c, p, _r in rows], settings)
    gates = check_gates(current, baseline, settings.thresholds)
    for gate in gates:
        print(gate.description)
    return [g.description.removeprefix("FAIL ") for g in gates if not g.passed]


# --- run ----------------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    import asyncio
    import signal

    from nlu_tui.cli.run_output import ProgressView, run_line, write_many
    from nlu_tui.engines.profiles import resolve_engine
    from nlu_tui.errors import InputError
    from nlu_tui.model import MAX_NOTE_CHARS, RunStatus, Suite
    from nlu_tui.reports import check_targets
    from nlu_tui.runner import Run, RunOptions

    if len(args.note) > MAX_NOTE_CHARS:
        raise InputError(f"a note holds at most {MAX_NOTE_CHARS} characters", field="--note")
    if args.concurrency is not None and args.concurrency < 1:
        raise InputError("must be at least 1", field="--concurrency")
    fail_on = FailOn.parse(args.fail_on)
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
    check_targets(reports, {fmt: f"--{fmt}" for fmt in reports})  # not after a long run
    store = _store()
    previous: RunRecord | None = None
    if args.resume:
        previous = store.get_run(args.resume)
        if not previous.resumable:
            raise InputError(
                f"run {previous.id} is {previous.status.value} with {previous.done}/"
                f"{previous.total} cases done; only unfinished canceled, interrupted or failed "
                "runs can be resumed",
                field="--resume",
            )
        suite_path = args.suite or (Path(previous.suite_path) if previous.suite_path else None)
        suite = Suite(name=previous.suite_name, path=suite_path)
        stage = args.stage or previous.stage
        engine_spec = args.engine or previous.engine_name
    else:
        if args.suite is None:
            raise InputError("give a SUITE file (or --resume RUN_ID)", field="SUITE")
        if not args.engine:
            raise InputError(
                "give --engine (a profile name, embedded:PATH or rasa:URL)", field="--engine"
            )
        suite = _load_suite(args.suite)
        suite_path = args.suite
        stage = args.stage or "development"
        engine_spec = args.engine
    settings, baseline = _gate_inputs(args, store)
    resolved = resolve_engine(engine_spec, suite_path, stage)
    options = RunOptions(max_error_rate=args.max_error_rate).with_settings(resolved.settings)
    overrides = {
        "concurrency": args.concurrency,
        "rate_limit": args.rate_limit,
        "timeout": args.timeout,
        "retries": args.retries,
    }
    options = options.with_settings(argparse.Namespace(**overrides))

    view = ProgressView(sys.stdout)
    run = Run(
        suite,
        resolved,
        store,
        stage=stage,
        note=args.note,
        options=options,
        on_progress=view,
        resume_run_id=previous.id if previous else None,
    )
    record = run.prepare()
    print(f"run {record.id}: {record.suite_name} on {resolved.name} [{stage}]", flush=True)

    async def main() -> RunRecord:
        loop = asyncio.get_running_loop()
        stopped = {"n": 0}

        def on_signal() -> None:
            stopped["n"] += 1
            if stopped["n"] == 1:
                print("\ncanceling (results so far are kept)...", file=sys.stderr, flush=True)
            run.cancel()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal)
        try:
            with view:
                return await run.execute()
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)

    final = asyncio.run(main())
    print(resolved.redact(run_line(final)) if hasattr(resolved, "redact") else run_line(final))
    rows = store.load_results(final.id)
    if reports:
        write_many(final, rows, reports)
    if final.status == RunStatus.CANCELED:
        print(f"resume with: nlu-tui run --resume {final.id}", file=sys.stderr)
        return exitcodes.CANCELED
    if final.status in (RunStatus.FAILED, RunStatus.INTERRUPTED):
        return exitcodes.RUN_FAILED
    problems = fail_on.failures(rows)
    if settings is not None:
        problems += _check_gates(settings, baseline, rows)
    for problem in problems:
        print(f"FAIL {problem}", file=sys.stderr)
    return exitcodes.GATE_FAILED if problems else exitcodes.OK


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

    from nlu_tui.cli.run_output import print_runs_table, runs_json

    runs = _store().list_runs(args.suite, limit=args.limit)
    if not runs and args.suite and _names_a_missing_file(args.suite):
        from nlu_tui.errors import InputError

        raise InputError("no such file, and no stored run names it", path=args.suite)
    if args.json:
        print(json.dumps(runs_json(runs), ensure_ascii=False, indent=2))
    elif runs:
        print_runs_table(runs)
    else:
        print("no runs yet" + (f" of {args.suite}" if args.suite else ""))
    return exitcodes.OK


def cmd_show(args: argparse.Namespace) -> int:
    from nlu_tui.cli.run_output import render, write

    store = _store()
    run = store.get_run(args.run_id)
    rows = store.load_results(run.id)
    if args.output is not None:
        for path in write(args.format, run, rows, args.output):
            print(f"wrote {path}", file=sys.stderr)
    else:
        sys.stdout.write(render(args.format, run, rows))
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
