"""Runner throughput against a loopback server with a fixed 20 ms latency, next to ``wrk``.

    .venv/bin/python bench/bench_runner_throughput.py [--cli-cases 20000] [--cases 5000]
        [--concurrency 50] [--rounds 3] [--cli-only]

Starts an aiohttp server speaking Rasa's ``POST /model/parse`` in its own process, then
measures, on that same server in the same run, interleaved:

1. ``wrk`` (the reference load generator; ``apt-get install wrk``) with 50 connections,
2. the whole ``nlu-tui run SUITE --engine rasa:URL --concurrency 50`` command, 20,000 cases,
   timed from starting the process to its exit (Python start-up, imports, reading the suite,
   the store, the engine, every result stored). The data folder (run store, parsed-suite
   cache) is kept between rounds as on a tester's machine; the suite's very first run, which
   parses the suite file and writes the cache, is printed on its own line,
3. the runner in this process (``run_suite``: engine, scoring, store, progress events),
4. for contrast, bare request loops: httpx on the aiohttp transport, and httpx's own pool.

and prints requests per second and the ratios to wrk (target for ``nlu-tui run``: at least
0.9), plus CPU time per case (the command's from ``getrusage``, this process's for the
in-process runs; the server runs in its own), which moves far less than the rates when other
programs load the machine. The targets: ``nlu-tui run`` at least 0.9 x wrk, and at most 200 us
of client CPU per case (the whole command, process start included).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LATENCY_S = 0.020
RATIO_TARGET = 0.9
"""`nlu-tui run` against wrk on the same server (issue 27)."""
CPU_TARGET_US = 200.0
"""The whole command's CPU time (user + system, process start included) per case (issue 27)."""
TEXT = "send 200 dollars to Leonardo"


# --- the server (child process) -----------------------------------------------------------------


def serve(port_file: str) -> None:
    from aiohttp import web

    body = json.dumps(
        {
            "text": TEXT,
            "intent": {"name": "transfer_money", "confidence": 0.93},
            "intent_ranking": [
                {"name": "transfer_money", "confidence": 0.93},
                {"name": "greet", "confidence": 0.04},
            ],
            "entities": [
                {"entity": "amount", "start": 5, "end": 16, "value": "200 dollars"},
                {"entity": "payee", "start": 20, "end": 28, "value": "Leonardo"},
            ],
        }
    )

    async def parse(request: web.Request) -> web.Response:
        await request.read()
        await asyncio.sleep(LATENCY_S)
        return web.Response(text=body, content_type="application/json")

    async def version(request: web.Request) -> web.Response:
        return web.json_response({"version": "3.6.21"})

    async def main() -> None:
        app = web.Application()
        app.router.add_post("/model/parse", parse)
        app.router.add_get("/version", version)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        await web.SockSite(runner, sock, backlog=1024).start()
        Path(port_file).write_text(str(sock.getsockname()[1]))
        await asyncio.Event().wait()

    asyncio.run(main())


def start_server() -> tuple[subprocess.Popen[bytes], str]:
    port_file = tempfile.mktemp(prefix="bench-port-")
    proc = subprocess.Popen([sys.executable, __file__, "--serve", port_file])
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if os.path.exists(port_file) and Path(port_file).read_text():
            port = Path(port_file).read_text()
            os.unlink(port_file)
            return proc, f"http://127.0.0.1:{port}"
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("server did not start")


# --- the measurements ---------------------------------------------------------------------------


def measure_wrk(url: str, concurrency: int, seconds: int) -> float | None:
    wrk = shutil.which("wrk")
    if wrk is None:
        print("wrk not found (apt-get install wrk); skipping the reference")
        return None
    fd, script = tempfile.mkstemp(suffix=".lua")
    with os.fdopen(fd, "w") as fh:
        fh.write(
            'wrk.method = "POST"\n'
            f"wrk.body = {json.dumps(json.dumps({'text': TEXT}))}\n"
            'wrk.headers["Content-Type"] = "application/json"\n'
        )
    out = subprocess.run(
        [wrk, "-t2", f"-c{concurrency}", f"-d{seconds}s", "-s", script, url + "/model/parse"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    os.unlink(script)
    match = re.search(r"Requests/sec:\s+([0-9.]+)", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        print(f"wrk saw {errors.group(1)} error responses")
    return float(match.group(1)) if match else None


async def measure_runner(url: str, cases: int, concurrency: int) -> tuple[float, str, float]:
    """The whole runner: engine, scoring, store and progress; timed from prepare to finish.

    Also returns this process's CPU time per case in that window (the server is another
    process): on a busy machine the rate swings with other load, the CPU cost per case much less.
    """
    from nlu_tui.engines.profiles import resolve_engine
    from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase
    from nlu_tui.runner import ProgressEvent, RunOptions, run_suite
    from nlu_tui.store import RunStore

    suite = Suite(
        name="bench",
        cases=[
            TestCase(
                utterance=TEXT,
                intents=[ExpectedIntent("transfer_money")],
                entities=[ExpectedEntity("payee", "Leonardo")],
                id=f"b{i:06d}",
            )
            for i in range(cases)
        ],
    )
    events: list[ProgressEvent] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(Path(tmp) / "runs.sqlite3")
        resolved = resolve_engine(f"rasa:{url}")
        began, cpu_began = time.perf_counter(), time.process_time()
        record = await run_suite(
            suite,
            resolved,
            store,
            options=RunOptions(concurrency=concurrency, retries=0),
            on_progress=events.append,
        )
        elapsed = time.perf_counter() - began
        cpu_us = (time.process_time() - cpu_began) / cases * 1e6
        stored = len(store.load_results(record.id))
        store.close()
    status = (
        f"status {record.status.value}, {stored} results stored, TP {record.tp}, "
        f"{len(events)} progress events in {elapsed:.2f} s"
    )
    return cases / elapsed, status, cpu_us


def write_suite(path: Path, cases: int) -> None:
    """A native suite file of ``cases`` copies of the benchmark's utterance."""
    from nlu_tui.formats.native import save_suite
    from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase

    suite = Suite(
        name="bench",
        cases=[
            TestCase(
                utterance=TEXT,
                intents=[ExpectedIntent("transfer_money")],
                entities=[ExpectedEntity("payee", "Leonardo")],
                id=f"b{i:06d}",
            )
            for i in range(cases)
        ],
    )
    save_suite(suite, path)


def measure_cli(
    url: str, suite: Path, cases: int, concurrency: int, data: Path
) -> tuple[float, str, float]:
    """The whole ``nlu-tui run`` command, as a user runs it: from starting the process (Python,
    imports, reading the suite, opening the store, the engine) to its exit, every result
    stored. ``data`` is the data folder (run store, parsed-suite cache), kept between rounds
    as on a tester's machine. Returns cases per second, a status line and the command's CPU
    time per case."""
    env = dict(os.environ, NLU_TUI_DATA_DIR=str(data), NLU_TUI_CONFIG_DIR=str(data))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed program has its bytecode
    cmd = [
        sys.executable,
        "-m",
        "nlu_tui",
        "run",
        str(suite),
        "--engine",
        f"rasa:{url}",
        "--concurrency",
        str(concurrency),
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"nlu-tui run exited {done.returncode}:\n{done.stderr[-2000:]}")
    import sqlite3

    with contextlib.closing(sqlite3.connect(data / "runs.sqlite3")) as db:
        run_id, status = db.execute(
            "SELECT id, status FROM runs ORDER BY started_at DESC LIMIT 1"
        ).fetchone()
        stored = db.execute("SELECT COUNT(*) FROM results WHERE run_id=?", (run_id,)).fetchone()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    line = f"exit 0, status {status}, {stored[0]} results stored, {elapsed:.2f} s"
    return cases / elapsed, line, cpu / cases * 1e6


async def measure_loop(
    url: str, requests: int, concurrency: int, *, aiohttp: bool
) -> tuple[float, float]:
    """Bare requests with ``concurrency`` workers on one client (no engine, scoring or store)."""
    import httpx

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    if aiohttp:
        from httpx_aiohttp import AiohttpTransport

        client = httpx.AsyncClient(transport=AiohttpTransport(limits=limits), limits=limits)
    else:
        client = httpx.AsyncClient(limits=limits)
    remaining = requests

    async def worker() -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            response = await client.post(url + "/model/parse", json={"text": TEXT})
            response.raise_for_status()
            response.json()

    async with client:
        await client.post(url + "/model/parse", json={"text": TEXT})  # warm up
        began, cpu_began = time.perf_counter(), time.process_time()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        cpu_us = (time.process_time() - cpu_began) / requests * 1e6
        return requests / (time.perf_counter() - began), cpu_us


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _fmt(values: list[float]) -> str:
    return f"{_median(values):8.0f}   (rounds: {', '.join(f'{v:.0f}' for v in values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=5000, help="cases of the in-process runs")
    parser.add_argument(
        "--cli-cases", type=int, default=20000, help="cases of the `nlu-tui run` command"
    )
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median shown)")
    parser.add_argument("--wrk-seconds", type=int, default=5)
    parser.add_argument("--httpx-requests", type=int, default=1000)
    parser.add_argument("--cli-only", action="store_true", help="only wrk and `nlu-tui run`")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    server, url = start_server()
    wrk: list[float] = []
    cli: list[float] = []
    cli_cpu: list[float] = []
    cli_details: list[str] = []
    ours: list[float] = []
    bare: list[float] = []
    details: list[str] = []
    ours_cpu: list[float] = []
    bare_cpu: list[float] = []
    try:
        print(
            f"loopback server {url}, {LATENCY_S * 1000:.0f} ms latency; "
            f"concurrency {args.concurrency}; {os.cpu_count()} CPUs; "
            f"load average {os.getloadavg()[0]:.2f}"
        )
        with tempfile.TemporaryDirectory() as tmp:
            suite = Path(tmp) / "bench.suite.yaml"
            write_suite(suite, args.cli_cases)
            data = Path(tmp) / "data"
            # the suite's first run: a fresh data folder, so the suite file is parsed (and
            # the parsed-suite cache written); later rounds run it again, as testers do
            cold, cold_detail, _cpu = measure_cli(
                url, suite, args.cli_cases, args.concurrency, data
            )
            for _ in range(args.rounds):
                w = measure_wrk(url, args.concurrency, args.wrk_seconds)
                if w is not None:
                    wrk.append(w)
                rate, detail, cpu_us = measure_cli(
                    url, suite, args.cli_cases, args.concurrency, data
                )
                cli.append(rate)
                cli_details.append(detail)
                cli_cpu.append(cpu_us)
                if args.cli_only:
                    continue
                rate, detail, cpu_us = asyncio.run(
                    measure_runner(url, args.cases, args.concurrency)
                )
                ours.append(rate)
                details.append(detail)
                ours_cpu.append(cpu_us)
                rate, cpu_us = asyncio.run(
                    measure_loop(url, args.cases, args.concurrency, aiohttp=True)
                )
                bare.append(rate)
                bare_cpu.append(cpu_us)
        print(
            f"ceiling (concurrency / latency)            {args.concurrency / LATENCY_S:8.0f} req/s"
        )
        if wrk:
            print(
                f"wrk -t2 -c{args.concurrency}, {args.wrk_seconds} s                    {_fmt(wrk)} req/s"
            )
        print(f"`nlu-tui run`, {args.cli_cases} cases, whole process  {_fmt(cli)} cases/s")
        print(f"  last round: {cli_details[-1]}; CPU {_median(cli_cpu):.0f} us per case")
        print(f"  the suite's first run (suite file parsed): {cold:.0f} cases/s; {cold_detail}")
        if not args.cli_only:
            print(f"nlu-tui runner in process, {args.cases} cases  {_fmt(ours)} cases/s")
            print(f"  last round: {details[-1]}")
            print(f"bare httpx + aiohttp transport loop       {_fmt(bare)} req/s")
            pool, _cpu = asyncio.run(
                measure_loop(url, args.httpx_requests, args.concurrency, aiohttp=False)
            )
            print(f"bare httpx default pool, {args.httpx_requests} requests      {pool:8.0f} req/s")
            print(
                f"client CPU per case (medians): runner {_median(ours_cpu):.0f} us, "
                f"bare aiohttp-transport loop {_median(bare_cpu):.0f} us"
            )
        cpu = _median(cli_cpu)
        verdict = "meets" if cpu <= CPU_TARGET_US else "misses"
        print(
            f"client CPU per case, `nlu-tui run` (median) {cpu:6.0f} us "
            f"({verdict} the {CPU_TARGET_US:.0f} us target; rounds: "
            f"{', '.join(f'{v:.0f}' for v in cli_cpu)})"
        )
        if wrk:
            ratio = _median(cli) / _median(wrk)
            verdict = "meets" if ratio >= RATIO_TARGET else "misses"
            print(
                f"ratio `nlu-tui run` / wrk (medians)       {ratio:8.2f}   "
                f"({verdict} the {RATIO_TARGET} target)"
            )
            print(f"ratio first run of the suite / wrk        {cold / _median(wrk):8.2f}")
            if not args.cli_only:
                print(
                    f"ratio runner in process / wrk             {_median(ours) / _median(wrk):8.2f}"
                )
                print(
                    f"ratio bare aiohttp-transport loop / wrk   {_median(bare) / _median(wrk):8.2f}"
                )
                print(f"ratio httpx default pool / wrk            {pool / _median(wrk):8.2f}")
        print(f"load average at the end {os.getloadavg()[0]:.2f}")
    finally:
        server.terminate()
        server.wait(5)


if __name__ == "__main__":
    main()
