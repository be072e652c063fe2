"""Secrets never leak in a derived form, and literal credentials are refused in any profile field.

A real loopback engine echoes the request back (query string URL-encoded, body JSON-escaped,
the secret upper-cased), so what the runner stores is what an echoing engine would really give.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from http_handler_server import QuietHandler, serving
from runner_loopback import write_suite

from nlu_tui.engines.redact import redact, redact_data
from nlu_tui.store import RunStore

SECRET = "Ab+c/d=é Xyz-Q9"
ASCII_SECRET = "Hd+r/Key=Q7 zz"


class _Echo(QuietHandler):
    """Answers like Rasa, and echoes the request back in every spelling it may come back in."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8")
        sent = json.loads(body)
        text, key = sent.get("text", ""), str(sent.get("password", ""))
        answer = {
            "intent": {"name": text.split()[-1] if text.split() else None, "confidence": 0.9},
            "entities": [{"entity": "echo", "value": key.upper()}],
            "path": self.path,  # the query string, URL-encoded by the client
            "body_escaped": json.dumps(body),  # JSON-escaped (é as \\u00e9)
            "key_lower": key.lower(),
            "header": self.headers.get("X-Api-Key", ""),
        }
        data = json.dumps(answer, ensure_ascii=True).encode()
        self.send_json(data)


@pytest.fixture
def echo_server() -> Iterator[str]:
    with serving(_Echo) as url:
        yield url


def _cli(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )


def _leaks(blob: str) -> list[str]:
    """Every spelling of SECRET (and its case variants) found in ``blob``."""
    low = blob.lower()
    forms = {
        form
        for secret in (SECRET, ASCII_SECRET)
        for form in (
            secret,
            quote(secret, safe=""),
            quote(secret),
            quote_plus(secret),
            json.dumps(secret)[1:-1],
            json.dumps(secret, ensure_ascii=False)[1:-1],
        )
    }
    return sorted(f for f in forms if f.lower() in low)


def test_redact_masks_every_derived_form() -> None:
    for form in (
        SECRET,
        quote(SECRET, safe=""),
        quote(SECRET),
        quote_plus(SECRET),
        json.dumps(SECRET)[1:-1],
        json.dumps(SECRET, ensure_ascii=False)[1:-1],
        SECRET.lower(),
        SECRET.upper(),
        quote(SECRET, safe="").lower(),
    ):
        assert redact(f"x {form} y", [SECRET]) == "x *** y", form
        assert redact_data({"k": [f"<{form}>"]}, [SECRET]) == {"k": ["<***>"]}


def test_echoed_secret_never_stored_in_any_form(tmp_path: Path, echo_server: str) -> None:
    suite = write_suite(tmp_path / "loop.suite.yaml", 6)
    (tmp_path / "engines.yaml").write_text(
        "engines:\n"
        "  echo:\n"
        "    type: http\n"
        f"    url: {echo_server}/parse\n"
        "    query: {k: '${ECHO_KEY}'}\n"
        "    headers: {X-Api-Key: '${ASCII_KEY}'}\n"
        '    body: \'{"text": "{text}", "password": "${ECHO_KEY}"}\'\n',
        encoding="utf-8",
    )
    env = {**os.environ, "ECHO_KEY": SECRET, "ASCII_KEY": ASCII_SECRET}
    out = tmp_path / "r.json"
    ran = _cli("run", str(suite), "--engine", "echo", "--json", str(out), env=env, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    run_id = ran.stdout.split()[1].rstrip(":")
    shown = _cli("show", run_id, "--format", "json", env=env, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    data_dir = Path(os.environ["NLU_TUI_DATA_DIR"])
    store = RunStore(next(data_dir.rglob("runs.sqlite3")))
    rows = store.load_results(run_id)
    store.close()
    # The engine really echoed the secrets back (else the test proves nothing), masked.
    raws = [p.raw for _c, p, _r in rows]
    assert raws and all(r["path"] == "/parse?k=***" and r["header"] == "***" for r in raws)
    assert all(r["key_lower"] == "***" for r in raws)
    assert all(p.entities[0].value == "***" for _c, p, _r in rows)
    blobs = [ran.stdout, ran.stderr, shown.stdout, out.read_text(encoding="utf-8")]
    blobs += [p.read_bytes().decode("utf-8", "replace") for p in data_dir.rglob("*") if p.is_file()]
    for blob in blobs:
        assert _leaks(blob) == []


def test_secret_in_host_not_stored_lower_cased(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed once the block ends: nothing listens there
    suite = write_suite(tmp_path / "loop.suite.yaml", 3)
    (tmp_path / "engines.yaml").write_text(
        "engines:\n"
        "  down:\n"
        "    type: http\n"
        f"    url: http://${{NLU_HOST}}:{port}/parse\n"
        "    retries: 0\n",
        encoding="utf-8",
    )
    env = {**os.environ, "NLU_HOST": "LocalHost"}
    ran = _cli("run", str(suite), "--engine", "down", env=env, cwd=tmp_path)
    listed = _cli("runs", "--json", env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    runs = json.loads(listed.stdout)
    reasons = " ".join(str(r.get("reason")) for r in (runs if isinstance(runs, list) else [runs]))
    assert "***" in reasons + ran.stdout + ran.stderr
    for blob in (ran.stdout, ran.stderr, listed.stdout):
        assert "localhost" not in blob.lower()


@pytest.mark.parametrize(
    ("field", "error_field"),
    [
        ("    url: http://127.0.0.1:1/parse?sig=abc123\n", "engines.bad.url"),
        ("    query: {signature: abc123}\n", "engines.bad.query.signature"),
        ("    headers: {X-Custom: 'token=abcd1234'}\n", "engines.bad.headers.X-Custom"),
        ('    body: \'{"text": "{text}", "password": "hunter2"}\'\n', "engines.bad.body"),
        ("    intent: 'http://u:hunter2@example.com/x'\n", "engines.bad.intent"),
    ],
)
def test_literal_credentials_refused_in_any_field(
    tmp_path: Path, field: str, error_field: str
) -> None:
    suite = write_suite(tmp_path / "loop.suite.yaml", 2)
    url = "" if "url:" in field else "    url: http://127.0.0.1:1/parse\n"
    (tmp_path / "engines.yaml").write_text(
        f"engines:\n  bad:\n    type: http\n{url}{field}", encoding="utf-8"
    )
    ran = _cli("run", str(suite), "--engine", "bad", env=dict(os.environ), cwd=tmp_path)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nlu-tui: error:"), ran.stderr
    assert "engines.yaml" in lines[0] and error_field in lines[0]
    for literal in ("abc123", "abcd1234", "hunter2"):
        assert literal not in ran.stderr


def test_env_references_still_accepted(tmp_path: Path, echo_server: str) -> None:
    suite = write_suite(tmp_path / "loop.suite.yaml", 2)
    (tmp_path / "engines.yaml").write_text(
        "engines:\n"
        "  ok:\n"
        "    type: http\n"
        f"    url: {echo_server}/parse?sig=${{SIG}}&lang=en\n"
        "    headers: {Authorization: 'Bearer ${SIG}'}\n"
        '    body: \'{"text": "{text}", "auth": {parent}, "password": "${SIG}"}\'\n',
        encoding="utf-8",
    )
    env = {**os.environ, "SIG": "sig-value-1"}
    ran = _cli("run", str(suite), "--engine", "ok", env=env, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
