"""``analyze`` over scores that are not probabilities: Kore.ai answers engine points (its
finalResolver ``score``, e.g. 11160.0; see the documented answer in
/work/shared/reference and ``nlu_tui.engines.kore``). A 0..1 threshold sweep over them kept every
answer at every threshold and called that the analysis; now the run is refused, or rescaled
with ``--rescale`` (each score divided by the run's largest), and the output says which."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.model import ExpectedIntent, IntentScore, Prediction, RunStatus, Suite, TestCase
from nlu_tui.scoring.case import score_case
from nlu_tui.scoring.thresholds import analyze
from nlu_tui.store import RunStore

POINTS = [  # expected, answered, engine points (Kore.ai-like), utterance
    ("pay", "pay", 11160.0, "pay my bill"),
    ("pay", "pay", 8370.0, "settle the invoice"),
    ("pay", "card", 2790.0, "the card thing"),
    (None, "pay", 1395.0, "what is the weather"),
]


def _rows() -> list[tuple[TestCase, Prediction, object]]:
    rows = []
    for expected, got, points, text in POINTS:
        case = TestCase(text, intents=[ExpectedIntent(expected)] if expected else [])
        ranking = [IntentScore(got, points), IntentScore("other", points / 4)]
        prediction = Prediction(intent=got, confidence=points, ranking=ranking)
        rows.append((case, prediction, score_case(case, prediction)))
    return rows


def _stored_run() -> str:
    rows = _rows()
    store = RunStore()
    suite = Suite(name="kore", cases=[case for case, _p, _r in rows])
    run = store.create_run(
        suite, engine_name="kore", engine_profile={"type": "kore", "threshold": 2000}
    )
    store.add_results(run.id, [(seq, p, r) for seq, (_c, p, r) in enumerate(rows)])  # type: ignore[misc]
    store.finish_run(run.id, RunStatus.SUCCESS)
    store.close()
    return run.id


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", "analyze", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_points_are_refused_by_default(tmp_path: Path) -> None:
    run_id = _stored_run()
    ran = _cli(run_id, "--json", str(tmp_path / "a.json"))
    assert ran.returncode == 2, ran.stdout + ran.stderr
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in ran.stderr
    assert "4 of 4 answers score outside 0..1 (from 348.75 to 11160)" in lines[0]
    assert "not probabilities" in lines[0] and "--rescale" in lines[0]
    assert ran.stdout == "" and not (tmp_path / "a.json").exists()


def test_rescale_divides_by_the_largest_and_says_so(tmp_path: Path) -> None:
    run_id = _stored_run()
    ran = _cli(run_id, "--rescale", "--json", str(tmp_path / "a.json"))
    assert ran.returncode == 0, ran.stderr
    assert "rescaled   every score divided by 11160 (the largest in the run)" in ran.stdout
    doc = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert doc["rescaled_by"] == 11160.0 and doc["above_one"] == 0
    assert doc["run_threshold"] == pytest.approx(2000 / 11160)
    # thresholds are fractions of 11160: at 0.2 the 1395-point answer (0.125) goes to fallback
    at = {p["threshold"]: p for p in doc["grid"]}
    assert (at[0.2]["tp"], at[0.2]["tn"], at[0.2]["fp"]) == (2, 1, 1)
    assert (at[0.0]["tp"], at[0.0]["tn"], at[0.0]["fp"]) == (2, 0, 2)
    # best F1 0.8 at 0.25 (the card answer kept as FP, the weather one dropped) and at 0.75;
    # the lowest wins the tie
    assert doc["best_f1"]["threshold"] == pytest.approx(0.25)
    assert doc["best_f1"]["f1"] == pytest.approx(0.8)


def test_the_core_refuses_negative_scores_even_rescaled() -> None:
    rows = _rows()
    rows[0][1].confidence = -3.0
    with pytest.raises(Exception, match="negative scores cannot be rescaled"):
        analyze(rows, out_of_range="rescale")  # type: ignore[arg-type]
    kept = analyze(rows, out_of_range="keep")  # type: ignore[arg-type]
    assert kept.above_one == 4 and kept.rescaled_by is None  # as before: analysed as they are
