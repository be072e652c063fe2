"""First screen of the workbench in a real terminal, next to the floor of any Textual app.

    .venv/bin/python bench/bench_startup.py [--rounds 7] [--size 120x35]

Starts ``nlu-tui WORKSPACE`` (the console script's own code path: ``python -m nlu_tui``) in a
real pseudo-terminal, reads what it paints, and notes the time of three stages: the suites
panel lists the workspace's suite and the footer shows its keys; the first cases are shown (the
first full screen: the target); the cases table itself is ready (its status line counts the
rows it shows: until then the first rows are a preview drawn without Arrow). In the same run,
and interleaved with it, the same is measured for

- the floor: a minimal Textual app (a Static and the Footer) started the same way, i.e. Python
  start-up, importing Textual, the driver and the first paint, which no Textual app can beat;
- ``python -c pass`` (the interpreter alone).

It prints min and median wall time per program, the child's CPU time at the moment the screen
was complete (read from ``/proc``: far steadier than wall time when other programs load the
machine), the ratio of nlu-tui to the floor, and the target (first screen < 0.5 s). It also
counts the modules imported before the first paint (a headless run of the same app) and lists
the heavy ones that should not be among them.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 0.5
ANSI = re.compile(
    rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|P[^\x1b]*\x1b\\|[@-Z\\-_])"
)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

FLOOR_APP = textwrap.dedent(
    """
    from textual.app import App
    from textual.widgets import Footer, Static

    class Floor(App[None]):
        BINDINGS = [("q", "quit", "Quit"), ("n", "new", "New")]

        def compose(self):
            yield Static("Banking bot  the floor of any Textual app")
            yield Footer()

    Floor().run()
    """
)

HEAVY = (
    "pyarrow",
    "numpy",
    "sklearn",
    "httpx",
    "aiohttp",
    "orjson",
    "yaml",
    "ruamel",
    "sqlite3",
    "nlu_tui.formats",
    "nlu_tui.store",
    "nlu_tui.engines",
    "nlu_tui.runner",
    "nlu_tui.scoring",
    "nlu_tui.reports",
)
"""Top-level packages that the first screen does not need (imported later, in workers)."""


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process (all its threads so far)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def first_screen(
    cmd: list[str],
    stages: list[list[bytes]],
    env: dict[str, str],
    size: tuple[int, int],
    timeout: float,
) -> list[tuple[float, float]]:
    """Start ``cmd`` in a pseudo-terminal; for each stage, (wall seconds, child CPU seconds)
    until all of its markers have been painted (escape sequences are removed from the output
    before looking, and each stage includes the ones before it)."""
    master, slave = os.openpty()
    cols, rows = size
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    began = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, cwd=ROOT
    )
    os.close(slave)
    raw = b""
    seen: list[tuple[float, float]] = []
    wanted: list[bytes] = []
    try:
        while True:
            left = timeout - (time.perf_counter() - began)
            if left <= 0:
                tail = ANSI.sub(b"", raw)[-400:]
                raise SystemExit(f"no first screen after {timeout} s: {cmd}\n{tail!r}")
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise SystemExit(f"{cmd} ended before its first screen:\n{ANSI.sub(b'', raw)!r}")
            raw += chunk
            text = ANSI.sub(b"", raw)
            while len(seen) < len(stages):
                wanted = [*wanted, *stages[len(seen)]]
                if not all(marker in text for marker in wanted):
                    break
                seen.append((time.perf_counter() - began, _cpu_seconds(proc.pid)))
            if len(seen) == len(stages):
                return seen
            wanted = [m for stage in stages[: len(seen)] for m in stage]
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        os.close(master)


def modules_before_first_paint(env: dict[str, str], workspace: Path) -> list[str]:
    """Module names loaded when the workbench puts its suites list on screen (a headless run
    of the same app; ``sys.modules`` is read in the UI thread as the list is shown, and printed
    at once: the probe then quits while the rest of the screen may still be mounting, which
    must not lose the list)."""
    probe = textwrap.dedent(
        f"""
        import asyncio, sys
        from nlu_tui.ui.app import NluTuiApp
        from nlu_tui.ui.widgets.suites_panel import SuitesPanel
        from nlu_tui.workspace import open_workspace

        seen = []
        show = SuitesPanel._show

        def spy(self, infos, select):
            if not seen:  # a None entry marks a module absent: not loaded
                seen.extend(sorted(n for n, m in sys.modules.items() if m is not None))
                print("\\n".join(seen), flush=True)
            return show(self, infos, select)

        SuitesPanel._show = spy

        async def main():
            app = NluTuiApp(open_workspace({str(workspace)!r}))
            async with app.run_test(size=(120, 35)) as pilot:
                for _ in range(1000):
                    await pilot.pause(0.01)
                    if seen:
                        break
                await app.workers.wait_for_complete()
                await pilot.pause(0.5)

        asyncio.run(main())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=False
    )
    if not done.stdout.strip():
        raise SystemExit(f"the first-paint probe listed no modules:\n{done.stderr[-2000:]}")
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or ["?"]
        print(f"(the first-paint probe exited {done.returncode} after listing: {last[0]})")
    return done.stdout.split()


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", default="120x35", help="terminal COLSxROWS")
    parser.add_argument("--timeout", type=float, default=30.0)
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.split("x"))

    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "workspace"
        workspace.mkdir()
        for name in ("banking_bot.suite.yaml", "banking_bot.nlu.yml"):
            shutil.copy(ROOT / "sample_suites" / name, workspace / name)
        env = dict(os.environ)
        env.update(
            TERM="xterm-256color",
            COLORTERM="truecolor",
            NLU_TUI_DATA_DIR=str(Path(tmp) / "data"),
            NLU_TUI_CONFIG_DIR=str(Path(tmp) / "config"),
        )
        # an installed program starts from compiled bytecode (pip writes it); without it every
        # module of nlu_tui is compiled from source on each start, which no user pays
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.pop("TEXTUAL", None)
        ours, floor = "nlu-tui WORKSPACE", "floor: minimal Textual app"
        programs: dict[str, tuple[list[str], list[tuple[str, list[bytes]]]]] = {
            ours: (
                [sys.executable, "-m", "nlu_tui", str(workspace)],
                [
                    ("suites panel and footer", [b"Banking bot", b"Quit"]),
                    ("first cases shown (first full screen)", [b"how much money"]),
                    # the cases table itself (its status line counts the rows it shows), which
                    # replaces the first rows' preview once Arrow is loaded
                    ("cases table ready", [b"54 of 54 cases"]),
                ],
            ),
            floor: ([sys.executable, "-c", FLOOR_APP], [("painted", [b"Banking bot", b"Quit"])]),
        }
        wall: dict[tuple[str, str], list[float]] = {}
        cpu: dict[tuple[str, str], list[float]] = {}
        python_alone: list[float] = []
        print(
            f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, "
            f"terminal {cols}x{rows}, {args.rounds} rounds (interleaved)"
        )
        for cmd, stages in programs.values():  # compile bytecode, warm the file cache
            first_screen(cmd, [m for _, m in stages], env, (cols, rows), args.timeout)
        for _ in range(args.rounds):
            began = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True, env=env)
            python_alone.append(time.perf_counter() - began)
            for name, (cmd, stages) in programs.items():
                seen = first_screen(cmd, [m for _, m in stages], env, (cols, rows), args.timeout)
                for (label, _), (w, c) in zip(stages, seen, strict=True):
                    wall.setdefault((name, label), []).append(w)
                    cpu.setdefault((name, label), []).append(c)

        print(f"{'program: stage':58} {'min':>6} {'median':>6} {'CPU':>5}  (rounds, s)")
        for (name, label), values in wall.items():
            rounds = ", ".join(f"{v:.3f}" for v in values)
            print(
                f"{name + ': ' + label:58} {min(values):6.3f} {_median(values):6.3f} "
                f"{_median(cpu[name, label]):5.2f}  ({rounds})"
            )
        print(f"{'python -c pass':58} {min(python_alone):6.3f} {_median(python_alone):6.3f}")
        first_full = "first cases shown (first full screen)"
        full, full_cpu = wall[ours, first_full], cpu[ours, first_full]
        base, base_cpu = wall[floor, "painted"], cpu[floor, "painted"]
        print(
            f"ratio first full screen / floor: wall (min) {min(full) / min(base):.2f}, "
            f"wall (median) {_median(full) / _median(base):.2f}, "
            f"CPU (median) {_median(full_cpu) / max(_median(base_cpu), 1e-9):.2f}"
        )
        verdict = "meets" if _median(full) < TARGET_S else "misses"
        print(
            f"first full screen (median) {_median(full):.3f} s: {verdict} the < {TARGET_S} s "
            "target (on a loaded machine, judge by the ratio to the floor)"
        )

        modules = modules_before_first_paint(env, workspace)
        heavy = sorted(
            {
                ".".join(m.split(".")[:2]) if m.startswith("nlu_tui.") else m.split(".")[0]
                for m in modules
                if any(m == h or m.startswith(h + ".") for h in HEAVY)
            }
        )
        ours_count = sum(1 for m in modules if m.startswith("nlu_tui"))
        print(
            f"modules loaded when the suites panel is first shown: {len(modules)} "
            f"({ours_count} of nlu_tui); heavy ones among them: {', '.join(heavy) or 'none'}"
        )
        print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
