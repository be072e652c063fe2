"""Running a conversation test from the CLI: progress lines, Ctrl-C to cancel, exit codes.
Shared by ``nlu-tui test e2e`` and ``nlu-tui test stories`` (the work is in
:mod:`nlu_tui.conversation.service`)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from nlu_tui.cli import exitcodes
from nlu_tui.cli.engine_options import add_strict_permissions
from nlu_tui.cli.say import say, say_error, say_warning, write_json

if TYPE_CHECKING:
    from nlu_tui.conversation.service import ConversationRequest, ConversationRun, Progress
    from nlu_tui.store.records import RunRecord


DEFAULT_PATHS = {"e2e": "tests/e2e_test_cases.yml", "stories": "tests"}
"""Where the tests are when PATH is not given (``rasa test e2e``'s default file; the folder
that ``rasa init`` puts ``test_stories.yml`` in)."""


def add_common(p: argparse.ArgumentParser, default_hint: str) -> None:
    """The switches both kinds share."""
    p.add_argument("path", nargs="?", type=_path, metavar="PATH", help=default_hint)
    p.add_argument("-e", "--engine", help="engine profile or rasa:URL (a Rasa server)")
    add_strict_permissions(p)
    p.add_argument("--note", default="", help="a note stored with the run")
    p.add_argument("--resume", metavar="RUN", help="finish a canceled or interrupted run")
    p.add_argument(
        "--rerun-failed",
        metavar="RUN",
        help="hold only the failed and errored test cases of RUN again (its test files and "
        "engine unless given), as a child run; the exit code judges the merged result "
        "(RUN's passes and the child's outcomes)",
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the profile's answer cache (cache: true) in this run",
    )
    p.add_argument("--concurrency", type=int, help="conversations held at once")
    p.add_argument("--timeout", type=float, help="seconds per request")
    p.add_argument("--retries", type=int, help="extra attempts of a test case after an error")
    p.add_argument("--junit", type=_path, metavar="FILE", help="write JUnit XML")
    p.add_argument("--json", type=_path, metavar="FILE", help="write the results as JSON")
    p.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help="hold each conversation N times and report per test case stability (flaky: "
        "passed in some attempts, failed in others) and, for generative assertions, how far "
        "the LLM judge agreed with itself",
    )
    p.add_argument(
        "--quarantine-flaky",
        action="store_true",
        help="with --repeat: flaky test cases do not fail the exit code",
    )
    p.add_argument(
        "--diff-with",
        metavar="RUN",
        help="after the run, list what broke and what got fixed since that earlier run",
    )


def _path(text: str) -> object:
    from pathlib import Path

    return Path(text)


def request_from(args: argparse.Namespace, kind: str, **extra: object) -> ConversationRequest:
    from pathlib import Path

    from nlu_tui.conversation.service import ConversationRequest

    path = args.path
    rerun = getattr(args, "rerun_failed", None)
    if path is None and not args.resume and not rerun:  # Rasa's defaults: the project folder
        path = Path(DEFAULT_PATHS[kind])
    return ConversationRequest(
        kind=kind,
        path=path,
        engine=args.engine,
        note=args.note,
        resume=args.resume,
        concurrency=args.concurrency,
        timeout=args.timeout,
        retries=args.retries,
        repeat=args.repeat,
        rerun_failed=rerun,
        no_cache=bool(getattr(args, "no_cache", False)),
        **extra,  # type: ignore[arg-type]
    )


def execute(request: ConversationRequest) -> tuple[ConversationRun, RunRecord]:
    """Open the run (bad input raises before anything is stored), run it with a progress line
    per finished test case, cancel on Ctrl-C / SIGTERM."""
    import asyncio
    import signal

    from nlu_tui.conversation.service import open_conversation_run
    from nlu_tui.store.runstore import RunStore

    store = RunStore()
    store.mark_interrupted()
    run = open_conversation_run(request, store)
    for note in run.units.notes:  # e.g. a story file `rasa test core --e2e` would skip
        say_warning(note)
    record = run.prepare()
    verb = "resumed" if request.resume else "run"
    say(f"{verb} {record.id}: {record.suite_name} on {record.engine_name}", flush=True)
    if run.options.rerun_of:
        say(f"rerun of {run.options.rerun_of}: {record.total} failed and errored test cases")

    def on_progress(p: Progress) -> None:
        if p.last is None:
            return
        d = p.last.data
        label = {"passed": "PASSED", "failed": "FAILED"}.get(p.last.outcome, "ERROR")
        say(
            f"[{p.done}/{p.total}] {label} {d.get('name')} ({d.get('file')}:{d.get('line')})",
            flush=True,
        )

    run.on_progress = on_progress

    async def main() -> RunRecord:
        try:
            return await _main()
        finally:
            cache = run.kernel.cache
            if cache is not None:
                say(
                    f"answer cache ({cache.profile}): {cache.hits} answered from it, "
                    f"{cache.misses} sent",
                    flush=True,
                )

    async def _main() -> RunRecord:
        loop = asyncio.get_running_loop()

        def on_signal() -> None:
            print("\ncanceling (finished test cases are kept)...", file=sys.stderr, flush=True)
            run.cancel()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal)
        try:
            return await run.execute()
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)

    return run, asyncio.run(main())


def finish(
    run: ConversationRun, final: RunRecord, args: argparse.Namespace, kind: str
) -> tuple[int | None, list[object]]:
    """Common ends: canceled / failed runs and the JUnit/JSON files. Returns an exit code when
    the run did not complete (else None) and the stored items."""
    from nlu_tui.conversation import reports
    from nlu_tui.fileio import atomic_write_text
    from nlu_tui.model import RunStatus

    items = run.store.load_items(final.id)
    if final.status == RunStatus.CANCELED:
        print(f"resume with: nlu-tui test {kind} --resume {final.id}", file=sys.stderr)
        return exitcodes.CANCELED, list(items)
    if final.status == RunStatus.FAILED:
        say_error(f"run {final.id} failed: {final.reason}")
        return exitcodes.RUN_FAILED, list(items)
    if args.junit is not None:
        atomic_write_text(args.junit, reports.junit_xml(final, items, final.suite_name))
        say(f"wrote {args.junit}", file=sys.stderr)
    if args.json is not None:
        atomic_write_text(args.json, reports.json_report(final, items))
        say(f"wrote {args.json}", file=sys.stderr)
    from nlu_tui.reruns import merged_item_figures, merged_item_line, merged_items, parent_of

    parent = parent_of(final)
    if parent is not None:  # a rerun: the exit code judges what the tests now score
        items = merged_items(run.store, final)
        say(merged_item_line(parent, merged_item_figures(items)))
    stability = final.summary.get("stability")
    if stability:
        from nlu_tui.repeats import flaky_ids, item_stability_lines

        for line in item_stability_lines(stability):
            say(line)
        print_judge_agreement(final)
        if args.quarantine_flaky:  # flaky test cases do not decide the exit code
            flaky = flaky_ids(stability)
            return None, [i for i in items if i.item_id not in flaky]
    return None, list(items)


def print_diff(run: ConversationRun, final: RunRecord, args: argparse.Namespace) -> None:
    """``--diff-with RUN``: what changed since an earlier run of the same kind."""
    from nlu_tui.errors import InputError
    from nlu_tui.reports.item_diff import diff_items

    if not args.diff_with:
        return
    earlier = run.store.get_run(args.diff_with)
    if earlier.kind != final.kind:
        raise InputError(f"run {earlier.id} is a {earlier.kind} run", field="--diff-with")
    diff = diff_items(run.store.load_items(earlier.id), run.store.load_items(final.id))
    say(f"since run {earlier.id}:")
    say("\n".join(diff.lines()) or "  no change")


def outcome_code(items: list[object]) -> int:
    """0 all passed, 1 any failed, 3 any could not be run (engine errors)."""
    outcomes = {getattr(i, "outcome", "") for i in items}
    if "error" in outcomes:
        return exitcodes.RUN_FAILED
    if "failed" in outcomes:
        return exitcodes.GATE_FAILED
    return exitcodes.OK


def show_run(run: RunRecord, items: list[object], fmt: str) -> int:
    """``nlu-tui show RUN`` of a conversation run: the command's own report again (``-f json``:
    every stored test case with its conversation)."""
    from nlu_tui.conversation import reports
    from nlu_tui.store.records import StoredItem

    stored = [i for i in items if isinstance(i, StoredItem)]
    if fmt == "json":
        write_json(reports.json_report(run, stored))
        return exitcodes.OK
    say(f"run {run.id}: {run.suite_name} ({run.kind}) on {run.engine_name}, {run.status.value}")
    if run.kind == "e2e":
        say(reports.e2e_text(stored), end="")
    else:
        say(reports.stories_text(stored), end="")
    if run.summary.get("stability"):
        from nlu_tui.repeats import item_stability_lines

        for line in item_stability_lines(run.summary["stability"]):
            say(line)
        print_judge_agreement(run)
    return exitcodes.OK


def print_judge_agreement(run: RunRecord) -> None:
    """A repeated E2E run with generative assertions: how far the LLM judge agreed with
    itself over the attempts (computed once, stored in the run's summary)."""
    agreement = run.summary.get("judge_agreement")
    if agreement:
        from nlu_tui.conversation.judge_agreement import agreement_lines

        for line in agreement_lines(agreement):
            say(line)
