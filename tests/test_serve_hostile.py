"""``nlu-tui serve`` under hostile requests: a long text, a deep body, an open address.

A real server on 127.0.0.1 (the embedded engine trained on the mini fixture), real HTTP.
Measured before the fix (``--max-text-length`` absent): a 100,000-character parse held
``GET /version`` for its whole 6 s, and a 100,000-deep body got HTTP 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from nlu_tui.engines.serve import start_server

MINI = Path(__file__).parent / "fixtures" / "engines" / "mini.nlu.yml"


async def test_a_long_parse_does_not_hold_other_requests() -> None:
    """While a 100,000-character text is classified (seconds: the featuriser is superlinear in
    the length, so 1 MB would take minutes), ``GET /version`` keeps answering within 100 ms: the
    model runs off the event loop. On the old server every probe waited for the whole parse.

    The server is the real ``nlu-tui serve`` process; the machine is shared, so the bound is on
    the 95th percentile of the probes, and no single probe may wait half a second.
    """
    text = ("send 200 dollars to Mario Rossi " * 4000)[:100_000]
    with _served("--max-text-length", "200000") as url:
        async with httpx.AsyncClient(timeout=120) as client:
            await client.get(f"{url}/version")  # connection warm
            big = asyncio.create_task(client.post(f"{url}/model/parse", json={"text": text}))
            await asyncio.sleep(0.2)  # the long parse is under way
            waits: list[float] = []
            while not big.done():
                started = time.perf_counter()
                answer = await client.get(f"{url}/version")
                waits.append(time.perf_counter() - started)
                assert answer.status_code == 200
                await asyncio.sleep(0.02)
            parsed = await big
    assert parsed.status_code == 200 and parsed.json()["text"] == text
    assert len(waits) >= 10, f"only {len(waits)} probes: /version waited for the parse"
    waits.sort()
    p95 = waits[int(len(waits) * 0.95)]
    assert p95 < 0.1 and waits[-1] < 0.5, f"/version p95 {p95:.3f} s, worst {waits[-1]:.3f} s"


async def test_limits_answer_json_errors_not_500() -> None:
    """Over-long text: 413; a body nested 100,000 deep or not JSON: 400; the server lives on."""
    running = await start_server(MINI, port=0)
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            url = f"{running.url}/model/parse"
            long = await client.post(url, json={"text": "a" * 10_001})
            deep = await client.post(url, content=b"[" * 100_000 + b"]" * 100_000)
            deep_object = await client.post(url, content=b'{"text": ' + b"[" * 100_000)
            broken = await client.post(url, content=b"\xff\xfe{")
            huge = await client.post(url, content=b" " * (2 * 1024 * 1024))
            fine = await client.post(url, json={"text": "a" * 10_000})
    finally:
        await running.stop()
    assert long.status_code == 413 and long.json()["reason"] == "TextTooLong"
    assert "10000" in long.json()["message"] and "--max-text-length" in long.json()["message"]
    for answer in (deep, deep_object, broken):
        assert answer.status_code == 400 and answer.json()["reason"] == "BadRequest"
    assert huge.status_code == 413 and huge.json()["reason"] == "PayloadTooLarge"
    assert fine.status_code == 200


@contextlib.contextmanager
def _served(*args: str) -> Iterator[str]:
    """``nlu-tui serve`` on a free loopback port; yields its URL, stops it on exit."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "nlu_tui", "serve", "--nlu", str(MINI), "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on http://" in line, line + (proc.stderr.read() if proc.stderr else "")
        yield line.split("listening on ", 1)[1].split(" ", 1)[0]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", "serve", "--nlu", str(MINI), "--port", "0", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_open_address_without_a_token_is_refused() -> None:
    """``--host 0.0.0.0`` with no ``--auth-token-env`` stops before training, exit 2."""
    result = _serve("--host", "0.0.0.0")
    assert result.returncode == 2, result.stderr
    assert "0.0.0.0" in result.stderr and "--no-auth" in result.stderr
    assert "Traceback" not in result.stderr
    assert _serve("--max-text-length", "0").returncode == 2


def test_no_auth_allows_an_open_address() -> None:
    """``--no-auth`` is the explicit way to serve an open address without a token."""
    with _served("--host", "0.0.0.0", "--no-auth", "--max-text-length", "50") as url:
        port = url.rsplit(":", 1)[1]
        parse = f"http://127.0.0.1:{port}/model/parse"
        assert url.startswith("http://0.0.0.0:")
        assert httpx.post(parse, json={"text": "hello"}).status_code == 200
        assert httpx.post(parse, json={"text": "x" * 51}).status_code == 413


def test_the_cli_default_matches_the_server() -> None:
    from nlu_tui.cli import serve as cli_serve
    from nlu_tui.engines import serve

    assert cli_serve.MAX_TEXT_LENGTH == serve.MAX_TEXT_LENGTH
