"""Checking Rasa Pro's E2E assertions against tracker events, with Rasa's verdicts.

Each fixture is a conversation as Rasa's HTTP API returns it (``GET /conversations/{id}/tracker``
events): a Rasa Pro CALM one (``flow_started``/``flow_completed``/``flow_cancelled``, ``stack``,
bot messages with ``utter_action``, buttons and ``utter_source``) and a Rasa Open Source 3.x one
(actions, slots, bot events; no flows). The expected verdict and message of every case are
written by hand from the function of Rasa Pro 3.21's ``rasa/e2e_test/assertions.py`` (or
``e2e_test_runner.py``) named in the case's comment, not from nlu-tui's code.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from llm_peer import LLMPeer, Reply

from nlu_tui import conversation_assertions as a
from nlu_tui.conversation.e2e_scoring import score_assertions, turn_and_prior
from nlu_tui.conversation.judge import LLMJudge
from nlu_tui.conversation_model import ObservedEvent
from nlu_tui.engines.llm_config import llm_config_from_mapping
from nlu_tui.engines.rasa_dialogue import observed
from nlu_tui.formats import e2e_cases


def _start() -> list[dict[str, Any]]:
    return [
        {"event": "action", "name": "action_session_start"},
        {"event": "session_started"},
        {"event": "action", "name": "action_listen"},
    ]


def _user(text: str, **metadata: Any) -> dict[str, Any]:
    return {
        "event": "user",
        "text": text,
        "parse_data": {"intent": {"name": None}, "entities": [], "commands": []},
        "metadata": metadata,
    }


def _bot(name: str | None, text: str, buttons: Any = None, **meta: Any) -> list[dict[str, Any]]:
    metadata = {"utter_action": name, **meta} if name else dict(meta)
    event: dict[str, Any] = {"event": "bot", "text": text, "metadata": metadata, "data": {}}
    if buttons:
        event["data"]["buttons"] = buttons
    return [{"event": "action", "name": name or "action_send_text"}, event]


BUTTONS = [
    {"title": "New York", "payload": "/SetSlots(destination=New York)"},
    {"title": "San Francisco", "payload": "/SetSlots(destination=San Francisco)"},
]
STACK = {"event": "stack", "update": "[]"}
LISTEN = {"event": "action", "name": "action_listen"}

CALM = [
    *_start(),
    _user("I want to book a flight"),
    STACK,
    {"event": "flow_started", "flow_id": "flight_booking", "metadata": {"step_id": "START"}},
    *_bot("utter_ask_destination", "Where would you like to fly to?", BUTTONS),
    LISTEN,
    _user("New York"),
    {"event": "slot", "name": "destination", "value": "New York"},
    {"event": "slot", "name": "passengers", "value": 2},
    STACK,
    *_bot("utter_ask_origin", "Where are you flying from?"),
    LISTEN,
    _user("never mind"),
    {"event": "flow_cancelled", "flow_id": "flight_booking", "step_id": "collect_origin"},
    {"event": "flow_started", "flow_id": "pattern_cancel_flow", "metadata": {}},
    *_bot("utter_flow_cancelled_rasa", "Okay, stopping the flight booking."),
    {
        "event": "flow_completed",
        "flow_id": "pattern_cancel_flow",
        "step_id": "1_utter_flow_cancelled_rasa",
    },
    {"event": "slot", "name": "destination", "value": None},
    LISTEN,
    _user("make booking"),
    {
        "event": "flow_started",
        "flow_id": "pattern_clarification",
        "metadata": {
            "names": ["hotel booking", "flight booking"],
            "clarification_ids": ["hotel_booking", "flight_booking"],
        },
    },
    *_bot("utter_clarification_options_rasa", "Would you like flight booking or hotel booking?"),
    LISTEN,
    _user("how much luggage can I take?"),
    *_bot(
        None,
        "You may bring 23 kg.",
        utter_source="EnterpriseSearchPolicy",
        search_results=["Economy: one bag of 23 kg.", "Business: two bags."],
    ),
    LISTEN,
]
"""A Rasa Pro CALM conversation (its events in Rasa's JSON)."""

OSS = [
    *_start(),
    _user("book a table"),
    {"event": "action", "name": "restaurant_form"},
    {"event": "active_loop", "name": "restaurant_form"},
    {"event": "slot", "name": "requested_slot", "value": "cuisine"},
    *_bot("utter_ask_cuisine", "What food?"),
    LISTEN,
    _user("italian"),
    {"event": "slot", "name": "cuisine", "value": "italian"},
    *_bot("utter_ask_people", "How many?"),
    LISTEN,
]
"""A Rasa Open Source 3.x conversation: a form, no flows."""


def _events(raw: list[dict[str, Any]]) -> list[ObservedEvent]:
    return [e for e in (observed(x) for x in raw) if e is not None]


def _check(
    raw: list[dict[str, Any]],
    text: str,
    assertions: list[a.Assertion],
    *,
    step_index: int = 1,
    ordered: bool = False,
    judge: a.Judge | None = None,
) -> list[a.AssertionResult]:
    """Rasa's run_assertions for one step: the turn of ``text`` (the runner's
    _get_current_user_turn_and_prior_events), the assertions in order."""
    events = _events(raw)
    turn, prior = turn_and_prior(events, text, {})
    assert turn, f"no turn for {text!r}"
    ev = a.TurnEvents(turn, prior, step_index, text, a.is_calm(events), judge)
    return asyncio.run(a.run_step(assertions, ev, ordered=ordered))


def _one(
    raw: list[dict[str, Any]], text: str, assertion: a.Assertion, **kw: Any
) -> a.AssertionResult:
    results = _check(raw, text, [assertion], **kw)
    assert len(results) == 1
    return results[0]


# --- flow_started: FlowStartedAssertion.run / _run_single_flow_id_check / _run_any_flow_id_check


def test_flow_started_passes_on_the_started_flow_calm() -> None:
    assert _one(
        CALM, "I want to book a flight", a.FlowStarted(line=5, flow_id="flight_booking")
    ).passed


def test_flow_started_fails_on_another_flow_calm() -> None:
    r = _one(CALM, "I want to book a flight", a.FlowStarted(line=5, flow_id="hotel_booking"))
    assert (r.passed, r.line, r.message) == (
        False,
        5,
        "Flow with id 'hotel_booking' did not start.",
    )


def test_flow_started_any_and_all_operators() -> None:
    any_ok = a.FlowStarted(line=5, operator="any", flow_ids=["hotel_booking", "flight_booking"])
    assert _one(CALM, "I want to book a flight", any_ok).passed
    any_bad = a.FlowStarted(line=5, operator="any", flow_ids=["hotel_booking", "car_rental"])
    r = _one(CALM, "I want to book a flight", any_bad)
    assert r.message == "None of the flows with ids 'hotel_booking, car_rental' started."
    # 'all' takes the (only) first id: next(iter(self.flow_ids))
    all_bad = a.FlowStarted(line=5, operator="all", flow_ids=["pattern_cancel_flow"])
    assert _one(CALM, "I want to book a flight", all_bad).message == (
        "Flow with id 'pattern_cancel_flow' did not start."
    )
    # only this turn's events count: the flow started in the first turn, not in "New York"
    assert not _one(CALM, "New York", a.FlowStarted(line=5, flow_id="flight_booking")).passed


def test_flow_started_on_rasa_open_source_fails_and_says_why() -> None:
    r = _one(OSS, "book a table", a.FlowStarted(line=5, flow_id="restaurant"))
    assert not r.passed
    assert r.message == "Flow with id 'restaurant' did not start." + a.NO_FLOWS_NOTE


# --- flow_completed / flow_cancelled: FlowCompletedAssertion.run, FlowCancelledAssertion.run


def test_flow_completed_passes_at_its_step_calm() -> None:
    ok = a.FlowCompleted(
        line=9, flow_id="pattern_cancel_flow", flow_step_id="1_utter_flow_cancelled_rasa"
    )
    assert _one(CALM, "never mind", ok).passed
    assert _one(CALM, "never mind", a.FlowCompleted(line=9, flow_id="pattern_cancel_flow")).passed


def test_flow_completed_fails_at_another_step_or_when_not_completed() -> None:
    wrong_step = a.FlowCompleted(line=9, flow_id="pattern_cancel_flow", flow_step_id="END")
    assert _one(CALM, "never mind", wrong_step).message == (
        "Flow with id 'pattern_cancel_flow' did not complete at expected step id 'END'. "
        "The actual step id was '1_utter_flow_cancelled_rasa'."
    )
    r = _one(CALM, "never mind", a.FlowCompleted(line=9, flow_id="flight_booking"))
    assert r.message == "Flow with id 'flight_booking' did not complete."
    r = _one(OSS, "italian", a.FlowCompleted(line=9, flow_id="restaurant"))
    assert r.message == "Flow with id 'restaurant' did not complete." + a.NO_FLOWS_NOTE


def test_flow_cancelled_passes_and_fails() -> None:
    ok = a.FlowCancelled(line=3, flow_id="flight_booking", flow_step_id="collect_origin")
    assert _one(CALM, "never mind", ok).passed
    wrong = a.FlowCancelled(line=3, flow_id="flight_booking", flow_step_id="make_payment")
    assert _one(CALM, "never mind", wrong).message == (
        "Flow with id 'flight_booking' was not cancelled at expected step id 'make_payment'. "
        "The actual step id was 'collect_origin'."
    )
    r = _one(CALM, "New York", a.FlowCancelled(line=3, flow_id="flight_booking"))
    assert r.message == "Flow with id 'flight_booking' was not cancelled."


# --- pattern_clarification_contains: PatternClarificationContainsAssertion.run and helpers


def test_pattern_clarification_list_compares_the_names_as_a_set() -> None:
    ok = a.PatternClarificationContains(line=4, flow_names=["flight booking", "hotel booking"])
    assert _one(CALM, "make booking", ok).passed
    subset = a.PatternClarificationContains(line=4, flow_names=["flight booking"])
    assert _one(CALM, "make booking", subset).message == (
        "'pattern_clarification' pattern did not contain the expected options. "
        "Expected options: {'flight booking'}. "
    )


def test_pattern_clarification_operators() -> None:
    every = ["flight_booking", "hotel_booking"]
    assert _one(
        CALM, "make booking", a.PatternClarificationContains(line=4, operator="all", flow_ids=every)
    ).passed
    assert _one(
        CALM,
        "make booking",
        a.PatternClarificationContains(line=4, operator="any", flow_ids=["car", "hotel_booking"]),
    ).passed
    r = _one(
        CALM,
        "make booking",
        a.PatternClarificationContains(line=4, operator="all", flow_ids=["flight_booking"]),
    )
    assert r.message == (
        "'pattern_clarification' pattern did not contain all of the expected options "
        "'flight_booking'. Actual options: 'hotel_booking, flight_booking'."
    )
    r = _one(
        CALM,
        "make booking",
        a.PatternClarificationContains(line=4, operator="any", flow_ids=["car"]),
    )
    assert r.message == (
        "'pattern_clarification' pattern did not contain any of the expected options 'car'."
    )
    r = _one(CALM, "New York", a.PatternClarificationContains(line=4, flow_names=["x"]))
    assert r.message == "'pattern_clarification' pattern did not trigger."


# --- action_executed: ActionExecutedAssertion.run with _get_turn_events_based_on_step_index


def test_action_executed_passes_calm_and_open_source() -> None:
    assert _one(CALM, "New York", a.ActionExecuted(line=2, action_name="utter_ask_origin")).passed
    assert _one(OSS, "book a table", a.ActionExecuted(line=2, action_name="restaurant_form")).passed


def test_action_executed_fails_and_sees_the_session_start_only_on_the_first_step() -> None:
    r = _one(OSS, "italian", a.ActionExecuted(line=2, action_name="restaurant_form"))
    assert (r.passed, r.message) == (False, "Action 'restaurant_form' did not execute.")
    start = a.ActionExecuted(line=2, action_name="action_session_start")
    assert _one(OSS, "book a table", start, step_index=0).passed
    assert not _one(OSS, "book a table", start, step_index=1).passed


# --- slot_was_set: SlotWasSetAssertion.run


def test_slot_was_set_passes_with_and_without_value() -> None:
    with_value = a.SlotWasSet(line=6, slots=[a.AssertedSlot("destination", "New York", 7)])
    assert _one(CALM, "New York", with_value).passed
    no_value = a.SlotWasSet(line=6, slots=[a.AssertedSlot("cuisine", a.VALUE_UNDEFINED, 7)])
    assert _one(OSS, "italian", no_value).passed


def test_slot_was_set_fails_at_the_slots_line() -> None:
    two = a.SlotWasSet(
        line=6,
        slots=[a.AssertedSlot("destination", "New York", 7), a.AssertedSlot("origin", "x", 9)],
    )
    r = _one(CALM, "New York", two)
    assert (r.passed, r.line, r.message) == (False, 9, "Slot 'origin' was not set.")
    r = _one(OSS, "italian", a.SlotWasSet(line=6, slots=[a.AssertedSlot("cuisine", "thai", 7)]))
    assert (r.line, r.message) == (
        7,
        "Slot 'cuisine' was set to a different value 'italian' than the expected 'thai' value.",
    )
    # Python's ==: the number 2 is not the text "2"
    r = _one(CALM, "New York", a.SlotWasSet(line=6, slots=[a.AssertedSlot("passengers", "2", 8)]))
    assert not r.passed


# --- slot_was_not_set: SlotWasNotSetAssertion.run


def test_slot_was_not_set_passes() -> None:
    absent = a.SlotWasNotSet(line=6, slots=[a.AssertedSlot("origin", a.VALUE_UNDEFINED, 7)])
    assert _one(CALM, "New York", absent).passed
    other_value = a.SlotWasNotSet(line=6, slots=[a.AssertedSlot("destination", "Paris", 7)])
    assert _one(CALM, "New York", other_value).passed
    # the slot's last event in the turn is a reset to null: "not set" holds, as in Rasa
    reset = a.SlotWasNotSet(line=6, slots=[a.AssertedSlot("destination", a.VALUE_UNDEFINED, 7)])
    assert _one(CALM, "never mind", reset).passed


def test_slot_was_not_set_fails() -> None:
    r = _one(
        OSS,
        "italian",
        a.SlotWasNotSet(line=6, slots=[a.AssertedSlot("cuisine", a.VALUE_UNDEFINED, 7)]),
    )
    assert (r.line, r.message) == (
        7,
        "Slot 'cuisine' was set to 'italian' but it should not have been set.",
    )
    r = _one(
        CALM,
        "New York",
        a.SlotWasNotSet(line=6, slots=[a.AssertedSlot("destination", "New York", 8)]),
    )
    assert (r.line, r.message) == (
        8,
        "Slot 'destination' was set to 'New York' but it should not have been set.",
    )


# --- bot_uttered: BotUtteredAssertion.run and _buttons_match


def test_bot_uttered_passes_on_name_pattern_and_buttons() -> None:
    full = a.BotUttered(
        line=3,
        utter_name="utter_ask_destination",
        text_matches="fly to\\?$",
        buttons=[a.Button(b["title"], b["payload"]) for b in BUTTONS],
    )
    assert _one(CALM, "I want to book a flight", full).passed
    assert _one(OSS, "italian", a.BotUttered(line=3, utter_name="utter_ask_people")).passed
    # re.search, not a full match
    assert _one(OSS, "italian", a.BotUttered(line=3, text_matches="many")).passed


def test_bot_uttered_fails_with_every_unmet_property_named() -> None:
    r = _one(
        CALM,
        "I want to book a flight",
        a.BotUttered(
            line=3,
            utter_name="utter_ask_origin",
            text_matches="^Hello",
            buttons=[a.Button("New York", "/SetSlots(destination=NYC)")],
        ),
    )
    assert (r.passed, r.line) == (False, 3)
    assert r.message == (
        "Bot did not utter 'utter_ask_origin' response. Bot did not utter any response which "
        "matches the provided text pattern '^Hello'. Bot did not utter any response with the "
        "expected buttons."
    )
    r = _one(OSS, "book a table", a.BotUttered(line=3, utter_name="utter_ask_people"))
    assert r.message == "Bot did not utter 'utter_ask_people' response."
    # _buttons_match: every position of zip(actual, expected) must match
    second_wrong = [a.Button("New York", BUTTONS[0]["payload"]), a.Button("San Francisco", "/x")]
    r = _one(CALM, "I want to book a flight", a.BotUttered(line=3, buttons=second_wrong))
    assert r.message == "Bot did not utter any response with the expected buttons."
    # ... and zip stops at the shorter list: the first button alone passes
    first_only = [a.Button("New York", BUTTONS[0]["payload"])]
    assert _one(CALM, "I want to book a flight", a.BotUttered(line=3, buttons=first_only)).passed


# --- bot_did_not_utter: BotDidNotUtterAssertion.run


def test_bot_did_not_utter_passes_and_fails() -> None:
    assert _one(
        CALM, "New York", a.BotDidNotUtter(line=4, utter_name="utter_ask_destination")
    ).passed
    forbidden = a.BotDidNotUtter(
        line=4,
        text_matches="fly",
        buttons=[a.Button("San Francisco", "/SetSlots(destination=San Francisco)")],
    )
    r = _one(CALM, "I want to book a flight", forbidden)
    assert (r.passed, r.line) == (False, 4)
    assert r.message == (
        "Bot uttered a forbidden message matching the pattern 'fly'. "
        "Bot uttered a forbidden response with specified buttons."
    )
    r = _one(OSS, "italian", a.BotDidNotUtter(line=4, utter_name="utter_ask_people"))
    assert r.message == "Bot uttered a forbidden utterance 'utter_ask_people'."


# --- the runner: run_assertions and _slice_turn_events


def test_assertion_order_slices_the_turn_after_each_match() -> None:
    bot_first = [
        a.BotUttered(line=3, utter_name="utter_ask_destination"),
        a.FlowStarted(line=5, flow_id="flight_booking"),
    ]
    assert all(r.passed for r in _check(CALM, "I want to book a flight", bot_first))
    results = _check(CALM, "I want to book a flight", bot_first, ordered=True)
    assert [r.passed for r in results] == [True, False]
    assert results[1].message == "Flow with id 'flight_booking' did not start." + a.ORDER_MESSAGE
    flow_first = list(reversed(bot_first))
    assert all(r.passed for r in _check(CALM, "I want to book a flight", flow_first, ordered=True))


def test_a_step_stops_at_its_first_failed_assertion() -> None:
    results = _check(
        OSS,
        "italian",
        [
            a.ActionExecuted(line=1, action_name="utter_ask_people"),
            a.ActionExecuted(line=2, action_name="nope"),
            a.ActionExecuted(line=3, action_name="utter_ask_people"),
        ],
    )
    assert [r.passed for r in results] == [True, False]


def test_a_user_message_missing_from_the_conversation_fails_at_its_step(tmp_path: Path) -> None:
    """run_assertions: no turn events → TestResult(pass_status=False, error_line=step.line,
    assertion_failure=None); a failed assertion → error_line of the failure."""
    path = tmp_path / "t.yml"
    path.write_text(
        "test_cases:\n  - test_case: t\n    steps:\n      - user: italian\n        assertions:\n"
        "          - slot_was_set:\n              - name: cuisine\n                value: thai\n"
        "      - user: never said\n        assertions:\n          - action_executed: x\n"
        "  - test_case: u\n    steps:\n      - user: never said\n        assertions:\n"
        "          - action_executed: x\n",
        encoding="utf-8",
    )
    data = e2e_cases.read(path)
    failed = asyncio.run(score_assertions(data.test_cases[0], _events(OSS), lambda s: {}))
    assert (failed.pass_status, failed.error_line) == (False, 7)
    assert failed.assertion_failure is not None
    assert failed.assertion_failure["error_message"] == (
        "Slot 'cuisine' was set to a different value 'italian' than the expected 'thai' value."
    )
    assert failed.assertion_failure["assertion"] == {
        "slots": [{"name": "cuisine", "value": "thai", "line": 7}],
        "type": "slot_was_set",
    }
    assert (
        "SlotSet(key: cuisine, value: 'italian')"
        in failed.assertion_failure["actual_events_transcript"]
    )
    assert [r["status"] for r in failed.assertion_rows()] == ["failed", "not_run"]
    missing = asyncio.run(score_assertions(data.test_cases[1], _events(OSS), lambda s: {}))
    assert (missing.pass_status, missing.error_line, missing.assertion_failure) == (False, 14, None)


# --- generative assertions: GenerativeResponseMixin.run, judged over HTTP by a scripted LLM


@pytest.fixture
def judge_url() -> Iterator[tuple[LLMPeer, str]]:
    peer = LLMPeer(
        lambda request: (
            Reply('{"score": 0.9, "reason": "answers the luggage question"}')
            if "23 kg" in request.last_user and "Ground truth" not in request.last_user
            else Reply('```json\n{"score": 0.4, "reason": "business class is not mentioned"}\n```')
        )
    )
    with peer.serving() as url:
        yield peer, url


def _judge(url: str) -> LLMJudge:
    return LLMJudge(llm_config_from_mapping({"base_url": url, "model": "judge", "retries": 0}))


def test_generative_assertions_pass_and_fail_on_the_judges_score(
    judge_url: tuple[LLMPeer, str],
) -> None:
    peer, url = judge_url
    text = "how much luggage can I take?"
    relevant = a.GenerativeResponseIsRelevant(line=8, threshold=0.7)
    r = _one(CALM, text, relevant, judge=_judge(url))
    assert (r.passed, r.score, r.reason) == (True, 0.9, "answers the luggage question")
    grounded = a.GenerativeResponseIsGrounded(line=8, threshold=0.7)
    r = _one(CALM, text, grounded, judge=_judge(url))
    assert (r.passed, r.score) == (False, 0.4)
    assert r.message == (
        "Generative response 'You may bring 23 kg.' given to the user input "
        "'how much luggage can I take?' was not grounded. Expected score to be above '0.7' "
        "threshold, but was '0.4'. The LLM Judge model has justified its score like so: "
        "business class is not mentioned."
    )
    # the ground truth came from the message's search_results (Rasa's _get_prompt_inputs)
    assert "Economy: one bag of 23 kg.\nBusiness: two bags." in peer.requests[-1].last_user


def test_generative_assertions_need_a_generative_message() -> None:
    # _find_matching_generative_events: no bot message has an eligible utter_source
    r = _one(OSS, "italian", a.GenerativeResponseIsRelevant(line=8, threshold=0.7))
    assert not r.passed
    assert r.message.startswith("No generative response issued by either the Enterprise Search")
    r = _one(
        CALM,
        "how much luggage can I take?",
        a.GenerativeResponseIsRelevant(line=8, threshold=0.7, utter_source="IntentlessPolicy"),
    )
    assert not r.passed


def test_a_judge_that_answers_nonsense_or_fails_is_an_error_never_a_failure() -> None:
    text = "how much luggage can I take?"
    relevant = a.GenerativeResponseIsRelevant(line=8, threshold=0.7)
    for script in (
        [Reply("I think it is quite relevant")],
        [Reply('{"score": "high"}')],
        [Reply(status=400)],
    ):
        with LLMPeer(script).serving() as url, pytest.raises(a.JudgeError):
            _one(CALM, text, relevant, judge=_judge(url))
    with pytest.raises(a.JudgeError, match="needs an LLM judge"):
        _one(CALM, text, relevant)
