"""``nlu-tui analyze RUN`` in real subprocesses over a real run store."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.dom.minidom
from pathlib import Path

import pytest

from nlu_tui.model import ExpectedIntent, IntentScore, Prediction, RunStatus, Suite, TestCase
from nlu_tui.scoring.case import score_case
from nlu_tui.store import RunStore

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args], capture_output=True, text=True, timeout=timeout
    )


def _stored_run(answers: list[tuple[str | None, str | None, float, str]]) -> str:
    """A finished run whose case i expects answers[i][0] and got answers[i][1] at [i][2]."""
    cases = [
        TestCase(text, intents=[ExpectedIntent(exp)] if exp else [])
        for exp, _got, _conf, text in answers
    ]
    store = RunStore()
    run = store.create_run(Suite(name="thr", cases=cases), engine_name="loop", engine_profile={})
    items = []
    for seq, (case, (_exp, got, conf, _text)) in enumerate(zip(cases, answers, strict=True)):
        ranking = [IntentScore(got, conf), IntentScore("other", round(1 - conf, 6))] if got else []
        pred = Prediction(intent=got, confidence=conf, ranking=ranking)
        items.append((seq, pred, score_case(case, pred)))
    store.add_results(run.id, items)
    store.finish_run(run.id, RunStatus.SUCCESS)
    store.close()
    return run.id


def test_analyze_prints_the_sweep_and_writes_json_and_charts(tmp_path: Path) -> None:
    run_id = _stored_run(
        [
            ("pay", "pay", 0.9, "pay my bill"),
            ("pay", "pay", 0.6, "settle it"),
            (None, "pay", 0.52, "\x1b]52;c;evil\x07weather?"),  # out of scope, near-tie
            ("pay", "card", 0.3, "card thing"),
        ]
    )
    out = tmp_path / "charts"
    ran = _cli(
        "analyze",
        run_id[:6],
        "--target-precision",
        "0.95",
        "--json",
        str(tmp_path / "a.json"),
        "--out",
        str(out),
    )
    assert ran.returncode == 0, ran.stderr
    text = ran.stdout
    # As stored: TP .9 .6, FP .52 (expects none), FP .3 (wrong intent) -> P .5 R 1 F1 .667.
    # Best: threshold .6 keeps the two TPs, the others go to fallback: TN and FN -> F1 .8.
    assert "as run     threshold unknown: P 0.500 R 1.000 F1 0.667 fallback 0.0%" in text
    assert "best F1    threshold 0.6: P 1.000 R 0.667 F1 0.800 fallback 50.0%" in text
    assert "precision  >= 0.95 from threshold 0.6" in text
    assert "near-ties  1 of 4" in text and "\x1b" not in text and "␛]52" in text
    assert "◀ best" in text
    doc = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert doc["run"]["id"] == run_id
    assert doc["best_f1"]["threshold"] == 0.6 and doc["best_f1"]["f1"] == pytest.approx(0.8)
    assert [p["threshold"] for p in doc["curve"]] == [0.3, 0.52, 0.6, 0.9]
    assert doc["margin"]["near_ties"][0]["utterance"].endswith("weather?")
    assert doc["calibration"]["cases"] == 4 and len(doc["calibration"]["bins"]) == 10
    for name in ("thresholds.svg", "reliability.svg"):
        xml.dom.minidom.parse(str(out / name))  # well-formed
    assert "wrote" in ran.stderr


def test_analyze_rejects_bad_options_before_writing(tmp_path: Path) -> None:
    run_id = _stored_run([("pay", "pay", 0.9, "pay")])
    for option, value in (("--target-precision", "1.5"), ("--bins", "0"), ("--tie-margin", "-1")):
        ran = _cli("analyze", run_id, option, value, "--json", str(tmp_path / "a.json"))
        assert ran.returncode == 2, ran.stderr
        assert ran.stderr.startswith("nlu-tui: error: ") and option in ran.stderr
        assert len(ran.stderr.splitlines()) == 1
    assert not (tmp_path / "a.json").exists()
    (tmp_path / "file").write_text("x", encoding="utf-8")
    for option, where in (("--out", tmp_path / "file"), ("--json", tmp_path)):
        ran = _cli("analyze", run_id, option, str(where))
        assert ran.returncode == 2 and option in ran.stderr, ran.stderr
        assert len(ran.stderr.splitlines()) == 1 and ran.stdout == ""
    missing = _cli("analyze", "nosuchrun")
    assert missing.returncode == 2 and "no run with id" in missing.stderr


@pytest.mark.slow
def test_analyze_of_an_embedded_run_reproduces_it_at_its_threshold(tmp_path: Path) -> None:
    suite = SAMPLES / "banking_bot.suite.yaml"
    nlu = SAMPLES / "banking_bot.nlu.yml"
    ran = _cli("run", str(suite), "--engine", f"embedded:{nlu}", "--json", str(tmp_path / "r.json"))
    assert ran.returncode == 0, ran.stderr
    run_id = ran.stdout.splitlines()[0].split()[1].rstrip(":")
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["summary"]
    analyzed = _cli("analyze", run_id, "--json", str(tmp_path / "a.json"))
    assert analyzed.returncode == 0, analyzed.stderr
    doc = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert doc["run_threshold"] == 0.3  # the embedded engine's default
    as_run = doc["as_run"]
    assert as_run["f1"] == pytest.approx(report["f1"])
    # the sweep at the engine's own threshold gives back the stored counts
    at = next(p for p in doc["grid"] if p["threshold"] == 0.3)
    assert {k: at[k] for k in ("tp", "tn", "fp", "fn", "fallback")} == {
        k: as_run[k] for k in ("tp", "tn", "fp", "fn", "fallback")
    }
    assert doc["best_f1"]["f1"] >= as_run["f1"]


def test_analyze_refuses_a_run_that_is_not_a_batch_test(tmp_path: Path) -> None:
    """A DUT or conversation run has no intent answers to threshold: a clear error (exit 2)
    naming its kind, not a sweep of zeros ("scored 0 ... P 0.000 R 0.000")."""
    store = RunStore()
    run = store.create_run(
        Suite(name="contacts.dut.yml"), engine_name="loop", cases=[], kind="dut", total=1
    )
    store.finish_run(run.id, RunStatus.SUCCESS)
    store.close()
    ran = _cli("analyze", run.id, "--json", str(tmp_path / "a.json"))
    assert ran.returncode == 2, ran.stdout
    assert ran.stderr.startswith("nlu-tui: error: ") and "dut" in ran.stderr
    assert ran.stdout == "" and not (tmp_path / "a.json").exists()
