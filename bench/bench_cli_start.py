"""Start-up of the command line: ``nlu-tui --help`` and a one-case ``nlu-tui run``, next to Python.

    .venv/bin/python bench/bench_cli_start.py [--rounds 9] [--embedded]

Times, from starting the process to its exit, interleaved round by round:

- ``python -c pass`` (the interpreter alone) and ``python -c "import asyncio, yaml"`` (the
  least a run that reads a YAML suite and talks over the network must load): the references;
- ``nlu-tui --help`` (target: 0.1 s);
- ``nlu-tui run SUITE --engine rasa:URL``, a suite of one case against a loopback HTTP engine
  speaking Rasa's ``POST /model/parse`` (a threaded server in this process, answering at once)
  (target: 0.4 s). The data folder (run store, parsed-suite cache) is kept between rounds, as
  on a tester's machine; the very first run is not counted;
- with ``--embedded``, also the same run on the embedded engine, its model trained once before
  the rounds and then loaded from the model cache;
- with ``--base DIR``, the nlu-tui commands again from another checkout of the project (e.g. a
  ``git archive`` of an older commit), interleaved, each with its own data folder: a before and
  after in one run.

For each it prints min and median wall time and the median CPU time (user + system, from
``wait4``: far steadier than wall time when other programs load the machine), and the load
average, so that a figure can be judged against the references measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HELP_TARGET_S = 0.1
RUN_TARGET_S = 0.4
TEXT = "send 200 dollars to Leonardo"
ANSWER = json.dumps(
    {
        "text": TEXT,
        "intent": {"name": "transfer_money", "confidence": 0.93},
        "intent_ranking": [{"name": "transfer_money", "confidence": 0.93}],
        "entities": [{"entity": "payee", "start": 20, "end": 28, "value": "Leonardo"}],
    }
).encode()
SUITE = f"""nlu_tui_suite: 1
name: one case
cases:
  - id: c1
    utterance: {TEXT}
    intents: [transfer_money]
"""


class RasaParse(BaseHTTPRequestHandler):
    """Rasa's ``POST /model/parse`` and ``GET /version``, answered at once."""

    protocol_version = "HTTP/1.1"

    def _send(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self._send(ANSWER)

    def do_GET(self) -> None:
        self._send(b'{"version": "3.6.21"}')

    def log_message(self, format: str, *args: object) -> None:
        pass


def timed(
    cmd: list[str], env: dict[str, str], expect: int = 0, cwd: Path = ROOT
) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of ``cmd`` from start to exit; its output is discarded.
    ``cwd`` matters: ``python -m nlu_tui`` imports the package from the working directory."""
    began = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - began
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if code != expect:
        raise SystemExit(f"{' '.join(cmd)} exited {code} (expected {expect}):\n{err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--embedded", action="store_true", help="also a one-case run on the embedded engine"
    )
    parser.add_argument(
        "--base",
        type=Path,
        metavar="DIR",
        help="also run the nlu-tui commands from this other checkout (interleaved)",
    )
    args = parser.parse_args()

    server = ThreadingHTTPServer(("127.0.0.1", 0), RasaParse)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "one.suite.yaml"
        suite.write_text(SUITE, encoding="utf-8")
        nlu = [sys.executable, "-m", "nlu_tui"]
        training = Path(tmp) / "banking_bot.nlu.yml"
        shutil.copy(ROOT / "sample_suites" / "banking_bot.nlu.yml", training)
        trees = {"": ROOT}
        if args.base is not None:
            trees = {"": ROOT, "base: ": args.base.resolve()}
        # name: (command, target, tree, environment)
        programs: dict[str, tuple[list[str], float | None, Path, dict[str, str]]] = {}
        for label, tree in trees.items():
            data = Path(tmp) / f"data{len(programs)}"
            env = dict(os.environ, NLU_TUI_DATA_DIR=str(data), NLU_TUI_CONFIG_DIR=str(data))
            env["PYTHONPATH"] = str(tree)
            # an installed program starts from compiled bytecode (pip writes it); without it
            # every module is compiled from source on each start, which no user pays
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            if not label:
                programs["python -c pass"] = ([sys.executable, "-c", "pass"], None, tree, env)
                programs["python -c 'import asyncio, yaml'"] = (
                    [sys.executable, "-c", "import asyncio, yaml"],
                    None,
                    tree,
                    env,
                )
            programs[f"{label}nlu-tui --help"] = ([*nlu, "--help"], HELP_TARGET_S, tree, env)
            programs[f"{label}nlu-tui run (1 case, loopback HTTP engine)"] = (
                [*nlu, "run", str(suite), "--engine", f"rasa:{url}"],
                RUN_TARGET_S,
                tree,
                env,
            )
            if args.embedded:
                programs[f"{label}nlu-tui run (1 case, embedded engine, model cache)"] = (
                    [*nlu, "run", str(suite), "--engine", f"embedded:{training}"],
                    RUN_TARGET_S,
                    tree,
                    env,
                )
        print(
            f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, "
            f"{args.rounds} rounds (interleaved)"
        )
        for cmd, _, tree, env in programs.values():  # bytecode, file cache, store, model cache
            timed(cmd, env, cwd=tree)
        wall: dict[str, list[float]] = {name: [] for name in programs}
        cpu: dict[str, list[float]] = {name: [] for name in programs}
        for _ in range(args.rounds):
            for name, (cmd, _, tree, env) in programs.items():
                w, c = timed(cmd, env, cwd=tree)
                wall[name].append(w)
                cpu[name].append(c)
        server.shutdown()

        print(f"{'program':58} {'min':>6} {'median':>6} {'CPU':>6}  target (s)")
        for name, (_, target, _, _) in programs.items():
            verdict = ""
            if target is not None:
                met = "met" if _median(wall[name]) <= target else "missed"
                verdict = f"<= {target} (median wall: {met})"
            print(
                f"{name:58} {min(wall[name]):6.3f} {_median(wall[name]):6.3f} "
                f"{_median(cpu[name]):6.3f}  {verdict}"
            )
        print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
