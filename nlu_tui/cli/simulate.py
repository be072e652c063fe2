"""``nlu-tui simulate FILE --engine BOT [--runs N] [--fail-on 'pass_rate<0.8']``: simulated-user
scenarios held against a conversation engine, each conversation stored as a run item (the work
is in :mod:`nlu_tui.conversation.simulate`).

Exit codes: 0 every conversation passed (or, with ``--fail-on``, every gate held); 1 a
conversation failed (with ``--fail-on``: a gate failed); 2 bad input, nothing run; 3 a
conversation ended in an ERROR (the simulated user, the judge, a reset hook or the bot failed)
or the run failed; 130 canceled (resume with ``--resume RUN``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.cli import exitcodes
from nlu_tui.cli.say import say, say_error, write_json

if TYPE_CHECKING:
    from nlu_tui.conversation.simulate import Progress, SimulateRun
    from nlu_tui.store.records import RunRecord


def register(sub: argparse._SubParsersAction[Any]) -> None:
    from nlu_tui.cli.engine_options import add_strict_permissions

    p = sub.add_parser(
        "simulate",
        help="simulated users: an LLM plays each scenario's user against a bot, N times",
        description="Hold simulated conversations: an LLM (settings.yaml llm:) plays the user "
        "of each scenario (persona, goal) against the bot; assertions and LLM-judged criteria "
        "decide each conversation. Reads nlu-tui scenario files and Rasa Pro's eval scenarios.",
        epilog="exit codes: 0 passed (every gate held), 1 a conversation or a --fail-on gate "
        "failed, 2 bad input (nothing run), 3 a conversation ended in an ERROR (simulated user, "
        "judge, reset hook or bot failed), 130 canceled",
    )
    p.add_argument(
        "path", nargs="?", type=Path, metavar="FILE", help="a scenario file or a folder of them"
    )
    p.add_argument("-e", "--engine", help="the bot: an engine profile or rasa:URL")
    add_strict_permissions(p)
    p.add_argument("--runs", type=int, metavar="N", help="conversations per scenario (default 1)")
    p.add_argument(
        "--fail-on",
        metavar="COND",
        help="gates checked for every scenario, e.g. 'pass_rate<0.8' or 'ci95_low<0.5' "
        "(exit 1 when one fails)",
    )
    p.add_argument("--note", default="", help="a note stored with the run")
    p.add_argument("--resume", metavar="RUN", help="finish a canceled or interrupted run")
    p.add_argument(
        "--concurrency", type=int, help="conversations held at once (default 1: see reset:)"
    )
    p.add_argument("--timeout", type=float, help="seconds per request to the bot")
    p.add_argument("--retries", type=int, help="extra attempts of a conversation after an error")
    p.add_argument(
        "--diff-with",
        metavar="RUN",
        help="after the run, each scenario's pass rate then and now (an earlier simulate run)",
    )
    p.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    p.add_argument("--json", type=Path, metavar="FILE", help="write the results as JSON")
    p.set_defaults(handler=cmd_simulate)


def execute(run: SimulateRun, *, resumed: bool) -> RunRecord:
    """Run with a progress line per finished conversation; Ctrl-C / SIGTERM cancels."""
    import asyncio
    import signal
    import threading

    record = run.prepare()
    verb = "resumed" if resumed else "run"
    say(
        f"{verb} {record.id}: {record.suite_name} on {record.engine_name} "
        f"({len(run.units.order)} scenario(s) x {run.runs})",
        flush=True,
    )

    def on_progress(p: Progress) -> None:
        if p.last is None:
            return
        d = p.last.data
        label = {"passed": "PASSED", "failed": "FAILED"}.get(p.last.outcome, "ERROR")
        if p.last.outcome == "failed":
            label += " (judge only)" if d.get("failure") == "judge" else " (assertion)"
        say(f"[{p.done}/{p.total}] {label} {d.get('name')} #{d.get('repeat')}", flush=True)

    run.on_progress = on_progress

    async def main() -> RunRecord:
        loop = asyncio.get_running_loop()

        def on_signal() -> None:
            print("\ncanceling (finished conversations are kept)...", file=sys.stderr, flush=True)
            run.cancel()

        # Signals reach the main thread only (a caller may run the command in a thread).
        signals = (
            (signal.SIGINT, signal.SIGTERM)
            if threading.current_thread() is threading.main_thread()
            else ()
        )
        for sig in signals:
            loop.add_signal_handler(sig, on_signal)
        try:
            return await run.execute()
        finally:
            for sig in signals:
                loop.remove_signal_handler(sig)

    return asyncio.run(main())


def cmd_simulate(args: argparse.Namespace) -> int:
    from nlu_tui.conversation import simulate_report as report
    from nlu_tui.conversation.simulate import SimulateRequest, open_simulate_run
    from nlu_tui.fileio import atomic_write_text
    from nlu_tui.model import RunStatus
    from nlu_tui.store.runstore import RunStore

    gates = report.parse_gates(args.fail_on)  # bad input before anything is stored
    store = RunStore()
    store.mark_interrupted()
    earlier = None
    if args.diff_with:
        from nlu_tui.errors import InputError

        earlier = store.get_run(args.diff_with)
        if earlier.kind != "simulate":
            raise InputError(f"run {earlier.id} is a {earlier.kind} run", field="--diff-with")
    run = open_simulate_run(
        SimulateRequest(
            path=args.path,
            engine=args.engine,
            runs=args.runs,
            note=args.note,
            resume=args.resume,
            concurrency=args.concurrency,
            timeout=args.timeout,
            retries=args.retries,
        ),
        store,
    )
    final = execute(run, resumed=bool(args.resume))
    items = list(store.load_items(final.id))
    if final.status == RunStatus.CANCELED:
        print(f"resume with: nlu-tui simulate --resume {final.id}", file=sys.stderr)
        return exitcodes.CANCELED
    if final.status == RunStatus.FAILED:
        say_error(f"run {final.id} failed: {final.reason}")
        return exitcodes.RUN_FAILED
    scenarios = report.scenario_summary(items)
    say(report.text_report(scenarios), end="")
    if args.junit is not None:
        atomic_write_text(args.junit, report.junit_xml(final, items, final.suite_name))
        say(f"wrote {args.junit}", file=sys.stderr)
    if args.json is not None:
        atomic_write_text(args.json, report.json_report(final, items))
        say(f"wrote {args.json}", file=sys.stderr)
    if earlier is not None:
        say(f"since run {earlier.id}:")
        say("\n".join(report.diff_lines(store.load_items(earlier.id), items)) or "  no change")
    if any(i.outcome == "error" for i in items):
        say_error("some conversations ended in an ERROR (not judged): see above")
        return exitcodes.RUN_FAILED
    if gates:
        failed = report.failed_gates(gates, scenarios)
        for line in failed:
            say(line)
        return exitcodes.GATE_FAILED if failed else exitcodes.OK
    return exitcodes.GATE_FAILED if any(i.outcome == "failed" for i in items) else exitcodes.OK


def show_run(run: RunRecord, items: list[object], fmt: str) -> int:
    """``nlu-tui show RUN`` of a simulate run: its report again (``-f json``: every stored
    conversation with its transcript, assertions and criteria)."""
    from nlu_tui.conversation import simulate_report as report
    from nlu_tui.store.records import StoredItem

    stored = [i for i in items if isinstance(i, StoredItem)]
    if fmt == "json":
        write_json(report.json_report(run, stored))
        return exitcodes.OK
    say(f"run {run.id}: {run.suite_name} (simulate) on {run.engine_name}, {run.status.value}")
    say(report.text_report(report.scenario_summary(stored)), end="")
    return exitcodes.OK
