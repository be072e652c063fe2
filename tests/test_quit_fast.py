"""Quitting the workbench leaves the process at once (issue 23 item 5: quit within 300 ms):
after the app has exited, ``nlu-tui`` skips the interpreter's teardown (most of a second under
load) but still runs the ``atexit`` handlers and flushes its output, keeps the exit code, and
waits as usual when another non-daemon thread is still working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SCRIPT = """
import atexit, sys, threading, time
import nlu_tui.cli.tui as tui
atexit.register(lambda: print("atexit ran", flush=True))
if sys.argv[1] == "busy":
    threading.Thread(target=time.sleep, args=(0.3,)).start()
print("buffered", end="")
tui.leave_now(3)
print(" and still here")
sys.exit(5)
"""


def _run(mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, mode],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )


def test_leave_now_exits_with_the_code_after_atexit_and_flushes() -> None:
    done = _run("idle")
    assert done.returncode == 3, done.stderr
    assert done.stdout == "bufferedatexit ran\n"


def test_leave_now_keeps_the_normal_exit_while_a_thread_works() -> None:
    done = _run("busy")
    assert done.returncode == 5, done.stderr
    assert done.stdout == "buffered and still here\natexit ran\n"
