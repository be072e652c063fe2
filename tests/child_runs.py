"""A command-line run in a child process, watched through its run store: the tests that stop
a run mid-way (SIGINT, SIGKILL) and resume it start one and wait until enough items are kept."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from nlu_tui.store import RunStore


def start_cli(*args: str) -> subprocess.Popen[str]:
    """``nlu-tui ARGS`` in a child, its output piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "nlu_tui", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_items(
    child: subprocess.Popen[str], store_path: Path, items: int, timeout: float = 60.0
) -> None:
    """Poll the store until its newest run has ``items`` items done; past ``timeout`` seconds,
    fail with what the child said."""
    deadline = time.monotonic() + timeout
    done = 0
    while time.monotonic() < deadline and done < items:
        time.sleep(0.05)
        if store_path.exists():
            runs = RunStore(store_path).list_runs()
            done = runs[0].done if runs else 0
    assert done >= items, child.stderr.read() if child.stderr else ""
