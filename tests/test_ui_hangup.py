"""The workbench ends when its terminal is gone, even when no SIGHUP tells it (``ui.hangup``):
a process outside the terminal's session (its own session here, as a script or ``nohup`` may
start it) kept Textual's input thread reading end-of-file at a full core, forever."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from tests.conftest import REPO, SAMPLES


def _read_until(fd: int, text: bytes, timeout: float = 60.0) -> bytes:
    seen = b""
    deadline = time.monotonic() + timeout
    while text not in seen:
        assert time.monotonic() < deadline, f"{text!r} never shown; got {seen[-400:]!r}"
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
    return seen


def test_the_workbench_ends_when_its_terminal_is_hung_up(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    shutil.copy(SAMPLES / "banking_bot.suite.yaml", workspace)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "TERM": "xterm-256color",
        "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "nlu_tui", str(workspace)],
        stdin=slave, stdout=slave, stderr=slave, env=env,
        start_new_session=True,  # not the terminal's session: closing it sends no SIGHUP
    )  # fmt: skip
    os.close(slave)
    try:
        _read_until(master, b"Banking bot")
        os.close(master)  # the terminal goes away
        master = -1
        deadline = time.monotonic() + 60
        while proc.poll() is None:
            assert time.monotonic() < deadline, "nlu-tui kept running on a hung-up terminal"
            time.sleep(0.1)
        assert proc.returncode == 129  # as a shell reports a program ended by SIGHUP
    finally:
        if master >= 0:
            os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
