"""The runner against a real loopback server that misbehaves: nothing lost, nothing duplicated."""

from __future__ import annotations

import asyncio
import collections
import itertools
import time
from dataclasses import replace
from pathlib import Path

import pytest
from runner_loopback import LoopbackEngine, LoopbackNlu, Resolved, make_suite

from nlu_tui.model import ResultType, RunStatus
from nlu_tui.runner import ProgressEvent, RunOptions, RunPhase, run_suite
from nlu_tui.runner.retry import parse_retry_after
from nlu_tui.store import RunStore

FAST = RunOptions(concurrency=16, retries=8, backoff_base=0.01, backoff_max=0.05)


async def test_faults_every_case_once_and_reason_stored(tmp_path: Path) -> None:
    suite = make_suite(400, wrong_every=7)
    garbage = {suite.cases[3].utterance: "garbage", suite.cases[50].utterance: "badshape"}
    broken = {suite.cases[9].utterance: "500"}
    with LoopbackNlu(
        latency=0.002,
        fault_rate=0.2,
        faults=("500", "429", "reset"),
        always={**garbage, **broken},
    ) as server:
        store = RunStore(tmp_path / "runs.sqlite3")
        record = await run_suite(suite, Resolved(LoopbackEngine(server.url)), store, options=FAST)
    assert set(server.faults_sent) >= {"500", "429", "reset", "garbage", "badshape"}
    results = store.load_results(record.id)
    ids = [r.case_id for _c, _p, r in results]
    assert sorted(ids) == sorted(c.id for c in suite.cases)  # each exactly once
    errors = {r.case_id: r.error for _c, _p, r in results if r.result is ResultType.ERROR}
    assert set(errors) == {"c00003", "c00050", "c00009"}
    assert "not JSON" in (errors["c00003"] or "")
    assert "malformed answer" in (errors["c00050"] or "")
    assert "HTTP 500" in (errors["c00009"] or "") and "after 9 attempts" in (errors["c00009"] or "")
    assert server.counts[suite.cases[9].utterance] == 9
    assert server.counts[suite.cases[3].utterance] == 1  # malformed answers are not retried
    # a transient fault was retried until the server answered; nobody was asked twice after that
    assert all(server.answered[c.utterance] <= 1 for c in suite.cases)
    assert record.status is RunStatus.SUCCESS_WITH_WARNING
    assert record.reason and record.reason.startswith("3 of 400 cases errored")
    assert (record.done, record.errors) == (400, 3)
    counts = collections.Counter(r.result for _c, _p, r in results)
    assert (record.tp, record.tn, record.fp, record.fn) == (
        counts[ResultType.TP],
        counts[ResultType.TN],
        counts[ResultType.FP],
        counts[ResultType.FN],
    )
    assert counts[ResultType.FP] > 0 and counts[ResultType.TN] > 0


async def test_clean_run_is_success(tmp_path: Path) -> None:
    suite = make_suite(60)
    with LoopbackNlu() as server:
        record = await run_suite(
            suite, Resolved(LoopbackEngine(server.url)), RunStore(tmp_path / "r.db"), options=FAST
        )
    assert record.status is RunStatus.SUCCESS and record.reason is None
    assert (record.tp, record.tn, record.fp, record.fn, record.errors) == (45, 15, 0, 0, 0)


async def test_retry_after_is_honoured(tmp_path: Path) -> None:
    suite = make_suite(1)
    with LoopbackNlu(first={suite.cases[0].utterance: ("429", 1)}, retry_after="1") as server:
        began = time.monotonic()
        record = await run_suite(
            suite, Resolved(LoopbackEngine(server.url)), RunStore(tmp_path / "r.db"), options=FAST
        )
        waited = time.monotonic() - began
    assert record.status is RunStatus.SUCCESS
    assert server.counts[suite.cases[0].utterance] == 2
    assert waited >= 1.0  # backoff alone would have waited ~10 ms
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0


async def test_unreachable_engine_fails_at_start(tmp_path: Path) -> None:
    with LoopbackNlu() as server:
        url = server.url
    store = RunStore(tmp_path / "r.db")
    record = await run_suite(make_suite(5), Resolved(LoopbackEngine(url)), store, options=FAST)
    assert record.status is RunStatus.FAILED
    assert record.reason and record.reason.startswith("engine unreachable")
    assert record.done == 0 and store.load_results(record.id) == []


async def test_error_rate_limit_stops_early_and_keeps_results(tmp_path: Path) -> None:
    suite = make_suite(300)
    always = {c.utterance: "garbage" for c in suite.cases[::2]}
    with LoopbackNlu(latency=0.005, always=always) as server:
        store = RunStore(tmp_path / "r.db")
        options = RunOptions(concurrency=4, max_error_rate=0.3, min_cases_for_error_rate=20)
        record = await run_suite(
            suite, Resolved(LoopbackEngine(server.url)), store, options=options
        )
    assert record.status is RunStatus.FAILED
    assert record.reason and "stopped early" in record.reason and "not JSON" in record.reason
    assert 20 <= record.done < 60
    assert len(store.load_results(record.id)) == record.done
    assert sum(server.counts.values()) < 70


async def test_progress_is_throttled_and_complete(tmp_path: Path) -> None:
    events: list[ProgressEvent] = []
    suite = make_suite(600)
    with LoopbackNlu(latency=0.01) as server:
        began = time.monotonic()
        await run_suite(
            suite,
            Resolved(LoopbackEngine(server.url)),
            RunStore(tmp_path / "r.db"),
            options=RunOptions(concurrency=20),
            on_progress=events.append,
        )
        elapsed = time.monotonic() - began
    assert events[-1].final and events[-1].done == 600 and events[-1].status is RunStatus.SUCCESS
    assert len(events) <= elapsed * 10 + 4
    streamed = [r.case_id for e in events for _c, _p, r in e.latest]
    assert sorted(streamed) == sorted(c.id for c in suite.cases)
    middle = [e for e in events if not e.final and 0 < e.done < 600]
    assert middle and all(e.rate > 0 and e.eta_s is not None for e in middle)
    assert events[-1].f1 == 1.0


async def test_results_are_committed_while_running(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    suite = make_suite(200)
    seen: list[int] = []
    with LoopbackNlu(latency=0.02) as server:
        store = RunStore(path)
        reader = RunStore(path)

        async def watch() -> None:
            while True:
                await asyncio.sleep(0.15)
                runs = reader.list_runs()
                if runs:
                    seen.append(runs[0].done)

        watcher = asyncio.create_task(watch())
        await run_suite(
            suite, Resolved(LoopbackEngine(server.url)), store, options=RunOptions(concurrency=4)
        )
        watcher.cancel()
    assert any(0 < n < 200 for n in seen)


@pytest.mark.slow
async def test_events_say_the_engine_opens_before_cases_flow(tmp_path: Path) -> None:
    """While the engine opens (here a slow ``/version`` probe) the events say so, with the
    elapsed time moving; then the running phase, and only it, carries answered cases. An engine
    that trains says "training"; a resumed run opens with its stored count."""

    class Trained(LoopbackEngine):
        capabilities = replace(LoopbackEngine.capabilities, training=True)

    store = RunStore(tmp_path / "r.db")
    with LoopbackNlu(version_latency=0.6) as server:
        events: list[ProgressEvent] = []
        first = await run_suite(
            make_suite(20),
            Resolved(LoopbackEngine(server.url)),
            store,
            options=FAST,
            on_progress=events.append,
        )
        assert first.status is RunStatus.SUCCESS
        opening = list(itertools.takewhile(lambda e: e.phase is RunPhase.OPENING, events))
        assert len(opening) >= 3  # the one before opening, then the usual ticks while it opens
        assert all(e.opening and e.done == 0 and not e.latest for e in opening)
        assert {e.phase_label for e in opening} == {"connecting to the engine…"}
        assert opening[0].elapsed_s < 0.3 and opening[-1].elapsed_s >= 0.5
        running = events[len(opening)]
        assert running.phase is RunPhase.RUNNING and running.done == 0 and not running.opening
        rest = events[len(opening) :]
        assert all(e.phase is RunPhase.RUNNING and e.phase_label is None for e in rest)
        assert events[-1].final and events[-1].done == 20

        # a trained engine, resuming a run that stopped part way
        cancel = asyncio.Event()
        partial: list[ProgressEvent] = []
        server.latency = 0.05

        def stop_part_way(event: ProgressEvent) -> None:
            partial.append(event)
            if event.done >= 5:
                cancel.set()

        stopped = await run_suite(
            make_suite(40),
            Resolved(LoopbackEngine(server.url)),
            store,
            options=RunOptions(concurrency=2),
            on_progress=stop_part_way,
            cancel=cancel,
        )
        assert stopped.status is RunStatus.CANCELED and 5 <= stopped.done < 40
        server.latency = 0.0
        resumed: list[ProgressEvent] = []
        await run_suite(
            make_suite(40),
            Resolved(Trained(server.url)),
            store,
            on_progress=resumed.append,
            resume_run_id=stopped.id,
        )
    assert resumed[0].opening and resumed[0].trains
    assert resumed[0].phase_label == "training the engine…"
    assert (resumed[0].done, resumed[0].total) == (stopped.done, 40)
    assert not resumed[-1].opening and resumed[-1].done == 40


async def test_a_small_run_over_the_error_limit_fails_when_it_ends(tmp_path: Path) -> None:
    """Too few cases for the early stop, but every one errored: failed, not a warning."""
    suite = make_suite(3)
    always = {c.utterance: "garbage" for c in suite.cases[:2]}
    with LoopbackNlu(always=always) as server:
        record = await run_suite(
            suite,
            Resolved(LoopbackEngine(server.url)),
            RunStore(tmp_path / "r.db"),
            options=replace(FAST, max_error_rate=0.5),
        )
    assert record.status is RunStatus.FAILED
    assert record.reason and record.reason.startswith("2 of 3 cases errored (over the 50% limit)")
    assert (record.done, record.errors) == (3, 2)
