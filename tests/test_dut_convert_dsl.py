"""``test du convert-dsl`` with seed 003's mapping example."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from nlu_tui.dut.convert_dsl import convert_dsl, load_mappings, transform_command
from nlu_tui.errors import InputError

SEED_MAPPINGS = Path(__file__).parent / "fixtures" / "dut" / "seed_dsl_mappings.yml"


def test_seed_mappings_transform_commands() -> None:
    mappings = load_mappings(SEED_MAPPINGS)
    assert transform_command("StartFlow(add_contact)", mappings) == "start add_contact"
    assert transform_command("SetSlot(handle, @barts)", mappings) == "set handle @barts"
    # runs of separators become one output separator, stripped at both ends
    assert transform_command("Clarify(a, b,c)", mappings) == "clarify a b c"
    assert transform_command("Clarify( a )", mappings) == "clarify a"
    # no mapping matches: kept; re.match anchors the start only
    assert transform_command("CancelFlow()", mappings) == "CancelFlow()"
    assert transform_command("x Clarify(a)", mappings) == "x Clarify(a)"


def test_convert_dsl_keeps_the_folder_structure(tmp_path: Path) -> None:
    src = tmp_path / "dut"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "a.yml").write_text(
        "test_cases:\n"
        "  - test_case: t\n"
        "    steps:\n"
        "      - user: hi\n"
        "        commands:\n"
        "          - StartFlow(add_contact)\n"
        "          - CancelFlow()\n"
        "      - utter: utter_greet\n",
        encoding="utf-8",
    )
    (src / "conftest.yml").write_text("fixtures: []\n", encoding="utf-8")
    out = tmp_path / "out"
    done = convert_dsl(src, out, SEED_MAPPINGS)
    assert sorted(d.target.relative_to(out).as_posix() for d in done) == [
        "conftest.yml",
        "sub/a.yml",
    ]
    data = yaml.safe_load((out / "sub" / "a.yml").read_text(encoding="utf-8"))
    assert data["test_cases"][0]["steps"] == [
        {"user": "hi", "commands": ["start add_contact", "CancelFlow()"]},
        {"utter": "utter_greet"},
    ]
    assert [d.changed for d in done if d.source.name == "a.yml"] == [1]


def test_bad_mapping_names_file_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "m.yml"
    bad.write_text("mappings:\n  - from_dsl_regex: '('\n    to_dsl_pattern: x\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_mappings(bad)
    assert (info.value.line, info.value.field) == (2, "from_dsl_regex")
    src = tmp_path / "in"
    src.mkdir()
    with pytest.raises(InputError):
        convert_dsl(src, tmp_path / "out", bad)
    assert not (tmp_path / "out").exists()
