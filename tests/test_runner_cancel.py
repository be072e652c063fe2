"""Cancelling is prompt and keeps results; a canceled run resumes with only the missing cases."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import pytest
from runner_loopback import LoopbackEngine, LoopbackNlu, Resolved, make_suite

from nlu_tui.model import ResultType, RunStatus
from nlu_tui.runner import ProgressEvent, Run, RunOptions, run_suite
from nlu_tui.store import RunStore


@pytest.mark.slow
async def test_cancel_is_prompt_keeps_results_then_resume(tmp_path: Path) -> None:
    suite = make_suite(40)
    store = RunStore(tmp_path / "r.db")
    cancel = asyncio.Event()
    events: list[ProgressEvent] = []
    with LoopbackNlu(latency=0.3) as server:
        task = asyncio.create_task(
            run_suite(
                suite,
                Resolved(LoopbackEngine(server.url)),
                store,
                options=RunOptions(concurrency=4),
                cancel=cancel,
                on_progress=events.append,
            )
        )
        while not events or events[-1].done < 8:
            await asyncio.sleep(0.02)
        began = time.monotonic()
        cancel.set()
        record = await task
        took = time.monotonic() - began
        assert took < 1.0
        assert record.status is RunStatus.CANCELED
        assert 8 <= record.done < 40
        kept = store.load_results(record.id)
        assert len(kept) == record.done
        assert all(r.result is not ResultType.ERROR for _c, _p, r in kept)  # in-flight dropped
        sent_before = dict(server.counts)

        resumed = await run_suite(
            suite,
            Resolved(LoopbackEngine(server.url)),
            store,
            options=RunOptions(concurrency=8),
            resume_run_id=record.id,
        )
    assert resumed.id == record.id and resumed.status is RunStatus.SUCCESS
    assert resumed.done == 40 and len(store.load_results(record.id)) == 40
    kept_ids = {c.utterance for c, _p, _r in kept}
    for case in suite.cases:
        if case.utterance in kept_ids:  # finished before the cancel: never sent again
            assert server.counts[case.utterance] == 1
        else:  # sent at most once more (if it was in flight when canceled)
            assert server.counts[case.utterance] - sent_before.get(case.utterance, 0) == 1


@pytest.mark.slow
async def test_run_object_cancel_and_outer_task_cancel(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "r.db")
    with LoopbackNlu(latency=5.0) as server:
        run = Run(make_suite(10), Resolved(LoopbackEngine(server.url)), store)
        run.prepare()
        assert store.get_run(run.run_id).status is RunStatus.RUNNING
        task = asyncio.create_task(run.execute())
        await asyncio.sleep(0.3)
        began = time.monotonic()
        run.cancel()
        record = await task
        assert time.monotonic() - began < 1.0
        assert record.status is RunStatus.CANCELED and record.done == 0

        # the caller's task being cancelled (a Textual worker) cancels the run, then re-raises
        task = asyncio.create_task(
            run_suite(make_suite(10), Resolved(LoopbackEngine(server.url)), store)
        )
        await asyncio.sleep(0.3)
        began = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert time.monotonic() - began < 1.0
    latest = store.list_runs()[0]
    assert latest.status is RunStatus.CANCELED


async def test_note_added_during_run_survives(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with LoopbackNlu(latency=0.05) as server:
        run = Run(make_suite(40), Resolved(LoopbackEngine(server.url)), RunStore(path), note="a")
        run.prepare()
        task = asyncio.create_task(run.execute())
        await asyncio.sleep(0.2)
        RunStore(path).set_note(run.run_id, "changed mid-run")
        record = await task
    assert record.status is RunStatus.SUCCESS and record.note == "changed mid-run"


async def test_cancel_before_engine_opened(tmp_path: Path) -> None:
    class SlowOpen(LoopbackEngine):
        async def open(self, client: object) -> None:
            await asyncio.sleep(30)

    store = RunStore(tmp_path / "r.db")
    cancel = asyncio.Event()
    task = asyncio.create_task(
        run_suite(make_suite(3), Resolved(SlowOpen("http://127.0.0.1:9")), store, cancel=cancel)
    )
    await asyncio.sleep(0.2)
    cancel.set()
    with contextlib.suppress(asyncio.TimeoutError):
        record = await asyncio.wait_for(task, 1.0)
    assert record.status is RunStatus.CANCELED
