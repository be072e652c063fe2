"""``nlu-tui test e2e`` on test cases with Rasa Pro assertions, against a scripted Rasa Pro
(CALM) server over real HTTP and an LLM judge served by a scripted chat endpoint (the LLM of
settings.yaml, here set by ``NLU_TUI_LLM_BASE_URL``).

The expected results are written by hand from Rasa Pro 3.21: the results files of
``rasa/cli/e2e_test.py`` (``get_e2e_results_file_name``: ``e2e_results_passed.yml`` and
``e2e_results_failed.yml``; ``TestResult.as_dict`` with ``error_path`` and
``assertion_failure``), ``print_failed_case`` and the accuracy of
``AggregateTestStatsCalculator`` (whose loop counts the assertions of the steps after a failed
one as passed).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
import yaml
from conversation_peer import BotState, handler_for
from http_handler_server import serving
from llm_peer import LLMPeer, Reply

from nlu_tui.cli.main import run as cli
from nlu_tui.views.conversation import MET, MISMATCH, NOT_REACHED, conversation_rows

BUTTONS = [
    {"title": "New York", "payload": "/SetSlots(destination=New York)"},
    {"title": "San Francisco", "payload": "/SetSlots(destination=San Francisco)"},
]


def _bot(name: str | None, text: str, buttons: Any = None, **meta: Any) -> list[dict[str, Any]]:
    metadata = {"utter_action": name, **meta} if name else dict(meta)
    data = {"buttons": buttons} if buttons else {}
    event = {"event": "bot", "text": text, "metadata": metadata, "data": data}
    return [{"event": "action", "name": name or "action_send_text"}, event]


TURNS: dict[str, list[dict[str, Any]]] = {
    "I want to book a flight": [
        {"event": "stack", "update": "[]"},
        {"event": "flow_started", "flow_id": "flight_booking", "metadata": {}},
        *_bot("utter_ask_destination", "Where would you like to fly to?", BUTTONS),
    ],
    "New York": [
        {"event": "slot", "name": "destination", "value": "New York"},
        *_bot("utter_ask_origin", "Where are you flying from?"),
    ],
    "never mind": [
        {"event": "flow_cancelled", "flow_id": "flight_booking", "step_id": "collect_origin"},
        *_bot("utter_flow_cancelled_rasa", "Okay, stopping the flight booking."),
    ],
    "how much luggage can I take?": _bot(
        None, "You may bring 23 kg.", utter_source="EnterpriseSearchPolicy"
    ),
}


def calm_reply(events: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """A hand-written Rasa Pro assistant: the scripted events of each message."""
    del events
    user = {"event": "user", "text": text, "parse_data": {"intent": {}, "entities": []}}
    return [user, *TURNS.get(text, []), {"event": "action", "name": "action_listen"}]


JUDGED = """\
  - test_case: luggage_is_relevant
    steps:
      - user: how much luggage can I take?
        assertions:
          - generative_response_is_relevant:
              threshold: 0.7
  - test_case: luggage_is_grounded
    steps:
      - user: how much luggage can I take?
        assertions:
          - generative_response_is_grounded:
              threshold: 0.7
              ground_truth: Economy passengers may bring one bag of 23 kg.
"""
"""The two test cases an LLM judges (relevance, groundedness)."""

CASES = (
    """\
test_cases:
  - test_case: booking_passes
    steps:
      - user: I want to book a flight
        assertions:
          - flow_started: flight_booking
          - bot_uttered:
              utter_name: utter_ask_destination
              buttons:
                - title: New York
                  payload: /SetSlots(destination=New York)
      - user: New York
        assertions:
          - slot_was_set:
              - name: destination
                value: New York
          - action_executed: utter_ask_origin
  - test_case: booking_fails_on_slot
    steps:
      - user: I want to book a flight
        assertions:
          - flow_started: flight_booking
      - user: New York
        assertions:
          - slot_was_set:
              - name: destination
                value: Paris
          - bot_uttered:
              utter_name: utter_ask_origin
      - user: never mind
        assertions:
          - flow_cancelled:
              flow_id: flight_booking
"""
    + JUDGED
    + """\
  - test_case: step_style_still_works
    steps:
      - user: I want to book a flight
      - utter: utter_ask_destination
"""
)


def judge_answer(request: Any) -> Reply:
    """0.9 for relevance, 0.4 for groundedness (with the judge's reasons)."""
    if "Ground truth" in request.last_user:
        return Reply('{"score": 0.4, "reason": "the weight limit is not in the ground truth"}')
    return Reply('{"score": 0.9, "reason": "it answers the luggage question"}')


@pytest.fixture
def calm(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, LLMPeer]]:
    state = BotState()
    state.reply = calm_reply
    peer = LLMPeer(judge_answer)
    with serving(handler_for(state)) as url, peer.serving() as llm:
        monkeypatch.setenv("NLU_TUI_LLM_BASE_URL", llm)
        monkeypatch.setenv("NLU_TUI_LLM_MODEL", "judge")
        yield url, peer


def test_assertion_cases_run_and_report_as_rasa_pro(
    tmp_path: Path, calm: tuple[str, LLMPeer], capsys: pytest.CaptureFixture[str]
) -> None:
    url, peer = calm
    path = tmp_path / "e2e.yml"
    path.write_text(CASES, encoding="utf-8")
    out = tmp_path / "results"
    junit, report = tmp_path / "junit.xml", tmp_path / "report.json"
    code = cli(
        [
            "test",
            "e2e",
            str(path),
            "--engine",
            f"rasa:{url}",
            "--e2e-results",
            str(out),
            "--junit",
            str(junit),
            "--json",
            str(report),
        ]
    )
    printed = capsys.readouterr().out
    assert code == 1
    assert len(peer.requests) == 2  # one judged message per generative assertion
    passed = yaml.safe_load((out / "e2e_results_passed.yml").read_text(encoding="utf-8"))
    failed = yaml.safe_load((out / "e2e_results_failed.yml").read_text(encoding="utf-8"))
    assert [r["name"] for r in passed["test_results"]] == [
        "booking_passes",
        "luggage_is_relevant",
        "step_style_still_works",
    ]
    slot, grounded = failed["test_results"]
    assert slot["name"] == "booking_fails_on_slot" and slot["pass_status"] is False
    assert slot["error_path"] == f"{path}:26"  # the slot's own line (AssertedSlot.line)
    assert slot["assertion_failure"]["assertion"] == {
        "slots": [{"name": "destination", "value": "Paris", "line": 26}],
        "type": "slot_was_set",
    }
    assert slot["assertion_failure"]["error_message"] == (
        "Slot 'destination' was set to a different value 'New York' than the expected "
        "'Paris' value."
    )
    assert slot["expected_steps"][1]["assertions"][0] == {
        "slot_was_set": [{"name": "destination", "value": "Paris"}]
    }
    assert grounded["error_path"] == f"{path}:45"  # the inner mapping's first line
    assert "was not grounded" in grounded["assertion_failure"]["error_message"]
    assert "Assertion type 'slot_was_set' failed with this error message: Slot 'destination'" in (
        printed
    )
    assert "Accuracy By Assertion Type" in printed
    # AggregateTestStatsCalculator, by hand: flow_started 2/2; bot_uttered 1/1 (the second
    # one never ran and is left out); slot_was_set 1/2; action_executed 1/1; flow_cancelled
    # 1/1 (it never ran, but Rasa's loop counts the steps after the failed one as passed);
    # relevant 1/1; grounded 0/1
    data = json.loads(report.read_text(encoding="utf-8"))
    accuracy = {r["type"]: r["accuracy"] for r in data["assertion_accuracy"]}
    assert accuracy == {
        "flow_started": 1.0,
        "flow_cancelled": 1.0,
        "action_executed": 1.0,
        "slot_was_set": 0.5,
        "bot_uttered": 1.0,
        "generative_response_is_relevant": 1.0,
        "generative_response_is_grounded": 0.0,
    }
    # in Rasa's order of types (_get_all_assertion_subclasses)
    assert [r["type"] for r in data["assertion_accuracy"]] == [
        "flow_started",
        "flow_cancelled",
        "action_executed",
        "slot_was_set",
        "bot_uttered",
        "generative_response_is_relevant",
        "generative_response_is_grounded",
    ]
    flow_cancelled = next(r for r in data["assertion_accuracy"] if r["type"] == "flow_cancelled")
    assert (flow_cancelled["passed"], flow_cancelled["not_run"]) == (0, 1)
    results = {r["name"]: r for r in data["results"]}
    judged = results["luggage_is_relevant"]["assertions"][0]
    assert (judged["status"], judged["score"], judged["reason"]) == (
        "passed",
        0.9,
        "it answers the luggage question",
    )
    judged = results["luggage_is_grounded"]["assertions"][0]
    assert (judged["status"], judged["score"], judged["threshold"]) == ("failed", 0.4, 0.7)
    assert judged["reason"] == "the weight limit is not in the ground truth"
    # the two judged test cases run side by side: find the grounded one's request by its prompt
    grounded = [r for r in peer.requests if "Ground truth" in r.last_user]
    assert len(grounded) == 1
    assert "Economy passengers may bring one bag of 23 kg." in grounded[0].last_user
    suite = ET.parse(junit).getroot()
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    failure = cases["luggage_is_grounded"].find("failure")
    assert failure is not None and failure.get("type") == "generative_response_is_grounded"
    assert "the weight limit is not in the ground truth" in str(failure.get("message"))
    out_text = cases["luggage_is_relevant"].find("system-out")
    assert out_text is not None and "it answers the luggage question" in str(out_text.text)
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["assertion_accuracy.slot_was_set"] == "50.00%"
    # the workbench's conversation view: each assertion under its user step, with its verdict
    rows = [
        (r.kind, r.expected, r.status)
        for r in conversation_rows(results["booking_fails_on_slot"])
        if r.kind == "assertion"
    ]
    assert rows == [
        ("assertion", "flow_started: flight_booking", MET),
        ("assertion", "slot_was_set: [{'name': 'destination', 'value': 'Paris'}]", MISMATCH),
        ("assertion", "bot_uttered: {'utter_name': 'utter_ask_origin'}", NOT_REACHED),
        ("assertion", "flow_cancelled: {'flow_id': 'flight_booking'}", NOT_REACHED),
    ]
    judged_row = next(
        r for r in conversation_rows(results["luggage_is_relevant"]) if r.kind == "assertion"
    )
    assert judged_row.actual == "score 0.9: it answers the luggage question"


def test_results_file_names_follow_rasa(tmp_path: Path) -> None:
    """``get_e2e_results_file_name``: a folder or a suffix-less name gets
    ``e2e_results_{passed,failed}.yml`` inside; ``x/out.yml`` gets ``x/out_passed.yml``."""
    from nlu_tui.conversation.reports import results_file_names

    assert results_file_names(tmp_path) == (
        tmp_path / "e2e_results_passed.yml",
        tmp_path / "e2e_results_failed.yml",
    )
    assert results_file_names(tmp_path / "out.yml") == (
        tmp_path / "out_passed.yml",
        tmp_path / "out_failed.yml",
    )


def test_a_judge_answering_nonsense_is_an_error_not_a_failure(
    tmp_path: Path, calm: tuple[str, LLMPeer], capsys: pytest.CaptureFixture[str]
) -> None:
    url, peer = calm
    peer.script = lambda request: Reply("Relevant? I would say so, yes.")
    path = tmp_path / "e2e.yml"
    path.write_text(CASES, encoding="utf-8")
    report = tmp_path / "report.json"
    code = cli(
        [
            "test",
            "e2e",
            str(path),
            "--engine",
            f"rasa:{url}",
            "--json",
            str(report),
            "--concurrency",
            "1",
        ]
    )
    capsys.readouterr()
    assert code == 3
    results = {r["name"]: r for r in json.loads(report.read_text(encoding="utf-8"))["results"]}
    assert results["luggage_is_relevant"]["outcome"] == "error"
    assert "did not answer a JSON object" in results["luggage_is_relevant"]["error"]
    assert results["booking_fails_on_slot"]["outcome"] == "failed"


JUDGED_CASES = "test_cases:\n" + JUDGED


def test_repeat_reports_how_far_the_judge_agrees_with_itself(
    tmp_path: Path, calm: tuple[str, LLMPeer], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--repeat 3``: each test case's conversation is held three times, and the judge asked
    each time. The scripted judge answers relevance 0.9, 0.5, 0.9 (threshold 0.7: pass, fail,
    pass) and groundedness 0.4, 0.3, 0.4 (fail three times). By hand: relevance 2 of 3
    attempts agree, scores 0.5-0.9, spread 0.4; groundedness 3 of 3 agree, spread 0.1; one of
    the two judged steps unanimous: agreement rate 50%."""
    url, peer = calm
    scores = {"relevant": iter([0.9, 0.5, 0.9]), "grounded": iter([0.4, 0.3, 0.4])}

    def answer(request: Any) -> Reply:
        metric = "grounded" if "Ground truth" in request.last_user else "relevant"
        return Reply(json.dumps({"score": next(scores[metric]), "reason": f"{metric} said so"}))

    peer.script = answer
    path = tmp_path / "e2e.yml"
    path.write_text(JUDGED_CASES, encoding="utf-8")
    junit, report = tmp_path / "junit.xml", tmp_path / "report.json"
    code = cli(
        [
            "test",
            "e2e",
            str(path),
            "--engine",
            f"rasa:{url}",
            "--repeat",
            "3",
            "--concurrency",
            "1",
            "--junit",
            str(junit),
            "--json",
            str(report),
        ]
    )
    printed = capsys.readouterr().out
    assert code == 1  # grounded fails in every attempt
    assert len(peer.requests) == 6
    assert (
        "judge agreement over 3 attempts: 50% of 2 judged steps unanimous "
        "(1 agreed, 1 disagreed)" in printed
    )
    assert (
        "  luggage_is_relevant: generative_response_is_relevant (line 7): 2/3 attempts agree "
        "(passed), scores 0.5-0.9 (spread 0.4)  DISAGREE" in printed
    )
    assert (
        "  luggage_is_grounded: generative_response_is_grounded (line 13): 3/3 attempts agree "
        "(failed), scores 0.3-0.4 (spread 0.1)\n" in printed
    )
    agreement = json.loads(report.read_text(encoding="utf-8"))["judge_agreement"]
    assert (agreement["measured"], agreement["agreed"], agreement["agreement_rate"]) == (2, 1, 0.5)
    relevant, grounded = agreement["steps"]
    # attempt #1 is the last conversation to finish (the third judge answer), #2 the first
    assert relevant["scores"] == [0.9, 0.9, 0.5]
    assert relevant["verdicts"] == ["passed", "passed", "failed"]
    assert (relevant["judged"], relevant["agreeing"], relevant["unanimous"]) == (3, 2, False)
    assert relevant["score_spread"] == pytest.approx(0.4)
    assert (grounded["agreeing"], grounded["majority"], grounded["unanimous"]) == (
        3,
        "failed",
        True,
    )
    assert grounded["score_spread"] == pytest.approx(0.1)
    suite = ET.parse(junit).getroot()
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert (props["judge_agreement"], props["judge_agreement.steps"]) == ("50.00%", "1/2")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    out_text = cases["luggage_is_relevant"].find("system-out")
    assert out_text is not None
    assert "judge agreement: generative_response_is_relevant (line 7): 2/3 attempts agree" in str(
        out_text.text
    )
    # kept with the run: `show` prints it again
    from nlu_tui.store import RunStore

    with RunStore() as store:
        run_id = store.list_runs()[0].id
    assert cli(["show", run_id]) == 0
    assert "judge agreement over 3 attempts: 50% of 2 judged steps unanimous" in (
        capsys.readouterr().out
    )
