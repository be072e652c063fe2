"""``kill -9`` of the CLI in the middle of a run of every kind (``run``, ``test e2e``,
``test stories``, ``test du``, ``simulate``), then ``--resume``: nothing lost (every item stored once), nothing sent twice (an
item stored before the kill is never sent again; one that was not is sent once more by the
resume, plus once if it was in flight). The engine's requests are counted per item by
:class:`fault_proxy.FaultProxy`, whose every item has its own text."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fault_proxy import FaultProxy

from nlu_tui.store import RunStore

N = 40


@contextmanager
def _engine(kind: str) -> Iterator[FaultProxy]:
    """The kind's loopback peer behind a proxy that delays each message (the run takes ~2 s)."""
    if kind == "suite":
        from runner_loopback import LoopbackNlu

        with LoopbackNlu() as nlu, FaultProxy(nlu.url, delay=0.1) as proxy:
            yield proxy
    elif kind == "stories":
        from http_handler_server import serving
        from test_conversation_stories_cli import PolicyHandler

        with serving(PolicyHandler) as url, FaultProxy(url, delay=0.1) as proxy:
            yield proxy
    elif kind == "du":
        from rasa_pro_peer import rasa_pro_server

        with rasa_pro_server() as (url, _state), FaultProxy(url, delay=0.1) as proxy:
            yield proxy
    else:
        from conversation_peer import BotState, handler_for
        from http_handler_server import serving

        with serving(handler_for(BotState())) as url, FaultProxy(url, delay=0.1) as proxy:
            yield proxy


def _write(kind: str, folder: Path) -> tuple[Path, dict[str, str]]:
    """The test file of ``kind`` with N items; each item's name -> the one text it sends."""
    texts = {f"case{i:03d}": f"hello number {i}" for i in range(N)}
    if kind == "suite":
        lines = ["name: loop", "cases:"]
        for name, text in texts.items():
            lines += [f"  - id: {name}", f"    utterance: {text}", "    intents: [greet]"]
        path = folder / "loop.suite.yaml"
    elif kind == "stories":  # each story's one user intent is its text (the proxy counts it)
        texts = {name: f"intent_{name}" for name in texts}
        lines = ['version: "3.1"', "stories:"]
        for name, intent in texts.items():
            lines += [f"  - story: {name}", "    steps:", f"      - intent: {intent}"]
            lines += ["      - action: action_listen"]
        path = folder / "stories.yml"
    elif kind == "simulate":  # each simulated user sends its start message, in one turn
        lines = ["scenarios:"]
        for name, text in texts.items():
            lines += [f"  - name: {name}", "    goal: Get greeted.", f"    start: {text}"]
            lines += ["    max_turns: 1"]
        path = folder / "scenarios.yml"
    elif kind == "e2e":
        lines = ["test_cases:"]
        for name, text in texts.items():
            lines += [f"  - test_case: {name}", "    steps:", f"      - user: {text}"]
            lines += ["      - bot: Hey!"]
        path = folder / "e2e.yml"
    else:
        lines = ["test_cases:"]
        for name, text in texts.items():
            lines += [f"  - test_case: {name}", "    steps:", f"      - user: {text}"]
            lines += ["        commands:", "          - start flow greet"]
        path = folder / "dut.yml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, texts


def _command(kind: str, path: Path, engine: str) -> list[str]:
    if kind == "suite":
        return ["run", str(path), "--engine", f"rasa:{engine}", "--concurrency", "2"]
    if kind in ("e2e", "stories"):
        return ["test", kind, str(path), "--engine", f"rasa:{engine}", "--concurrency", "2"]
    if kind == "simulate":
        return ["simulate", str(path), "--engine", f"rasa:{engine}", "--concurrency", "2"]
    return [
        "test", "du", str(path), "--engine", f"rasa-pro:{engine}", "--concurrency", "2",
        "--no-output",
    ]  # fmt: skip


def _resume(kind: str, run_id: str) -> list[str]:
    if kind == "suite":
        return ["run", "--resume", run_id]
    if kind in ("e2e", "stories"):
        return ["test", kind, "--resume", run_id]
    if kind == "simulate":
        return ["simulate", "--resume", run_id]
    return ["test", "du", "--resume", run_id, "--no-output"]


def _stored_names(store: RunStore, kind: str, run_id: str) -> list[str]:
    if kind == "suite":
        return sorted(store.done_case_ids(run_id))
    return sorted(str(i.data["name"]) for i in store.load_items(run_id))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["suite", "e2e", "stories", "du", "simulate"])
def test_kill_9_then_resume_loses_nothing_and_sends_nothing_twice(
    kind: str, tmp_path: Path
) -> None:
    store_path = Path(os.environ["NLU_TUI_DATA_DIR"]) / "runs.sqlite3"
    path, texts = _write(kind, tmp_path)
    with _engine(kind) as proxy:
        engine = proxy.url
        child = subprocess.Popen(
            [sys.executable, "-m", "nlu_tui", *_command(kind, path, engine)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        done = 0
        while time.monotonic() < deadline and done < 8:
            time.sleep(0.05)
            if store_path.exists():
                with RunStore(store_path, detect_interrupted=False) as store:
                    runs = store.list_runs()
                    done = runs[0].done if runs else 0
        assert done >= 8, child.stderr.read() if child.stderr else ""
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        time.sleep(0.3)  # let requests the child left in flight reach the server
        sent_before = dict(proxy.counts)
        with RunStore(store_path) as store:  # opening it marks the run interrupted
            (run,) = store.list_runs()
            assert run.status.value == "interrupted" and 8 <= run.done < N, run
            kept = _stored_names(store, kind, run.id)
        resumed = subprocess.run(
            [sys.executable, "-m", "nlu_tui", *_resume(kind, run.id)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert resumed.returncode in (0, 1), resumed.stderr + resumed.stdout
    with RunStore(store_path) as store:
        final = store.get_run(run.id)
        assert final.done == N and final.status.value in ("success", "success_with_warning")
        assert _stored_names(store, kind, run.id) == sorted(texts)  # each item once
    # the requests one item makes (a story asks the policy once per predicted action)
    (per_item,) = {proxy.counts[texts[name]] for name in kept}
    for name, text in texts.items():
        count = proxy.counts[text]
        if name in kept:
            assert count == per_item, f"{name} was stored before the kill but sent again"
        else:  # sent once by the resume, plus what it sent before if it was in flight
            again = count - sent_before.get(text, 0)
            assert again == per_item, (name, count, sent_before.get(text))
