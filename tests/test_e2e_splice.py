"""Saving one edited E2E test case (:mod:`nlu_tui.formats.e2e_splice`): only what changed is
rewritten, comments and the other test cases stay byte for byte, the save is atomic with a
``.bak``, and a file changed on disk is never overwritten."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from nlu_tui.conversation_model import E2EStep, StepKind
from nlu_tui.errors import ConflictError
from nlu_tui.formats import e2e_cases, e2e_splice

TEXT = """\
# Booking conversations (kept)
fixtures:
  - member:
      - logged_in: true

test_cases:
  # the booking flow, comment above the case (kept)
  - test_case: book
    steps:
      - user: "book a table"   # first message (kept)
      # ask for the cuisine
      - utter: utter_ask_cuisine
      - user: chinese
      - slot_was_set:
          - cuisine: italian
      - user: 2 people
      - bot: Booked for 2.

  - test_case: greet   # the second case
    fixtures:
      - member
    steps:
      - user: 'hello'
      - bot: Hey!
"""


def _file(tmp_path: Path, text: str = TEXT) -> Path:
    path = tmp_path / "shop.e2e.yml"
    path.write_text(text, encoding="utf-8")
    return path


def _save(path: Path, index: int, **changes: object) -> e2e_splice.SaveResult:
    data = e2e_cases.read(path)
    case = data.test_cases[index]
    return e2e_splice.save_test_case(path, data.digest, index, replace(case, **changes))


def test_a_changed_step_is_the_only_change(tmp_path: Path) -> None:
    path = _file(tmp_path)
    case = e2e_cases.read(path).test_cases[0]
    steps = list(case.steps)
    steps[3] = E2EStep(StepKind.SLOT_WAS_SET, slot="cuisine", value="chinese", has_value=True)
    result = _save(path, 0, steps=steps)
    assert result.notes == []
    assert path.read_text(encoding="utf-8") == TEXT.replace(
        "      - slot_was_set:\n          - cuisine: italian\n",
        "      - slot_was_set:\n          - cuisine: chinese\n",  # the file's own indentation
    )
    assert (tmp_path / "shop.e2e.yml.bak").read_text(encoding="utf-8") == TEXT
    again = e2e_cases.read(path)
    assert again.digest == result.digest
    assert again.test_cases[0].steps[3].value == "chinese"


def test_moved_and_deleted_steps_keep_their_own_text_and_comments(tmp_path: Path) -> None:
    path = _file(tmp_path)
    steps = list(e2e_cases.read(path).test_cases[0].steps)
    steps[0], steps[1] = steps[1], steps[0]  # the utter step above the first user message
    del steps[5]  # the bot step goes
    steps.append(E2EStep(StepKind.BOT, text="Booked: see you"))
    assert _save(path, 0, steps=steps).notes == []
    text = path.read_text(encoding="utf-8")
    assert '      - user: "book a table"   # first message (kept)\n' in text
    assert "      # ask for the cuisine\n" in text
    assert "Booked for 2." not in text
    assert "      - bot: 'Booked: see you'\n" in text
    assert text.endswith(TEXT[TEXT.index("\n  - test_case: greet") :])
    assert text.startswith(TEXT[: TEXT.index("    steps:")])
    kinds = [s.kind.value for s in e2e_cases.read(path).test_cases[0].steps]
    assert kinds == ["utter", "user", "user", "slot_was_set", "user", "bot"]


def test_name_and_fixtures_are_rewritten_in_place(tmp_path: Path) -> None:
    path = _file(tmp_path)
    assert _save(path, 0, name="book: a table", fixture_names=["member"]).notes == []
    assert _save(path, 1, fixture_names=[]).notes == []
    text = path.read_text(encoding="utf-8")
    expected = TEXT.replace("  - test_case: book\n", "  - test_case: 'book: a table'\n")
    expected = expected.replace(
        '    steps:\n      - user: "book',
        '    fixtures:\n      - member\n    steps:\n      - user: "book',
    )
    expected = expected.replace(
        "    fixtures:\n      - member\n    steps:\n      - user: 'hello'",
        "    steps:\n      - user: 'hello'",
    )
    assert text == expected
    cases = e2e_cases.read(path).test_cases
    assert [(c.name, c.fixture_names) for c in cases] == [
        ("book: a table", ["member"]),
        ("greet", []),
    ]


def test_a_file_changed_on_disk_is_not_overwritten(tmp_path: Path) -> None:
    path = _file(tmp_path)
    data = e2e_cases.read(path)
    path.write_text(TEXT + "# someone else's edit\n", encoding="utf-8")
    with pytest.raises(ConflictError, match="changed on disk"):
        e2e_splice.save_test_case(path, data.digest, 0, replace(data.test_cases[0], name="x"))
    assert path.read_text(encoding="utf-8").endswith("# someone else's edit\n")


def test_a_flow_style_file_is_rewritten_whole_and_says_so(tmp_path: Path) -> None:
    path = _file(tmp_path, '# gone\ntest_cases: [{test_case: a, steps: [{user: "hi"}]}]\n')
    result = _save(path, 0, name="b")
    assert result.notes and "comments and layout not kept" in result.notes[0]
    assert e2e_cases.read(path).test_cases[0].name == "b"
    assert "# gone" not in path.read_text(encoding="utf-8")


def test_a_bom_and_crlf_line_breaks_stay(tmp_path: Path) -> None:
    path = tmp_path / "shop.e2e.yml"
    path.write_bytes(b"\xef\xbb\xbf" + TEXT.replace("\n", "\r\n").encode("utf-8"))
    steps = list(e2e_cases.read(path).test_cases[1].steps)
    steps.append(E2EStep(StepKind.UTTER, text="utter_goodbye"))
    assert _save(path, 1, steps=steps).notes == []
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf# Booking")
    assert b"\n" not in raw.replace(b"\r\n", b"")
    assert raw.endswith(b"      - bot: Hey!\r\n      - utter: utter_goodbye\r\n")


def test_a_new_slot_list_follows_the_files_indentation(tmp_path: Path) -> None:
    indentless = TEXT.replace("          - cuisine: italian", "        - cuisine: italian")
    path = _file(tmp_path, indentless)
    steps = list(e2e_cases.read(path).test_cases[1].steps)
    steps.append(E2EStep(StepKind.SLOT_WAS_NOT_SET, slot="cuisine"))
    assert _save(path, 1, steps=steps).notes == []
    assert path.read_text(encoding="utf-8").endswith(
        "      - bot: Hey!\n      - slot_was_not_set:\n        - cuisine\n"
    )


@pytest.mark.parametrize(
    ("kind", "typed", "written"),
    [
        ("user", "book a table", {"user": "book a table"}),
        ("bot", "Booked: see you", {"bot": "Booked: see you"}),
        ("utter", "utter_greet", {"utter": "utter_greet"}),
        ("slot_was_set", "people", {"slot_was_set": "people"}),
        ("slot_was_set", "people: 2", {"slot_was_set": {"people": 2}}),
        ("slot_was_set", "logged_in: true", {"slot_was_set": {"logged_in": True}}),
        ("slot_was_set", "cuisine: '2'", {"slot_was_set": {"cuisine": "2"}}),
        ("slot_was_set", "tags: [a, b]", {"slot_was_set": {"tags": ["a", "b"]}}),
        ("slot_was_not_set", "cuisine", {"slot_was_not_set": "cuisine"}),
        ("slot_was_not_set", "cuisine: thai", {"slot_was_not_set": {"cuisine": "thai"}}),
    ],
)
def test_every_step_kind_from_the_editors_fields_and_back(
    tmp_path: Path, kind: str, typed: str, written: dict[str, object]
) -> None:
    from nlu_tui.ui.screens.e2e_case_editor import step_from, step_value

    step = step_from(kind, typed)
    assert step.as_dict() == written
    assert step_from(kind, step_value(step)).as_dict() == written
    path = _file(tmp_path)
    steps = [*e2e_cases.read(path).test_cases[1].steps, step]
    assert _save(path, 1, steps=steps).notes == []
    assert e2e_cases.read(path).test_cases[1].steps[-1].as_dict() == written
