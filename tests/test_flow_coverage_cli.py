"""``nlu-tui test du FILE --coverage-report --coverage-output-path DIR`` against a loopback
command engine: the four files of Rasa Pro's ``--coverage-report`` (names from
``rasa/e2e_test/utils/io.py``), passed and failed test cases apart; a bad output path is
refused (exit 2) before any message is sent. Rasa Pro's ``rasa test du`` has no coverage
report: DUT test cases are read as the conversation they define (expected commands and bot
steps), see :func:`nlu_tui.scoring.flow_coverage.dut_events`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nlu_tui.cli.main import run as cli
from tests.http_handler_server import QuietHandler, serving

FLOWS = Path(__file__).parent / "fixtures" / "coverage" / "flows.yml"
SEEN: list[str] = []
ANSWERS = {
    "send 5 to bob": ["start flow transfer_money", "set slot recipient bob", "set slot amount 5"],
    "yes": ["set slot confirm_transfer true"],
    "a new card": ["start flow replace_card"],
    "visa": ["set slot card_type mastercard"],  # wrong: that test case fails
}


class Commands(QuietHandler):
    def do_POST(self) -> None:
        body = self.read_json()
        SEEN.append(body["message"])
        self.send_json(json.dumps({"commands": ANSWERS[body["message"]]}).encode())


DUT = """\
test_cases:
  - test_case: transfer
    steps:
      - user: send 5 to bob
        commands:
          - start flow transfer_money
          - set slot recipient bob
          - set slot amount 5
      - utter: utter_ask_confirm_transfer
      - user: "yes"
        commands:
          - set slot confirm_transfer true
      - utter: utter_transfer_done
  - test_case: card
    steps:
      - user: a new card
        commands:
          - start flow replace_card
      - utter: utter_ask_card_type
      - user: visa
        commands:
          - set slot card_type visa
"""


def _setup(tmp_path: Path, url: str) -> None:
    (tmp_path / "t.yml").write_text(DUT, encoding="utf-8")
    (tmp_path / "engines.yaml").write_text(
        f"engines:\n  cmds:\n    type: http\n    url: {url}/predict\n"
        "    body: {message: '{text}'}\n    commands: commands\n",
        encoding="utf-8",
    )


def _base(tmp_path: Path) -> list[str]:
    return ["test", "du", str(tmp_path / "t.yml"), "--engine", "cmds", "--no-output"]


def test_du_coverage_report_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cov"
    with serving(Commands) as url:
        _setup(tmp_path, url)
        code = cli(
            [
                *_base(tmp_path),
                "--flows",
                str(FLOWS),
                "--coverage-report",
                "--coverage-output-path",
                str(out),
            ],
        )
    assert code == 1  # the card test case failed
    assert sorted(p.name for p in out.iterdir()) == [
        "commands_histogram_for_failed_tests.png",
        "commands_histogram_for_passed_tests.png",
        "coverage_report_for_failed_tests.csv",
        "coverage_report_for_passed_tests.csv",
    ]
    passed = (out / "coverage_report_for_passed_tests.csv").read_text().splitlines()
    # transfer: recipient, amount (set slot), confirm (asked and set), utter_transfer_done
    assert passed[1] == f'{FLOWS}::transfer money,50.0,8,4,"[8-14, 12-13, 21-21, 25-27]"'
    assert passed[-1] == "Total,17.39%,23,19,"  # 4 of 23
    failed = (out / "coverage_report_for_failed_tests.csv").read_text().splitlines()
    assert failed[4] == f'{FLOWS}::replace card,33.33333333333333,3,2,"[56-56, 57-58]"'
    assert failed[-1] == "Total,4.35%,23,22,"  # 1 of 23
    for status in ("passed", "failed"):
        png = (out / f"commands_histogram_for_{status}_tests.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    printed = capsys.readouterr().out
    assert "flow coverage of passed tests: 17.39% (4 of 23 steps)" in printed
    assert f"Coverage data and result is written to {out}." in printed


def test_du_coverage_output_path_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    SEEN.clear()
    blocker = tmp_path / "taken"
    blocker.write_text("x", encoding="utf-8")
    with serving(Commands) as url:
        _setup(tmp_path, url)
        code = cli(
            [
                *_base(tmp_path),
                "--flows",
                str(FLOWS),
                "--coverage-report",
                "--coverage-output-path",
                str(blocker),
            ],
        )
    assert code == 2
    assert SEEN == []  # refused before any message
    assert "is a file, not a folder" in capsys.readouterr().err


def test_du_coverage_needs_flows_with_steps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    SEEN.clear()
    with serving(Commands) as url:
        _setup(tmp_path, url)
        code = cli(
            [*_base(tmp_path), "--coverage-report", "--coverage-output-path", str(tmp_path / "c")],
        )
    assert code == 2 and SEEN == []
    assert "--flows" in capsys.readouterr().err


def test_coverage_kept_with_the_run_and_compared(tmp_path: Path) -> None:
    """The second run fixes the card test case: its steps move to the passed group and show
    as newly visited (+) against the first run's passed group."""
    from nlu_tui.coverage_reports import SUMMARY_KEY, previous_coverage, step_lines
    from nlu_tui.store.runstore import RunStore

    args = ["--flows", str(FLOWS), "--coverage-report", "--coverage-output-path"]
    with serving(Commands) as url:
        _setup(tmp_path, url)
        assert cli([*_base(tmp_path), *args, str(tmp_path / "c1")]) == 1
        ANSWERS["visa"] = ["set slot card_type visa"]
        try:
            assert cli([*_base(tmp_path), *args, str(tmp_path / "c2")]) == 0
        finally:
            ANSWERS["visa"] = ["set slot card_type mastercard"]
    with RunStore() as store:
        newest, first = store.list_runs()[:2]
        current = newest.summary[SUMMARY_KEY]
        before = previous_coverage(store, newest)
        assert before == first.summary[SUMMARY_KEY]
    assert current["reports"]["failed"] is None  # no failed test case: header only
    lines = {s.step_id: s for s in step_lines(current, before, "passed")}
    card = lines["replace_card_0_collect_card_type"]
    assert (card.visited, card.change) == (True, "+")
    assert lines["confirm"].visited and lines["confirm"].change == ""
    assert not lines["transfer_money_3_utter_insufficient_funds"].visited
    assert len(lines) == 23
