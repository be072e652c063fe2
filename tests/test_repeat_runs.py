"""``run --repeat N`` against a real loopback engine that answers some utterances at random:
exactly those are flaky, every figure agrees with what the server says it answered, and
cancel, resume and SIGKILL keep the runner's guarantees (no stored attempt is sent again)."""

from __future__ import annotations

import asyncio
import collections
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest
from child_runs import start_cli, wait_for_items
from runner_loopback import LoopbackEngine, LoopbackNlu, Resolved, make_suite, write_suite

from nlu_tui.cli.main import run as cli
from nlu_tui.model import RunStatus
from nlu_tui.repeats import load_attempts, run_stability
from nlu_tui.runner import ProgressEvent, RunOptions, run_suite
from nlu_tui.store import RunStore

RANDOM_AT = (2, 5, 9, 14)
"""Cases of ``make_suite`` the server answers at random (among three intents)."""


def _random_answers(n: int) -> dict[str, tuple[str, ...]]:
    suite = make_suite(n)
    return {suite.cases[i].utterance: ("greet", "bye", "pay") for i in RANDOM_AT if i < n}


def _store() -> RunStore:
    return RunStore(Path(os.environ["NLU_TUI_DATA_DIR"]) / "runs.sqlite3")


def test_repeat_5_finds_exactly_the_random_utterances_flaky(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    n = 20
    suite_path = write_suite(tmp_path / "loop.suite.yaml", n)
    randomly = _random_answers(n)
    with LoopbackNlu(randomly=randomly) as server:
        code = cli(
            ["run", str(suite_path), "--engine", f"rasa:{server.url}", "--repeat", "5",
             "--json", str(tmp_path / "r.json"), "--concurrency", "6"]
        )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    cases = make_suite(n).cases
    assert all(server.counts[c.utterance] == 5 for c in cases)  # each attempt sent once
    assert server.max_in_flight <= 6  # the concurrency bound holds for attempts too

    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    stability = report["stability"]
    flaky_ids = {cases[i].id for i in RANDOM_AT}
    assert set(stability["flaky"]) == flaky_ids
    # The oracle: what the server logged it answered, counted here.
    for c in stability["cases"]:
        utterance = next(x.utterance for x in cases if x.id == c["case_id"])
        given = server.given[utterance]
        assert len(given) == 5 and c["attempts"] == 5 and c["answered"] == 5
        counts = collections.Counter(name or "(no intent)" for name, _conf in given)
        assert c["answers"] == dict(counts)
        assert c["agreement"] == pytest.approx(max(counts.values()) / 5)
        confs = [conf for _name, conf in given]
        assert c["confidence_spread"] == pytest.approx(max(confs) - min(confs))
        assert c["flaky"] is (len(counts) > 1)
    overall = stability["overall"]
    assert (overall["cases"], overall["flaky"], overall["measured"]) == (n, len(RANDOM_AT), n)
    assert overall["stability"] == pytest.approx((n - len(RANDOM_AT)) / n)
    assert len(report["results"]) == n  # attempt #1 of each case, as for any run

    store = _store()
    (run,) = store.list_runs()
    assert (run.done, run.total, run.options["repeat"]) == (n, n, 5)
    assert run.summary["stability"]["flaky"] == stability["flaky"]
    attempts = load_attempts(store, run.id)
    assert {cid: len(v) for cid, v in attempts.items()} == {c.id: 4 for c in cases}
    assert store.done_item_ids(run.id) == {f"{c.id}#{k}" for c in cases for k in range(2, 6)}

    assert "stability 80.0% over 5 attempts: 4 flaky of 20 cases" in out
    assert cli(["runs"]) == 0
    assert " 20/20×5 " in capsys.readouterr().out
    assert cli(["runs", "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)
    assert listed["repeat"] == 5 and listed["stability"]["flaky"] == stability["flaky"]
    for cid in flaky_ids:
        assert f"  {cid} " in out
    assert cli(["show", run.id]) == 0
    shown = capsys.readouterr().out
    assert "4 flaky of 20 cases" in shown and all(cid in shown for cid in flaky_ids)
    assert cli(["show", run.id, "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["stability"] == stability
    # JUnit keeps the figures as properties of the test suite
    assert cli(["show", run.id, "-f", "junit", "-o", str(tmp_path / "r.xml")]) == 0
    props = {
        p.get("name"): p.get("value")
        for p in ElementTree.parse(tmp_path / "r.xml").iter("property")
    }
    assert props["repeat"] == "5" and props["stability"] == "0.800000"
    assert set(props["flaky_cases"].split()) == flaky_ids


def test_quarantine_leaves_flaky_cases_out_of_the_gates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    n = 8
    suite_path = write_suite(tmp_path / "loop.suite.yaml", n)
    # Answered at random among intents no case expects: always wrong, and flaky.
    wrong = {u: ("other", "else", "nope") for u in _random_answers(n)}
    with LoopbackNlu(randomly=wrong) as server:
        engine = f"rasa:{server.url}"
        base = ["run", str(suite_path), "--engine", engine, "--repeat", "3", "--fail-on", "any"]
        assert cli(base) == 1
        err = capsys.readouterr().err
        assert "FAIL 2 cases not right" in err
        assert cli([*base, "--quarantine-flaky", "--json", str(tmp_path / "q.json")]) == 0
    out = capsys.readouterr().out
    assert "flaky cases (left out of the gates: --quarantine-flaky):" in out
    stability = json.loads((tmp_path / "q.json").read_text(encoding="utf-8"))["stability"]
    assert stability["quarantined"] is True and len(stability["flaky"]) == 2


@pytest.mark.parametrize(
    "args, field",
    [
        (["--repeat", "0"], "--repeat"),
        (["--repeat", "101"], "--repeat"),
        (["--quarantine-flaky"], "--quarantine-flaky"),
        (["--repeat", "1", "--quarantine-flaky"], "--quarantine-flaky"),
    ],
)
def test_bad_repeat_options_change_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], field: str
) -> None:
    suite_path = write_suite(tmp_path / "loop.suite.yaml", 3)
    assert cli(["run", str(suite_path), "--engine", "rasa:http://127.0.0.1:9", *args]) == 2
    assert field in capsys.readouterr().err
    assert not (Path(os.environ["NLU_TUI_DATA_DIR"]) / "runs.sqlite3").exists()


@pytest.mark.slow
async def test_cancel_then_resume_sends_each_case_only_the_attempts_it_lacks(
    tmp_path: Path,
) -> None:
    n, repeat = 12, 5
    suite = make_suite(n)
    store = RunStore(tmp_path / "r.db")
    cancel = asyncio.Event()
    events: list[ProgressEvent] = []
    with LoopbackNlu(latency=0.2, randomly=_random_answers(n)) as server:
        task = asyncio.create_task(
            run_suite(
                suite,
                Resolved(LoopbackEngine(server.url)),
                store,
                options=RunOptions(concurrency=4, repeat=repeat),
                cancel=cancel,
                on_progress=events.append,
            )
        )
        watch = RunStore(tmp_path / "r.db")

        def cut_mid_case() -> bool:
            """Some cases are done, and one has attempts stored but not all of them."""
            if not events or events[-1].done < 2:
                return False
            with_items = {i.rpartition("#")[0] for i in watch.done_item_ids(events[-1].run_id)}
            return bool(with_items - watch.done_case_ids(events[-1].run_id))

        while not cut_mid_case():
            await asyncio.sleep(0.01)
        cancel.set()
        record = await task
        assert record.status is RunStatus.CANCELED and 2 <= record.done < n
        assert record.resumable
        await asyncio.sleep(0.2)  # requests dropped by the cancel have reached the server
        sent_before = dict(server.counts)
        have = {c.id: 0 for c in suite.cases}
        for c, _p, _r in store.load_results(record.id):
            have[c.id] += 1
        for cid, tries in load_attempts(store, record.id).items():
            have[cid] += len(tries)
        assert any(0 < k < repeat for k in have.values()), list(have.values())

        # A resume with other options still repeats as the run started (5 times).
        resumed = await run_suite(
            suite,
            Resolved(LoopbackEngine(server.url)),
            store,
            options=RunOptions(concurrency=8),
            resume_run_id=record.id,
        )
    assert resumed.status is RunStatus.SUCCESS and resumed.done == n
    for case in suite.cases:
        sent_now = server.counts[case.utterance] - sent_before.get(case.utterance, 0)
        assert sent_now == repeat - have[case.id], case.id
    assert store.done_item_ids(record.id) == {
        f"{c.id}#{k}" for c in suite.cases for k in range(2, repeat + 1)
    }
    report = run_stability(store, resumed)
    assert report is not None
    assert {c.case_id for c in report.flaky} == {suite.cases[i].id for i in RANDOM_AT if i < n}


def test_a_resume_keeps_the_stored_repeat_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _store()
    suite = make_suite(4)
    suite.path = tmp_path / "s.suite.yaml"
    run = store.create_run(suite, engine_name="x", options=RunOptions(repeat=3).public())
    store.finish_run(run.id, RunStatus.CANCELED, "canceled")
    assert cli(["run", "--resume", run.id, "--repeat", "2"]) == 2
    assert "a resume keeps that count" in capsys.readouterr().err


@pytest.mark.slow
def test_sigkill_mid_repeat_then_resume_sends_no_stored_attempt_again(tmp_path: Path) -> None:
    n, repeat = 40, 4
    suite = write_suite(tmp_path / "loop.suite.yaml", n)
    store_path = Path(os.environ["NLU_TUI_DATA_DIR"]) / "runs.sqlite3"
    with LoopbackNlu(latency=0.05, randomly=_random_answers(n)) as server:
        engine = f"rasa:{server.url}"
        child = start_cli(
            "run", str(suite), "--engine", engine, "--concurrency", "4", "--repeat", str(repeat)
        )
        wait_for_items(child, store_path, 8, timeout=30)
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        time.sleep(0.3)  # requests left in flight reach the server
        sent_before = dict(server.counts)
        store = RunStore(store_path)
        (run,) = store.list_runs()
        assert run.status is RunStatus.INTERRUPTED and run.resumable
        have = collections.Counter(c.id for c, _p, _r in store.load_results(run.id))
        for cid, tries in load_attempts(store, run.id).items():
            have[cid] += len(tries)
        resumed = subprocess.run(
            [sys.executable, "-m", "nlu_tui", "run", "--resume", run.id],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert resumed.returncode == 0, resumed.stderr + resumed.stdout
    final = RunStore(store_path).get_run(run.id)
    assert final.status is RunStatus.SUCCESS and final.done == n
    for case in make_suite(n).cases:
        sent_now = server.counts[case.utterance] - sent_before.get(case.utterance, 0)
        assert sent_now == repeat - have[case.id], case.id
    report = run_stability(RunStore(store_path), final)
    assert report is not None and all(c.answered == repeat for c in report.cases)
    random_ids = {make_suite(n).cases[i].id for i in RANDOM_AT}
    # Which draws were stored depends on when the kill came: no steady case is ever flaky.
    assert report.flaky and {c.case_id for c in report.flaky} <= random_ids
    assert f"{len(report.flaky)} flaky of 40 cases" in resumed.stdout


def test_a_repeated_run_that_cannot_start_prints_no_stability(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite_path = write_suite(tmp_path / "loop.suite.yaml", 3)
    with LoopbackNlu() as server:
        url = server.url
    # the server is gone: nothing answers on its port
    assert cli(["run", str(suite_path), "--engine", f"rasa:{url}", "--repeat", "3"]) == 3
    captured = capsys.readouterr()
    assert "engine unreachable" in captured.out + captured.err
    assert "stability" not in captured.out
