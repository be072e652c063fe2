"""Workbench state after issue 10's items 1-3: the run dialog opens with no engine configured,
what it shows is what runs, and a suite is told apart by its file (not its content)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runner_loopback import LoopbackNlu, write_suite
from textual.widgets import Input, OptionList, Select, Static
from ui_runs_support import open_runs_tab, screen_text, settle, wait_for
from ui_support import SIZE, cases_view, new_app

from nlu_tui.engines.choices import StartChoice, load_last_choice, save_last_choice
from nlu_tui.model import RunStatus
from nlu_tui.runsessions import sessions, store_for
from nlu_tui.ui.screens.dialogs import TrainingFilePicker
from nlu_tui.ui.screens.run_start import OTHER, StartRunDialog
from nlu_tui.ui.widgets.runs_pane import RunsPane

REPO = Path(__file__).resolve().parent.parent
TRAINING = REPO / "sample_suites" / "banking_bot.nlu.yml"


def profile(root: Path, url: str) -> None:
    (root / "engines.yaml").write_text(
        f"engines:\n  loop:\n    type: rasa\n    url: {url}\n", encoding="utf-8"
    )


# --- item 1: no engine configured -------------------------------------------------------------


async def test_start_dialog_opens_without_any_engine_and_offers_the_choices(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    write_suite(root / "fresh.suite.yaml", 4)  # no engines.yaml, no *.nlu.yml beside it
    (root / "train").mkdir()
    (root / "train" / "bank.yml").write_text(TRAINING.read_text(encoding="utf-8"), "utf-8")
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_runs_tab(pilot)
        await pilot.press("r")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, StartRunDialog), "the dialog must open, not crash"
        dialog = app.screen
        text = screen_text(app)
        assert "No engine is configured" in text
        engine = dialog.query_one("#start-engine", Select)
        assert engine.value == Select.NULL
        # Start with nothing picked explains instead of running
        await pilot.press("ctrl+s")
        await pilot.pause()
        await wait_for(pilot, lambda: app.screen is dialog and "Pick an engine" in screen_text(app))
        assert app.screen is dialog and "Pick an engine" in screen_text(app)
        # Enter on the empty Engine select opens its list; "Other spec…" reveals the field
        assert not dialog.query_one("#start-spec-row").display
        await pilot.press("enter")
        await pilot.pause()
        await wait_for(pilot, lambda: engine.expanded)
        assert engine.expanded
        await pilot.press("down", "enter")  # past the blank prompt: "Other spec…"
        await wait_for(
            pilot, lambda: engine.value == OTHER and dialog.query_one("#start-spec-row").display
        )
        assert engine.value == OTHER and dialog.query_one("#start-spec-row").display
        assert dialog.query_one("#start-spec", Input).has_focus
        engine.value = Select.NULL
        await pilot.pause()

        # "Create a profile…" writes a commented entry and says where
        engine.value = "\0create"
        await pilot.pause()
        written = root / "engines.yaml"
        assert written.is_file() and "#   my-rasa:" in written.read_text(encoding="utf-8")
        assert app.screen is dialog and "engines.yaml" in screen_text(app)
        assert engine.value == Select.NULL  # the visible choice did not become "Create…"

        # "Training file…" opens a picker; the picked file's embedded engine is selected
        engine.value = "\0pick"
        await pilot.pause()
        assert isinstance(app.screen, TrainingFilePicker)
        app.screen.dismiss(root / "train" / "bank.yml")
        await pilot.pause()
        assert app.screen is dialog
        spec = f"embedded:{(root / 'train' / 'bank.yml').resolve()}"
        assert engine.value == spec
        results: list[Any] = []
        dialog.dismiss = results.append  # type: ignore[method-assign,assignment]
        dialog.action_start()
        assert results == [StartChoice(spec, "development", "")]


async def test_palette_run_start_without_engine_opens_the_dialog(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    write_suite(root / "fresh.suite.yaml", 4)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_runs_tab(pilot)
        start = next(c for c in pane.palette_commands() if c.name == "run: Start")
        start.callback()
        await pilot.pause()
        assert isinstance(app.screen, StartRunDialog)
        await pilot.press("escape")
        await pilot.pause()
        await wait_for(pilot, lambda: not isinstance(app.screen, StartRunDialog))
        assert not isinstance(app.screen, StartRunDialog)
        assert app.is_running


# --- item 3: what is shown is what runs -------------------------------------------------------


async def test_other_spec_is_an_explicit_choice_and_only_successful_specs_are_remembered(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    write_suite(root / "a.suite.yaml", 4)
    write_suite(root / "b.suite.yaml", 6)
    key_a = str((root / "a.suite.yaml").resolve())
    # a spec used on another suite (even a failed one) is not offered for this one
    save_last_choice("/elsewhere/x.suite.yaml", StartChoice("rasa:http://127.0.0.1:9", "published"))
    with LoopbackNlu() as server:
        profile(root, server.url)
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            await open_runs_tab(pilot)
            await pilot.press("r")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            dialog = app.screen
            assert isinstance(dialog, StartRunDialog)
            assert dialog.query_one("#start-engine", Select).value == "loop"
            assert not dialog.query_one("#start-spec-row").display  # no hidden override
            assert dialog.query_one("#start-spec", Input).value == ""
            assert dialog.query_one("#start-stage", Select).value == "development"

            # "Other spec…" reveals the field; the typed spec is what runs (a bad one fails)
            dialog.query_one("#start-engine", Select).value = OTHER
            await pilot.pause()
            assert dialog.query_one("#start-spec-row").display
            await pilot.press(*"rasa:http://127.0.0.1:1")
            await pilot.press("ctrl+s")
            # the server does not answer: said in the dialog, which keeps what was typed
            # (issue 23); a second Start runs anyway
            error = dialog.query_one("#start-error", Static)
            await wait_for(pilot, lambda: "not reachable" in str(error.render()), 30)
            assert app.screen is dialog and not sessions(app)
            assert dialog.query_one("#start-spec", Input).value == "rasa:http://127.0.0.1:1"
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: any(s.finished for s in sessions(app).values()), 60)
            await settle(pilot)
            failed = next(iter(sessions(app).values()))
            assert failed.status is RunStatus.FAILED
            assert failed.engine_name == "rasa:http://127.0.0.1:1"
            assert load_last_choice(key_a) is None  # a failed spec is not remembered

            # back to the profile: it runs, and is remembered for this suite only
            app.screen.query_one("#main-tabs").active = "tab-runs"
            await pilot.pause()
            app.screen.query_one(RunsPane).query_one("#runs-table").focus()
            # F5 starts a run; `r` on a listed run reruns its failed cases (issue 25)
            await pilot.press("f5")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            dialog = app.screen
            assert isinstance(dialog, StartRunDialog)
            assert dialog.query_one("#start-engine", Select).value == "loop"
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: sum(s.finished for s in sessions(app).values()) == 2)
            await settle(pilot)
            ok = next(s for s in sessions(app).values() if s is not failed)
            assert ok.status is RunStatus.SUCCESS and ok.engine_name == "loop"
            assert load_last_choice(key_a) == StartChoice("loop", "development")
            assert load_last_choice(str((root / "b.suite.yaml").resolve())) is None


# --- item 2: identity is the file -------------------------------------------------------------


async def test_two_identical_suites_in_two_files_run_loads_and_stores_the_right_file(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    first = write_suite(root / "a.suite.yaml", 8)
    second = root / "b.suite.yaml"
    second.write_bytes(first.read_bytes())  # the same content, another file
    with LoopbackNlu() as server:
        profile(root, server.url)
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.suite is not None and app.suite.path == first.resolve()
            app.screen.query_one("#suite-list", OptionList).highlighted = 1
            await settle(pilot)
            await wait_for(pilot, lambda: app.suite is not None and app.suite.path == second)
            pane = await open_runs_tab(pilot)
            assert pane.suite is not None and pane.suite.path == second
            await pilot.press("r")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            assert isinstance(app.screen, StartRunDialog)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: any(s.finished for s in sessions(app).values()))
            await settle(pilot)
            session = next(iter(sessions(app).values()))
            record = store_for(app).get_run(session.run_id)
            assert record.status is RunStatus.SUCCESS
            assert record.suite_path == str(second.resolve())

            # after the run the Cases tab is loaded (not "Loading … 0%") and `e` edits
            view = cases_view(app)
            await wait_for(pilot, lambda: view.loading_path is None, 20)
            assert view.suite is app.suite and view.suite.path == second
            app.screen.query_one("#main-tabs").active = "tab-results"
            await pilot.pause()
            results = app.screen.query_one("ResultsPane")
            await wait_for(pilot, lambda: results.data is not None)
            results.table.focus_table()
            await pilot.pause()
            await pilot.press("e")
            await pilot.pause()
            assert "still loading" not in screen_text(app)
            from nlu_tui.ui.screens.case_editor import CaseEditorScreen

            await wait_for(pilot, lambda: isinstance(app.screen, CaseEditorScreen), 10)


def test_profile_template_is_commented_and_keeps_existing_profiles(tmp_path: Path) -> None:
    import yaml

    from nlu_tui.engines.choices import write_profile_template
    from nlu_tui.engines.profiles import read_profiles

    fresh = write_profile_template(tmp_path / "new")
    assert read_profiles(fresh) == {}  # all comments: nothing half-configured
    uncommented = "\n".join(
        line[2:] if line.startswith("# ") and not line.startswith("# nlu-tui") else line
        for line in fresh.read_text(encoding="utf-8").splitlines()
        if not line.startswith(("# nlu-tui", "# Secrets", "# the workspace"))
    )
    assert set(yaml.safe_load(uncommented)["engines"]) == {"my-rasa", "my-embedded"}

    existing = tmp_path / "old"
    existing.mkdir()
    (existing / "engines.yaml").write_text(
        "engines:\n  a:\n    type: rasa\n    url: http://127.0.0.1:5005\n", encoding="utf-8"
    )
    target = write_profile_template(existing)
    assert list(read_profiles(target)) == ["a"]
    assert target.read_text(encoding="utf-8").count("engines:") == 1
    write_profile_template(existing)  # a second time adds nothing
    assert target.read_text(encoding="utf-8").count("my-rasa") == 1


async def test_training_picker_takes_a_typed_path_outside_its_trees(tmp_path: Path) -> None:
    """A training file anywhere (e.g. a repo's sample_suites/) can be typed; a wrong path says
    so and keeps the picker open."""
    root = tmp_path / "ws"
    root.mkdir()
    elsewhere = tmp_path / "elsewhere" / "bank.nlu.yml"
    elsewhere.parent.mkdir()
    elsewhere.write_text(TRAINING.read_text(encoding="utf-8"), "utf-8")
    write_suite(root / "fresh.suite.yaml", 4)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await open_runs_tab(pilot)
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
        await pilot.pause()  # the screen pushed: composed and mounted
        dialog = app.screen
        engine = dialog.query_one("#start-engine", Select)
        engine.value = "\0pick"
        await wait_for(pilot, lambda: isinstance(app.screen, TrainingFilePicker))
        await wait_for(pilot, lambda: app.screen.query_one("#picker-path", Input))
        field = app.screen.query_one("#picker-path", Input)
        await wait_for(pilot, lambda: field.has_focus)
        field.value = str(tmp_path / "nope.yml")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "No such file" in screen_text(app))
        assert isinstance(app.screen, TrainingFilePicker)
        field.value = str(elsewhere)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is dialog)
        assert engine.value == f"embedded:{elsewhere.resolve()}"
