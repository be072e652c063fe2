"""The conversation test readers that take a file or a folder (E2E test cases, test stories,
simulation scenarios) find their files, name them by one digest and refuse an empty or
non-mapping file alike, with their own words (nlu_tui/formats/yaml_files.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from nlu_tui.errors import InputError
from nlu_tui.formats import e2e_cases, rasa_stories, scenarios
from nlu_tui.model import digest_bytes

E2E = "test_cases:\n  - test_case: t{n}\n    steps:\n      - user: hi\n"
STORIES = "stories:\n  - story: s{n}\n    steps:\n      - user: hi\n        intent: greet\n"
SCENARIOS = "scenarios:\n  - name: s{n}\n    goal: say hi\n"


class Reader(NamedTuple):
    read: Callable[[Path], Any]
    text: str
    """A file of two test cases (``{n}`` numbers their names)."""
    empty: str
    not_mapping: str
    none: str
    """What each reader says of an empty file, a non-mapping one, a folder without any."""


READERS = {
    "e2e": Reader(
        e2e_cases.read_path,
        E2E,
        "empty file: no 'test_cases:' key",
        "an E2E test file is a mapping with a 'test_cases:' key",
        "no E2E test files (YAML with a 'test_cases:' key) found",
    ),
    "stories": Reader(
        rasa_stories.read_path,
        STORIES,
        "empty file: no 'stories:' key",
        "a test stories file is a mapping with a 'stories:' key",
        "no test stories (YAML with a 'stories:' key) found",
    ),
    "scenarios": Reader(
        scenarios.read_path,
        SCENARIOS,
        "empty file: no 'scenarios:' or 'scenario:' key",
        "a scenario file is a mapping",
        "no scenario files (YAML with 'scenario:' or 'scenarios:') found",
    ),
}


@pytest.mark.parametrize("kind", list(READERS))
def test_a_folder_gives_its_matching_yaml_files_sorted_under_one_digest(
    tmp_path: Path, kind: str
) -> None:
    reader = READERS[kind]
    (tmp_path / "sub").mkdir()
    b = tmp_path / "sub" / "b.yaml"
    a = tmp_path / "test_a.yml"
    b.write_text(reader.text.format(n=2), encoding="utf-8")
    a.write_text(reader.text.format(n=1), encoding="utf-8")
    (tmp_path / "other.yml").write_text("nlu:\n  - intent: x\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text(reader.text.format(n=3), encoding="utf-8")
    got = reader.read(tmp_path)
    assert [Path(p).name for p in got.paths] == ["b.yaml", "test_a.yml"]  # sorted by path
    joined = "\n".join([digest_bytes(b.read_bytes()), digest_bytes(a.read_bytes())])
    assert got.digest == digest_bytes(joined.encode())
    assert reader.read(a).digest == digest_bytes(a.read_bytes())  # one file: its own digest


@pytest.mark.parametrize("kind", list(READERS))
def test_an_empty_missing_or_non_mapping_file_is_one_error_naming_it(
    tmp_path: Path, kind: str
) -> None:
    reader = READERS[kind]

    def refusal(path: Path) -> tuple[str, Path | str | None, int | None]:
        with pytest.raises(InputError) as caught:
            reader.read(path)
        return caught.value.message, caught.value.path, caught.value.line

    blank = tmp_path / "blank.yml"
    blank.write_text("# nothing\n", encoding="utf-8")
    assert refusal(blank) == (reader.empty, blank, None)
    listed = tmp_path / "list.yml"
    listed.write_text("# a list\n\n- a\n- b\n", encoding="utf-8")
    assert refusal(listed) == (reader.not_mapping, listed, 3)  # the line of the list
    missing = tmp_path / "missing.yml"
    assert refusal(missing) == ("no such file or directory", missing, None)
    (tmp_path / "empty").mkdir()
    assert refusal(tmp_path / "empty") == (reader.none, tmp_path / "empty", None)
