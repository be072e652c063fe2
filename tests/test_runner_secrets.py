"""A token given as ``${SECRET_TOKEN}`` never lands in the store, an export, a log or a message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from runner_loopback import LoopbackNlu, make_suite, write_suite

SECRET = "s3cr3t-Tok3n-7f9a1c"


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.mark.slow
def test_secret_never_leaks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    suite_path = write_suite(tmp_path / "loop.suite.yaml", 60)
    cases = make_suite(60).cases
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "SECRET_TOKEN": SECRET, "PYTHONWARNINGS": "always"}
    with LoopbackNlu(
        echo_query=True,  # the server echoes the query string (token included) in its answers
        always={cases[1].utterance: "500", cases[2].utterance: "garbage"},
        first={cases[3].utterance: ("reset", 1)},
    ) as server:
        (tmp_path / "engines.yaml").write_text(
            "engines:\n"
            "  secure:\n"
            "    type: rasa\n"
            f"    url: {server.url}\n"
            "    token: ${SECRET_TOKEN}\n"
            "    retries: 1\n",
            encoding="utf-8",
        )
        ran = _cli(
            "run",
            str(suite_path),
            "--engine",
            "secure",
            "--json",
            str(out / "r.json"),
            "--csv",
            str(out / "r.csv"),
            "--junit",
            str(out / "r.xml"),
            env=env,
        )
        assert ran.returncode == 0, ran.stderr
        assert any(SECRET in q for q in server.queries)  # the token was really sent
    outputs = [ran.stdout, ran.stderr]
    run_id = ran.stdout.split()[1].rstrip(":")
    for fmt in ("summary", "json", "csv", "junit"):
        shown = _cli("show", run_id, "--format", fmt, env=env)
        assert shown.returncode == 0, shown.stderr
        outputs += [shown.stdout, shown.stderr]
        _cli("show", run_id, "--format", fmt, "-o", str(out / f"show.{fmt}"), env=env)
    _cli("show", run_id, "--format", "rasa", "-o", str(out / "rasa"), env=env)
    listed = _cli("runs", "--json", env=env)
    outputs += [listed.stdout, listed.stderr]

    assert "HTTP 500" in ran.stdout + (out / "r.json").read_text(encoding="utf-8")
    data_dir = Path(os.environ["NLU_TUI_DATA_DIR"])
    files = [p for p in [*data_dir.rglob("*"), *out.rglob("*")] if p.is_file()]
    assert any(p.name.startswith("runs.sqlite3") for p in files)
    assert len([p for p in out.rglob("*") if p.is_file()]) >= 9
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), f"secret found in {path}"
    for text in outputs:
        assert SECRET not in text


async def test_secret_kept_out_of_logs_reasons_and_raw_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    from runner_loopback import LoopbackEngine, Resolved

    from nlu_tui.runner import RunOptions, run_suite
    from nlu_tui.store import RunStore

    suite = make_suite(30)
    caplog.set_level(logging.DEBUG)
    with LoopbackNlu(
        echo_query=True,
        always={suite.cases[0].utterance: "500"},
        first={suite.cases[1].utterance: ("reset", 2)},
    ) as server:
        resolved = Resolved(LoopbackEngine(server.url, token=SECRET))
        resolved.secrets = [SECRET]  # type: ignore[attr-defined]
        store = RunStore(tmp_path / "r.db")
        record = await run_suite(
            suite, resolved, store, options=RunOptions(retries=2, backoff_base=0.01)
        )
        assert server.queries[f"token={SECRET}"] > 0
    rows = store.load_results(record.id)
    assert any("echo" in (p.raw or {}) for _c, p, _r in rows)
    assert "retry" in caplog.text
    assert SECRET not in caplog.text
    assert SECRET not in repr(rows) and SECRET not in repr(store.get_run(record.id))
    store.close()
    for path in tmp_path.iterdir():
        assert SECRET.encode() not in path.read_bytes()
