"""Conversation tests: how much bounded concurrency buys.

N E2E test cases (4 user messages each, with expectations) against the scripted conversation
server of the tests (real HTTP on 127.0.0.1) that takes LATENCY seconds per message, run
through the conversation service with concurrency 1 and 8. Prints wall time, test cases per
second and the ratio against the ideal (the server's latency alone, per conversation and
divided by the concurrency), measured in the same run.

    .venv/bin/python bench/bench_conversations.py [N] [LATENCY]
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from conversation_peer import BotState, handler_for  # noqa: E402
from http_handler_server import serving  # noqa: E402

CASE = """\
  - test_case: case_{n}
    steps:
      - user: hello
      - bot: Hey!
      - user: book a table
      - utter: utter_ask_cuisine
      - user: italian
      - slot_was_set:
          - cuisine: italian
      - user: 2 people
      - bot: Booked for 2.
"""


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    latency = float(sys.argv[2]) if len(sys.argv) > 2 else 0.02
    work = Path(tempfile.mkdtemp(prefix="bench-conv-"))
    os.environ["NLU_TUI_DATA_DIR"] = str(work / "data")
    from nlu_tui.conversation.service import ConversationRequest, open_conversation_run
    from nlu_tui.store import RunStore

    path = work / "bench.e2e.yml"
    path.write_text("test_cases:\n" + "".join(CASE.format(n=i) for i in range(n)))
    state = BotState()
    state.delay = latency
    print(f"{n} test cases x 4 messages, server latency {latency * 1000:.0f} ms per message")
    print(f"{'concurrency':>11} {'wall s':>8} {'cases/s':>8} {'ideal s':>8} {'ideal/wall':>10}")
    with serving(handler_for(state)) as url:
        for width in (1, 8):
            store = RunStore()
            request = ConversationRequest(
                kind="e2e", path=path, engine=f"rasa:{url}", concurrency=width
            )
            run = open_conversation_run(request, store)
            began = time.perf_counter()
            final = asyncio.run(run.execute())
            wall = time.perf_counter() - began
            assert final.done == n and final.passed == n, final
            ideal = n * 4 * latency / width
            print(f"{width:>11} {wall:>8.2f} {n / wall:>8.1f} {ideal:>8.2f} {ideal / wall:>10.2f}")


if __name__ == "__main__":
    main()
