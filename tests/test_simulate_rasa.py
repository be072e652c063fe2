"""``nlu-tui simulate`` against the real Rasa 3.6 sample bot (tests/peers/bot, trained once by
tests/peers/setup_bot.sh), with the scripted loopback LLM (``simulation_script``) playing the
user and the judge:

- 2 scenarios x ``--runs 5``: 10 stored conversations, pass rates and Wilson intervals printed,
  the same numbers on a second run with the same script; ``--fail-on 'pass_rate<0.8'`` exits 1
  when 3 of 5 pass;
- Ctrl-C (SIGINT to the process) then ``--resume`` holds only the unfinished conversations;
- a state-changing scenario (a returning user's booking stays in Rasa's tracker) scores 5/5 with
  a ``reset:`` hook (Rasa's ``POST /conversations/{id}/tracker/events`` with a ``restart``
  event) and 1/5 without.

Scenario format: nlu-tui's, after Rasa Pro's evals scenarios
(https://rasa.com/docs/reference/testing/evals/scenarios).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from child_runs import start_cli, wait_for_items
from llm_peer import LLMPeer, Reply, Request
from rasa_peer import RASA, served
from simulation_script import Goal, SimulationScript

from nlu_tui.cli.main import run as cli
from nlu_tui.scoring.proportions import wilson_interval
from nlu_tui.store import RunStore

pytestmark = [pytest.mark.rasa, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent
BOOK = "Book a table for two people, Italian food."
GOOD = [("I want to book a table", False), ("italian", False), ("two", True)]
BAD = [("I want to book a table", False), ("chinese food", False), ("two", True)]

SCENARIOS = f"""\
scenarios:
  - name: book a table
    persona: A hurried customer who types short messages.
    goal: {BOOK}
    max_turns: 5
    assertions:
      - slot_was_set:
          - name: cuisine
            value: italian
      - action_executed: utter_table_booked
    criteria:
      - The bot confirms the booking.
  - name: greeting
    goal: Get greeted by the bot.
    start: hello
    max_turns: 1
    assertions:
      - action_executed: utter_greet
    criteria:
      - The bot greets the user.
"""


def judge(criterion: str, transcript: str) -> tuple[float, str]:
    if "booking" in criterion:
        return (0.9, "it booked") if "Booked a table" in transcript else (0.1, "no booking")
    return (0.9, "it greeted") if "Hey!" in transcript else (0.1, "no greeting")


def script() -> SimulationScript:
    return SimulationScript({BOOK: Goal([GOOD, GOOD, GOOD, BAD, BAD])}, judge)


def _env(work: Path) -> dict[str, str]:
    return {
        **os.environ,
        "RASA_TELEMETRY_ENABLED": "false",
        "SQLALCHEMY_SILENCE_UBER_WARNING": "1",
        "HOME": str(work),
    }


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of ``rasa run --enable-api`` on the sample bot's model."""
    if not RASA.exists():
        pytest.skip(f"no Rasa peer at {RASA}: run tests/peers/setup_rasa.sh (needs Python 3.10)")
    done = subprocess.run(
        ["bash", str(ROOT / "peers" / "setup_bot.sh")], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    model = Path(done.stdout.strip().splitlines()[-1])
    work = tmp_path_factory.mktemp("simbot")
    # Two shared cores: loading TensorFlow and the model may take minutes under load.
    with served(work, _env(work), str(model), wait=900) as url:
        yield url


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[LLMPeer]:
    peer = LLMPeer(script())
    with peer.serving() as url:
        monkeypatch.setenv("NLU_TUI_LLM_BASE_URL", url)
        monkeypatch.setenv("NLU_TUI_LLM_MODEL", "scripted")
        yield peer


def _numbers(report: Path) -> dict[str, tuple[Any, ...]]:
    data = json.loads(report.read_text(encoding="utf-8"))
    keys = ("runs", "passed", "failed", "errors", "pass_rate", "ci95_low", "ci95_high")
    return {s["name"]: tuple(s[k] for k in keys) for s in data["scenarios"]}


def test_two_scenarios_five_runs_against_the_real_bot(
    tmp_path: Path, bot: str, llm: LLMPeer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "scenarios.yml"
    path.write_text(SCENARIOS, encoding="utf-8")
    first, second = tmp_path / "1.json", tmp_path / "2.json"
    args = ["simulate", str(path), "--engine", f"rasa:{bot}", "--runs", "5"]
    assert cli([*args, "--json", str(first), "--fail-on", "pass_rate<0.8"]) == 1
    printed = capsys.readouterr().out
    assert "gate pass_rate<0.8 failed: scenario 'book a table'" in printed
    assert "60.0%  23.1%–88.2%" in printed and "100.0%  56.6%–100.0%" in printed
    (run,) = RunStore().list_runs()
    items = RunStore().load_items(run.id)
    assert run.kind == "simulate" and len(items) == 10
    numbers = _numbers(first)
    assert numbers["book a table"][:4] == (5, 3, 2, 0)
    assert numbers["book a table"][5:] == wilson_interval(3, 5)
    assert numbers["greeting"][:4] == (5, 5, 0, 0)
    booked = next(i for i in items if i.data["repeat"] == 1 and i.data["name"] == "book a table")
    assert booked.outcome == "passed"
    assert "Booked a table for two (italian food)." in booked.data["turns"][-1]["bot"]
    failed = [i for i in items if i.outcome == "failed"]
    assert {i.data["failure"] for i in failed} == {"assertion"}
    # the same script again: the same numbers
    llm.script = script()
    assert cli([*args, "--json", str(second), "--fail-on", "pass_rate<0.6"]) == 0
    assert _numbers(second) == numbers


def test_sigint_then_resume_holds_only_the_unfinished_conversations(
    tmp_path: Path, bot: str, llm: LLMPeer
) -> None:
    base = script()

    def slow(request: Request) -> Reply:
        reply = base(request)
        reply.delay = 0.25
        return reply

    llm.script = slow
    path = tmp_path / "scenarios.yml"
    path.write_text(SCENARIOS, encoding="utf-8")
    store_path = Path(os.environ["NLU_TUI_DATA_DIR"]) / "runs.sqlite3"
    child = start_cli("simulate", str(path), "--engine", f"rasa:{bot}", "--runs", "5")
    wait_for_items(child, store_path, 3, timeout=120)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    (run,) = RunStore(store_path).list_runs()
    kept = {i.item_id: i.data["sender_id"] for i in RunStore(store_path).load_items(run.id)}
    assert 3 <= len(kept) < 10
    asked = len(llm.requests)
    resumed = subprocess.run(
        [sys.executable, "-m", "nlu_tui", "simulate", "--resume", run.id],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert resumed.returncode in (0, 1), resumed.stderr
    items = RunStore(store_path).load_items(run.id)
    assert len(items) == 10
    # the stored conversations are untouched; only the others were held, each once
    assert {i.item_id: i.data["sender_id"] for i in items if i.item_id in kept} == kept
    openings = [
        r
        for r in llm.requests[asked:]
        if r.messages[0]["content"].startswith("You play")
        and not any(m["role"] == "assistant" for m in r.messages)
    ]
    missing_books = sum(1 for k in range(1, 6) if not any(f":book a table#{k}" in i for i in kept))
    assert len(openings) == missing_books  # one simulated user per unfinished booking


def test_a_state_changing_scenario_needs_its_reset_hook(
    tmp_path: Path, bot: str, llm: LLMPeer
) -> None:
    sender = f"regular-{uuid.uuid4().hex[:8]}"
    body = (
        f"scenarios:\n  - name: returning user books\n    goal: {BOOK}\n    sender_id: {sender}\n"
        "    max_turns: 3\n    assertions:\n      - bot_uttered:\n          utter_name: utter_ask_cuisine\n"
    )
    path = tmp_path / "scenarios.yml"
    report = tmp_path / "r.json"
    path.write_text(body, encoding="utf-8")
    llm.script = SimulationScript({BOOK: Goal([GOOD])})
    args = ["simulate", str(path), "--engine", f"rasa:{bot}", "--runs", "5", "--json", str(report)]
    assert cli(args) == 1
    assert _numbers(report)["returning user books"][:3] == (5, 1, 4)
    reset = (
        f"reset:\n  url: {bot}/conversations/{sender}/tracker/events\n"
        "  json: [{event: restart}]\n"
    )
    path.write_text(reset + body, encoding="utf-8")
    llm.script = SimulationScript({BOOK: Goal([GOOD])})
    assert cli(args) == 0
    assert _numbers(report)["returning user books"][:3] == (5, 5, 0)
