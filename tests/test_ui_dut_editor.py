"""The DUT step editor: edit a command, add one with completion from the flows and slots,
refuse a command the reader would refuse, save the file."""

from __future__ import annotations

from pathlib import Path

import yaml
from ui_runs_support import wait_for
from ui_support import make_workspace, new_app, settle

from nlu_tui.ui.screens.dut_editor import DutEditorScreen

SAMPLES = Path(__file__).parents[1] / "sample_suites"


async def test_edit_add_and_save(tmp_path: Path) -> None:
    from textual.widgets import Input, Static

    root = make_workspace(tmp_path, SAMPLES / "contacts.dut.yml", SAMPLES / "contacts.flows.yml")
    app = new_app(root)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        app.screen.action_dut_editor()  # type: ignore[attr-defined]
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, DutEditorScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        screen = app.screen
        assert isinstance(screen, DutEditorScreen)
        await wait_for(pilot, lambda: screen.query_one("#cmd-0-0", Input))
        first = screen.query_one("#cmd-0-0", Input)
        assert first.value == "start flow add_contact"
        # add a command to "it's @barts" (step 2), completing "set slot na" -> "set slot name "
        screen.query_one("#step-2", Input).focus()
        await pilot.press("ctrl+n")
        await pilot.pause()
        await wait_for(pilot, lambda: app.focused is screen.query_one("#cmd-2-1", Input))
        added = screen.query_one("#cmd-2-1", Input)
        assert app.focused is added
        await pilot.press(*"set slot na")
        await pilot.pause()
        # the Input's suggester answers in a worker: Right accepts only what has arrived
        await wait_for(pilot, lambda: added._suggestion.startswith("set slot name"))
        await pilot.press("right")  # accept the suggestion
        await pilot.press(*"Bart")
        await wait_for(pilot, lambda: added.value == "set slot name Bart")
        assert added.value == "set slot name Bart"
        # a command the reader refuses is not saved
        first = screen.query_one("#cmd-0-0", Input)  # the rows were rebuilt
        first.value = "start flow no_such_flow"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()

        def status() -> str:
            return str(screen.query_one("#dut-editor-status", Static).render())

        await wait_for(pilot, lambda: "not saved" in status())
        assert "not saved" in status() and "no_such_flow" in status()
        first.value = "start flow add_contact"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        await wait_for(pilot, lambda: status().startswith("saved "))
    data = yaml.safe_load((root / "contacts.dut.yml").read_text(encoding="utf-8"))
    steps = data["test_cases"][0]["steps"]
    assert steps[2]["commands"] == ["set slot handle @barts", "set slot name Bart"]
    assert steps[0]["commands"] == ["start flow add_contact"]


async def test_generate_dut_cases_for_a_flow_from_the_editor(
    tmp_path: Path, monkeypatch: object
) -> None:
    """Ctrl+G in the DUT editor: pick a flow, generate, reject one, add; the file keeps its
    text and gains the accepted test cases, the editor lists them."""
    import json

    from textual.widgets import Checkbox, OptionList, Select, Static

    from nlu_tui.formats.e2e_cases import read
    from nlu_tui.ui.screens.generate_dialog import GenerateScreen
    from tests.llm_peer import LLMPeer, Reply

    root = make_workspace(
        tmp_path,
        SAMPLES / "contacts.dut.yml",
        SAMPLES / "contacts.flows.yml",
        SAMPLES / "contacts.nlu.yml",
    )
    before = (root / "contacts.dut.yml").read_text(encoding="utf-8")
    proposals = [
        {
            "utterance": "pls remove @old_pal from contacts",
            "slots": {"handle": "@old_pal"},
            "answers": [{"slot": "handle", "text": "@x", "value": "@x"}],  # already set: flag
        },
        {"utterance": "delete @maria from my contacts", "slots": {"handle": "@maria"}},
        {
            "utterance": "get rid of a contact",
            "slots": {},
            "answers": [{"slot": "handle", "text": "it's @ann", "value": "@ann"}],
        },
    ]
    peer = LLMPeer([Reply(json.dumps(proposals))])
    with peer.serving() as url:
        setenv = monkeypatch.setenv  # type: ignore[attr-defined]
        setenv("NLU_TUI_LLM_BASE_URL", url)
        setenv("NLU_TUI_LLM_MODEL", "loop-model")
        app = new_app(root)
        async with app.run_test(size=(120, 35)) as pilot:
            await settle(pilot)
            app.screen.action_dut_editor()  # type: ignore[attr-defined]
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, DutEditorScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            editor = app.screen
            assert isinstance(editor, DutEditorScreen)
            await pilot.press("ctrl+g")
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, GenerateScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            dialog = app.screen
            assert isinstance(dialog, GenerateScreen)
            title = str(dialog.query_one(".dialog-title", Static).render())
            assert title == "Generate DUT test cases for a flow with an LLM"
            dialog.query_one("#gen-intent", Select).value = "remove_contact"
            dialog.query_one("#gen-conversation", Checkbox).value = True
            await pilot.press("g")
            await settle(pilot)
            listing = dialog.query_one("#gen-list", OptionList)
            assert listing.option_count == 3
            listing.focus()
            listing.highlighted = 1  # the DUT file's own message
            await pilot.pause()
            notes = str(dialog.query_one("#gen-notes", Static).render())
            assert "duplicate of user message 'delete @maria from my contacts'" in notes
            assert "commands: start flow remove_contact; set slot handle @maria" in notes
            await pilot.press("space")  # reject it
            listing.highlighted = 2
            await pilot.pause()
            notes = str(dialog.query_one("#gen-notes", Static).render())
            assert "bot asks handle → user: it's @ann   [set slot handle @ann]" in notes
            status = str(dialog.query_one("#gen-status", Static).render())
            assert "training data: contacts.nlu.yml" in status and "3 shown, 2 to add" in status
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert app.screen is editor
            assert "Added 2 generated test cases" in str(
                editor.query_one("#dut-editor-status", Static).render()
            )
            assert [c.name for c in editor.data.test_cases][-2:] == [
                "generated remove_contact 1",
                "generated remove_contact 2",
            ]
            assert editor.query_one("#dut-editor-case", Select).value == "0"  # stays put
    prompt = peer.requests[0].messages[1]["content"]
    assert "start the flow 'remove_contact'" in prompt and "- delete @maria from my contacts" in (
        prompt
    )
    after = (root / "contacts.dut.yml").read_text(encoding="utf-8")
    assert after.startswith(before.rstrip("\n"))
    added = read(root / "contacts.dut.yml").test_cases[-2:]
    assert [(c.name, c.steps[0].text, c.steps[0].commands) for c in added] == [
        ("generated remove_contact 1", "pls remove @old_pal from contacts",
         ["start flow remove_contact", "set slot handle @old_pal"]),
        ("generated remove_contact 2", "get rid of a contact", ["start flow remove_contact"]),
    ]  # fmt: skip
    assert [(s.kind.value, s.text, s.commands) for s in added[1].steps[1:]] == [
        ("utter", "utter_ask_handle", None),
        ("user", "it's @ann", ["set slot handle @ann"]),
    ]
    assert '"answers": [{"slot": "<slot>"' in prompt  # the box was ticked
