"""``test stories --e2e`` reads a folder as ``rasa test core --e2e`` does: only the story files
whose name starts with ``test_`` (Rasa's ``RasaFileImporter.get_conversation_tests``), and says
which files it skipped; without ``--e2e`` every story file counts."""

from __future__ import annotations

from pathlib import Path

from nlu_tui.conversation.service import STORIES_RUN, load_units

STORY = """\
version: "3.1"
stories:
- story: {name}
  steps:
  - intent: greet
  - action: utter_greet
"""


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "test_stories.yml").write_text(STORY.format(name="kept"), encoding="utf-8")
    (folder / "stories.yml").write_text(STORY.format(name="skipped"), encoding="utf-8")
    return folder


def test_e2e_reads_only_test_files_and_names_the_others(tmp_path: Path) -> None:
    units = load_units(STORIES_RUN, _folder(tmp_path), e2e=True)
    assert [story.name for story in units.order] == ["kept"]
    assert len(units.notes) == 1
    assert "stories.yml: skipped, as rasa test core --e2e skips it" in units.notes[0]


def test_without_e2e_every_story_file_counts(tmp_path: Path) -> None:
    units = load_units(STORIES_RUN, _folder(tmp_path))
    assert sorted(story.name for story in units.order) == ["kept", "skipped"]
    assert units.notes == []
