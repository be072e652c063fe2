"""Runner throughput against a loopback server with a fixed 20 ms latency, next to ``wrk``.

    .venv/bin/python bench/bench_runner_throughput.py [--cases 5000] [--concurrency 50]

Starts an aiohttp server speaking Rasa's ``POST /model/parse`` in its own process, then
measures, on that same server in the same run:

1. ``wrk`` (the reference load generator; ``apt-get install wrk``) with 50 connections,
2. the whole nlu-tui runner: ``run_suite`` with the Rasa engine, scoring, the SQLite store and
   progress events, 5,000 cases at concurrency 50 (httpx on the aiohttp transport),
3. for contrast, bare request loops: httpx on the aiohttp transport, and httpx's own pool.

and prints requests per second and our ratio to wrk (target: at least 0.9), plus the client's
CPU time per case (this process only; the server runs in its own), which moves far less than
the rates when other programs load the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LATENCY_S = 0.020
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
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median shown)")
    parser.add_argument("--wrk-seconds", type=int, default=5)
    parser.add_argument("--httpx-requests", type=int, default=1000)
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    server, url = start_server()
    wrk: list[float] = []
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
        for _ in range(args.rounds):
            w = measure_wrk(url, args.concurrency, args.wrk_seconds)
            if w is not None:
                wrk.append(w)
            rate, detail, cpu_us = asyncio.run(measure_runner(url, args.cases, args.concurrency))
            ours.append(rate)
            details.append(detail)
            ours_cpu.append(cpu_us)
            rate, cpu_us = asyncio.run(
                measure_loop(url, args.cases, args.concurrency, aiohttp=True)
            )
            bare.append(rate)
            bare_cpu.append(cpu_us)
        pool, _cpu = asyncio.run(
            measure_loop(url, args.httpx_requests, args.concurrency, aiohttp=False)
        )
        print(
            f"ceiling (concurrency / latency)            {args.concurrency / LATENCY_S:8.0f} req/s"
        )
        if wrk:
            print(
                f"wrk -t2 -c{args.concurrency}, {args.wrk_seconds} s                    {_fmt(wrk)} req/s"
            )
        print(f"nlu-tui runner, {args.cases} cases              {_fmt(ours)} cases/s")
        print(f"  last round: {details[-1]}")
        print(f"bare httpx + aiohttp transport loop       {_fmt(bare)} req/s")
        print(f"bare httpx default pool, {args.httpx_requests} requests      {pool:8.0f} req/s")
        print(
            f"client CPU per case (medians): runner {_median(ours_cpu):.0f} us, "
            f"bare aiohttp-transport loop {_median(bare_cpu):.0f} us"
        )
        if wrk:
            ratio = _median(ours) / _median(wrk)
            transport = _median(bare) / _median(wrk)
            verdict = "meets" if ratio >= 0.9 else "misses"
            print(
                f"ratio runner / wrk (medians)              {ratio:8.2f}   ({verdict} the 0.9 target)"
            )
            print(f"ratio bare aiohttp-transport loop / wrk   {transport:8.2f}")
            print(f"ratio httpx default pool / wrk            {pool / _median(wrk):8.2f}")
        print(f"load average at the end {os.getloadavg()[0]:.2f}")
    finally:
        server.terminate()
        server.wait(5)


if __name__ == "__main__":
    main()
