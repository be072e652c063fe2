"""The answer cache of a profile with ``cache: true``: real CLI processes, the real Rasa engine
against a real loopback server that counts every request, and the real SQLite run store."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from runner_loopback import LoopbackNlu, write_suite

from nlu_tui import paths
from nlu_tui.store import RunStore

SECRET = "s3cr3t-token-value"


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "CACHE_TEST_TOKEN": SECRET, **(env or {})},
    )


def _run_id(proc: subprocess.CompletedProcess[str]) -> str:
    first = proc.stdout.splitlines()[0]
    assert first.startswith("run "), proc.stdout + proc.stderr
    return first.split()[1].rstrip(":")


def _profiles(folder: Path, url: str) -> None:
    (folder / "engines.yaml").write_text(
        "engines:\n"
        "  paid:\n"
        "    type: rasa\n"
        f"    url: {url}\n"
        "    token: ${CACHE_TEST_TOKEN}\n"
        "    cache: true\n"
        "  short:\n"
        "    type: rasa\n"
        f"    url: {url}\n"
        "    token: ${CACHE_TEST_TOKEN}\n"
        "    cache: true\n"
        "    cache_ttl: 6\n"
        "  plain:\n"
        "    type: rasa\n"
        f"    url: {url}\n",
        encoding="utf-8",
    )


def test_a_cached_profile_sends_nothing_twice_repeats_ttl_and_clear(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "loop.suite.yaml", 8, wrong_every=3)
    with LoopbackNlu() as server:
        _profiles(tmp_path, server.url)

        def sent() -> int:
            return sum(server.counts.values())

        first = _cli("run", str(suite), "-e", "paid")
        assert first.returncode == 0, first.stdout + first.stderr
        assert sent() == 8
        assert "answer cache (paid): 0 answered from it, 8 sent" in first.stdout

        second = _cli("run", str(suite), "-e", "paid")
        assert second.returncode == 0, second.stdout + second.stderr
        assert sent() == 8  # the second run sent nothing
        assert "answer cache (paid): 8 answered from it, 0 sent" in second.stdout

        repeated = _cli("run", str(suite), "-e", "paid", "--repeat", "3")
        assert repeated.returncode == 0, repeated.stdout + repeated.stderr
        assert sent() == 8 + 24  # --repeat 3 never reads the cache: 3 x 8
        from_cache = _cli("run", str(suite), "-e", "paid", "--repeat", "3", "--cache-repeats")
        assert from_cache.returncode == 0, from_cache.stdout + from_cache.stderr
        assert sent() == 32  # ... unless --cache-repeats

        # a rerun of the failed cases asks the engine again (the cache holds the failed answers)
        rerun = _cli("run", "--rerun-failed", _run_id(second))
        assert rerun.returncode == 0, rerun.stdout + rerun.stderr
        failed = [u for u, n in server.counts.items() if n == 5]
        assert sent() == 32 + 2 and len(failed) == 2  # wrong_every=3 of 8: 2 wrong cases
        assert "answer cache (paid): 0 answered from it, 2 sent" in rerun.stdout

        no_cache = _cli("run", str(suite), "-e", "paid", "--no-cache")
        assert sent() == 42 and "answer cache" not in no_cache.stdout
        plain = _cli("run", str(suite), "-e", "plain")  # a profile without cache: true
        assert sent() == 50 and "answer cache" not in plain.stdout

        cleared = _cli("cache", "clear", "paid")
        assert cleared.returncode == 0 and "cleared 8 cached answers of paid" in cleared.stdout
        again = _cli("run", str(suite), "-e", "paid")
        assert sent() == 58, again.stdout  # the answers were gone
        assert "cleared 8 cached answers" in _cli("cache", "clear").stdout

        # cache_ttl: 6 (the same engine, so the same answers): fresh ones are reused,
        # expired ones sent again
        _cli("run", str(suite), "-e", "short")
        stored = time.time()
        assert sent() == 66
        fresh = _cli("run", str(suite), "-e", "short")
        assert time.time() - stored < 6, "too slow to check the TTL"
        assert sent() == 66, fresh.stdout + fresh.stderr
        time.sleep(max(0.0, stored + 6.5 - time.time()))
        expired = _cli("run", str(suite), "-e", "short")
        assert sent() == 74, expired.stdout + expired.stderr

    with RunStore() as store:
        one, two = store.load_results(_run_id(first)), store.load_results(_run_id(second))
        assert [r.result for _c, _p, r in one] == [r.result for _c, _p, r in two]
        assert [p.intent for _c, p, _r in one] == [p.intent for _c, p, _r in two]
        assert not any(r.cached for _c, _p, r in one)
        assert all(r.cached and r.latency_ms is None for _c, _p, r in two)
        assert all(p.cached and p.latency_ms is None for _c, p, _r in two)
    shown = _cli("show", _run_id(second)).stdout
    assert "cached     8 answers from the answer cache" in shown and "latency    mean" not in shown
    # nothing in the store holds the token (the key is a digest, the answer the engine's)
    dump = "\n".join(sqlite3.connect(paths.store_path()).iterdump())
    assert SECRET not in dump


def test_a_bad_cache_setting_is_one_line_naming_the_profile(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "loop.suite.yaml", 2)
    (tmp_path / "engines.yaml").write_text(
        "engines:\n  paid:\n    type: rasa\n    url: http://127.0.0.1:9\n    cache_ttl: -3\n",
        encoding="utf-8",
    )
    bad = _cli("run", str(suite), "-e", "paid")
    assert bad.returncode == 2
    assert "engines.paid.cache_ttl" in bad.stderr and "positive" in bad.stderr
    both = _cli("run", str(suite), "-e", "paid", "--no-cache", "--cache-repeats")
    assert both.returncode == 2


def test_a_cached_llm_profile_keys_on_model_and_training_data(tmp_path: Path) -> None:
    """A loopback LLM counting requests: a second run sends 0; another model, edited training
    data or the other version is another engine (sent again); an error is never cached."""
    import shutil

    from llm_peer import LLMPeer, Reply, Request

    nlu = tmp_path / "mini.nlu.yml"
    shutil.copy(Path(__file__).parent / "fixtures" / "engines" / "mini.nlu.yml", nlu)

    def answer(request: Request) -> Reply:
        if request.last_user == "hello friend":
            return Reply('{"intent": "greet", "confidence": 0.9}')
        return Reply("not json at all")  # that case errors: never cached

    suite = tmp_path / "s.suite.yaml"
    suite.write_text(
        "nlu_tui_suite: 1\nname: llm\ncases:\n"
        "  - utterance: hello friend\n    intents: [greet]\n"
        "  - utterance: yep\n    intents: [affirm]\n",
        encoding="utf-8",
    )
    peer = LLMPeer(answer)

    def profile(model: str) -> None:
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  llm-bot:\n    type: llm\n    nlu: {nlu}\n    base_url: {url}\n"
            f"    model: {model}\n    api_key: ${{CACHE_TEST_TOKEN}}\n    retries: 0\n"
            "    cache: true\n",
            encoding="utf-8",
        )

    def run(*extra: str) -> int:
        before = len(peer.requests)
        done = _cli("run", str(suite), "-e", "llm-bot", *extra)
        assert done.returncode == 0, done.stdout + done.stderr
        return len(peer.requests) - before

    with peer.serving() as url:
        profile("tiny")
        assert run() == 2
        assert run() == 1  # the answer came from the cache; the error is asked again
        assert run("--stage", "published") == 2  # the other version: another engine
        profile("tiny-v2")
        assert run() == 2  # another model
        assert run() == 1
        nlu.write_text(nlu.read_text(encoding="utf-8") + "    - hiya\n", encoding="utf-8")
        assert run() == 2  # the training data changed
    assert all(r.headers["authorization"] == f"Bearer {SECRET}" for r in peer.requests)
    dump = "\n".join(sqlite3.connect(paths.store_path()).iterdump())
    assert SECRET not in dump
