"""Engine answers are bounded: stored cut with a marker above ``max_raw_bytes``, refused above
the hard read limit, and scored from the full answer all the same.

A real loopback engine on 127.0.0.1 answers with big bodies (1 MiB, 17 MiB, an endless chunked
stream).
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
from runner_loopback import write_suite

from nlu_tui.store import RunStore

MIB = 1024 * 1024


class _Big(QuietHandler):
    """Rasa-shaped answers padded to 1 MiB; ``pay`` gets 17 MiB; ``stream`` never ends."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        text = self.read_json().get("text", "")
        last = text.split()[-1]
        size = 17 * MIB if last == "pay" else MIB
        answer = {
            "intent": {"name": None if last == "none" else last, "confidence": 0.9},
            "entities": [{"entity": "word", "value": last, "start": 0, "end": 9}],
            "padding": "x" * size,
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        try:
            if last == "stream":
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                chunk = b"x" * 65536
                for _ in range(1024):  # 64 MiB unless the client hangs up first
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
                return
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client refused the answer: expected for the big ones


@pytest.fixture
def big_server() -> Iterator[str]:
    with serving(_Big) as url:
        yield url


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def test_cap_raw_keeps_small_answers_and_marks_cut_ones() -> None:
    from nlu_tui.store.codec import cap_raw

    small = {"intent": {"name": "greet"}}
    assert cap_raw(small, 65536) is small
    cut = cap_raw({"padding": "é" * 1000}, 100)
    assert isinstance(cut, str)
    head, _, mark = cut.partition("…[truncated: ")
    assert len(head.encode()) <= 100 and head.startswith('{"padding":"')
    full = json.dumps({"padding": "é" * 1000}, ensure_ascii=False, separators=(",", ":"))
    assert mark == f"{len(full.encode())} bytes, kept {len(head.encode())}]"


def _run(tmp_path: Path, url: str, *extra: str, profile_extra: str = "") -> tuple[str, Path]:
    suite = write_suite(tmp_path / "big.suite.yaml", 4)  # greet, bye, pay, none
    (tmp_path / "engines.yaml").write_text(
        f"engines:\n  big:\n    type: http\n    url: {url}/parse\n    retries: 0\n{profile_extra}",
        encoding="utf-8",
    )
    ran = _cli("run", str(suite), "--engine", "big", *extra, cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    run_id = ran.stdout.split()[1].rstrip(":")
    return run_id, next(Path(os.environ["NLU_TUI_DATA_DIR"]).rglob("runs.sqlite3"))


def test_big_answers_stored_cut_and_scored_in_full(tmp_path: Path, big_server: str) -> None:
    run_id, db = _run(tmp_path, big_server)
    store = RunStore(db)
    rows = {c.utterance.split()[-1]: (p, r) for c, p, r in store.load_results(run_id)}
    store.close()
    # 1 MiB answers: scored from the full answer, stored cut to 64 KiB with the marker.
    for word in ("greet", "bye"):
        prediction, result = rows[word]
        assert prediction.intent == word and result.result.value == "TP"
        assert prediction.entities[0].value == word
        assert isinstance(prediction.raw, str)
        assert prediction.raw.endswith("kept 65536]")
        assert "…[truncated: " in prediction.raw
        assert len(prediction.raw.encode()) < 65536 + 100
    # 17 MiB: refused before it is read, a clear case error.
    prediction, result = rows["pay"]
    assert result.result.value == "ERROR"
    assert "answer too large" in (result.error or "")
    assert db.stat().st_size < 1 * MIB  # four answers of 1-17 MiB: the store stays small


def test_cap_set_by_cli_option_and_profile(tmp_path: Path, big_server: str) -> None:
    run_id, db = _run(tmp_path, big_server, "--max-raw-bytes", "1000")
    store = RunStore(db)
    raws = [p.raw for _c, p, _r in store.load_results(run_id) if p.raw is not None]
    store.close()
    assert raws and all(isinstance(r, str) and r.endswith("kept 1000]") for r in raws)

    other = tmp_path / "profile"
    other.mkdir()
    run_id, db = _run(other, big_server, profile_extra="    max_raw_bytes: 2000\n")
    store = RunStore(db)
    raws = [p.raw for _c, p, _r in store.load_results(run_id) if p.raw is not None]
    store.close()
    assert raws and all(isinstance(r, str) and r.endswith("kept 2000]") for r in raws)


def test_max_raw_bytes_must_be_positive(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s.suite.yaml", 1)
    ran = _cli(
        "run",
        str(suite),
        "--engine",
        "http:http://127.0.0.1:1",
        "--max-raw-bytes",
        "0",
        cwd=tmp_path,
    )
    assert ran.returncode == 2
    assert ran.stderr.startswith("nlu-tui: error:") and "--max-raw-bytes" in ran.stderr


async def test_endless_answer_read_is_bounded(big_server: str) -> None:
    from nlu_tui.engines.base import ParseContext
    from nlu_tui.engines.http_generic import GenericHttpEngine
    from nlu_tui.engines.httpcall import AnswerTooLargeError

    engine = GenericHttpEngine({"url": f"{big_server}/parse"})
    engine.max_answer_bytes = 4 * MIB
    try:
        with pytest.raises(AnswerTooLargeError, match="answer too large"):
            await engine.parse("an endless stream", ParseContext())
    finally:
        await engine.close()


async def test_bounded_read_also_through_client_send(big_server: str) -> None:
    """A client with event hooks goes through ``client.send``: the read is bounded there too."""
    import httpx

    from nlu_tui.engines.base import ParseContext
    from nlu_tui.engines.http_generic import GenericHttpEngine
    from nlu_tui.engines.httpcall import AnswerTooLargeError

    async def hook(request: httpx.Request) -> None:
        pass

    engine = GenericHttpEngine({"url": f"{big_server}/parse"})
    engine.max_answer_bytes = 4 * MIB
    async with httpx.AsyncClient(event_hooks={"request": [hook]}) as client:
        await engine.open(client)
        with pytest.raises(AnswerTooLargeError, match="answer too large"):
            await engine.parse("an endless stream", ParseContext())
        prediction = await engine.parse("a small greet", ParseContext())  # 1 MiB: read in full
        assert prediction.intent == "greet"


def test_detail_pane_keeps_the_truncation_marker_in_sight() -> None:
    from nlu_tui.store.codec import cap_raw
    from nlu_tui.ui.widgets.results_detail import RAW_LIMIT, pretty_raw

    stored = cap_raw({"padding": "x" * (4 * RAW_LIMIT)}, 2 * RAW_LIMIT)
    shown = pretty_raw(stored)
    assert shown.endswith(f"kept {2 * RAW_LIMIT}]") and "more characters" in shown
    assert len(shown) < RAW_LIMIT + 200
