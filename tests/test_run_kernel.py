"""The run kernel's guarantees, the same for every kind of run (issue 22).

Each kind (NLU suite, E2E test cases, test stories, DUT test cases, simulated users) runs against its real
loopback peer behind :class:`fault_proxy.FaultProxy`, which faults the message requests:

- ``429`` with ``Retry-After: 3600``: the kernel waits at most ``retry_after_max`` per retry
  (the DUT loop once slept the full hour);
- a slow drip (headers, then one byte every 0.5 s): ``timeout: 3`` cuts the whole attempt at
  3 s and records a timeout error (the per-read timeout kept a case alive 20 s).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fault_proxy import FaultProxy

from nlu_tui.model import RunStatus
from nlu_tui.runner.options import RunOptions
from nlu_tui.store.records import RunRecord
from nlu_tui.store.runstore import RunStore

KINDS = ("suite", "e2e", "stories", "du", "simulate")
T = TypeVar("T")

E2E = """\
test_cases:
  - test_case: greet
    steps:
      - user: hello there
      - bot: Hey!
  - test_case: book
    steps:
      - user: book a table
      - utter: utter_ask_cuisine
"""

STORIES = """\
version: "3.1"
stories:
  - story: greet
    steps:
      - intent: greet
      - action: utter_greet
  - story: bye
    steps:
      - intent: goodbye
      - action: utter_goodbye
"""

SCENARIOS = """\
scenarios:
  - name: greet
    goal: Get greeted.
    start: hello there
    max_turns: 1
  - name: book
    goal: Book a table.
    start: book a table
    max_turns: 1
"""
"""Simulated users that need no LLM: each sends its ``start`` message, one turn."""


@contextmanager
def upstream(kind: str) -> Iterator[str]:
    """The kind's real loopback peer (its URL)."""
    if kind == "suite":
        from runner_loopback import LoopbackNlu

        with LoopbackNlu() as nlu:
            yield nlu.url
    elif kind == "stories":
        from http_handler_server import serving
        from test_conversation_stories_cli import PolicyHandler

        with serving(PolicyHandler) as url:
            yield url
    elif kind == "du":
        from rasa_pro_peer import rasa_pro_server

        with rasa_pro_server() as (url, _state):
            yield url
    else:
        from conversation_peer import BotState, handler_for
        from http_handler_server import serving

        with serving(handler_for(BotState())) as url:
            yield url


def run_kind(kind: str, url: str, tmp_path: Path, options: RunOptions) -> RunRecord:
    """Run two items of ``kind`` against the engine at ``url``; the final stored record (a
    run still going after a minute is canceled: a test of waits must not hang for an hour)."""
    store_path = tmp_path / "runs.db"
    if kind == "suite":
        from runner_loopback import make_suite

        from nlu_tui.engines.profiles import resolve_engine
        from nlu_tui.runner.run import run_suite

        resolved = resolve_engine(f"rasa:{url}")  # the real Rasa engine (an HTTP engine)
        with RunStore(store_path) as store:
            return asyncio.run(_bounded(run_suite(make_suite(2), resolved, store, options=options)))
    if kind in ("e2e", "stories"):
        from nlu_tui.conversation.service import ConversationRequest, open_conversation_run

        path = tmp_path / f"{kind}.yml"
        path.write_text(E2E if kind == "e2e" else STORIES, encoding="utf-8")
        with RunStore(store_path) as store:
            run = open_conversation_run(
                ConversationRequest(kind, path, engine=f"rasa:{url}"), store, options=options
            )
            return asyncio.run(_bounded(run.execute()))
    if kind == "simulate":
        from nlu_tui.conversation.simulate import SimulateRequest, open_simulate_run

        path = tmp_path / "scenarios.yml"
        path.write_text(SCENARIOS, encoding="utf-8")
        with RunStore(store_path) as store:
            run = open_simulate_run(
                SimulateRequest(path, engine=f"rasa:{url}"), store, options=options
            )
            return asyncio.run(_bounded(run.execute()))
    from test_dut_rasa_pro import DUT

    from nlu_tui.dut.service import DutRequest, run_dut

    path = tmp_path / "dut.yml"
    path.write_text(DUT, encoding="utf-8")
    request = DutRequest(path, f"rasa-pro:{url}", options=options, store_path=store_path)
    return asyncio.run(_bounded(run_dut(request))).run


async def _bounded(work: Coroutine[Any, Any, T]) -> T:
    return await asyncio.wait_for(work, 60)


def errors_of(record: RunRecord, tmp_path: Path) -> list[str]:
    """The stored error reason of every item (or case) of the run."""
    with RunStore(tmp_path / "runs.db") as store:
        if record.kind == "suite":
            return [r.error or "" for _c, _p, r in store.load_results(record.id)]
        out: list[str] = []
        for item in store.load_items(record.id):
            if item.outcome == "error" and "error" in item.data:
                out.append(str(item.data["error"]))
            for step in (item.data.get("steps") or {}).values():  # DUT: per step
                if isinstance(step, dict) and step.get("error"):
                    out.append(str(step["error"]))
        return out


@pytest.mark.parametrize("kind", KINDS)
def test_a_retry_after_of_an_hour_waits_at_most_retry_after_max(kind: str, tmp_path: Path) -> None:
    options = RunOptions(concurrency=1, retries=2, retry_after_max=1.0, timeout=10)
    with upstream(kind) as url, FaultProxy(url, fault="429") as proxy:
        began = time.monotonic()
        record = run_kind(kind, proxy.url, tmp_path, options)
        took = time.monotonic() - began
    arrivals = [at for at, _text in proxy.arrivals]
    assert arrivals, "no message request reached the engine"
    # every message was tried 3 times (1 + 2 retries; DUT steps replay a case's earlier
    # messages, so a text may be sent by several steps), and the waits between requests were
    # at most ~retry_after_max: never the hour the server asked for
    assert all(n % 3 == 0 for n in proxy.counts.values()), proxy.counts
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    assert gaps and max(gaps) < 1.0 + 0.8, gaps
    assert max(gaps) >= 0.9, gaps  # it did wait (retry_after_max, not the short backoff)
    assert took < 30
    reasons = errors_of(record, tmp_path)
    assert reasons and all("HTTP 429" in r and "after 3 attempts" in r for r in reasons), reasons


@pytest.mark.parametrize("kind", KINDS)
def test_a_trickling_answer_is_cut_at_the_attempt_deadline(kind: str, tmp_path: Path) -> None:
    options = RunOptions(concurrency=2, retries=0, timeout=3.0)
    with upstream(kind) as url, FaultProxy(url, fault="drip") as proxy:
        began = time.monotonic()
        record = run_kind(kind, proxy.url, tmp_path, options)
        took = time.monotonic() - began
    assert proxy.counts, "no message request reached the engine"
    # every attempt hung up at the deadline (the proxy saw each client leave within 3.5 s),
    # and the run did not wait for the drips to end (a minute each)
    assert len(proxy.held) == sum(proxy.counts.values()), (proxy.held, proxy.counts)
    assert all(2.9 <= held <= 3.5 for held in proxy.held), proxy.held
    assert took < 30, took
    reasons = errors_of(record, tmp_path)
    assert reasons and all(r.startswith("timed out") for r in reasons), reasons
    assert record.status is not RunStatus.SUCCESS


def test_the_held_out_evaluation_parses_on_the_kernel_with_the_attempt_deadline(
    tmp_path: Path,
) -> None:
    """``test nlu`` without training parses through the kernel too (runner/parse_all.py)."""
    from runner_loopback import LoopbackNlu, make_suite

    from nlu_tui.engines.profiles import resolve_engine
    from nlu_tui.runner.parse_all import parse_all

    suite = make_suite(2)
    with LoopbackNlu() as nlu, FaultProxy(nlu.url, fault="drip") as proxy:
        engine = resolve_engine(f"rasa:{proxy.url}").engine
        with RunStore(tmp_path / "runs.db") as store:
            record = store.create_run(suite, engine_name="rasa", engine_profile={})
            began = time.monotonic()
            predictions = asyncio.run(
                _bounded(parse_all(engine, suite.cases, record, RunOptions(retries=0, timeout=3)))
            )
            took = time.monotonic() - began
    assert [p.error for p in predictions] == ["timed out", "timed out"]
    assert all(2.9 <= held <= 3.5 for held in proxy.held), proxy.held
    assert took < 30
