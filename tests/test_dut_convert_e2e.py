"""``test du convert-e2e``: E2E test cases run against a loopback Rasa Pro; passed ones go to
ready/, failed ones to to_review/, with the commands the engine predicted per user step."""

from __future__ import annotations

from pathlib import Path

import yaml

from nlu_tui.cli.main import run as cli
from tests.rasa_pro_peer import rasa_pro_server

E2E = """\
test_cases:
  - test_case: adds a contact
    steps:
      - user: I want to add someone to my contact list
      - utter: utter_ask_handle
      - user: it's @barts
      - utter: utter_ask_name
      - slot_was_set:
          - name: "@barts"
  - test_case: asks which flow
    steps:
      - user: which flows?
      - utter: utter_something_else
"""


def test_convert_e2e_splits_ready_and_to_review(tmp_path: Path) -> None:
    e2e = tmp_path / "e2e.yml"
    e2e.write_text(E2E, encoding="utf-8")
    out = tmp_path / "dut"
    with rasa_pro_server() as (url, _state):
        code = cli(
            [
                "test",
                "du",
                "convert-e2e",
                str(e2e),
                "--output-folder",
                str(out),
                "--engine",
                f"rasa-pro:{url}",
            ]
        )
    assert code == 0
    ready = yaml.safe_load((out / "ready" / "adds_a_contact.yml").read_text(encoding="utf-8"))
    assert ready["test_cases"][0]["steps"] == [
        {
            "user": "I want to add someone to my contact list",
            "commands": ["start flow add_contact"],
        },
        {"utter": "utter_ask_handle"},
        {"user": "it's @barts", "commands": ["set slot name @barts"]},
        {"utter": "utter_ask_name"},
    ]
    review = yaml.safe_load((out / "to_review" / "asks_which_flow.yml").read_text(encoding="utf-8"))
    assert review["test_cases"][0]["steps"][0] == {
        "user": "which flows?",
        "commands": ["disambiguate flows remove_contact add_contact"],
    }
    # the converted files are valid DUT files
    code = cli(
        [
            "test",
            "du",
            str(out / "ready"),
            "--engine",
            "rasa-pro:http://127.0.0.1:9",
            "--retries",
            "0",
            "--no-output",
        ]
    )
    assert code == 3  # unreachable engine, but the files were read fine (not 2)


def test_convert_e2e_needs_a_conversation_engine(tmp_path: Path) -> None:
    e2e = tmp_path / "e2e.yml"
    e2e.write_text(E2E, encoding="utf-8")
    nlu = Path(__file__).parents[1] / "sample_suites" / "contacts.nlu.yml"
    code = cli(
        [
            "test",
            "du",
            "convert-e2e",
            str(e2e),
            "--output-folder",
            str(tmp_path / "o"),
            "--engine",
            f"embedded:{nlu}",
        ]
    )
    assert code == 2
    assert not (tmp_path / "o").exists()
