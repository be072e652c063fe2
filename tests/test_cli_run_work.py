"""Work ``nlu-tui run`` does after the last case: none it does not need (not timed).

Reading every result back from the store took half a second at 20,000 cases, at the end of
every run, whether or not anything read them (``bench/bench_runner_throughput.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_loopback import LoopbackNlu, write_suite

from nlu_tui.cli.main import run as cli
from nlu_tui.store.runstore import RunStore


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Run ids whose results were read back from the store."""
    seen: list[str] = []
    original = RunStore.load_results

    def counting(self: RunStore, run_id: str) -> object:
        seen.append(run_id)
        return original(self, run_id)

    monkeypatch.setattr(RunStore, "load_results", counting)
    return seen


def test_plain_run_does_not_read_its_results_back(tmp_path: Path, loads: list[str]) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", 30)
    with LoopbackNlu() as server:
        assert cli(["run", str(suite), "--engine", f"rasa:{server.url}"]) == 0
    assert loads == []


def test_reports_and_fail_on_still_read_every_result(
    tmp_path: Path, loads: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", 30)
    report = tmp_path / "out.json"
    with LoopbackNlu(always={}) as server:
        engine = f"rasa:{server.url}"
        assert cli(["run", str(suite), "--engine", engine, "--json", str(report)]) == 0
        assert cli(["run", str(suite), "--engine", engine, "--fail-on", "f1<1.01"]) == 1
    assert len(loads) == 2
    assert report.is_file() and '"results"' in report.read_text(encoding="utf-8")
    assert "FAIL f1" in capsys.readouterr().err
