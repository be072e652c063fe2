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
    check_gates,
    load_settings,
    statistics_from_run,
)
from nlu_tui.compare.outputs import statistics_json
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

    # Cases with several acceptable intents (written with all of them in nluTui.intents) and,
    # with `ownFields: ignore`, as `dotnet nlu compare` reads the same files: the counts of
    # `compare` are the run's own, and the same threshold file prints the same gates.
    several = [c for c in cases if len(c.intent_names) > 1]
    assert several and any(p is not None and p.intent in c.intent_names[1:] for c, p, _r in rows), (
        "the sample suite has a case answered with a second acceptable intent"
    )
    ignore = tmp_path / "ignore.yml"
    ignore.write_text("nluTui: {ownFields: ignore}\n" + THRESHOLDS, encoding="utf-8")
    counted, gate_lines = [], []
    for settings_file in (thresholds, ignore):
        out = tmp_path / f"out-{settings_file.stem}"
        compared = _cli(
            "compare", "-e", str(expected), "-a", str(results), "-o", str(out),
            "-t", str(settings_file),
        )  # fmt: skip
        assert compared.returncode == 0, compared.stdout + compared.stderr
        settings = load_settings(settings_file)
        own = statistics_from_run(cases, [p for _c, p, _r in rows], settings)
        assert _stats_file(out) == json.loads(statistics_json(own))
        own_gates = check_gates(own, None, settings.thresholds)
        assert _gates(compared.stdout) == [g.description for g in own_gates]
        counted.append(own.intent.as_list())
        gate_lines.append(_gates(compared.stdout))
    assert counted[0] != counted[1]  # the alternatives count as TP only when read
    # `run --thresholds` printed the very gates `compare` prints on its files, labelled
    assert run_gates == [f"{g} [NLU.DevOps]" for g in gate_lines[0]]


def _stats_file(folder: Path) -> object:
    return json.loads((folder / "statistics.json").read_text(encoding="utf-8"))
