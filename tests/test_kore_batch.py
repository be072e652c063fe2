"""``nlu-tui run SUITE --engine kore-batch:PROFILE``: the suite run on Kore.ai's own batch
testing, against the loopback stand-in written from Kore.ai's docs (tests/kore_peer.py: Upload
File, Import Batch Test Suite, Batch Test Execution, its Status with ``running`` then
``completed`` and the result CSV, Delete Batch Test Suite Execution)."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nlu_tui.cli.main import run as cli
from nlu_tui.model import ResultType
from nlu_tui.store.runstore import RunStore
from tests.kore_peer import EXECUTION, MANAGEMENT, Answer, App, KorePeer, serving

CLIENT_ID = "cs-0b1e8a2c-6bfe-5ece-92c9-ab54aa2d4285"
SECRET = "Kore-batch-s3cret-0042+abcdefghijklmnop"
INTENTS = ("Book Flight", "Check Balance", "Change Date", "Cancel Trip")


def write_suite(folder: Path, n: int) -> Path:
    cases = []
    for i in range(n):
        expected = "" if i % 10 == 9 else INTENTS[i % 4]  # every tenth expects no intent
        case: dict[str, object] = {"input": f"utterance number {i}", "intent": expected}
        if i % 7 == 0 and expected:
            case["entities"] = [{"entityName": "City", "entityValue": f"City{i}"}]
        cases.append(case)
    path = folder / "big.json"
    path.write_text(json.dumps({"testCases": cases}, indent=2), encoding="utf-8")
    return path


def teach(peer: KorePeer, n: int) -> None:
    """The bot's answers: right, wrong, none, or an intent where none is expected."""
    for i in range(n):
        expected = "" if i % 10 == 9 else INTENTS[i % 4]
        if i % 5 == 1:
            intent = INTENTS[(i + 1) % 4] if expected else "Book Flight"  # FP
        elif i % 5 == 2:
            intent = None  # FN (or TN where none is expected)
        else:
            intent = expected or None
        ents = {"City": f"City{i}"} if i % 7 == 0 and i % 3 else {}
        peer.answers[f"utterance number {i}"] = Answer(intent, ents, 0.5 + (i % 50) / 100)


def profile(folder: Path, peer: KorePeer, monkeypatch: pytest.MonkeyPatch, poll: float) -> None:
    monkeypatch.setenv("KORE_BATCH_SECRET", SECRET)
    (folder / "engines.yaml").write_text(
        f"engines:\n  travel:\n    type: kore\n    url: {peer.url}\n    bot_id: {peer.bot_id}\n"
        f"    client_id: {CLIENT_ID}\n    client_secret: ${{KORE_BATCH_SECRET}}\n"
        f"    batch_poll_seconds: {poll}\n    batch_deadline_seconds: 20\n",
        encoding="utf-8",
    )


def make_peer() -> KorePeer:
    peer = KorePeer()
    peer.apps[CLIENT_ID] = App(SECRET, {EXECUTION, MANAGEMENT})
    return peer


def test_a_thousand_cases_take_one_upload_and_one_start_and_match_our_scoring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(make_peer()) as peer:
        teach(peer, 1000)
        profile(tmp_path, peer, monkeypatch, 0.02)
        suite = write_suite(tmp_path, 1000)
        data = tmp_path / "data"
        report = tmp_path / "report.csv"
        args = ["--data-dir", str(data), "run", str(suite), "--engine", "kore-batch:travel"]
        code = cli([*args, "--csv", str(report)])
        assert code == 0, capsys.readouterr().err
        # the Kore.ai CSV report's header names the bot and its language as Kore.ai gave them
        head = report.read_text(encoding="utf-8-sig").splitlines()[:4]
        assert head[0] == "Bot Name,Travel Bot" and head[2] == "Bot Language,en"
        # ... and the thresholds the bot applied, read from Kore.ai's report (not the profile's)
        table = list(csv.reader(io.StringIO(report.read_text(encoding="utf-8-sig"))))
        at = table.index(["Threshold Setting", ""])
        block = table[at + 1 : table.index(next(r for r in table if r[0] == "Last Tested"))]
        assert block == [[k, v] for b in peer.thresholds for k, v in b]
        # O(1) calls: one upload, one import, one start, a few polls, one download; no Find Intent
        assert peer.calls["upload"] == 1 and peer.calls["import"] == 1 and peer.calls["run"] == 1
        assert 1 <= peer.calls["status"] <= 4 and peer.calls["download"] == 1
        assert sum(peer.calls.values()) <= 9
        ex = next(iter(peer.executions.values()))
        with RunStore(data / "runs.sqlite3") as store:
            run = store.list_runs()[0]
            rows = store.load_results(run.id)
        assert run.engine_name == "kore-batch:travel" and len(rows) == 1000
        # the run's figures (our scoring of Kore.ai's answers) equal Kore.ai's own
        counts = {t: sum(1 for r in rows if r[2].result is t) for t in ResultType}
        kore = ex.summary["results"]
        assert (counts[ResultType.TP], counts[ResultType.FP]) == (kore["TP"], kore["FP"])
        assert (counts[ResultType.FN], counts[ResultType.TN]) == (kore["FN"], kore["TN"])
        assert counts[ResultType.ERROR] == 0 and kore["TP"] > 0 and kore["FP"] > 0
        assert run.options["kore_batch"]["request_id"] == ex.id
        assert run.options["kore_batch"]["disagreements"] == []
        # every case carries Kore.ai's verdict, matched intent, scores and entity results
        _case, prediction, result = rows[14]  # right intent, an entity expected and found
        assert prediction.raw["kore_batch"]["result_type"] == result.result.value
        assert prediction.raw["kore_batch"]["entity_results"][0]["name"] == "City"
        assert prediction.engine_scores[prediction.intent]["ML"] == pytest.approx(0.64)


def test_a_canceled_run_deletes_the_remote_execution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from nlu_tui.runservice import RunRequest, open_run

    with serving(make_peer()) as peer:
        peer.never_finish = True
        teach(peer, 20)
        profile(tmp_path, peer, monkeypatch, 0.05)
        suite = write_suite(tmp_path, 20)
        with RunStore(tmp_path / "runs.sqlite3") as store:
            job = open_run(
                RunRequest(suite_path=suite, engine="kore-batch:travel", workspace=tmp_path), store
            )

            async def go() -> object:
                task = asyncio.create_task(job.execute())
                while peer.calls["status"] < 2:
                    await asyncio.sleep(0.02)
                job.runner.cancel()
                return await task

            outcome = asyncio.run(go())
            record = store.get_run(job.record.id)
        assert record.status.value == "canceled", getattr(outcome, "record", None)
        assert peer.calls["delete_execution"] == 1 and not peer.executions
        assert record.options["kore_batch"]["deleted"] is True
        # the Kore.ai CSV report of the canceled run says so in its header
        from nlu_tui.reports import RunMeta, write_report

        report = tmp_path / "canceled.csv"
        write_report("csv", report, RunMeta.from_record(record), [])
        header = report.read_text(encoding="utf-8-sig").splitlines()[:6]
        assert any(line.startswith("Run Status,canceled") for line in header), header


def test_a_failed_remote_execution_fails_the_run_naming_the_api(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(make_peer()) as peer:
        peer.fail_runs = True
        teach(peer, 10)
        profile(tmp_path, peer, monkeypatch, 0.02)
        suite = write_suite(tmp_path, 10)
        code = cli(
            ["--data-dir", str(tmp_path / "d"), "run", str(suite), "--engine", "kore-batch:travel"]
        )
        assert code == 3
        seen = capsys.readouterr()
        said = seen.out + seen.err
        assert "Batch Test Execution Status API" in said and "ended failed" in said, said
        assert SECRET not in said


def test_kill_then_resume_polls_the_same_remote_execution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serving(make_peer()) as peer:
        peer.never_finish = True
        teach(peer, 50)
        profile(tmp_path, peer, monkeypatch, 0.05)
        suite = write_suite(tmp_path, 50)
        data = tmp_path / "data"
        env = {**os.environ, "PYTHONPATH": os.getcwd(), "KORE_BATCH_SECRET": SECRET}
        cmd = [sys.executable, "-m", "nlu_tui", "--data-dir", str(data), "run", str(suite)]
        proc = subprocess.Popen(
            [*cmd, "--engine", "kore-batch:travel"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while peer.calls["status"] < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert peer.calls["run"] == 1 and len(peer.executions) == 1
        first = next(iter(peer.executions))
        with RunStore(data / "runs.sqlite3") as store:
            run = store.list_runs()[0]
        assert run.options["kore_batch"]["request_id"] == first
        peer.never_finish = False
        done = subprocess.run(
            [sys.executable, "-m", "nlu_tui", "--data-dir", str(data), "run", "--resume", run.id],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert peer.calls["run"] == 1 and peer.calls["upload"] == 1  # no second execution
        with RunStore(data / "runs.sqlite3") as store:
            assert len(store.load_results(run.id)) == 50


def test_where_kore_and_our_scoring_differ_both_are_shown_with_their_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(make_peer()) as peer:
        teach(peer, 10)
        # the stand-in reports a wrong-intent answer as TP (a bug on its side)
        peer.misjudge["utterance number 1"] = "TP"
        profile(tmp_path, peer, monkeypatch, 0.02)
        suite = write_suite(tmp_path, 10)
        data = tmp_path / "data"
        assert (
            cli(["--data-dir", str(data), "run", str(suite), "--engine", "kore-batch:travel"]) == 0
        )
        out = capsys.readouterr().out
        assert "Kore.ai's verdict differs from nlu-tui's scoring on 1 case(s)" in out
        line = next(x for x in out.splitlines() if x.strip().startswith("utterance number 1 "))
        assert "TP" in line and "FP" in line
        assert "an intent matched that is not the expected one" in line
        with RunStore(data / "runs.sqlite3") as store:
            run = store.list_runs()[0]
        assert [d["kore"] for d in run.options["kore_batch"]["disagreements"]] == ["TP"]


def test_repeat_is_refused_before_anything_is_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(make_peer()) as peer:
        profile(tmp_path, peer, monkeypatch, 0.02)
        suite = write_suite(tmp_path, 5)
        data = tmp_path / "data"
        args = ["--data-dir", str(data), "run", str(suite), "--engine", "kore-batch:travel"]
        assert cli([*args, "--repeat", "3"]) == 2
        assert "--repeat" in capsys.readouterr().err
        assert sum(peer.calls.values()) == 0 and not (data / "runs.sqlite3").exists()


def test_the_remote_progress_is_shown_while_kore_runs_the_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(make_peer()) as peer:
        peer.step = 5  # four status polls for 20 utterances
        teach(peer, 20)
        profile(tmp_path, peer, monkeypatch, 0.4)
        suite = write_suite(tmp_path, 20)
        args = [
            "--data-dir",
            str(tmp_path / "d"),
            "run",
            str(suite),
            "--engine",
            "kore-batch:travel",
        ]
        assert cli(args) == 0
        out = capsys.readouterr().out
        assert "Kore.ai batch test tr-" in out and "utterances (" in out, out


def test_threshold_setting_is_read_block_by_block_and_ends_at_the_next_field() -> None:
    from nlu_tui.runner.kore_batch import threshold_setting

    header = [
        ["Bot Name", "Travel Bot"],
        ["Threshold Setting", ""],
        ["mode", "ml"],
        ["minThreshold", "0.3"],
        ["mode", "faq"],
        ["maxThreshold", "80"],
        ["Last Tested", "2026-11-28T10:00:00Z"],
        ["mode", "not-a-threshold-row"],
    ]
    assert threshold_setting(header) == [
        [["mode", "ml"], ["minThreshold", "0.3"]],
        [["mode", "faq"], ["maxThreshold", "80"]],
    ]
    # a report from before Kore.ai 7.3 has no block: nothing is invented
    assert threshold_setting([["Bot Name", "x"], ["Utterance Count", "3"]]) == []
