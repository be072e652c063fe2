"""Test stories without a server: the reader (markup, entities, slots, loops, checkpoints,
errors with file/line/field), Rasa's event list of a story, the writer's markup, and the
evaluation loop against a policy whose answers are written here by hand."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from nlu_tui.conversation import story_writer
from nlu_tui.conversation.checkpoints import expand
from nlu_tui.conversation.story_eval import evaluate_story, story_events
from nlu_tui.conversation_model import StoryStepKind
from nlu_tui.engines.conversation import ActionPrediction, DialogueDomain
from nlu_tui.errors import InputError
from nlu_tui.formats import rasa_stories

STORIES = """\
version: "3.1"
nlu: []
stories:
- story: book
  steps:
  - user: |
      a table for [two](people) with [thai]{"entity": "cuisine", "value": "Thai"}
    intent: book_table
  - action: table_form
  - active_loop: table_form
  - slot_was_set:
    - requested_slot: cuisine
    - logged_in
  - active_loop: null
  - intent: inform
    entities:
    - cuisine: italian
  - bot: Done!
- story: first half
  steps:
  - intent: greet
  - action: utter_greet
  - checkpoint: greeted
- story: second half
  steps:
  - checkpoint: greeted
  - intent: goodbye
  - action: utter_goodbye
"""

DOMAIN = DialogueDomain(
    slot_types={"people": "text", "cuisine": "text", "logged_in": "bool", "tags": "list"},
    entity_slots=[
        ("people", {"type": "from_entity", "entity": "people"}),
        ("cuisine", {"type": "from_entity", "entity": "cuisine"}),
    ],
    forms={"table_form"},
)


def _read(tmp_path: Path, text: str = STORIES) -> Any:
    path = tmp_path / "test_stories.yml"
    path.write_text(text, encoding="utf-8")
    return rasa_stories.read(path)


def test_reader_takes_markup_entities_slots_and_loops(tmp_path: Path) -> None:
    data = _read(tmp_path)
    book = data.stories[0]
    assert book.name == "book" and book.line == 4
    user = book.steps[0]
    assert user.kind is StoryStepKind.INTENT and user.name == "book_table" and user.line == 6
    assert user.text == "a table for two with thai"
    assert [(e.entity, e.value, e.start, e.end) for e in user.entities] == [
        ("people", "two", 12, 15),
        ("cuisine", "Thai", 21, 25),
    ]
    kinds = [(s.kind.value, s.name, s.slot, s.value, s.has_value) for s in book.steps[1:]]
    assert kinds == [
        ("action", "table_form", None, None, False),
        ("active_loop", "table_form", None, None, False),
        ("slot_was_set", None, "requested_slot", "cuisine", True),
        ("slot_was_set", None, "logged_in", None, False),
        ("active_loop", None, None, None, False),
        ("intent", "inform", None, None, False),
        ("bot", None, None, None, False),
    ]
    assert [(e.entity, e.value) for e in book.steps[6].entities] == [("cuisine", "italian")]


def test_story_events_are_rasas_explicit_events(tmp_path: Path) -> None:
    book = _read(tmp_path).stories[0]
    events = [e for e, _ in story_events(book, DOMAIN)]
    assert events[0] == {"event": "action", "name": "action_listen"}
    assert events[1]["event"] == "user"
    assert events[1]["parse_data"]["entities"] == [
        {"entity": "people", "value": "two", "start": 12, "end": 15},
        {"entity": "cuisine", "value": "Thai", "start": 21, "end": 25},
    ]
    # slots the entities fill (from_entity mappings), in the domain's slot order
    assert events[2:4] == [
        {"event": "slot", "name": "people", "value": "two"},
        {"event": "slot", "name": "cuisine", "value": "Thai"},
    ]
    # a bool slot named without value is None; a listen before the next user message
    assert {"event": "slot", "name": "logged_in", "value": None} in events
    tail = [e.get("name") or e.get("action_text") or e["event"] for e in events[-6:]]
    assert tail == ["active_loop", "action_listen", "user", "cuisine", "Done!", "action_listen"]


def test_checkpoints_join_stories(tmp_path: Path) -> None:
    stories = expand(_read(tmp_path).stories)
    assert [s.name for s in stories] == ["book", "first half > second half"]
    joined = stories[1]
    assert [s.name for s in joined.steps] == ["greet", "utter_greet", "goodbye", "utter_goodbye"]


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        ("stories:\n- story: a\n  steps:\n  - acton: x\n", 4, "acton"),
        ("stories:\n- steps:\n  - action: x\n", 2, "story"),
        ("stories:\n- story: a\n  steps:\n  - or:\n    - intent: a\n", 4, "or"),
        (
            "stories:\n- story: a\n  steps:\n  - user: '[x]{\"entity\": 1}'\n    intent: i\n",
            4,
            "user",
        ),
        ("nlu: []\n", None, "stories"),
    ],
)
def test_errors_name_file_line_and_field(
    tmp_path: Path, text: str, line: int | None, field: str
) -> None:
    with pytest.raises(InputError) as info:
        _read(tmp_path, text)
    assert info.value.line == line and info.value.field == field, str(info.value)
    assert info.value.path == tmp_path / "test_stories.yml"


def test_format_message_marks_entities_up_as_rasa() -> None:
    text = "from Berlin to paris"
    entities = [
        {"entity": "city", "value": "Berlin", "start": 5, "end": 11},
        {"entity": "city", "value": "Paris", "start": 15, "end": 20},
    ]
    assert story_writer.format_message(text, "inform", entities) == (
        'from [Berlin](city) to [paris]{"entity": "city", "value": "Paris"}'
    )


class ScriptedPolicy:
    """Answers written by hand: the action after each number of events seen."""

    def __init__(self, answers: Mapping[int, str], parse: dict[str, Any] | None = None) -> None:
        self.answers = answers
        self.parse = parse or {}
        self.asked: list[int] = []

    async def dialogue_domain(self) -> DialogueDomain:
        return DOMAIN

    async def predict_action(self, events: Sequence[Mapping[str, Any]]) -> ActionPrediction:
        self.asked.append(len(events))
        return ActionPrediction(self.answers.get(len(events), "action_listen"), "RulePolicy", 1.0)

    async def parse_message(self, text: str) -> dict[str, Any]:
        return self.parse


def test_a_wrong_action_is_commented_and_the_story_goes_on_with_the_expected_one(
    tmp_path: Path,
) -> None:
    story = expand(_read(tmp_path).stories)[1]
    # Rasa's events: listen, greet, utter_greet, listen, goodbye, utter_goodbye, listen; the
    # policy is asked with the events before each action (2, 3, 5 and 6 of them)
    policy = ScriptedPolicy({2: "utter_greet", 5: "utter_happy"})
    result = asyncio.run(evaluate_story(story, policy, DOMAIN))
    assert policy.asked == [2, 3, 5, 6]
    assert not result.passed and result.first_failure == "utter_goodbye (predicted utter_happy)"
    assert result.first_failure_line == 28
    text = story_writer.dumps([result], story_writer.NO_FAILED)
    assert text.splitlines() == [
        'version: "3.1"',
        "stories:",
        f"- story: first half > second half ({tmp_path.resolve() / 'test_stories.yml'})",
        "  steps:",
        "  - intent: greet",
        "  - action: utter_greet",
        "  - intent: goodbye",
        "  - action: utter_goodbye  # predicted: utter_happy",
    ]


def test_e2e_mode_scores_the_intent_and_writes_rasas_comment(tmp_path: Path) -> None:
    text = """\
stories:
- story: e2e
  steps:
  - user: |
      hello
    intent: greet
  - action: utter_greet
  - user: |
      bye
    intent: goodbye
  - action: utter_goodbye
"""
    story = _read(tmp_path, text).stories[0]
    policy = ScriptedPolicy(
        {2: "utter_greet", 5: "utter_goodbye"},
        parse={"intent": {"name": "greet"}, "entities": []},
    )
    result = asyncio.run(evaluate_story(story, policy, DOMAIN, e2e=True))
    assert result.intents == [("greet", "greet"), ("goodbye", "greet")]
    assert not result.passed and result.first_failure == "intent goodbye (predicted greet)"
    lines = story_writer.dumps([result], story_writer.NO_FAILED).splitlines()
    assert lines[4:] == [
        "  - intent: greet",
        "  - action: utter_greet",
        "  - intent: goodbye  # predicted: greet: bye",
        "  - action: utter_goodbye",
    ]


def test_form_rejection_is_emulated_before_a_wrong_form_prediction(tmp_path: Path) -> None:
    text = """\
stories:
- story: leave the form
  steps:
  - intent: book_table
  - action: table_form
  - active_loop: table_form
  - intent: goodbye
  - action: utter_goodbye
"""
    story = _read(tmp_path, text).stories[0]
    # with 6 events the policy answers the active form; Rasa then adds an emulated rejection
    # of the form (7 events) and asks again
    policy = ScriptedPolicy({2: "table_form", 6: "table_form", 7: "utter_goodbye"})
    result = asyncio.run(evaluate_story(story, policy, DOMAIN))
    assert result.passed, result.first_failure
    assert policy.asked == [2, 4, 6, 7, 8]


def test_no_failed_story_writes_rasas_comment() -> None:
    assert story_writer.dumps([], story_writer.NO_FAILED) == (
        "# None of the test stories failed - all good!"
    )


ENTITY_STORY = """\
stories:
- story: entities for the policy
  steps:
  - user: |
      a table for [two](people) please
    intent: book_table
  - action: utter_ok
  - user: |
      hi
    intent: greet
  - action: utter_greet
  - intent: inform
    entities:
    - cuisine: thai
  - action: utter_ok
"""

TOKENS = [[0, 1], [2, 7], [8, 11], [12, 15], [16, 22]]
"""``/model/parse``'s ``text_tokens`` of "a table for two please" (WhitespaceTokenizer)."""


def _policy_files(tmp_path: Path, e2e: bool, intent: str) -> tuple[Any, Any, list[str]]:
    from nlu_tui.conversation import reports
    from nlu_tui.store.records import StoredItem

    story = _read(tmp_path, ENTITY_STORY).stories[0]
    parse = {"intent": {"name": intent}, "entities": [], "text_tokens": TOKENS}
    # events: listen, user, slot people (from_entity), utter_ok (3 events before it), ...
    policy = ScriptedPolicy({3: "utter_ok", 6: "utter_greet", 10: "utter_ok"}, parse=parse)
    result = asyncio.run(evaluate_story(story, policy, DOMAIN, e2e=e2e))
    item = StoredItem("s", 0, "passed", 1.0, {"policy_entities": result.policy_entities})
    out = tmp_path / "out"
    out.mkdir()
    written = reports.write_policy_entity_files([item], out, plots=False)
    report = json.loads((out / "TEDPolicy_report.json").read_text(encoding="utf-8"))
    errors = json.loads((out / "TEDPolicy_errors.json").read_text(encoding="utf-8"))
    return report, errors, [p.name for p in written]


def test_rasa_test_core_evaluates_the_entities_of_tedpolicy(tmp_path: Path) -> None:
    """Hand-derived from ``rasa/core/test.py`` (3.6): before each action the policy predicts,
    ``_get_e2e_entity_evaluation_result`` looks at the last event (past slot events): only the
    first user message has text and entities (the third has entities but no text). Its five
    tokens are labelled O O O people O as expected, all ``no_entity`` for the policy (no
    entities come back over HTTP), so: ``people`` precision/recall 0 with support 1,
    ``no_entity`` left out of the rows but in ``accuracy`` 4/5, one error."""
    report, errors, names = _policy_files(tmp_path, e2e=False, intent="book_table")
    assert names == ["TEDPolicy_report.json", "TEDPolicy_errors.json"]
    zero = {"precision": 0.0, "recall": 0.0, "f1-score": 0.0, "support": 1}
    assert report == {
        "people": {**zero, "confused_with": {}},
        "micro avg": zero,
        "macro avg": zero,
        "weighted avg": zero,
        "accuracy": 0.8,
    }
    assert errors == [
        {
            "text": "a table for two please",
            "entities": [{"start": 12, "end": 15, "value": "two", "entity": "people"}],
            "predicted_entities": [],
        }
    ]


def test_with_e2e_a_misclassified_message_gives_rasas_cleaned_targets(tmp_path: Path) -> None:
    """``--e2e`` with the intent predicted wrong: the tracker holds Rasa's
    ``WronglyClassifiedUserUtterance``, whose entities are the evaluation store's cleaned
    targets (``_clean_entity_results``: text, start, end, entity, value)."""
    _report, errors, _names = _policy_files(tmp_path, e2e=True, intent="greet")
    assert errors[0]["entities"] == [
        {
            "text": "a table for two please",
            "start": 12,
            "end": 15,
            "entity": "people",
            "value": "two",
        }
    ]
