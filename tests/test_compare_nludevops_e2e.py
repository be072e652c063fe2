"""A stored run through NLU.DevOps files: ``run`` → ``show -f nludevops`` → ``compare``.

The numbers ``compare`` computes from the exported expected file and the run's results file
must be the run's own NLU.DevOps numbers (``compare.bridge.statistics_from_run``, what
``nlu-tui run --thresholds`` gates on), and the same threshold file must print the same gates.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.compare.bridge import (
    actual_json,
    check_gates,
    expected_json,
    load_settings,
    statistics_from_run,
)
from nlu_tui.compare.decisions import compare
from nlu_tui.compare.outputs import statistics_json
from nlu_tui.compare.statistics import Statistics
from nlu_tui.compare.utterances import parse_utterance
from nlu_tui.store import RunStore

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"

THRESHOLDS = """\
thresholds:
  - type: intent
    comparison: absolute
    threshold: 0.5
  - type: entity
    group: '*'
    metric: recall
    comparison: Absolute
    threshold: 0.1
"""


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args], capture_output=True, text=True, timeout=300
    )


def _gates(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith(("PASS ", "FAIL "))]


@pytest.mark.slow
def test_run_show_nludevops_then_compare_gives_the_runs_own_numbers(tmp_path: Path) -> None:
    suite = SAMPLES / "banking_bot.suite.yaml"
    thresholds = tmp_path / "thresholds.yml"
    thresholds.write_text(THRESHOLDS, encoding="utf-8")
    ran = _cli(
        "run",
        str(suite),
        "--engine",
        f"embedded:{SAMPLES / 'banking_bot.nlu.yml'}",
        "--thresholds",
        str(thresholds),
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    run_id = ran.stdout.splitlines()[0].split()[1].rstrip(":")
    run_gates = _gates(ran.stdout)
    assert len(run_gates) == 2 and all(g.startswith("PASS") for g in run_gates), ran.stdout

    results = tmp_path / "results.json"
    shown = _cli("show", run_id, "-f", "nludevops", "-o", str(results))
    assert shown.returncode == 0, shown.stderr
    printed = _cli("show", run_id, "-f", "nludevops")
    assert printed.returncode == 0 and json.loads(printed.stdout) == json.loads(
        results.read_text(encoding="utf-8")
    )
    expected = tmp_path / "tests.json"
    exported = _cli("export", str(suite), "-f", "nludevops", "-o", str(expected))
    assert exported.returncode == 0, exported.stderr
    answers = json.loads(results.read_text(encoding="utf-8"))
    assert len(answers) == len(json.loads(expected.read_text(encoding="utf-8"))) == 54

    rows = RunStore().load_results(run_id)
    cases = [c for c, _p, _r in rows]
    assert [a.get("text") for a in answers] == [c.utterance for c in cases]

    # A case with several acceptable intents becomes one expected intent in the exported file
    # (the first); the run's own gates expect the predicted one when it is acceptable. On the
    # other cases the two agree exactly, and with the first intent everywhere they agree too.
    single = [i for i, c in enumerate(cases) if len(c.intent_names) == 1]
    assert 0 < len(single) < len(cases)
    tests = json.loads(expected.read_text(encoding="utf-8"))
    only_e, only_a = tmp_path / "single-tests.json", tmp_path / "single-results.json"
    only_e.write_text(json.dumps([tests[i] for i in single]), encoding="utf-8")
    only_a.write_text(json.dumps([answers[i] for i in single]), encoding="utf-8")
    out = tmp_path / "out"
    compared = _cli(
        "compare", "-e", str(only_e), "-a", str(only_a), "-o", str(out), "-t", str(thresholds)
    )
    assert compared.returncode == 0, compared.stdout + compared.stderr
    picked = [rows[i] for i in single]
    own = statistics_from_run([c for c, _p, _r in picked], [p for _c, p, _r in picked])
    assert _stats_file(out) == json.loads(statistics_json(own))
    own_gates = check_gates(own, None, load_settings(thresholds).thresholds)
    assert _gates(compared.stdout) == [g.description for g in own_gates]

    full = tmp_path / "full"
    compared = _cli("compare", "-e", str(expected), "-a", str(results), "-o", str(full))
    assert compared.returncode == 0, compared.stdout + compared.stderr
    first_intent = Statistics.from_decisions(
        compare(
            [parse_utterance(expected_json(c), index=i) for i, c in enumerate(cases)],
            [parse_utterance(actual_json(c, p), index=i) for i, (c, p, _r) in enumerate(rows) if p],
        )
    )
    assert _stats_file(full) == json.loads(statistics_json(first_intent))


def _stats_file(folder: Path) -> object:
    return json.loads((folder / "statistics.json").read_text(encoding="utf-8"))
