"""No escape sequence from a suite, an engine answer, a note or a name reaches the terminal
through the CLI: ``run``, ``runs``, ``show``, ``compare``, ``validate`` and error lines.

Machine formats keep the data exact: ``show -f json`` decodes to the hostile text itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from http_handler_server import QuietHandler, serving

from nlu_tui.model import ExpectedIntent, Suite, TestCase

OSC52 = "\x1b]52;c;SGVsbG8=\x07"
CLEAR = "\x1b[2J"
CSI = "\x9b31m"
BIDI = "\u202etxt.exe"
HOSTILE = f"{OSC52}{CLEAR}{CSI}{BIDI}"
_BIDI_CHARS = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def assert_inert(text: str, what: str) -> None:
    """Nothing a terminal would act on: no ESC, no C0 but LF/TAB, no DEL/C1, no bidi override."""
    bad = [
        c
        for c in text
        if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F or c in _BIDI_CHARS
    ]
    assert not bad, f"{what}: raw control characters {bad!r} in {text!r}"


class _Hostile(QuietHandler):
    """Answers with hostile intent names and entity values; ``fail`` gets a hostile HTTP 500."""

    def do_POST(self) -> None:
        text = self.read_json().get("text", "")
        if text.endswith("fail"):
            data, status = f"boom {HOSTILE}".encode(), 500
        else:
            answer = {
                "intent": {"name": f"intent{HOSTILE}", "confidence": 0.9},
                "entities": [{"entity": f"e{HOSTILE}", "value": HOSTILE, "start": 0, "end": 1}],
                "echo": HOSTILE,
            }
            data, status = json.dumps(answer).encode(), 200
        self.send_json(data, status)


@pytest.fixture
def hostile_engine() -> Iterator[str]:
    with serving(_Hostile) as url:
        yield url


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "300"},
    )
    assert_inert(done.stdout, f"stdout of {args[0]}")
    assert_inert(done.stderr, f"stderr of {args[0]}")
    return done


def _on_terminal(*args: str, cwd: Path) -> str:
    """Run the CLI with its stdout on a pseudo-terminal; what it wrote there."""
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "nlu_tui", *args],
            stdout=follower,
            stderr=subprocess.PIPE,
            timeout=120,
            cwd=cwd,
        )
        os.close(follower)
        follower = -1
        assert done.returncode == 0, done.stderr
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's other side is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8")
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)


def _hostile_suite(path: Path) -> Path:
    from nlu_tui.formats.native import dump_suite

    suite = Suite(
        name=f"suite{HOSTILE}",
        description=f"about {HOSTILE}",
        cases=[
            TestCase(
                utterance=f"say {HOSTILE} {i}" + (" fail" if i == 2 else ""),
                intents=[ExpectedIntent(f"greet{HOSTILE}")],
                id=f"c{i}",
            )
            for i in range(3)
        ],
    )
    path.write_text(dump_suite(suite), encoding="utf-8")
    return path


def test_run_runs_show_note_are_inert(tmp_path: Path, hostile_engine: str) -> None:
    suite = _hostile_suite(tmp_path / "evil.suite.yaml")
    ran = _cli(
        "run",
        str(suite),
        "--engine",
        f"http:{hostile_engine}/parse",
        "--note",
        HOSTILE,
        cwd=tmp_path,
    )
    assert ran.returncode == 0, ran.stderr
    assert "␛" in ran.stdout  # the suite name and the reason are there, made visible
    run_id = ran.stdout.split()[1].rstrip(":")
    noted = _cli("note", run_id, f"again {HOSTILE}", cwd=tmp_path)
    assert noted.returncode == 0
    listed = _cli("runs", cwd=tmp_path)
    assert run_id in listed.stdout and "␛" in listed.stdout
    summary = _cli("show", run_id, cwd=tmp_path)
    assert "␛]52" in summary.stdout and "\\u202e" in summary.stdout
    for fmt in ("csv", "junit"):
        # Piped: the exact data (a machine format); on a terminal: inert.
        piped = subprocess.run(
            [sys.executable, "-m", "nlu_tui", "show", run_id, "-f", fmt],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        assert piped.returncode == 0
        if fmt == "csv":  # (XML cannot hold control characters: its writer replaces them)
            assert f"greet{HOSTILE}" in piped.stdout
        on_tty = _on_terminal("show", run_id, "-f", fmt, cwd=tmp_path)
        assert "greet" in on_tty
        assert_inert(on_tty.replace("\r\n", "\n"), f"show -f {fmt} on a terminal")
    as_json = json.loads(_cli("show", run_id, "-f", "json", cwd=tmp_path).stdout)
    assert as_json["run"]["note"] == f"again {HOSTILE}"  # the data itself is kept exact
    assert any(r["matched_intent"] == f"intent{HOSTILE}" for r in as_json["results"])
    runs_json = json.loads(_cli("runs", "--json", cwd=tmp_path).stdout)
    assert runs_json[0]["suite"] == f"suite{HOSTILE}" or HOSTILE in json.dumps(runs_json)


def test_error_lines_are_inert(tmp_path: Path) -> None:
    missing = tmp_path / f"nosuch{HOSTILE}.suite.yaml"
    ran = _cli("run", str(missing), "--engine", "http:http://127.0.0.1:1", cwd=tmp_path)
    assert ran.returncode == 2
    lines = ran.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nlu-tui: error:") and "␛" in lines[0]
    bad = tmp_path / "bad.suite.yaml"
    bad.write_text(f"name: x\ncases:\n  - {json.dumps(HOSTILE)}: [\n", encoding="utf-8")
    _cli("validate", str(bad), cwd=tmp_path)
    _cli("run", str(bad), "--engine", "http:http://127.0.0.1:1", cwd=tmp_path)


def test_compare_console_output_is_inert(tmp_path: Path) -> None:
    expected = [{"text": f"hi {HOSTILE}", "intent": f"Greet{HOSTILE}"}]
    actual = [{"text": f"hi {HOSTILE}", "intent": f"Other{HOSTILE}"}]
    (tmp_path / "e.json").write_text(json.dumps(expected), encoding="utf-8")
    (tmp_path / "a.json").write_text(json.dumps(actual), encoding="utf-8")
    done = _cli("compare", "-e", "e.json", "-a", "a.json", "-o", "out", cwd=tmp_path)
    assert "Greet␛" in done.stdout  # the confusion matrix quotes the intents, made visible
    metadata = json.loads((tmp_path / "out" / "metadata.json").read_text(encoding="utf-8"))
    assert metadata[0]["expectedUtterance"]["intent"] == f"Greet{HOSTILE}"  # files: exact data


def test_run_log_lines_are_inert(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from nlu_tui.runner.client import guard_http_logs

    guard_http_logs()
    caplog.set_level(logging.DEBUG)
    logging.getLogger("nlu_tui.runner.run").warning("case %s: %s", f"c{HOSTILE}", HOSTILE)
    assert caplog.messages and "␛]52" in caplog.messages[-1]
    assert_inert(caplog.messages[-1], "log line")
