"""Reading Rasa Pro's E2E assertions (``assertions:`` under a user step, Rasa Pro >= 3.12).

Every example of Rasa Pro's assertion docs parses (tests/fixtures/e2e_assertions/
docs_examples.yml, from https://rasa.com/docs/reference/testing/assertions/ and the how-to
guide https://rasa.com/docs/rasa-pro/testing/e2e-testing-assertions/assertions-how-to-guide/),
each into what Rasa Pro 3.21's ``from_dict`` constructors (``rasa/e2e_test/assertions.py``) make
of it, with the line Rasa reports (``lc.line + 1`` of the mapping its ``from_dict`` reads).
What Rasa refuses (``rasa/e2e_test/schema/assertions_schema.yml``, its pykwalify extension
``require_assertion_keys``, ``TestStep._validate_input_dict`` and the ``from_dict`` errors) is bad
input naming the file, line and field. Expected values are written by hand here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nlu_tui import conversation_assertions as a
from nlu_tui.errors import InputError
from nlu_tui.formats import e2e_cases

DOCS = Path(__file__).parent / "fixtures" / "e2e_assertions" / "docs_examples.yml"


def _cases() -> dict[str, list[list[a.Assertion] | None]]:
    data = e2e_cases.read(DOCS)
    return {c.name: [s.assertions for s in c.steps] for c in data.test_cases}


def test_every_docs_example_parses_into_what_rasa_makes_of_it() -> None:
    cases = _cases()
    assert len(cases) == 16
    # the how-to guide's flight_booking: BotUttered (line of the list item), SlotWasSet with
    # AssertedSlot(name, value, line of the slot's item)
    first, second, third = cases["flight_booking"]
    assert first == [a.BotUttered(line=19, utter_name="utter_ask_destination")]
    assert second == [
        a.SlotWasSet(line=23, slots=[a.AssertedSlot("destination", "New York", 24)]),
        a.BotUttered(line=26, utter_name="utter_ask_origin"),
    ]
    assert third is not None and third[1] == a.BotUttered(
        line=33, text_matches="When would you like to travel?"
    )
    data = e2e_cases.read(DOCS)
    ordered = data.test_cases[1].steps[1]
    assert (
        ordered.assertion_order_enabled and not data.test_cases[1].steps[0].assertion_order_enabled
    )
    assert [s.metadata_name for s in data.test_cases[2].steps] == [
        "duplicate_message_1",
        "duplicate_message_2",
    ]
    assert cases["flow_started_all"][0] == [
        a.FlowStarted(line=67, operator="all", flow_ids=["flight_booking"])
    ]
    assert cases["flow_started_single_id"][0] == [a.FlowStarted(line=76, flow_id="flight_booking")]
    assert cases["flow_completed"][0] == [
        a.FlowCompleted(line=82, flow_id="pattern_search", flow_step_id="action_trigger_search")
    ]
    assert cases["flow_cancelled"][0] == [
        a.FlowCancelled(line=90, flow_id="flight_booking", flow_step_id="make_payment")
    ]
    assert cases["pattern_clarification_all"][0] == [
        a.PatternClarificationContains(
            line=98, operator="all", flow_ids=["flight_booking", "hotel_booking"]
        )
    ]
    assert cases["pattern_clarification_list"][0] == [
        a.PatternClarificationContains(line=108, flow_names=["flight booking", "hotel booking"])
    ]
    assert cases["slot_was_set"][0] == [
        a.SlotWasSet(
            line=116,
            slots=[
                a.AssertedSlot("origin", "New York", 117),
                a.AssertedSlot("destination", "San Francisco", 119),
            ],
        )
    ]
    # no value: Rasa's "value key is undefined"
    assert cases["slot_was_not_set"][0] == [
        a.SlotWasNotSet(line=126, slots=[a.AssertedSlot("origin", a.VALUE_UNDEFINED, 127)]),
        a.SlotWasNotSet(line=128, slots=[a.AssertedSlot("destination", "New York", 129)]),
    ]
    assert cases["action_executed"][0] == [
        a.ActionExecuted(line=136, action_name="action_book_flight")
    ]
    assert cases["bot_uttered"][0] == [
        a.BotUttered(
            line=142,
            utter_name="utter_ask_destination",
            text_matches="Where would you like to fly to?",
            buttons=[
                a.Button("New York", "/SetSlots(destination=New York)"),
                a.Button("San Francisco", "/SetSlots(destination=San Francisco)"),
            ],
        )
    ]
    # BotDidNotUtter.from_dict reads the inner mapping: its first key's line
    assert cases["bot_did_not_utter"][0] == [
        a.BotDidNotUtter(
            line=156,
            utter_name="utter_ask_payment",
            text_matches="How would you like to pay?",
            buttons=[
                a.Button("Credit Card", "/set_payment_method{'method': 'credit_card'}"),
                a.Button("PayPal", "/set_payment_method{'method': 'paypal'}"),
            ],
        )
    ]
    relevant = cases["generative_response_is_relevant"]
    assert relevant[0] == [a.GenerativeResponseIsRelevant(line=169, threshold=0.9)]
    assert relevant[1] == [
        a.GenerativeResponseIsRelevant(
            line=173, threshold=0.9, utter_name="utter_ask_correction_confirmation"
        )
    ]
    assert relevant[2] == [
        a.GenerativeResponseIsRelevant(
            line=178,
            threshold=0.9,
            utter_source="ContextualResponseRephraser | EnterpriseSearchPolicy | "
            "<custom_action_name>",
        )
    ]
    grounded = cases["generative_response_is_grounded"]
    assert grounded[0] == [
        a.GenerativeResponseIsGrounded(
            line=186,
            threshold=0.9,
            ground_truth="The average cost of a flight from New York to San Francisco is $500.",
        )
    ]
    assert grounded[1] is not None and grounded[1][0].line == 191


def test_a_test_case_with_assertions_uses_them_and_writes_them_back(tmp_path: Path) -> None:
    data = e2e_cases.read(DOCS)
    assert all(c.uses_assertions() for c in data.test_cases)
    again = tmp_path / "again.yml"
    e2e_cases.write(data, again)
    reread = e2e_cases.read(again)
    assert [[s.as_dict() for s in c.steps] for c in reread.test_cases] == [
        [s.as_dict() for s in c.steps] for c in data.test_cases
    ]
    step = data.test_cases[1].steps[1].as_dict()
    assert step == {
        "user": "New York",
        "assertion_order_enabled": True,
        "assertions": [
            {"slot_was_set": [{"name": "destination", "value": "New York"}]},
            {"bot_uttered": {"utter_name": "utter_ask_origin"}},
        ],
    }


HEAD = "test_cases:\n  - test_case: t\n    steps:\n      - user: hi\n        assertions:\n"


@pytest.mark.parametrize(
    ("body", "line", "field", "words"),
    [
        # require_assertion_keys: "The 'bot_uttered' assertion is an empty dictionary."
        ("          - bot_uttered: {}\n", 6, "bot_uttered", "empty dictionary"),
        # require_assertion_keys: buttons "mapped to a null value or empty list"
        (
            "          - bot_uttered:\n              buttons: []\n",
            7,
            "bot_uttered.buttons",
            "empty",
        ),
        # BotDidNotUtterAssertion.from_dict: "A 'bot_did_not_utter' assertion is empty"
        (
            "          - bot_did_not_utter:\n              utter_name: ''\n",
            7,
            "bot_did_not_utter",
            "empty",
        ),
        # run_common_dict_assertion_validations + the 'all' rule of require_assertion_keys
        (
            "          - flow_started:\n              operator: all\n              flow_ids: [a, b]\n",
            7,
            "flow_started.flow_ids",
            "exactly one flow ID",
        ),
        (
            "          - flow_started:\n              operator: some\n              flow_ids: [a]\n",
            7,
            "flow_started.operator",
            "'all' or 'any'",
        ),
        (
            "          - flow_started:\n              flow_ids: [a]\n",
            7,
            "flow_started",
            "'operator'",
        ),
        ("          - flow_started: ''\n", 6, "flow_started", "empty string"),
        ("          - flow_started: [a]\n", 6, "flow_started", "string or a dictionary"),
        (
            "          - pattern_clarification_contains: []\n",
            6,
            "pattern_clarification_contains",
            "empty list",
        ),
        # assertions_schema.yml: flow_id required, slot name required, threshold required
        (
            "          - flow_completed:\n              flow_step_id: x\n",
            7,
            "flow_completed.flow_id",
            "flow_id",
        ),
        ("          - slot_was_set:\n              - value: 1\n", 7, "slot_was_set.name", "'name'"),
        (
            "          - generative_response_is_relevant:\n              utter_name: u\n",
            7,
            "generative_response_is_relevant.threshold",
            "threshold",
        ),
        (
            "          - bot_uttered:\n              colour: red\n",
            7,
            "bot_uttered.colour",
            "unknown key",
        ),
        ("          - action_executed:\n", 6, "action_executed", "text value"),
        # ground_truth belongs to the grounded assertion only
        (
            "          - generative_response_is_relevant:\n              threshold: 0.5\n"
            "              ground_truth: x\n",
            8,
            "generative_response_is_relevant.ground_truth",
            "unknown key",
        ),
        # Assertion.create_typed_assertion: InvalidAssertionType
        ("          - flow_interrupted: x\n", 6, "flow_interrupted", "invalid assertion type"),
        # E2ETestRunner.run_tests: Mantle keys refused on a CALM assistant
        (
            "          - skill_activated:\n              skill_id: x\n",
            6,
            "skill_activated",
            "Mantle",
        ),
    ],
)
def test_what_rasa_refuses_is_bad_input_with_file_line_and_field(
    tmp_path: Path, body: str, line: int, field: str, words: str
) -> None:
    path = tmp_path / "t.yml"
    path.write_text(HEAD + body, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        e2e_cases.read(path)
    assert (caught.value.path, caught.value.line, caught.value.field) == (path, line, field)
    assert words in str(caught.value)


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        # TestStep._validate_input_dict: assertions only with the 'user' key
        (
            "test_cases:\n  - test_case: t\n    steps:\n      - bot: hi\n        assertions:\n"
            "          - action_executed: a\n",
            4,
            "assertions",
        ),
        # ... and assertion_order_enabled needs assertions
        (
            "test_cases:\n  - test_case: t\n    steps:\n      - user: hi\n"
            "        assertion_order_enabled: true\n",
            4,
            "assertion_order_enabled",
        ),
        (
            "test_cases:\n  - test_case: t\n    steps:\n      - user: hi\n        assertions:\n",
            5,
            "assertions",
        ),
        (
            "test_cases:\n  - test_case: t\n    steps:\n      - user: hi\n"
            "        assertion_order_enabled: yes\n        assertions: []\n",
            5,
            "assertion_order_enabled",
        ),
    ],
)
def test_step_level_rules_of_rasa(tmp_path: Path, text: str, line: int, field: str) -> None:
    path = tmp_path / "t.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        e2e_cases.read(path)
    assert (caught.value.line, caught.value.field) == (line, field)


def test_an_empty_assertions_list_is_read_as_rasa_reads_it(tmp_path: Path) -> None:
    """``assertions: []`` is allowed by the schema; the test case then uses assertions (and
    Rasa judges it by none: it passes once its messages were sent)."""
    path = tmp_path / "t.yml"
    path.write_text(HEAD.replace("assertions:\n", "assertions: []\n"), encoding="utf-8")
    case = e2e_cases.read(path).test_cases[0]
    assert case.steps[0].assertions == [] and case.uses_assertions()


STUBS = """\
stub_custom_actions:
  check_balance:
    events:
      - event: slot
        name: account_balance
        value: 1000
    responses:
      - text: "Your balance is 1000."
        buttons:
          - title: Thanks
            payload: /thanks
  test_low_balance::check_balance:
    events:
      - event: slot
        name: account_balance
        value: 5
test_cases:
  - test_case: t
    steps:
      - user: hi
"""


def test_stub_custom_actions_as_rasas_schema_allows(tmp_path: Path) -> None:
    """e2e_test_schema.yml: names like ``action`` or ``test_case::action``, ``events`` with a
    known ``event`` type, ``responses`` with known keys."""
    path = tmp_path / "t.yml"
    path.write_text(STUBS, encoding="utf-8")
    stubs = e2e_cases.read(path).stub_custom_actions
    assert list(stubs) == ["check_balance", "test_low_balance::check_balance"]
    assert stubs["check_balance"]["responses"][0]["buttons"] == [
        {"title": "Thanks", "payload": "/thanks"}
    ]


@pytest.mark.parametrize(
    ("old", "new", "line", "field"),
    [
        ("  check_balance:\n", "  check-balance:\n", 2, "stub_custom_actions.check-balance"),
        (
            "      - event: slot\n        name: account_balance\n        value: 1000\n",
            "      - event: slott\n",
            4,
            "stub_custom_actions.check_balance.events.event",
        ),
        (
            "        buttons:\n",
            "        button:\n",
            9,
            "stub_custom_actions.check_balance.responses.button",
        ),
        (
            "          - title: Thanks\n",
            "          - title: 1\n",
            10,
            "stub_custom_actions.check_balance.responses.buttons",
        ),
        ("    responses:\n", "    replies:\n", 7, "stub_custom_actions.check_balance"),
    ],
)
def test_stubs_rasa_refuses_are_bad_input(
    tmp_path: Path, old: str, new: str, line: int, field: str
) -> None:
    path = tmp_path / "t.yml"
    assert old in STUBS
    path.write_text(STUBS.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        e2e_cases.read(path)
    assert (caught.value.line, caught.value.field) == (line, field)


def test_metadata_names_follow_rasas_pattern(tmp_path: Path) -> None:
    path = tmp_path / "t.yml"
    path.write_text(
        "metadata:\n  - web-channel:\n      channel: web\ntest_cases:\n  - test_case: t\n"
        "    steps:\n      - user: hi\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        e2e_cases.read(path)
    assert (caught.value.line, caught.value.field) == (2, "metadata")
