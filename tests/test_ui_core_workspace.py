"""Core (no Textual) parts of the workbench: workspace files, themes, the case form, filters."""

from __future__ import annotations

from pathlib import Path

import pytest
from ui_support import SAMPLE

from nlu_tui import paths, themes
from nlu_tui.case_form import (
    CaseFilter,
    CaseForm,
    EntityRow,
    cases_from_form,
    form_from_case,
    form_problems,
)
from nlu_tui.errors import InputError
from nlu_tui.formats.native import load_suite
from nlu_tui.workspace import Workspace, developer_suite, open_workspace


def test_default_workspace_is_seeded_once() -> None:
    ws = open_workspace(None)
    assert ws.root == paths.default_workspace().resolve()
    names = [p.name for p in ws.suite_paths()]
    assert "banking_bot.suite.yaml" in names
    assert ws.training_paths()  # the sample training data comes along
    (ws.root / "banking_bot.suite.yaml").unlink()
    assert open_workspace(None).suite_paths() == []  # not seeded again


def test_workspace_file_operations(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    path = ws.create("Smoke tests", "quick ones")
    assert path.name == "smoke-tests.suite.yaml"
    with pytest.raises(InputError):
        ws.create("  ")
    renamed = ws.rename(path, "Smoke")
    assert renamed.name == "smoke.suite.yaml" and not path.exists()
    copy = ws.duplicate(renamed)
    assert load_suite(copy).name == "Smoke (copy)"
    infos = ws.list_suites()
    assert sorted(i.name for i in infos) == ["Smoke", "Smoke (copy)"]
    trashed = ws.delete(copy)
    assert not copy.exists() and trashed.exists()
    restored = ws.restore(trashed)
    assert restored == copy and copy.exists()


def test_broken_suite_is_listed_with_its_error(tmp_path: Path) -> None:
    (tmp_path / "bad.suite.yaml").write_text("nlu_tui_suite: 1\ncases: [1, 2\n", encoding="utf-8")
    (info,) = Workspace(tmp_path).list_suites()
    assert info.error and info.case_count == 0


def test_developer_suite_is_read_only_training_examples() -> None:
    training = SAMPLE.parent / "banking_bot.nlu.yml"
    suite = developer_suite(training, "embedded")
    assert suite.read_only and suite.cases
    assert all(len(c.intents) == 1 for c in suite.cases)
    with pytest.raises(InputError):
        Workspace(SAMPLE.parent).save(suite)


def test_themes_load_bundled_and_report_broken(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("name: x\nprimary: not a colour!\n", encoding="utf-8")
    (tmp_path / "mine.yaml").write_text("name: mine\nprimary: '#112233'\n", encoding="utf-8")
    loaded, failed = themes.load_themes([paths.bundled_themes_dir(), tmp_path])
    names = {t.name for t in loaded}
    assert {"nlu-dark", "nlu-light", "mine"} <= names
    assert len(failed) == 1 and "broken.yaml" in failed[0]
    dark = next(t for t in loaded if t.name == "nlu-dark")
    assert {"pass-color", "fail-color", "warn-color"} <= set(dark.variables)
    themes.remember_theme("nlu-light")
    assert themes.remembered_theme() == "nlu-light"


def test_case_form_round_trip_and_rules() -> None:
    suite = load_suite(SAMPLE)
    case = next(c for c in suite.cases if c.entity_order)
    form = form_from_case(case)
    (again,) = cases_from_form(form, case)
    assert again == case
    form = CaseForm(
        utterances="one\n\n two ",
        intents=["a", "b", ""],
        entities=[EntityRow("x", "1")],
        order="x",
    )
    assert any("exactly one intent" in p for p in form_problems(form))
    form.order = ""
    made = cases_from_form(form)
    assert [c.utterance for c in made] == ["one", "two"]
    assert made[0].id != made[1].id
    made[0].entities[0].value = "changed"
    assert made[1].entities[0].value == "1"


def test_filter_rules_match_arrow_filter() -> None:
    pytest.importorskip("pyarrow")
    from nlu_tui.views.cases import build_arrow, view_table

    suite = load_suite(SAMPLE)
    problems = {suite.cases[2].id: 1}
    full = build_arrow(suite.cases, set(), problems)
    for query in (
        "dollars",
        "intent:transfer tag:smoke",
        "has:entities",
        "has:problems",
        "no:intent",
        "has:order entity:payee",
        "has:parent",
    ):
        spec = CaseFilter.parse(query)
        expected = [
            i + 1 for i, c in enumerate(suite.cases) if spec.matches(c, problems.get(c.id, 0))
        ]
        shown = view_table(full, query, None).column("n").to_pylist()
        assert shown == expected, query


def test_training_file_lists_as_read_only_developer_suite(tmp_path: Path) -> None:
    import shutil

    shutil.copy(SAMPLE, tmp_path / SAMPLE.name)
    shutil.copy(SAMPLE.parent / "banking_bot.nlu.yml", tmp_path / "banking_bot.nlu.yml")
    ws = Workspace(tmp_path)
    infos = ws.list_suites()
    dev = [i for i in infos if i.read_only]
    assert len(dev) == 1 and dev[0].name.startswith("Developer defined utterances")
    assert dev[0].case_count > 0
    suite = ws.load(dev[0].path)
    assert suite.read_only
