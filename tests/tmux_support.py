"""Driving the real app in a tmux session, shared by the end-to-end tests."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_suites"
NLU_TUI = Path(sys.executable).parent / "nlu-tui"

needs_tmux = [
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
    """Poll the screen until ``pattern`` (a regular expression) appears on it."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture(session)
        found = re.search(pattern, screen)
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"{pattern!r} never appeared; the screen was:\n{screen}")


def palette_command(session: str, typed: str, command: str, timeout: float = 60.0) -> None:
    """Open the command palette, type ``typed`` and press Enter once ``command`` heads the list.

    The palette searches as keys arrive and shows each search's hits when they come in: right after
    typing, the list on screen can still be a shorter prefix's, headed by another command (the
    typed text itself also matches a pattern looked for anywhere on the screen). Enter runs the
    highlighted command, the list's first, so wait until that is the one wanted.
    """
    tmux("send-keys", "-t", session, "C-p")
    wait_for_screen(session, r"Search for commands", timeout)
    tmux("send-keys", "-t", session, "-l", typed)
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture(session)
        if _first_palette_hit(screen, typed) == command:
            tmux("send-keys", "-t", session, "Enter")
            return
        time.sleep(0.2)
    raise AssertionError(f"{command!r} never headed the palette for {typed!r}:\n{screen}")


def _first_palette_hit(screen: str, typed: str) -> str | None:
    """The first command listed under the palette's input line, when that line shows ``typed``."""
    lines = screen.splitlines()
    for index, line in enumerate(lines):
        if "\N{RIGHT-POINTING MAGNIFYING GLASS}" in line:
            if line.split("\N{RIGHT-POINTING MAGNIFYING GLASS}", 1)[1].strip() != typed:
                return None
            for below in lines[index + 1 :]:
                if below.strip():
                    return below.strip()
            return None
    return None


@dataclass
class TmuxApp:
    session: str
    workspace: Path
    env: dict[str, str]
    """The data and config directories the app uses (pass them to CLI checks afterwards)."""


@contextmanager
def app_in_tmux(
    tmp_path: Path,
    files: tuple[Path, ...],
    *,
    width: int,
    height: int,
    extra_env: dict[str, str] | None = None,
) -> Iterator[TmuxApp]:
    """``nlu-tui WORKSPACE`` in a new tmux session, on a workspace holding copies of ``files``,
    with its own data and config directories; the session is killed on the way out."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for file in files:
        shutil.copy(file, workspace / file.name)
    env = {
        "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
        "TERM": "xterm-256color",
        # A tmux server keeps the environment of whoever started it: pass the caller's import path
        # on, so that a checkout tested with PYTHONPATH runs its own code in the session too.
        **({"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}),
        **(extra_env or {}),
    }
    exports = " ".join(f"{k}={v}" for k, v in env.items())
    if "PYTHONPATH" not in env:  # nor the one of whoever started the tmux server
        exports = f"-u PYTHONPATH {exports}"
    session = f"nlu-tui-e2e-{uuid.uuid4().hex[:8]}"
    tmux(
        "new-session",
        "-d",
        "-s",
        session,
        "-x",
        str(width),
        "-y",
        str(height),
        f"cd {REPO} && env {exports} {NLU_TUI} {workspace}",
    )
    try:
        yield TmuxApp(session, workspace, env)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, timeout=30)
