"""``failed_test_stories.yml``: where Rasa 3.6 puts the ``# predicted:`` comment of a wrongly
classified user message (issue 24, item 6).

From Rasa's source: ``YAMLStoryWriter.process_user_utterance``
(``rasa/shared/core/training_data/story_writer/yaml_story_writer.py``) writes the entities of a
``WronglyClassifiedUserUtterance`` (``rasa/core/test.py``; its entities are the entity targets)
once per predicted entity starting at the same offset, with ``inline_comment_for_entity``
(``predicted: ENTITY: VALUE``) when the predicted type differs; a target no prediction starts at
is left out; ``inline_comment(force_comment_generation=not entities)`` puts the intent comment
on the intent line only when the intent is wrong or no entity line was written.
"""

from __future__ import annotations

from pathlib import Path

from nlu_tui.conversation.story_eval import StoryResult, Written
from nlu_tui.conversation.story_writer import _step_lines
from nlu_tui.conversation_model import Story


def _user(
    targets: list[dict[str, object]], got_intent: str, got: list[dict[str, object]]
) -> Written:
    event = {
        "event": "user",
        "text": "a table for three",
        "parse_data": {"intent": {"name": "book_table"}, "entities": targets},
        "predicted": {"intent": got_intent, "entities": got},
        "targets": targets,
    }
    return Written(event, comment=f"predicted: {got_intent}: a table for three")


def _lines(written: Written) -> list[str]:
    story = Story(name="s", steps=[], file="t.yml", line=1)
    return _step_lines(StoryResult(story=story, passed=False, written=[written], actions=[]))


THREE = {"entity": "people", "value": "three", "start": 12, "end": 17}


def test_only_the_entity_wrong_comments_the_entity_line() -> None:
    got = [{"entity": "cuisine", "value": "three", "start": 12, "end": 17}]
    assert _lines(_user([THREE], "book_table", got)) == [
        "  - intent: book_table",
        "    entities:",
        "    - people: three  # predicted: cuisine: three",
    ]


def test_a_wrong_intent_comments_the_intent_line() -> None:
    got = [{"entity": "people", "value": "three", "start": 12, "end": 17}]
    assert _lines(_user([THREE], "greet", got)) == [
        "  - intent: book_table  # predicted: greet: a table for three",
        "    entities:",
        "    - people: three",
    ]


def test_a_missed_entity_is_left_out_and_the_intent_line_commented() -> None:
    assert _lines(_user([THREE], "book_table", [])) == [
        "  - intent: book_table  # predicted: book_table: a table for three",
        "    entities: []",
    ]


def test_e2e_reads_only_test_files_of_a_folder_and_says_which_it_skips(tmp_path: Path) -> None:
    """``rasa test core --e2e`` reads ``get_conversation_tests()``: the files for which
    ``YAMLStoryReader.is_test_stories_file`` holds, i.e. named ``test_*`` (Rasa 3.6)."""
    from nlu_tui.formats.rasa_stories import read_path

    story = 'version: "3.1"\nstories:\n- story: s\n  steps:\n  - intent: greet\n'
    (tmp_path / "test_a.yml").write_text(story)
    (tmp_path / "b.yml").write_text(story.replace("- story: s", "- story: t"))
    notes: list[str] = []
    read = read_path(tmp_path, e2e=True, notes=notes)
    assert [s.name for s in read.stories] == ["s"]
    assert len(notes) == 1 and "b.yml: skipped" in notes[0]
    # without --e2e every stories file is read, as rasa test core does
    assert sorted(s.name for s in read_path(tmp_path).stories) == ["s", "t"]
    notes.clear()
    read_path(tmp_path / "b.yml", e2e=True, notes=notes)
    assert "would skip it" in notes[0]
