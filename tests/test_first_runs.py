"""A newly imported suite runs at once against both versions of its engine (seed 000: "by
default, the system automatically initiates test run execution for both In-development and
Published VA versions"), through the run service both faces use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.first_runs import plan_first_runs

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_suites"
NLU = SAMPLE / "banking_bot.nlu.yml"


def _profiles(folder: Path, text: str) -> None:
    (folder / "engines.yaml").write_text("engines:\n" + text, encoding="utf-8")


def _embedded(name: str, extra: str = "") -> str:
    return f"  {name}:\n    type: embedded\n    nlu: {NLU}\n{extra}"


def test_which_engines_a_new_suite_runs_on(tmp_path: Path) -> None:
    suite = tmp_path / "new.suite.yaml"
    plan = plan_first_runs(suite, tmp_path)
    assert not plan and "no engine profile" in plan.reason
    _profiles(tmp_path, _embedded("bot"))
    plan = plan_first_runs(suite, tmp_path)
    assert plan.engines == ["bot"] and plan.stages == ("development", "published")
    assert plan.reason == "runs on bot (development and published): the only engine profile"
    requests = plan.requests(suite, tmp_path)
    assert [(r.engine, r.stage, r.suite_path, r.note) for r in requests] == [
        ("bot", "development", suite, "first run of a new suite"),
        ("bot", "published", suite, "first run of a new suite"),
    ]
    _profiles(tmp_path, _embedded("bot", "    new_suites: false\n"))
    plan = plan_first_runs(suite, tmp_path)
    assert not plan and plan.reason == "no first runs: profile bot says new_suites: false"
    _profiles(tmp_path, _embedded("a") + _embedded("b"))
    plan = plan_first_runs(suite, tmp_path)
    assert not plan and "2 engine profiles and none says new_suites: true" in plan.reason
    _profiles(tmp_path, _embedded("a") + _embedded("b", "    new_suites: true\n"))
    assert plan_first_runs(suite, tmp_path).engines == ["b"]
    _profiles(tmp_path, _embedded("a", "    new_suites: yes please\n"))
    plan = plan_first_runs(suite, tmp_path)
    assert not plan and "new_suites must be true or false" in plan.reason
    assert "engines.yaml, line 5" in plan.reason


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={
            **os.environ,
            "NLU_TUI_DATA_DIR": str(cwd / "data"),
            "NLU_TUI_CONFIG_DIR": str(cwd / "config"),
        },
    )


@pytest.mark.slow
def test_an_imported_suite_runs_on_both_versions(tmp_path: Path) -> None:
    """The published version is stricter (threshold 0.99): the two stored runs differ."""
    _profiles(tmp_path, _embedded("bot", "    published: {threshold: 0.99}\n"))
    source = SAMPLE / "banking_bot.kore.csv"
    done = _cli(tmp_path, "import", str(source), "-o", "bank.suite.yaml")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("imported 54 cases")
    assert (
        lines[1] == "first runs: runs on bot (development and published): the only engine profile"
    )
    assert lines[2].endswith("[development]") and " success: 54/54 cases" in lines[2]
    assert lines[3].endswith("[published]") and " success: 54/54 cases" in lines[3]
    from nlu_tui.store import RunStore

    store = RunStore(tmp_path / "data" / "runs.sqlite3")
    runs = store.list_runs(tmp_path / "bank.suite.yaml")
    assert sorted(r.stage for r in runs) == ["development", "published"]
    assert {r.note for r in runs} == {"first run of a new suite"}
    by_stage = {r.stage: r for r in runs}
    # nothing reaches 0.99 confidence in the published version: fewer true positives there
    assert by_stage["published"].tp < by_stage["development"].tp
    skipped = _cli(tmp_path, "import", str(source), "-o", "again.suite.yaml", "--no-run")
    assert skipped.returncode == 0 and "first runs" not in skipped.stdout
    assert len(store.list_runs()) == 2


def test_a_first_run_that_cannot_start_is_a_warning(tmp_path: Path) -> None:
    _profiles(
        tmp_path,
        "  bot:\n    type: rasa\n    url: http://127.0.0.1:9\n    token: ${NO_SUCH_T0KEN}\n",
    )
    done = _cli(tmp_path, "import", str(SAMPLE / "banking_bot.kore.csv"), "-o", "b.suite.yaml")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "b.suite.yaml").is_file()
    assert done.stderr.count("first run on bot") == 2
    assert "environment variable NO_SUCH_T0KEN is not set" in done.stderr
