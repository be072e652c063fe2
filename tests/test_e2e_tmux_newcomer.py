"""Issue 23's newcomer path, in a real terminal: a copy of the sample workspace without its
suite, import the Kore.ai CSV, F5, "Other spec…" ``embedded:banking_bot.nlu.yml`` - relative,
found in the workspace although the shell is elsewhere - runs; a wrong spec shows its error in
the dialog, which stays open with what was typed; a second suite of the workspace offers the
engine that ran."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tmux_support import SAMPLES, app_in_tmux, capture, needs_tmux, tmux, wait_for_screen

pytestmark = needs_tmux
FILES = tuple(
    p for p in sorted(SAMPLES.iterdir()) if p.is_file() and not p.name.endswith(".suite.yaml")
)


def keys(session: str, *names: str) -> None:
    """Send keys one at a time: a burst can reach the app as one read."""
    for name in names:
        tmux("send-keys", "-t", session, name)
        time.sleep(0.3)


def typed(session: str, text: str) -> None:
    tmux("send-keys", "-t", session, "-l", text)
    time.sleep(0.3)


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
def test_newcomer_imports_kore_csv_and_runs_on_a_relative_embedded_spec(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    width, height = size
    with app_in_tmux(tmp_path, FILES, width=width, height=height) as app:
        session = app.session
        assert not (Path.cwd() / "banking_bot.nlu.yml").exists()  # only the workspace has it
        wait_for_screen(session, r"193 of 193 cases")  # a developer-utterances suite, built
        keys(session, "F2", "i")
        wait_for_screen(session, r"Import a file as a new suite")
        time.sleep(1.0)
        typed(session, "sample_suites/banking_bot.kore.csv")
        wait_for_screen(session, r"sample_suites/banking_bot\.kore\.csv")  # in the path field
        keys(session, "F5")
        wait_for_screen(session, r"54 cases, 20 intents")
        keys(session, "C-s")
        wait_for_screen(session, r"54 of 54 cases")

        # F5: no engine is configured for the imported suite; "Other spec…" and a wrong spec
        keys(session, "F5")
        wait_for_screen(session, r"Run banking_bot\.kore")
        time.sleep(1.0)  # keys typed while a dialog opens can be lost (issue 23, item 3)
        keys(session, "Enter")
        wait_for_screen(session, r"Other spec… \(type an --engine spec\)")  # the list is open
        keys(session, "Down", "Enter")
        wait_for_screen(session, r"Spec ")
        typed(session, "embedded:nope.nlu.yml")
        wait_for_screen(session, r"training data not found")
        keys(session, "C-s")
        wait_for_screen(session, r"Cannot run on embedded:nope\.nlu\.yml")
        screen = capture(session)
        assert "Run banking_bot.kore" in screen, screen  # the dialog is still open
        assert "embedded:nope.nlu.yml" in screen, screen  # with what was typed

        # corrected in place: the relative path is found in the workspace, and it runs
        keys(session, *["BSpace"] * len("nope.nlu.yml"))
        wait_for_screen(session, r"embedded:\s")  # the wrong name is gone
        typed(session, "banking_bot.nlu.yml")
        wait_for_screen(session, r"learns from banking_bot\.nlu\.yml")
        keys(session, "C-s")
        wait_for_screen(session, r"✔ success", timeout=180)
        wait_for_screen(session, r"F1 0\.9348")

        # a second suite of the workspace offers the engine that ran
        keys(session, "F2", "Down", "Down")  # contacts' developer utterances
        time.sleep(1.0)
        keys(session, "F5")
        wait_for_screen(session, r"Run Developer defined utterances \(contacts\)")
        time.sleep(1.0)
        keys(session, "Space")  # open the Engine list (Enter would start on its preselection)
        wait_for_screen(session, r"embedded \(banking_bot\.nlu\.yml\)\s+\(used in this work")
        keys(session, "Escape", "Escape")
        tmux("send-keys", "-t", session, "C-q")
