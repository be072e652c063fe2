"""Reading Rasa Pro E2E test files: every step type, fixtures, metadata, DUT commands, and
errors that name the file, line and field (values written by hand here, as Rasa reads them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nlu_tui.conversation_model import StepKind
from nlu_tui.errors import InputError
from nlu_tui.formats import e2e_cases

DOC_EXAMPLE = """\
fixtures:
  - premium:
      - membership_type: premium
      - logged_in: True
  - standard:
      - logged_in: True
      - membership_type: standard
metadata:
  - device_info:
      os: linux
      channel: "web"
test_cases:
  - test_case: "test_premium_booking"
    fixtures:
      - premium
    metadata: device_info
    steps:
      - user: "Hi!"
      - bot: "Welcome back! How can I help you?"
      - user: "I want to book a trip."
        metadata: device_info
      - utter: utter_ask_location
      - user: "I would like to travel to Lisbon."
      - slot_was_set:
          - location: "Lisbon"
          - travel_date
      - slot_was_not_set:
          - budget
          - location: yes
      - bot: "Great!"
"""


def write(tmp_path: Path, text: str, name: str = "e2e.yml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_every_step_type_with_lines(tmp_path: Path) -> None:
    path = write(tmp_path, DOC_EXAMPLE)
    data = e2e_cases.read(path)
    assert set(data.fixtures) == {"premium", "standard"}
    assert data.fixtures["premium"].slots == {"membership_type": "premium", "logged_in": True}
    assert data.metadata["device_info"].values == {"os": "linux", "channel": "web"}
    (case,) = data.test_cases
    assert case.name == "test_premium_booking"
    assert case.line == 13 and case.file == str(path)
    assert case.file_with_line() == f"{path}:13"
    assert case.fixture_names == ["premium"] and case.metadata_name == "device_info"
    got = [(s.kind, s.text, s.slot, s.value, s.has_value, s.line) for s in case.steps]
    assert got == [
        (StepKind.USER, "Hi!", None, None, False, 18),
        (StepKind.BOT, "Welcome back! How can I help you?", None, None, False, 19),
        (StepKind.USER, "I want to book a trip.", None, None, False, 20),
        (StepKind.UTTER, "utter_ask_location", None, None, False, 22),
        (StepKind.USER, "I would like to travel to Lisbon.", None, None, False, 23),
        (StepKind.SLOT_WAS_SET, None, "location", "Lisbon", True, 24),
        (StepKind.SLOT_WAS_SET, None, "travel_date", None, False, 24),
        (StepKind.SLOT_WAS_NOT_SET, None, "budget", None, False, 27),
        # YAML 1.2 (Rasa's reader): "yes" is text, not a boolean
        (StepKind.SLOT_WAS_NOT_SET, None, "location", "yes", True, 27),
        (StepKind.BOT, "Great!", None, None, False, 30),
    ]
    assert case.steps[2].metadata_name == "device_info"
    assert [s.actor for s in case.steps[:3]] == ["user", "bot", "user"]


def test_round_trip_keeps_slot_lists_together(tmp_path: Path) -> None:
    data = e2e_cases.read(write(tmp_path, DOC_EXAMPLE))
    again = e2e_cases.read(write(tmp_path, e2e_cases.dumps(data), "again.yml"))
    strip = [[(s.kind, s.text, s.slot, s.value) for s in c.steps] for c in again.test_cases]
    assert strip == [[(s.kind, s.text, s.slot, s.value) for s in c.steps] for c in data.test_cases]
    assert e2e_cases.to_data(again)["test_cases"][0]["steps"][5] == {
        "slot_was_set": [{"location": "Lisbon"}, "travel_date"]
    }


def test_dut_commands_and_stubs_are_kept_raw(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
stub_custom_actions:
  check_balance:
    events:
      - event: slot
        name: balance
        value: 1000
test_cases:
  - test_case: transfer
    steps:
      - user: send 50 to John
        commands:
          - StartFlow(transfer_money)
          - SetSlot(recipient, John)
      - utter: placeholder_generated_answer
""",
    )
    data = e2e_cases.read(path)
    step = data.test_cases[0].steps[0]
    assert step.commands == ["StartFlow(transfer_money)", "SetSlot(recipient, John)"]
    assert data.test_cases[0].steps[1].text == "placeholder_generated_answer"
    assert data.stub_custom_actions["check_balance"]["events"][0]["value"] == 1000


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        ("test_cases:\n  - test_case: a\n    steps:\n      - usr: hi\n", 4, "usr", "unknown step"),
        ("test_cases:\n  - steps:\n      - user: hi\n", 2, "test_case", "needs"),
        ("test_cases:\n  - test_case: a\n", 2, "steps", "no 'steps:'"),
        (
            "test_cases:\n  - test_case: a\n    fixtures: [nope]\n    steps: []\n",
            3,
            "fixtures",
            "not defined",
        ),
        (
            "test_cases:\n  - test_case: a\n    steps:\n      - user: hi\n        bot: yo\n",
            5,
            "bot",
            "both",
        ),
        (
            "test_cases:\n  - test_case: a\n    steps:\n      - slot_was_set: x\n",
            4,
            "slot_was_set",
            "must be a list",
        ),
        (
            "test_cases:\n  - test_case: a\n    steps:\n      - bot: hi\n        metadata: m\n",
            5,
            "metadata",
            "not defined",
        ),
        ("tests:\n  - x\n", 1, "tests", "unknown top-level"),
        ("test_cases:\n  - test_case: a\n    steps:\n      - user: [hi\n", 5, None, "invalid"),
    ],
)
def test_errors_name_file_line_and_field(
    tmp_path: Path, text: str, line: int, field: str | None, words: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        e2e_cases.read(path)
    err = info.value
    assert err.path == path and err.line == line and err.field == field, str(err)
    assert words in err.message


def test_directory_reads_only_e2e_files(tmp_path: Path) -> None:
    write(tmp_path, "test_cases:\n  - test_case: a\n    steps:\n      - user: hi\n", "a.yml")
    write(tmp_path, "stories: []\n", "b.yml")
    (tmp_path / "sub").mkdir()
    write(
        tmp_path / "sub", "test_cases:\n  - test_case: c\n    steps:\n      - user: yo\n", "c.yaml"
    )
    data = e2e_cases.read_path(tmp_path)
    assert [c.name for c in data.test_cases] == ["a", "c"]
    assert len(data.paths) == 2 and data.digest
