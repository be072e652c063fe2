"""End to end in a real terminal: open the workbench in tmux, run the sample suite from the
command palette, wait for the finished state on screen, read the F1 off the screen and compare
it with ``nlu-tui show RUN --format json``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_suites"
NLU_TUI = Path(sys.executable).parent / "nlu-tui"

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def tmux(*args: str) -> str:
    proc = subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def capture(session: str) -> str:
    return tmux("capture-pane", "-p", "-t", session)


def wait_for_screen(session: str, pattern: str, timeout: float = 60.0) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture(session)
        found = re.search(pattern, screen)
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"{pattern!r} never appeared; the screen was:\n{screen}")


def test_run_sample_suite_in_tmux(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for name in ("banking_bot.suite.yaml", "banking_bot.nlu.yml"):
        shutil.copy(SAMPLES / name, workspace / name)
    env = {
        "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
        "TERM": "xterm-256color",
    }
    exports = " ".join(f"{k}={v}" for k, v in env.items())
    session = f"nlu-tui-e2e-{uuid.uuid4().hex[:8]}"
    tmux(
        "new-session",
        "-d",
        "-s",
        session,
        "-x",
        "140",
        "-y",
        "40",
        f"env {exports} {NLU_TUI} {workspace}",
    )
    try:
        wait_for_screen(session, r"54 cases")
        time.sleep(0.5)
        tmux("send-keys", "-t", session, "C-p")
        wait_for_screen(session, r"Search for commands")
        tmux("send-keys", "-t", session, "-l", "run: Start")
        wait_for_screen(session, r"run: Start")
        tmux("send-keys", "-t", session, "Enter")
        wait_for_screen(session, r"Run Banking bot")
        wait_for_screen(session, r"embedded \(banking_bot\.nlu\.yml\)")
        tmux("send-keys", "-t", session, "C-s")
        wait_for_screen(session, r"✔ success", timeout=120)
        screen = capture(session)
        f1 = re.search(r"F1 (\d\.\d{4})", screen)
        run = re.search(r"run ([0-9a-f]{12})", screen)
        assert f1 is not None and run is not None, screen
        tmux("send-keys", "-t", session, "C-q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, timeout=30)

    shown = subprocess.run(
        [str(NLU_TUI), "show", run.group(1), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert shown.returncode == 0, shown.stderr
    summary = json.loads(shown.stdout)["summary"]
    assert f"{summary['f1']:.4f}" == f1.group(1)
    assert summary["cases"] == 54
