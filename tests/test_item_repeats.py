"""``test e2e --repeat N`` and ``test du --repeat N``: each test case sent N times by the run
kernel, per-case stability reported (flaky: passed in some attempts, failed in others), the
attempts stored apart from the item's own row so that ``runs``, ``show``, ``note`` and the
reports read the run as any other; ``--quarantine-flaky`` keeps flaky cases from failing."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conversation_peer import BotState, handler_for
from http_handler_server import serving

from nlu_tui.cli.main import run as cli
from nlu_tui.model import RunStatus
from nlu_tui.store import RunStore

E2E = """\
test_cases:
  - test_case: greet
    steps:
      - user: hello
      - bot: Hey!
  - test_case: book
    steps:
      - user: book a table
      - utter: utter_ask_cuisine
"""

DUT = """\
test_cases:
  - test_case: add
    steps:
      - user: I want to add someone to my contact list
        commands:
          - start flow add_contact
  - test_case: clarify
    steps:
      - user: which flows?
        commands:
          - disambiguate flows remove_contact add_contact
"""


class FlakyBot(BotState):
    """Greets with "Hey!" and "Hi!" in turn: the greet test case passes every other time."""

    def __init__(self) -> None:
        super().__init__()
        self._greetings = itertools.cycle(["Hey!", "Hi!"])

    @property  # type: ignore[override]
    def greeting(self) -> str:
        return next(self._greetings)

    @greeting.setter
    def greeting(self, value: str) -> None:
        pass


@pytest.fixture
def flaky_bot() -> Iterator[str]:
    with serving(handler_for(FlakyBot())) as url:
        yield url


def _last_run() -> Any:
    with RunStore() as store:
        return store.list_runs()[0]


def test_e2e_repeat_reports_per_case_stability_and_flaky_cases(
    tmp_path: Path, flaky_bot: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "e2e.yml"
    path.write_text(E2E, encoding="utf-8")
    engine = f"rasa:{flaky_bot}"
    # one conversation at a time: greet is held 3 times (Hey!, Hi!, Hey!), then book
    code = cli(
        ["test", "e2e", str(path), "--engine", engine, "--repeat", "3", "--concurrency", "1"]
    )
    out = capsys.readouterr().out
    assert code == 0  # the run is judged by each test case's last attempt, as `run --repeat`
    assert "stability over 3 attempts: 50% of 2 measured test cases stable, 1 flaky" in out
    assert "  greet: passed 2/3  FLAKY" in out
    assert "  book: passed 3/3\n" in out
    run = _last_run()
    assert (run.kind, run.total, run.done, run.status) == ("e2e", 2, 2, run.status)
    with RunStore() as store:
        assert len(store.load_items(run.id)) == 2  # the items' own rows
        assert len(store.load_items(run.id, attempts=True)) == 6  # and attempts #2, #3
    stability = run.summary["stability"]
    assert stability["flaky"] == ["greet"]
    # the id is accepted by runs, show and note
    assert cli(["note", run.id, "flaky greeting"]) == 0
    capsys.readouterr()
    assert cli(["runs", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert any(r["id"] == run.id and r["note"] == "flaky greeting" for r in listed)
    assert cli(["show", run.id]) == 0
    shown = capsys.readouterr().out
    assert "greet" in shown and "FLAKY" in shown


def test_e2e_quarantine_flaky_keeps_a_flaky_case_from_failing_the_run(
    tmp_path: Path, flaky_bot: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "e2e.yml"
    path.write_text(E2E, encoding="utf-8")
    engine = f"rasa:{flaky_bot}"
    args = ["test", "e2e", str(path), "--engine", engine, "--repeat", "2", "--concurrency", "1"]
    # greet: Hey! then Hi!, so its last attempt failed
    assert cli(args) == 1
    assert "  greet: passed 1/2  FLAKY" in capsys.readouterr().out
    assert cli([*args, "--quarantine-flaky"]) == 0  # the same again, quarantined
    assert "  greet: passed 1/2  FLAKY" in capsys.readouterr().out


@pytest.fixture
def flaky_rasa_pro(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    import rasa_pro_peer

    real = rasa_pro_peer._commands_for
    turns = itertools.cycle([True, False])

    def flaky(
        text: str, history: list[str], events: list[dict[str, Any]] | None = None
    ) -> tuple[list[dict[str, Any]], str, str]:
        if text.startswith("I want to add") and not next(turns):
            return [{"command": "cannot handle"}], "Sorry?", "utter_cannot_handle"
        return real(text, history, events)

    monkeypatch.setattr(rasa_pro_peer, "_commands_for", flaky)
    with rasa_pro_peer.rasa_pro_server() as (url, _state):
        yield url


def test_du_repeat_reports_per_case_stability_and_flaky_cases(
    tmp_path: Path, flaky_rasa_pro: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "dut.yml"
    path.write_text(DUT, encoding="utf-8")
    engine = f"rasa-pro:{flaky_rasa_pro}"
    base = ["test", "du", str(path), "--engine", engine, "--no-output", "--concurrency", "1"]
    # one test case at a time: add is answered right, wrong, right...
    code = cli([*base, "--repeat", "2"])
    out = capsys.readouterr().out
    assert code == 1  # add's last attempt failed
    assert "stability over 2 attempts: 50% of 2 measured test cases stable, 1 flaky" in out
    assert "  add: passed 1/2  FLAKY" in out
    assert "  clarify: passed 2/2\n" in out
    run = _last_run()
    assert (run.kind, run.total, run.done, run.status) == ("dut", 2, 2, RunStatus.SUCCESS)
    assert run.summary["stability"]["flaky"] == ["add"]
    assert run.options["repeat"] == 2
    assert cli(["note", run.id, "flaky add"]) == 0
    assert cli(["show", run.id]) == 0
    assert "FLAKY" in capsys.readouterr().out
    assert cli([*base, "--repeat", "2", "--quarantine-flaky"]) == 0  # right, wrong again


def test_stories_repeat_reports_stable_stories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_conversation_stories_cli import STORIES, PolicyHandler

    path = tmp_path / "stories.yml"
    path.write_text(STORIES, encoding="utf-8")
    with serving(PolicyHandler) as url:
        engine = f"rasa:{url}"
        out_dir = str(tmp_path / "results")
        code = cli(
            ["test", "stories", str(path), "--engine", engine, "--repeat", "2", "--out", out_dir]
        )
    out = capsys.readouterr().out
    assert code == 1  # bye fails every time: stable, not flaky
    assert "stability over 2 attempts: 100% of 2 measured test cases stable, 0 flaky" in out
    assert "  greet: passed 2/2\n" in out and "  bye: passed 0/2\n" in out
    run = _last_run()
    assert (run.kind, run.done, run.passed, run.failed) == ("stories", 2, 1, 1)
