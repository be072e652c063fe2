"""``u`` on a canceled run (issue 23, item 5: fast keys): what opening the run needs is imported
while the Runs tab is read, the run is on screen before its engine's work starts, and the
resumed run still stores each result once."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from runner_loopback import LoopbackNlu, write_suite
from ui_runs_support import open_runs_tab, settle, wait_for
from ui_support import REPO, SAMPLE, new_app

from nlu_tui.formats.native import load_suite
from nlu_tui.model import RunStatus
from nlu_tui.runsessions import sessions, store_for
from nlu_tui.ui.widgets.results_pane import ResultsPane

TRAINING = SAMPLE.parent / "banking_bot.nlu.yml"


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for src in (SAMPLE, TRAINING):
        shutil.copy(src, root / src.name)
    return root


def _child(code: str, tmp_path: Path) -> str:
    """Run ``code`` in a fresh interpreter (nothing of this test process imported)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "NLU_TUI_DATA_DIR": str(tmp_path / "child-data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "child-config"),
    }
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_runs_tab_imports_all_a_resume_opens(tmp_path: Path) -> None:
    """After what the Runs tab prepares (``RUN_MODULES``), opening a
    resumed run imports no module of nlu-tui: none is left to import in the run's thread."""
    root = _workspace(tmp_path)
    out = _child(
        f"""
        import importlib, sys
        from pathlib import Path
        from nlu_tui.formats.native import load_suite
        from nlu_tui.model import RunStatus
        from nlu_tui.store import RunStore
        from nlu_tui.ui.widgets.runs_pane import RUN_MODULES
        root = Path({str(root)!r})
        suite = load_suite(root / "banking_bot.suite.yaml")
        store = RunStore()
        run = store.create_run(suite, engine_name="embedded:" + str(root / "banking_bot.nlu.yml"))
        store.finish_run(run.id, RunStatus.CANCELED)
        for name in RUN_MODULES:  # what RunsPane._prepare_run_service does
            importlib.import_module(name)
        before = set(sys.modules)
        from nlu_tui.runservice import RunRequest, open_run
        job = open_run(RunRequest(suite=suite, engine=run.engine_name, resume=run.id,
                                  workspace=root), store)
        assert job.resumed
        print(sorted(m for m in set(sys.modules) - before if m.startswith("nlu_tui")))
        """,
        tmp_path,
    )
    assert out == "[]", f"opening a resumed run imported {out}: add them to RUN_MODULES"


async def test_u_shows_the_resumed_run_live_and_stores_each_result_once(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    suite_file = write_suite(root / "slow.suite.yaml", 20)
    with LoopbackNlu(latency=0.2) as server:  # 20 cases one at a time: ~4 s of run to watch
        (root / "engines.yaml").write_text(
            f"engines:\n  slow:\n    type: rasa\n    url: {server.url}\n    concurrency: 1\n",
            encoding="utf-8",
        )
        app = new_app(root)
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
            results = app.screen.query_one(ResultsPane)
            await pilot.press("u")
            await wait_for(pilot, lambda: run.id in sessions(app))
            session = sessions(app)[run.id]
            # in the same step as the session: the Results tab follows it, with its live bar
            assert not session.finished
            assert app.screen.query_one("#main-tabs").active == "tab-results"
            assert results.session is session
            assert results.query_one("#results-live").display
            await wait_for(pilot, lambda: session.finished, 60)
            await settle(pilot)
            record = store.get_run(run.id)
            assert record.status is RunStatus.SUCCESS, record.reason
            ids = [r.case_id for _, _, r in store.load_results(run.id)]
            assert len(ids) == len(set(ids)) == len(suite.cases) == record.done
            await wait_for(pilot, lambda: results.data is not None)
            assert not results.query_one("#results-live").display  # ended: the bar goes
