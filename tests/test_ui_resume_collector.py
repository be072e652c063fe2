"""``u`` (issue 23, item 5: fast keys): the cyclic collector is off from the key until the
resumed run is on screen, and on again once it is (a full pass came inside the key in most
rounds of bench/bench_keys.py); the resumed run still stores each result once."""

from __future__ import annotations

import asyncio
import gc
import time
from pathlib import Path

from runner_loopback import LoopbackNlu, write_suite
from textual import events
from ui_runs_support import open_runs_tab, settle, wait_for
from ui_support import new_app

from nlu_tui.formats.native import load_suite
from nlu_tui.model import RunStatus
from nlu_tui.runsessions import sessions, store_for


async def test_the_collector_is_off_from_u_until_the_run_is_on_screen(tmp_path: Path) -> None:
    assert gc.isenabled()
    root = tmp_path / "ws"
    root.mkdir()
    suite_file = write_suite(root / "slow.suite.yaml", 6)
    with LoopbackNlu(latency=0.05) as server:
        (root / "engines.yaml").write_text(
            f"engines:\n  slow:\n    type: rasa\n    url: {server.url}\n    concurrency: 1\n",
            encoding="utf-8",
        )
        app = new_app(root)
        try:
            async with app.run_test() as pilot:
                await settle(pilot)
                suite = load_suite(suite_file)
                store = store_for(app)
                run = store.create_run(suite, engine_name="slow")
                store.finish_run(run.id, RunStatus.CANCELED)
                pane = await open_runs_tab(pilot)
                pane.reload()
                await wait_for(pilot, lambda: any(r.record.id == run.id for r in pane.history))
                await settle(pilot)
                assert pane.selected_run_id() == run.id
                app.post_message(events.Key("u", "u"))
                deadline = time.monotonic() + 60
                while run.id not in sessions(app):
                    assert time.monotonic() < deadline, "u started no run"
                    await asyncio.sleep(0.001)
                assert not gc.isenabled(), "the collector ran on while the run was being shown"
                session = sessions(app)[run.id]
                await wait_for(pilot, gc.isenabled)  # on again once the run is on screen
                await wait_for(pilot, lambda: session.finished, 60)
                await settle(pilot)
                assert gc.isenabled()
                record = store.get_run(run.id)
                assert record.status is RunStatus.SUCCESS, record.reason
                ids = [r.case_id for _, _, r in store.load_results(run.id)]
                assert len(ids) == len(set(ids)) == len(suite.cases) == record.done
        finally:
            gc.enable()  # whatever happened above, the next test has its collector
