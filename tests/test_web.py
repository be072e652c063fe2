"""``nlu-tui web``: the workbench in a real headless Chromium, behind its token."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from chromium_peer import chromium_page, needs_chromium

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"

# Keeps what the server sends to the page's terminal (the app's output), so the test can read
# what the canvas shows.
SCREEN_HOOK = """
window.__screen = [];
(function () {
  const Native = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    const ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
    ws.addEventListener('message', function (ev) {
      if (typeof ev.data === 'string') { window.__screen.push(ev.data); }
      else if (ev.data instanceof ArrayBuffer) { window.__screen.push(new TextDecoder().decode(ev.data)); }
      else if (ev.data instanceof Blob) { ev.data.text().then(function (t) { window.__screen.push(t); }); }
    });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})();
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def web_server(tmp_path: Path, *extra: str) -> Iterator[tuple[str, int]]:
    """``nlu-tui web`` on a copy of the sample suites; yields (the printed URL, the port)."""
    workspace = tmp_path / "ws"
    shutil.copytree(SAMPLES, workspace)
    port = _free_port()
    env = {
        **os.environ,
        "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "nlu_tui", "web", str(workspace), "--port", str(port), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("nlu-tui web: open http://"), line + (
            proc.stderr.read() if proc.stderr else ""
        )
        url = line.split("open ", 1)[1].strip()
        deadline = time.monotonic() + 30
        while True:  # until it listens
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.1)
        yield url, port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _status(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode(), dict(answer.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


def test_every_request_needs_the_token(tmp_path: Path) -> None:
    with web_server(tmp_path) as (url, port):
        base = f"http://127.0.0.1:{port}"
        token = url.split("token=", 1)[1]
        assert url == f"{base}/?token={token}" and len(token) >= 32
        status, text, _h = _status(f"{base}/")
        assert status == 403 and "needs the token" in text
        assert _status(f"{base}/?token=wrong{token}")[0] == 403
        assert _status(f"{base}/ws")[0] == 403  # the app's socket too
        # DNS rebinding: a page at another name that resolves to 127.0.0.1 is refused
        assert _status(url, {"Host": f"evil.example:{port}"})[0] == 403
        status, page, headers = _status(url)
        assert status == 200
        assert "nlu_tui_token=" in headers.get("Set-Cookie", "")
        assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
        assert "googleapis" not in page and "https://" not in page  # nothing from elsewhere
        cookie = {"Cookie": f"nlu_tui_token={token}"}
        assert _status(f"{base}/", cookie)[0] == 200
        # the socket from another site's page is refused even with the cookie
        assert _status(f"{base}/ws", {**cookie, "Origin": "http://evil.example"})[0] == 403


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "nlu_tui", "web", str(SAMPLES), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert done.stderr.strip().startswith("nlu-tui: error: cannot listen on 127.0.0.1:")
    assert len(done.stderr.strip().splitlines()) == 1


@needs_chromium
@pytest.mark.slow
async def test_the_workbench_in_chromium_shows_the_sample_suite(tmp_path: Path) -> None:
    with web_server(tmp_path) as (url, _port):
        async with chromium_page(1200, 800) as page:
            await page.send("Page.addScriptToEvaluateOnNewDocument", source=SCREEN_HOOK)
            await page.goto(url)
            # the suites panel, drawn by the workbench process the page started
            await page.wait_for("window.__screen.join('').includes('Banking bot')", 60)
            await page.wait_for("window.__screen.join('').includes('54 cases')", 60)
            shot = await page.screenshot(tmp_path / "web.png")
            assert shot.stat().st_size > 10_000  # a drawn terminal, not a blank page
            assert page.errors == []
