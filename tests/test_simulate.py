"""``nlu-tui simulate``: simulated users against a loopback bot (``conversation_peer``, Rasa's
HTTP API) with a scripted loopback LLM (``llm_peer`` + ``simulation_script``) playing the user
and the judge. The real-Rasa run is in ``test_simulate_rasa.py``.

The scenario format read here is nlu-tui's own and Rasa Pro's (3.17+) simulation-and-evaluation
scenario: https://rasa.com/docs/reference/testing/evals/scenarios, schema
``rasa/builder/copilot/mcp_server/schema/scenario_schema.yml`` in the rasa-pro 3.21.0 wheel.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from child_runs import start_cli, wait_for_items
from conversation_peer import BotState
from llm_peer import LLMPeer
from simulation_script import Goal, SimulationScript

from nlu_tui.cli.main import run as cli
from nlu_tui.scoring.proportions import Z95, pass_rate, wilson_interval
from nlu_tui.store import RunStore

BOOK_GOAL = "Book a table for 2 people, Italian food."
GOOD = [("I'd like to book a table", False), ("italian please", False), ("2 people", True)]
BAD = [("I'd like to book a table", False), ("chinese please", False), ("2 people", True)]

SCENARIOS = f"""\
scenarios:
  - name: book a table
    persona: A hurried customer who types short messages.
    goal: {BOOK_GOAL}
    max_turns: 5
    assertions:
      - slot_was_set:
          - name: cuisine
            value: italian
      - bot_uttered:
          utter_name: utter_booked
    criteria:
      - The bot confirms the booking.
  - name: greeting
    goal: Get greeted.
    start: hello
    max_turns: 1
    criteria:
      - The bot greets the user.
"""


def judge(criterion: str, transcript: str) -> tuple[float, str]:
    if "booking" in criterion:
        return (0.9, "it booked") if "Booked" in transcript else (0.2, "nothing was booked")
    if "greets" in criterion:
        return (0.95, "it said hey") if "Hey" in transcript else (0.1, "no greeting")
    return 0.1, "the bot never did that"


def script() -> SimulationScript:
    return SimulationScript({BOOK_GOAL: Goal([GOOD, GOOD, GOOD, BAD, BAD])}, judge)


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[LLMPeer]:
    peer = LLMPeer(script())
    with peer.serving() as url:
        monkeypatch.setenv("NLU_TUI_LLM_BASE_URL", url)
        monkeypatch.setenv("NLU_TUI_LLM_MODEL", "scripted")
        yield peer


def _file(tmp_path: Path, text: str = SCENARIOS, name: str = "scenarios.yml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _simulate(*args: str) -> int:
    return cli(["simulate", *args])


def test_wilson_interval_matches_published_and_hand_computed_values() -> None:
    """Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score
    without continuity correction): 81/263 → 0.2553-0.3662, 15/148 → 0.0624-0.1605,
    0/20 → 0-0.1611, 1/29 → 0.0061-0.1718."""
    for k, n, low, high in (
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ):
        got = wilson_interval(k, n)
        assert (round(got[0], 4), round(got[1], 4)) == (low, high), (k, n, got)
    # 3 of 5, by hand: p = 0.6, z² = 3.841459, 1 + z²/n = 1.768292,
    # centre = (0.6 + 0.384146)/1.768292 = 0.556552,
    # half = 1.959964/1.768292 · sqrt(0.048 + 0.038415) = 1.108394 · 0.293963 = 0.325827
    low, high = wilson_interval(3, 5)
    assert math.isclose(low, 0.230725, abs_tol=2e-6) and math.isclose(high, 0.882379, abs_tol=2e-6)
    assert wilson_interval(5, 5)[1] == 1.0 and math.isclose(
        wilson_interval(5, 5)[0], 5 / (5 + Z95**2), rel_tol=1e-12
    )
    assert pass_rate(0, 0).rate == 0.0


def _summary(report: Path) -> dict[str, dict[str, Any]]:
    data = json.loads(report.read_text(encoding="utf-8"))
    return {s["name"]: s for s in data["scenarios"]}


def test_two_scenarios_five_runs_store_ten_conversations_with_rates_and_gates(
    tmp_path: Path,
    bot: tuple[BotState, str],
    llm: LLMPeer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, url = bot
    path = _file(tmp_path)
    report, junit = tmp_path / "r.json", tmp_path / "j.xml"
    code = _simulate(
        str(path), "--engine", f"rasa:{url}", "--runs", "5", "--json", str(report),
        "--junit", str(junit), "--fail-on", "pass_rate<0.8",
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 1  # book a table: 3 of 5 < 0.8
    assert "gate pass_rate<0.8 failed: scenario 'book a table' has pass_rate 0.600" in printed
    (run,) = RunStore().list_runs()
    assert run.kind == "simulate" and run.done == 10 and run.total == 10
    items = RunStore().load_items(run.id)
    assert len(items) == 10
    assert len({i.data["sender_id"] for i in items}) == 10  # one conversation each
    summary = _summary(report)
    book, greet = summary["book a table"], summary["greeting"]
    assert (book["passed"], book["failed"], book["errors"]) == (3, 2, 0)
    assert (greet["passed"], greet["failed"]) == (5, 0)
    assert (book["ci95_low"], book["ci95_high"]) == wilson_interval(3, 5)
    assert (greet["ci95_low"], greet["ci95_high"]) == wilson_interval(5, 5)
    assert "60.0%" in printed and "23.1%–88.2%" in printed
    # each failure says an assertion failed (the judge passed the booking both times)
    assert [f["kind"] for f in book["failures"]] == ["assertion", "assertion"]
    assert "Slot 'cuisine' was set to a different value 'chinese'" in book["failures"][0]["detail"]
    # stored per conversation: transcript, each assertion result, each criterion's score/reason
    first = next(i for i in items if i.data["name"] == "book a table" and i.data["repeat"] == 1)
    users = [t["user"] for t in first.data["turns"] if t["user"]]
    assert users == [m for m, _ in GOOD]
    assert first.data["turns"][-1]["bot"] == ["Booked for 2."]
    assert [a["passed"] for a in first.data["assertions"]] == [True, True]
    assert first.data["criteria"] == [
        {
            "criterion": "The bot confirms the booking.",
            "line": 13,
            "score": 0.9,
            "reason": "it booked",
            "passed": True,
        }
    ]
    assert first.data["stopped"] == "done"
    greeting = next(i for i in items if i.data["name"] == "greeting")
    assert [t["user"] for t in greeting.data["turns"]] == [None, "hello"]
    assert 'tests="10" failures="2" errors="0"' in junit.read_text(encoding="utf-8")
    # the same script again: the same numbers; a looser gate passes
    llm.script = script()
    report2 = tmp_path / "r2.json"
    code = _simulate(
        str(path), "--engine", f"rasa:{url}", "--runs", "5", "--json", str(report2),
        "--fail-on", "pass_rate<0.6", "--diff-with", run.id,
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert (
        f"since run {run.id}:\n  same          book a table: 3/5 (60.0%) → 3/5 (60.0%)" in printed
    )
    again = _summary(report2)
    for name in ("book a table", "greeting"):
        for key in ("passed", "failed", "errors", "pass_rate", "ci95_low", "ci95_high"):
            assert again[name][key] == summary[name][key]
    # no --fail-on: a failed conversation fails the command
    llm.script = script()
    assert _simulate(str(path), "--engine", f"rasa:{url}", "--runs", "5") == 1
    # show prints the stored report again; runs lists it; a note sticks to it
    capsys.readouterr()
    assert cli(["show", run.id]) == 0
    assert "23.1%–88.2%" in capsys.readouterr().out
    assert cli(["note", run.id, "before the prompt change"]) == 0
    assert RunStore().get_run(run.id).note == "before the prompt change"
    capsys.readouterr()
    assert cli(["runs", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert run.id in json.dumps(listed)


def test_judge_only_failure_is_told_apart_and_a_judge_error_is_an_error(
    tmp_path: Path,
    bot: tuple[BotState, str],
    llm: LLMPeer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, url = bot
    path = _file(
        tmp_path,
        "scenarios:\n  - name: discount\n    goal: Get greeted.\n    start: hello\n"
        "    max_turns: 1\n    assertions:\n      - bot_uttered:\n          utter_name: utter_greet\n"
        "    criteria:\n      - The bot offers a discount.\n",
    )
    report = tmp_path / "r.json"
    assert _simulate(str(path), "--engine", f"rasa:{url}", "--json", str(report)) == 1
    (row,) = json.loads(report.read_text(encoding="utf-8"))["scenarios"]
    assert row["failures"][0]["kind"] == "judge" and row["judge_only_failures"] == 1
    assert "FAILED (judge only)" in capsys.readouterr().out
    # a judge answering no JSON: ERROR, exit 3, never a pass or a fail
    llm.script = SimulationScript({}, judge_raw="I think it went well!")
    code = _simulate(str(path), "--engine", f"rasa:{url}", "--json", str(report))
    assert code == 3
    data = json.loads(report.read_text(encoding="utf-8"))
    assert (data["passed"], data["failed"], data["errors"]) == (0, 0, 1)
    (conversation,) = data["conversations"]
    assert conversation["outcome"] == "error" and conversation["error_kind"] == "judge"
    assert "did not answer a JSON object" in conversation["error"]


def test_bad_input_is_one_line_with_file_line_and_field_and_nothing_runs(
    tmp_path: Path,
    bot: tuple[BotState, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    state, url = bot
    no_goal = _file(tmp_path, "scenarios:\n  - name: lost\n    persona: Someone.\n", "a.yml")
    assert _simulate(str(no_goal), "--engine", f"rasa:{url}") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"nlu-tui: error: {no_goal}, line 2, field 'goal': scenario 'lost' has no goal: say what "
        "the simulated user wants (goal:, or Rasa's simulation_context:)"
    ]
    rasa_no_goal = _file(tmp_path, "scenario:\n  name: lost\n  simulation_context: ''\n", "b.yml")
    assert _simulate(str(rasa_no_goal), "--engine", f"rasa:{url}") == 2
    assert "line 3, field 'simulation_context'" in capsys.readouterr().err
    # a criterion without an LLM configured (no settings.yaml llm:, no NLU_TUI_LLM_*)
    monkeypatch.delenv("NLU_TUI_LLM_BASE_URL", raising=False)
    judged = _file(
        tmp_path,
        "scenarios:\n  - name: hi\n    goal: Get greeted.\n    start: hello\n    max_turns: 1\n"
        "    criteria:\n      - The bot greets the user.\n",
        "c.yml",
    )
    assert _simulate(str(judged), "--engine", f"rasa:{url}") == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"nlu-tui: error: {judged}, line 7, field 'criteria': scenario 'hi':")
    assert "no LLM endpoint is configured" in line
    bad_gate = _file(tmp_path, "scenarios:\n  - name: hi\n    goal: g\n", "d.yml")
    assert _simulate(str(bad_gate), "--engine", f"rasa:{url}", "--fail-on", "rate<2") == 2
    capsys.readouterr()
    assert RunStore().list_runs() == [] and state.messages == []


RASA_SCENARIO = f"""\
scenario:
  name: Member books a table
  type: happy_path
  simulation_context: >
    {BOOK_GOAL}
  setup:
    initial_slots:
      logged_in: true
  goals:
    criteria:
      - The bot confirms the booking.
    assertions:
      - slot_was_set:
          - name: cuisine
            value: italian
      - action_executed: utter_booked
"""


def test_a_rasa_pro_eval_scenario_runs_as_written(
    tmp_path: Path, bot: tuple[BotState, str], llm: LLMPeer
) -> None:
    """Rasa Pro's scenario (docs example's shape: simulation_context, setup.initial_slots,
    goals.criteria/assertions) in eval/scenarios/: initial slots are set before the first
    message, the simulated user's prompt holds the simulation context."""
    state, url = bot
    folder = tmp_path / "eval" / "scenarios"
    folder.mkdir(parents=True)
    _file(folder, RASA_SCENARIO, "member_books.yml")
    report = tmp_path / "r.json"
    code = _simulate(str(folder), "--engine", f"rasa:{url}", "--runs", "2", "--json", str(report))
    data = json.loads(report.read_text(encoding="utf-8"))
    assert code == 0, data
    assert [c["outcome"] for c in data["conversations"]] == ["passed", "passed"]
    senders = {c["sender_id"] for c in data["conversations"]}
    assert {s for s, _ in state.posted} == senders and len(state.posted) == 2
    for _, events in state.posted:
        assert events == [{"event": "slot", "name": "logged_in", "value": True}]
    assert BOOK_GOAL in llm.requests[0].messages[0]["content"]
    # a Mantle-only key is refused by name
    _file(
        folder, RASA_SCENARIO + "    expected_tools:\n      - tool_called: x\n", "member_books.yml"
    )
    assert _simulate(str(folder), "--engine", f"rasa:{url}") == 2


def _stateful(events: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """The loopback bot, remembering a booking per sender until a ``restart`` event (Rasa's
    tracker: a returning user's slots stay unless the conversation is restarted)."""
    from conversation_peer import reply

    since = max((i for i, e in enumerate(events) if e.get("event") == "restart"), default=-1)
    slots = {e["name"]: e["value"] for e in events[since + 1 :] if e.get("event") == "slot"}
    if "book" in text.lower() and slots.get("people"):
        user = {"event": "user", "text": text, "parse_data": {"intent": {"name": "book_table"}}}
        return [
            user,
            {"event": "action", "name": "utter_booked"},
            {
                "event": "bot",
                "text": "Already booked.",
                "metadata": {"utter_action": "utter_booked"},
            },
            {"event": "action", "name": "action_listen"},
        ]
    return reply(events, text)


def test_a_state_changing_scenario_passes_every_repeat_only_with_its_reset_hook(
    tmp_path: Path, bot: tuple[BotState, str], llm: LLMPeer
) -> None:
    state, url = bot
    state.reply = _stateful
    body = (
        f"  - name: returning user books\n    goal: {BOOK_GOAL}\n    sender_id: regular\n"
        "    max_turns: 4\n    assertions:\n      - bot_uttered:\n          utter_name: utter_ask_cuisine\n"
    )
    path = _file(tmp_path, "scenarios:\n" + body)
    llm.script = SimulationScript({BOOK_GOAL: Goal([GOOD])})
    report = tmp_path / "r.json"
    assert (
        _simulate(str(path), "--engine", f"rasa:{url}", "--runs", "5", "--json", str(report)) == 1
    )
    (row,) = _summary(report).values()
    assert (row["passed"], row["failed"]) == (1, 4)  # the second visit finds the booking
    reset = (
        f"reset:\n  url: {url}/conversations/regular/tracker/events\n  method: POST\n"
        "  json: [{event: restart}]\n"
    )
    state.trackers.clear()
    _file(tmp_path, reset + "scenarios:\n" + body)
    llm.script = SimulationScript({BOOK_GOAL: Goal([GOOD])})
    assert (
        _simulate(str(path), "--engine", f"rasa:{url}", "--runs", "5", "--json", str(report)) == 0
    )
    (row,) = _summary(report).values()
    assert (row["passed"], row["failed"]) == (5, 0)
    assert [e for s, e in state.posted if s == "regular"].count([{"event": "restart"}]) == 5
    # a reset command that fails makes the conversation an ERROR (exit 3)
    _file(tmp_path, "reset: 'exit 7'\nscenarios:\n" + body)
    assert _simulate(str(path), "--engine", f"rasa:{url}", "--json", str(report)) == 3
    (conversation,) = json.loads(report.read_text(encoding="utf-8"))["conversations"]
    assert conversation["error"] == "reset command exited with 7"


@pytest.mark.slow
def test_sigint_then_resume_sends_only_the_unfinished_conversations(
    tmp_path: Path, bot: tuple[BotState, str], llm: LLMPeer
) -> None:
    state, url = bot
    state.delay = 0.15
    path = _file(tmp_path)
    store_path = Path(os.environ["NLU_TUI_DATA_DIR"]) / "runs.sqlite3"
    child = start_cli("simulate", str(path), "--engine", f"rasa:{url}", "--runs", "5")
    wait_for_items(child, store_path, 3, timeout=60)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=30)
    assert child.returncode == 130, err
    (run,) = RunStore(store_path).list_runs()
    kept = RunStore(store_path).load_items(run.id)
    assert 3 <= len(kept) < 10 and run.status.value == "canceled"
    kept_senders = {i.data["sender_id"] for i in kept}
    sent_before = len(state.messages)
    resumed = subprocess.run(
        [sys.executable, "-m", "nlu_tui", "simulate", "--resume", run.id],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert resumed.returncode in (0, 1), resumed.stderr
    items = RunStore(store_path).load_items(run.id)
    assert len(items) == 10 and RunStore(store_path).get_run(run.id).done == 10
    later = {s for s, _, _ in state.messages[sent_before:]}
    assert not later & kept_senders
    assert len(later) == 10 - len(kept)  # one conversation per unfinished item, no more


def test_a_diff_calls_a_change_real_only_when_the_intervals_are_apart() -> None:
    from nlu_tui.conversation.simulate_report import diff_lines
    from nlu_tui.store.records import StoredItem

    def run(name: str, passed: int, runs: int) -> list[StoredItem]:
        return [
            StoredItem(
                f"s.yml:2:{name}#{k}",
                k,
                "passed" if k <= passed else "failed",
                1.0,
                {"name": name, "scenario": f"s.yml:2:{name}", "repeat": k},
            )
            for k in range(1, runs + 1)
        ]

    before = run("a", 0, 10) + run("b", 3, 5)
    after = run("a", 10, 10) + run("b", 4, 5) + run("c", 1, 1)
    assert diff_lines(before, after) == [
        "  better        a: 0/10 (0.0%) → 10/10 (100.0%)",
        "  within noise  b: 3/5 (60.0%) → 4/5 (80.0%)",
        "  new           c: 1/1 (100.0%)",
    ]
    assert diff_lines(after, before)[0] == "  worse         a: 10/10 (100.0%) → 0/10 (0.0%)"


def test_a_simulated_user_without_a_usable_answer_is_an_error(
    tmp_path: Path, bot: tuple[BotState, str], llm: LLMPeer
) -> None:
    from llm_peer import Reply

    _, url = bot
    llm.script = lambda request: Reply("Sure! I'd say: book a table")
    path = _file(tmp_path, f"scenarios:\n  - name: book\n    goal: {BOOK_GOAL}\n")
    report = tmp_path / "r.json"
    assert _simulate(str(path), "--engine", f"rasa:{url}", "--json", str(report)) == 3
    (conversation,) = json.loads(report.read_text(encoding="utf-8"))["conversations"]
    assert conversation["outcome"] == "error" and conversation["error_kind"] == "simulator"
    assert conversation["error"].startswith("the simulated user did not answer a JSON object")
