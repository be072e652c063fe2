"""The real Rasa 3.6 peer of ``tests/peers/setup_rasa.sh``: where it is, how to call its CLI,
and a served model that is stopped by PID whatever happens (shared by the real-Rasa tests)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import DATASETS

PEERS = Path(os.environ.get("NLU_TUI_PEERS_DIR", Path.home() / ".cache" / "nlu-tui-peers"))
RASA = PEERS / "rasa310" / "bin" / "rasa"
NLU = DATASETS / "rasa-financial-demo" / "nlu.yml"


def project(work: Path, config: str, config_name: str = "config.yml") -> dict[str, str]:
    """Skip without the peer or the dataset; else lay out a Rasa project in ``work`` (the
    financial demo's NLU data and ``config``) and return the environment to run Rasa in."""
    if not RASA.exists():
        pytest.skip(f"no Rasa peer at {RASA}: run tests/peers/setup_rasa.sh (needs Python 3.10)")
    if not NLU.exists():
        pytest.skip(f"dataset not available: {NLU}")
    (work / "data").mkdir()
    shutil.copy(NLU, work / "data" / "nlu.yml")
    (work / config_name).write_text(config)
    return {
        **os.environ,
        "RASA_TELEMETRY_ENABLED": "false",
        "SQLALCHEMY_SILENCE_UBER_WARNING": "1",
        "HOME": str(work),
    }


def rasa(work: Path, env: dict[str, str], *args: str) -> None:
    """One Rasa CLI command in ``work``; its output in the failure when it fails."""
    done = subprocess.run(
        [str(RASA), *args], cwd=work, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def served(
    work: Path,
    env: dict[str, str],
    model: str | None,
    token: str | None = None,
    args: tuple[str, ...] = (),
    wait: float = 180.0,
) -> Iterator[str]:
    """``rasa run --enable-api`` on ``model`` (None: no model yet, to be trained over HTTP; plus
    ``args``: ``--endpoints``...), on a free loopback port, until it answers ``/status``
    (``/version`` without a model; at most ``wait`` seconds); yields its URL and stops it by PID
    (never by name) afterwards."""
    port = free_port()
    extra = [*(["--auth-token", token] if token else []), *args]
    if model is not None:
        extra = ["-m", model, *extra]
    log = (work / "rasa.log").open("w")
    proc = subprocess.Popen(
        [str(RASA), "run", "--enable-api", "-i", "127.0.0.1", "-p", str(port), *extra],
        cwd=work,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    params = {"token": token} if token else None
    try:
        # NLU_TUI_RASA_START_TIMEOUT: more seconds for a loaded machine (loading takes ~1 min)
        wait = max(wait, float(os.environ.get("NLU_TUI_RASA_START_TIMEOUT", "0")))
        deadline = time.monotonic() + wait
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"rasa run exited with {proc.returncode}: "
                    f"{(work / 'rasa.log').read_text()[-2000:]}"
                )
            try:
                probe = "/status" if model is not None else "/version"
                if httpx.get(f"{url}{probe}", params=params, timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"rasa run did not load its model within {wait:g} s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()
