"""The HTTP preload thread must not be a daemon (a daemon importing at exit can crash Python)."""

from __future__ import annotations

import subprocess
import sys


def test_preload_thread_is_joined_at_exit() -> None:
    from nlu_tui.runner import client

    preload = client._Preload()
    assert preload._thread.daemon is False
    preload.ssl_context()
    assert not preload._thread.is_alive()


def test_error_exit_while_preloading_is_clean() -> None:
    # Start the preload and exit at once with an error, as `run --baseline nope` does.
    code = (
        "import sys\nfrom nlu_tui.runner.client import preload_http\npreload_http()\nsys.exit(2)\n"
    )
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
        assert proc.returncode == 2, proc.stderr
