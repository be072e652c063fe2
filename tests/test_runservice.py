"""The run service both faces call: start, resume and finish a run (nlu_tui/runservice.py).

Against a real loopback engine (``rasa:URL``) and a real run store in a tmp dir.
"""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path

import pytest
from runner_loopback import LoopbackNlu, make_suite, write_suite

import nlu_tui
from nlu_tui.errors import InputError
from nlu_tui.model import RunStatus
from nlu_tui.runservice import RUNNERS, Runner, RunPlan, RunRequest, open_run
from nlu_tui.store import RunStore

PACKAGE = Path(nlu_tui.__file__).resolve().parent


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    return RunStore(tmp_path / "runs.sqlite3")


def test_new_run_reports_fail_on_and_baseline_gates(tmp_path: Path, store: RunStore) -> None:
    suite_file = write_suite(tmp_path / "loop.suite.yaml", 12)
    with LoopbackNlu() as server:
        first = open_run(RunRequest(suite_path=suite_file, engine=f"rasa:{server.url}"), store)
        base = asyncio.run(first.execute())
        assert base.status is RunStatus.SUCCESS and base.problems == [] and base.gates == []
        request = RunRequest(
            suite=make_suite(12, wrong_every=3),
            engine=f"rasa:{server.url}",
            stage="published",
            note="second",
            concurrency=2,
            reports={"json": tmp_path / "out.json"},
            fail_on="fp",
            baseline=base.record.id,
        )
        job = open_run(request, store)
        assert job.stage == "published" and job.engine_name.startswith("rasa")
        outcome = asyncio.run(job.execute())
    record = store.get_run(outcome.record.id)
    assert record.note == "second" and record.stage == "published"
    assert record.options["concurrency"] == 2
    assert outcome.reports == [tmp_path / "out.json"]
    assert json.loads((tmp_path / "out.json").read_text())["summary"]["cases"] == 12
    # each line names the definition its number follows (issue 11 part 3)
    assert outcome.problems[0].endswith("false positives [Kore.ai]")
    assert any(not gate.passed for gate in outcome.gates)  # F1 dropped below the baseline's
    assert all(gate.description.endswith(" [NLU.DevOps]") for gate in outcome.gates)
    assert len(outcome.problems) == 1 + sum(not g.passed for g in outcome.gates)


def test_resume_takes_the_stored_engine_and_version(tmp_path: Path, store: RunStore) -> None:
    suite_file = write_suite(tmp_path / "loop.suite.yaml", 8)
    with LoopbackNlu() as server:
        request = RunRequest(suite_path=suite_file, engine=f"rasa:{server.url}", stage="published")
        job = open_run(request, store)
        job.cancel()  # before it starts: nothing is sent, the run stays resumable
        canceled = asyncio.run(job.execute())
        assert canceled.status is RunStatus.CANCELED and not canceled.completed
        resumed = open_run(RunRequest(resume=canceled.record.id), store)
        assert resumed.resumed and resumed.run_id == canceled.record.id
        assert resumed.stage == "published" and resumed.engine_name == job.engine_name
        done = asyncio.run(resumed.execute())
    assert done.status is RunStatus.SUCCESS and done.record.done == 8
    with pytest.raises(InputError, match="only unfinished"):
        open_run(RunRequest(resume=done.record.id), store)


def test_bad_input_stores_nothing(tmp_path: Path, store: RunStore) -> None:
    suite_file = write_suite(tmp_path / "loop.suite.yaml", 3)
    bad = [
        RunRequest(suite_path=suite_file),  # no engine
        RunRequest(engine="rasa:http://127.0.0.1:9"),  # no suite
        RunRequest(suite_path=suite_file, engine="rasa:http://127.0.0.1:9", fail_on="f2<1"),
        RunRequest(suite_path=suite_file, engine="rasa:http://127.0.0.1:9", concurrency=0),
        RunRequest(suite_path=suite_file, engine="rasa:http://127.0.0.1:9", kind="nosuch"),
        RunRequest(suite_path=suite_file, engine="rasa:http://127.0.0.1:9", baseline="nosuch"),
    ]
    for request in bad:
        with pytest.raises(Exception):  # noqa: B017 - InputError or the store's NotFound
            open_run(request, store)
    assert store.list_runs() == []


def test_a_run_kind_plugs_in_through_runners(
    tmp_path: Path, store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new kind registers a runner factory; the service does the rest (store, reports)."""
    planned: list[RunPlan] = []

    def factory(plan: RunPlan, store: RunStore) -> Runner:
        planned.append(plan)
        return RUNNERS["suite"](plan, store)

    monkeypatch.setitem(RUNNERS, "twice-checked", factory)
    with LoopbackNlu() as server:
        request = RunRequest(
            kind="twice-checked",
            suite=make_suite(4),
            engine=f"rasa:{server.url}",
            reports={"junit": tmp_path / "out.xml"},
        )
        outcome = asyncio.run(open_run(request, store).execute())
    assert [p.request.kind for p in planned] == ["twice-checked"]
    assert outcome.status is RunStatus.SUCCESS and (tmp_path / "out.xml").is_file()


FACES = ("cli/runs.py", "ui/widgets/runs_pane.py", "runsessions.py")
ORCHESTRATION = {"resolve_engine", "Run", "run_suite", "check_gates", "write_reports"}


def test_faces_leave_the_orchestration_to_the_service() -> None:
    """cmd_run and the workbench's run start import neither the runner nor the engine resolver,
    the gates or the report writers: the run service does that for both."""
    found = []
    for rel in FACES:
        tree = ast.parse((PACKAGE / rel).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nlu_tui"):
                found += [f"{rel}: {a.name}" for a in node.names if a.name in ORCHESTRATION]
    assert not found, found
