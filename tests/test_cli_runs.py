"""``nlu-tui run/runs/show/note/delete`` as a user or CI calls them, in real subprocesses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runner_loopback import LoopbackNlu, make_suite, write_suite

from nlu_tui.store import RunStore

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args], capture_output=True, text=True, timeout=timeout
    )


def _run_id(proc: subprocess.CompletedProcess[str]) -> str:
    first = proc.stdout.splitlines()[0]
    assert first.startswith("run "), proc.stdout + proc.stderr
    return first.split()[1].rstrip(":")


@pytest.mark.slow
def test_sample_suite_on_embedded_engine_and_every_view(tmp_path: Path) -> None:
    suite = SAMPLES / "banking_bot.suite.yaml"
    nlu = SAMPLES / "banking_bot.nlu.yml"
    ran = _cli(
        "run",
        str(suite),
        "--engine",
        f"embedded:{nlu}",
        "--note",
        "first try",
        "--json",
        str(tmp_path / "out.json"),
        "--csv",
        str(tmp_path / "out.csv"),
        "--junit",
        str(tmp_path / "out.xml"),
        "--rasa",
        str(tmp_path / "rasa-run"),
    )
    assert ran.returncode == 0, ran.stderr
    run_id = _run_id(ran)
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    summary = report["summary"]
    assert summary["cases"] == 54 and summary["errors"] == 0
    assert summary["f1"] > 0.8  # the embedded engine learns the sample bot well
    assert (tmp_path / "out.csv").read_text(encoding="utf-8-sig").startswith("Bot Name")
    assert "<testsuites" in (tmp_path / "out.xml").read_text(encoding="utf-8")
    rasa_report = json.loads((tmp_path / "rasa-run" / "intent_report.json").read_text())
    assert 0 < rasa_report["weighted avg"]["support"] <= 54

    listed = json.loads(_cli("runs", "--json").stdout)
    assert [r["id"] for r in listed] == [run_id]
    row = listed[0]
    assert row["status"] == "success" and row["version"] == "development"
    assert row["counts"] == {k: summary[k] for k in ("tp", "tn", "fp", "fn", "errors")}
    assert row["note"] == "first try" and row["started_at"] and row["finished_at"]
    assert json.loads(_cli("runs", str(suite), "--json").stdout)[0]["id"] == run_id
    other = tmp_path / "other.suite.yaml"  # a suite without runs (a missing file is an error)
    other.write_text("nlu_tui_suite: 1\ncases: []\n", encoding="utf-8")
    assert json.loads(_cli("runs", str(other), "--json").stdout) == []
    table = _cli("runs")
    assert run_id in table.stdout and "success" in table.stdout

    shown = json.loads(_cli("show", run_id[:8], "--format", "json").stdout)
    assert shown["summary"] == summary
    text = _cli("show", run_id).stdout
    assert f"F1         {summary['f1']:.4f}" in text and "first try" in text
    assert _cli("show", run_id, "-f", "rasa", "-o", str(tmp_path / "rasa")).returncode == 0
    for name in ("intent_report.json", "intent_errors.json"):  # as `run --rasa` wrote them
        assert (tmp_path / "rasa" / name).read_bytes() == (
            tmp_path / "rasa-run" / name
        ).read_bytes()
    # rasa test nlu's --successes and --no-errors
    switched = tmp_path / "rasa-switched"
    shown_rasa = _cli(
        "show", run_id, "-f", "rasa", "-o", str(switched), "--rasa-successes", "--rasa-no-errors",
        "--rasa-no-plot",
    )  # fmt: skip
    assert shown_rasa.returncode == 0, shown_rasa.stderr
    assert (switched / "intent_successes.json").exists()
    assert not list(switched.glob("*_errors.json"))
    assert not list(switched.glob("*.png"))  # rasa test nlu --no-plot
    plots = {p.name for p in (tmp_path / "rasa-run").glob("*.png")}
    assert {"intent_confusion_matrix.png", "intent_histogram.png"} <= plots
    charts = _cli("show", run_id, "--charts")  # the same charts, in the terminal
    assert charts.returncode == 0, charts.stderr
    assert "Intent Confusion matrix (rows: true label, columns: predicted)" in charts.stdout
    assert "Intent Prediction Confidence Distribution" in charts.stdout
    assert " transfer_money " in charts.stdout
    assert (switched / "intent_report.json").read_bytes() == (
        tmp_path / "rasa-run" / "intent_report.json"
    ).read_bytes()

    assert _cli("note", run_id, "second thoughts").returncode == 0
    assert json.loads(_cli("runs", "--json").stdout)[0]["note"] == "second thoughts"
    too_long = _cli("note", run_id, "x" * 1025)
    assert too_long.returncode == 2 and "1024" in too_long.stderr

    assert _cli("delete", run_id).returncode == 0
    assert json.loads(_cli("runs", "--json").stdout) == []
    missing = _cli("show", run_id)
    assert missing.returncode == 2 and "no run" in missing.stderr


def test_bad_input_runs_nothing(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", 3)
    for args in (
        ["run", str(tmp_path / "missing.suite.yaml"), "--engine", "rasa:http://127.0.0.1:9"],
        ["run", str(suite), "--engine", "no-such-profile"],
        ["run", str(suite), "--engine", "rasa:http://127.0.0.1:9", "--fail-on", "bogus"],
        ["run", str(suite), "--engine", "rasa:http://127.0.0.1:9", "--thresholds", "nope.yml"],
        ["run", str(suite), "--engine", "rasa:http://127.0.0.1:9", "--baseline", "nope"],
        ["run", str(suite)],
        # Report targets that cannot all be written are refused before the run, not after.
        ["run", str(suite), "-e", "rasa:http://127.0.0.1:9", "--json", "r", "--csv", "./r"],
        ["run", str(suite), "-e", "rasa:http://127.0.0.1:9", "--junit", str(tmp_path)],
        ["run", str(suite), "-e", "rasa:http://127.0.0.1:9", "--rasa", str(suite)],
    ):
        proc = _cli(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert proc.stderr.startswith("nlu-tui: error:"), proc.stderr
    assert json.loads(_cli("runs", "--json").stdout) == []
    both = _cli("run", str(suite), "-e", "rasa:http://127.0.0.1:9", "--json", "r", "--csv", "r")
    assert "--json and --csv would both write r" in both.stderr


@pytest.mark.slow
def test_exit_codes_failed_fail_on_and_gates(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", 40)
    cases = make_suite(40).cases
    with LoopbackNlu() as server:
        url = server.url
        good = _cli("run", str(suite), "--engine", f"rasa:{url}", "--fail-on", "errors,f1<0.99")
        assert good.returncode == 0, good.stderr
        base_id = _run_id(good)
    unreachable = _cli("run", str(suite), "--engine", f"rasa:{url}")
    assert unreachable.returncode == 3 and "engine unreachable" in unreachable.stdout
    assert json.loads(_cli("runs", "--json").stdout)[0]["status"] == "failed"

    worse = {c.utterance: "greet" for c in cases[1:20:4]}  # 'bye' cases now answer 'greet'
    with LoopbackNlu(rename=worse, always={cases[2].utterance: "garbage"}) as server:
        engine = f"rasa:{server.url}"
        warned = _cli("run", str(suite), "--engine", engine)
        assert warned.returncode == 0 and "success_with_warning" in warned.stdout
        failing = _cli("run", str(suite), "--engine", engine, "--fail-on", "errors")
        assert failing.returncode == 1 and "1 cases errored" in failing.stderr
        gated = _cli("run", str(suite), "--engine", engine, "--baseline", base_id)
        assert gated.returncode == 1 and "FAIL all intents" in gated.stderr
        (tmp_path / "t.yml").write_text(
            "thresholds:\n  - {type: intent, threshold: 0.5}\n", encoding="utf-8"
        )
        lenient = _cli(
            "run",
            str(suite),
            "--engine",
            engine,
            "--baseline",
            base_id[:6],
            "--thresholds",
            str(tmp_path / "t.yml"),
        )
        assert lenient.returncode == 0, lenient.stdout + lenient.stderr
        assert "PASS all intents" in lenient.stdout


@pytest.mark.slow
def test_ctrl_c_cancels_keeps_results_and_resumes(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", 60)
    store_path = Path(os.environ["NLU_TUI_DATA_DIR"]) / "runs.sqlite3"
    with LoopbackNlu(latency=0.1) as server:
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "nlu_tui",
                "run",
                str(suite),
                "--engine",
                f"rasa:{server.url}",
                "--concurrency",
                "2",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        done = 0
        deadline = time.monotonic() + 30
        while done < 6 and time.monotonic() < deadline:
            time.sleep(0.05)
            runs = RunStore(store_path).list_runs() if store_path.exists() else []
            done = runs[0].done if runs else 0
        began = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=10)
        assert time.monotonic() - began < 2.0
        assert child.returncode == 130, out + err
        assert "resume with: nlu-tui run --resume" in err
        (run,) = json.loads(_cli("runs", "--json").stdout)
        assert run["status"] == "canceled" and 6 <= run["done"] < 60
        resumed = _cli("run", "--resume", run["id"])
        assert resumed.returncode == 0, resumed.stderr
    final = json.loads(_cli("runs", "--json").stdout)[0]
    assert final["status"] == "success" and final["done"] == 60
    again = _cli("run", "--resume", run["id"])
    assert again.returncode == 2 and "only unfinished" in again.stderr


def _cli_on_terminal(*args: str, timeout: float = 60) -> str:
    """``nlu-tui ARGS`` with stdout on a pseudo-terminal (the Rich bar); what it drew, plain."""
    import pty
    import re

    leader, follower = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "nlu_tui", *args],
        stdout=follower,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "120", "TERM": "xterm"},
    )
    os.close(follower)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert child.wait(timeout=10) == 0
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode("utf-8", "replace"))


@pytest.mark.slow
def test_progress_says_the_engine_opens_before_cases_flow(tmp_path: Path) -> None:
    """A slow-opening engine: one "connecting" line (or the bar's text on a terminal) first,
    not a progress stuck at 0/N; an engine that trains says "training"."""
    suite = write_suite(tmp_path / "s.suite.yaml", 20)
    with LoopbackNlu(version_latency=1.5) as server:
        ran = _cli("run", str(suite), "--engine", f"rasa:{server.url}")
        assert ran.returncode == 0, ran.stderr
        lines = ran.stdout.splitlines()
        assert lines[0].startswith("run ") and lines[1] == "connecting to the engine…", ran.stdout
        assert lines.count("connecting to the engine…") == 1  # once, however long it takes
        assert lines[2].startswith("0/20 (0.0%)") and "20/20 (100.0%)" in ran.stdout
        drawn = _cli_on_terminal("run", str(suite), "--engine", f"rasa:{server.url}")
    opening = drawn.index("connecting to the engine…")
    assert "0/20" not in drawn[:opening] and "20/20" in drawn[opening:], drawn

    trained = _cli(
        "run",
        str(SAMPLES / "banking_bot.suite.yaml"),
        "--engine",
        f"embedded:{SAMPLES / 'banking_bot.nlu.yml'}",
    )
    assert trained.returncode == 0, trained.stderr
    assert trained.stdout.splitlines()[1] == "training the engine…", trained.stdout


def test_show_of_a_dut_or_conversation_run_refuses_what_it_cannot_write(tmp_path: Path) -> None:
    """`show RUN -f rasa -o DIR` (or csv/junit/nludevops, or --charts) of a DUT or conversation
    run is a clear error (exit 2): it used to print the run's summary, write nothing and exit 0.
    Its own report and `-f json` stay."""
    from nlu_tui.model import RunStatus, Suite

    store = RunStore()
    ids = []
    for kind in ("dut", "e2e"):
        run = store.create_run(
            Suite(name=f"t.{kind}.yml"), engine_name="loop", cases=[], kind=kind, total=0
        )
        store.finish_run(run.id, RunStatus.SUCCESS)
        ids.append((kind, run.id))
    store.close()
    for kind, run_id in ids:
        for args in (["-f", "rasa", "-o", str(tmp_path / "r")], ["-f", "csv"], ["--charts"]):
            ran = _cli("show", run_id, *args)
            assert ran.returncode == 2, (kind, args, ran.stdout)
            assert ran.stderr.startswith("nlu-tui: error: ") and kind in ran.stderr
        assert _cli("show", run_id).returncode == 0
        assert _cli("show", run_id, "-f", "json").returncode == 0
    assert not (tmp_path / "r").exists()


def test_show_rasa_without_a_folder_prints_the_intent_report_and_says_so(tmp_path: Path) -> None:
    """`show RUN -f rasa` without `-o DIR` prints intent_report.json only; stderr says how to
    get the whole folder (entity and response reports, errors, plots), which it silently left out."""
    from nlu_tui.model import ExpectedIntent, Prediction, RunStatus, Suite, TestCase
    from nlu_tui.scoring.case import score_case

    case = TestCase("pay my bill", [ExpectedIntent("pay")], id="c1")
    store = RunStore()
    run = store.create_run(Suite(name="s", cases=[case]), engine_name="loop")
    pred = Prediction(intent="pay", confidence=0.9)
    store.add_results(run.id, [(0, pred, score_case(case, pred))])
    store.finish_run(run.id, RunStatus.SUCCESS)
    store.close()
    ran = _cli("show", run.id, "-f", "rasa")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["pay"]["support"] == 1
    assert "intent_report.json" in ran.stderr and "-o DIR" in ran.stderr
