"""How soon the workbench hears of another writer's run: from a process's commit of a new run
to :meth:`nlu_tui.store.changes.ChangeFeed.wait` returning in this one, on PostgreSQL
(LISTEN/NOTIFY, started by the script with the machine's binaries: tests/postgres_peer.py) and
on SQLite (a poll of the change counter every 0.5 s).

    PYTHONPATH=. .venv/bin/python bench/bench_change_feed.py [N]

The writer prints the time right after ``create_run`` returned, so a wake before that (the
notification is sent at the commit) shows as about 0 ms.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from postgres_peer import PASSWORD, postgres_server

from nlu_tui.store import RunStore
from nlu_tui.store.changes import ChangeFeed

WRITER = r"""
import sys, time
from nlu_tui.model import Suite, TestCase
from nlu_tui.store import RunStore
store = RunStore(sys.argv[1])
for _ in range(int(sys.argv[2])):
    time.sleep(0.7)
    store.create_run(Suite(name="s", cases=[TestCase("hi", id="c0")]), engine_name="e")
    print(time.time(), flush=True)
"""


def measure(where: Path | str, n: int) -> tuple[float, float]:
    RunStore(where).close()
    feed = ChangeFeed(where)
    feed.prime()
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(where), str(n)], stdout=subprocess.PIPE, text=True
    )
    wakes: list[float] = []
    while len(wakes) < n:
        if feed.wait(30.0):
            wakes.append(time.time())
    assert writer.stdout is not None
    commits = [float(line) for line in writer.stdout.read().split()]
    writer.wait()
    feed.close()
    latencies = [max(w - c, 0.0) * 1000 for w, c in zip(wakes, commits, strict=True)]
    return statistics.median(latencies), max(latencies)


def main() -> None:
    import psycopg

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    with postgres_server() as (host, port):
        name = f"bench_{uuid.uuid4().hex[:8]}"
        admin = f"postgresql://postgres:{PASSWORD}@{host}:{port}/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        median, worst = measure(f"postgresql://postgres:{PASSWORD}@{host}:{port}/{name}", n)
        print(f"PostgreSQL (LISTEN/NOTIFY): median {median:.1f} ms, max {worst:.1f} ms")
    with tempfile.TemporaryDirectory() as folder:
        median, worst = measure(Path(folder) / "runs.sqlite3", n)
        print(f"SQLite (poll every 0.5 s):  median {median:.1f} ms, max {worst:.1f} ms")


if __name__ == "__main__":
    main()
