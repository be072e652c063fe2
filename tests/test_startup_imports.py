"""Start-up work: what the workbench and ``--help`` import before they show anything.

Not timed (timings belong in ``bench/bench_startup.py``): these tests count modules, which
does not depend on the machine's load. Each runs in a fresh interpreter, since this test
process has long since imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

SAMPLE = Path(__file__).resolve().parent.parent / "sample_suites"

HEAVY = (
    "pyarrow",
    "numpy",
    "sklearn",
    "matplotlib",
    "PIL",
    "httpx",
    "httpx_aiohttp",
    "aiohttp",
    "orjson",
    "sqlite3",
    "textual_fastdatatable",
    "nlu_tui.store",
    "nlu_tui.runner",
    "nlu_tui.engines",
    "nlu_tui.scoring",
    "nlu_tui.reports",
    "nlu_tui.compare",
    # plug-in discovery scans every installed distribution's metadata (~50 ms for the import
    # alone): it waits until an engine or a format is needed
    "nlu_tui.plugins",
    "importlib.metadata",
)
"""Not needed for the workbench's first screen: imported in workers or on first use."""

FIRST_PAINT_NEVER = (
    *HEAVY,
    # JSONPath: only a suite with raw checks compiles one (the suites are read for the first
    # screen, the sample suite has none)
    "jsonpath",
    # conversation formats: only for a conversation file (*.e2e.yml, or YAML in a tests/
    # folder), not for listing a workspace of suites
    "nlu_tui.conversation_model",
    "nlu_tui.conversation_assertions",
    "nlu_tui.formats.e2e_cases",
    "nlu_tui.formats.e2e_assertions",
    # httpx's command line (click, Pygments): no engine is called for the first screen
    "click",
    "pygments",
    # the training data reader: the developer utterances of the training files are listed
    # once the first screen is up (the suites and the first cases come first)
    "nlu_tui.formats.rasa_yaml",
    # Textual's TextArea (about 10 ms): the dialogs' multi-line fields, not the cases filter
    "textual.widgets._text_area",
    "textual.document",
)
"""What the workbench's first screen (the suites list) must not have imported; the run store
(:data:`HEAVY`) too, even when it holds runs: the last runs are read after that screen."""


def _loaded(names: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in prefixes))


def _python(code: str, tmp_path: Path) -> str:
    env = dict(os.environ)
    env["NLU_TUI_DATA_DIR"] = str(tmp_path / "data")
    env["NLU_TUI_CONFIG_DIR"] = str(tmp_path / "config")
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_first_paint_of_the_workbench_imports_nothing_heavy(tmp_path: Path) -> None:
    """Snapshot ``sys.modules`` when the suites list is put on screen: the Runs and Results
    panes, pyarrow (the cases table's, loaded by a worker), the engines, the training data
    beside the suite and the run store (which holds a run of it) wait."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    for name in ("banking_bot.suite.yaml", "banking_bot.nlu.yml"):
        (workspace / name).write_bytes((SAMPLE / name).read_bytes())
    _python(  # a run of the suite in the store (every case errors: no engine there)
        f"""
        import contextlib, io
        from nlu_tui.cli.main import run
        with contextlib.redirect_stdout(io.StringIO()):
            code = run(["run", {str(workspace / "banking_bot.suite.yaml")!r},
                        "-e", "rasa:http://127.0.0.1:9", "--retries", "0"])
        assert code == 3, code
        """,
        tmp_path,
    )
    assert (tmp_path / "data").is_dir()
    out = _python(
        f"""
        import asyncio, json, sys
        from nlu_tui.ui.app import NluTuiApp
        from nlu_tui.workspace import open_workspace
        from nlu_tui.ui.widgets.suites_panel import SuitesPanel

        seen = {{}}
        show = SuitesPanel._show

        def spy(self, infos, select):
            seen.setdefault("modules", sorted(n for n, m in sys.modules.items() if m is not None))
            seen.setdefault("suites", [info.name for info in infos])
            return show(self, infos, select)

        SuitesPanel._show = spy

        async def main():
            app = NluTuiApp(open_workspace({str(workspace)!r}), user_themes=False)
            async with app.run_test(size=(120, 35)) as pilot:
                for _ in range(1000):
                    await pilot.pause(0.01)
                    if seen:
                        break

        asyncio.run(main())
        print(json.dumps(seen))
        """,
        tmp_path,
    )
    seen = json.loads(out)
    assert seen["suites"] == ["Banking bot"]
    assert _loaded(seen["modules"], FIRST_PAINT_NEVER) == []


def test_settled_workbench_on_an_empty_workspace_never_loads_arrow(tmp_path: Path) -> None:
    """With nothing to show, nothing needs pyarrow: the Results pane used to build an empty
    Arrow table on the UI thread when it was mounted (about 0.1 s of the start-up)."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    out = _python(
        f"""
        import asyncio, json, sys
        from nlu_tui.ui.app import NluTuiApp
        from nlu_tui.workspace import open_workspace
        from nlu_tui.ui.widgets.results_pane import ResultsPane

        async def main():
            app = NluTuiApp(open_workspace({str(workspace)!r}), user_themes=False)
            async with app.run_test(size=(120, 35)) as pilot:
                for _ in range(1000):
                    await pilot.pause(0.01)
                    if app.screen.query(ResultsPane):
                        break
                await app.workers.wait_for_complete()
                await pilot.pause(0.2)
                assert app.screen.query(ResultsPane)
                return sorted(n for n, m in sys.modules.items() if m is not None)

        print(json.dumps(asyncio.run(main())))
        """,
        tmp_path,
    )
    names = json.loads(out)
    assert "nlu_tui.ui.widgets.results_table" in names
    assert _loaded(names, ("pyarrow", "numpy", "textual_fastdatatable", "sklearn")) == []


HELP_NEVER = (
    "textual",
    "rich",
    "click",
    "pygments",
    "yaml",
    "nlu_tui.ui",
    "nlu_tui.formats",
    # what only a command's handler needs: building the parser imports none of it
    "asyncio",
    "concurrent",
    "socket",
    "ssl",
    "selectors",
    "subprocess",
    "logging",
    "json",
    "datetime",
    "uuid",
    "hashlib",
    "secrets",
    "difflib",
    "dataclasses",
    "inspect",
    "nlu_tui.model",
    "nlu_tui.errors",
    "nlu_tui.extras",
    "nlu_tui.runservice",
    # the defaults the help shows are read from nlu_tui.defaults, not from the modules that
    # use them (which define dataclasses)
    "nlu_tui.coverage",
    "nlu_tui.trends",
)
"""What ``nlu-tui --help`` (building the parser of every command) must not import, on top of
:data:`HEAVY`: the command modules import their handlers' needs when a handler runs, and the
defaults the help shows come from :mod:`nlu_tui.defaults`, which imports nothing."""


def test_help_imports_neither_textual_nor_heavy_modules(tmp_path: Path) -> None:
    out = _python(
        """
        import contextlib, io, sys
        from nlu_tui.cli.main import run
        with contextlib.redirect_stdout(io.StringIO()) as text:
            try:
                run(["--help"])
            except SystemExit:
                pass
        assert "usage: nlu-tui" in text.getvalue()
        names = sorted(n for n, m in sys.modules.items() if m is not None)
        print("\\n".join(names))  # not json: this probe imports nothing of its own
        """,
        tmp_path,
    )
    names = out.split()
    assert "nlu_tui.cli.main" in names
    assert _loaded(names, HELP_NEVER) == []
    assert _loaded(names, HEAVY) == []


RUN_NEVER = (
    "textual",
    "textual_fastdatatable",
    "pyarrow",
    "numpy",
    "scipy",
    "sklearn",
    "matplotlib",
    "PIL",
    "sqlalchemy",
    "psycopg",
    "botocore",
    "jwt",
    "nlu_tui.ui",
    "nlu_tui.views",
    "nlu_tui.engines.embedded",
    "nlu_tui.evaluation",
    "nlu_tui.llm",
    # httpx's own command-line client (click, Rich, Pygments), which httpx imports when click is
    # installed unless told it is absent (nlu_tui.cli.main)
    "rich",
    "click",
    "pygments",
    "httpx._main",
    # JSONPath: only for a suite with raw checks (the sample suite has none)
    "jsonpath",
)
"""What ``nlu-tui run`` on an HTTP engine (a suite, gates, reports) never needs: the workbench,
the embedded engine's numerics, httpx's command line, JSONPath for a suite without raw checks,
and every optional extra."""


def test_a_run_on_an_http_engine_imports_no_workbench_numerics_or_extras(tmp_path: Path) -> None:
    suite = tmp_path / "s.suite.yaml"
    suite.write_bytes((SAMPLE / "banking_bot.suite.yaml").read_bytes())
    out = _python(
        f"""
        import contextlib, io, json, sys
        from nlu_tui.cli.main import run
        with contextlib.redirect_stdout(io.StringIO()):
            code = run(["run", {str(suite)!r}, "-e", "rasa:http://127.0.0.1:9", "--retries", "0",
                        "--json", {str(tmp_path / "r.json")!r}, "--junit", {str(tmp_path / "j.xml")!r}])
        assert code == 3, code  # every case errored: the run failed, its reports written
        print(json.dumps(sorted(n for n, m in sys.modules.items() if m is not None)))
        """,
        tmp_path,
    )
    assert _loaded(json.loads(out), RUN_NEVER) == []
    assert (tmp_path / "r.json").is_file() and (tmp_path / "j.xml").is_file()


async def test_remembered_theme_is_applied_before_the_first_frame_without_a_write(
    tmp_path: Path,
) -> None:
    """The remembered theme is set while the app is built, so the stylesheet is first parsed
    with its colours (set from ``on_mount`` it made Textual parse and apply every rule again),
    and restoring it does not rewrite settings.yaml on every start."""
    from nlu_tui import paths
    from nlu_tui.ui.app import NluTuiApp
    from nlu_tui.workspace import open_workspace

    settings = paths.config_dir() / "settings.yaml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("theme: nlu-light\n", encoding="utf-8")
    before = settings.stat().st_mtime_ns
    app = NluTuiApp(open_workspace(tmp_path / "workspace"))
    assert app.theme == "nlu-light"
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.theme == "nlu-light"
        assert app.theme_failures == []
    assert settings.stat().st_mtime_ns == before
    assert settings.read_text(encoding="utf-8") == "theme: nlu-light\n"


async def test_the_stylesheet_is_parsed_once_for_the_remembered_theme(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Setting the remembered theme while the app is built queues Textual's refresh of the CSS,
    which parsed every rule again and applied it to every node before the first frame: the app
    skips that one (the stylesheet already has the theme's colours). The screen still has the
    theme's colours, and a theme switched later is applied in full."""
    from textual.css.stylesheet import Stylesheet

    from nlu_tui import paths
    from nlu_tui.ui.app import NluTuiApp
    from nlu_tui.workspace import open_workspace

    settings = paths.config_dir() / "settings.yaml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("theme: nlu-light\n", encoding="utf-8")
    reparsed: list[int] = []
    reparse = Stylesheet.reparse

    def counted(self: Stylesheet) -> None:
        reparsed.append(1)
        reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    app = NluTuiApp(open_workspace(tmp_path / "workspace"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert reparsed == []
        assert app.screen.styles.background.hex.upper() == "#F7F8FA"  # nlu-light's
        app.action_next_theme()
        await pilot.pause()
        assert app.theme != "nlu-light"
        assert reparsed
        assert app.screen.styles.background.hex.upper() != "#F7F8FA"


def test_the_workbench_words_are_read_as_argparse_reads_them() -> None:
    """``nlu-tui [WORKSPACE] [--data-dir DIR] [--store URL]`` is read without argparse (about
    5 ms of the workbench's start-up); anything else is left to argparse (None)."""
    import argparse

    from nlu_tui.cli.main import workbench_words

    parser = argparse.ArgumentParser(prog="nlu-tui", add_help=False)
    parser.add_argument("workspace", nargs="?")
    parser.add_argument("--data-dir", metavar="DIR")
    parser.add_argument("--store", metavar="URL")
    plain = [
        [],
        ["ws"],
        [""],
        ["my folder"],
        ["ws", "--data-dir", "d"],
        ["--data-dir", "d", "ws"],
        ["--data-dir=d", "--store=sqlite:///x.db", "ws"],
        ["--store", "postgresql://u@h/db", "--data-dir="],
        ["ws", "--data-dir", "a=b"],
    ]
    for argv in plain:
        args, unknown = parser.parse_known_args(argv)
        assert unknown == []
        assert workbench_words(argv) == (args.workspace, args.data_dir, args.store), argv
    for argv in (
        ["a", "b"],
        ["--data", "d"],  # an abbreviation
        ["--data-dir"],
        ["--data-dir", "-x"],
        ["--data-dir", "a", "--data-dir", "b"],
        ["--", "ws"],
        ["-v"],
        ["ws", "--stor=x"],
    ):
        assert workbench_words(argv) is None, argv


def test_the_workbench_start_imports_no_argparse(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    out = _python(
        f"""
        import json, os, sys
        os.environ["TEXTUAL_DRIVER"] = "textual.drivers.web_driver:WebDriver"  # no tty needed
        import nlu_tui.cli.tui as tui

        def opened(workspace):
            print(json.dumps([workspace, "argparse" in sys.modules, "difflib" in sys.modules]))
            return 0

        tui.open_workbench = opened
        from nlu_tui.cli.main import run

        assert run([{str(workspace)!r}, "--data-dir", {str(tmp_path / "d")!r}]) == 0
        """,
        tmp_path,
    )
    assert json.loads(out) == [str(workspace), False, False]


def test_a_built_in_engine_type_needs_no_plug_in_discovery(monkeypatch: Any) -> None:
    """A run on a built-in engine type does not scan the installed distributions' entry points
    (about 80 ms): a built-in name always wins over a plug-in's. Any other type still looks."""
    import pytest

    from nlu_tui import plugins
    from nlu_tui.engines import base
    from nlu_tui.errors import EngineError

    looked: list[str] = []

    def discover(group: str) -> tuple[tuple[str, str, str], ...]:
        looked.append(group)
        return ()

    monkeypatch.setattr(plugins, "_discover", discover)
    factory = base.engine_factory("rasa")
    assert getattr(factory, "__name__", "") == "RasaEngine"
    assert base.loaded_engine_factory("rasa") is factory
    assert looked == []
    with pytest.raises(EngineError, match="unknown engine type 'no-such'"):
        base.engine_factory("no-such")
    assert looked and set(looked) == {base.ENGINE_GROUP}


HTTP_STACK = ("aiohttp", "httpx_aiohttp")
"""aiohttp (about a fifth of a second of a one-case run, with its SSL contexts): only a run
whose engine needs it (``https://``, a vendor's profile) imports it. A plain ``http://`` engine
is asked on the run transport's own HTTP/1.1 pool; the embedded engine speaks no HTTP."""

ONE_CASE = """nlu_tui_suite: 1
name: one case
cases:
  - id: c1
    utterance: send 200 dollars to Leonardo
    intents: [transfer_money]
"""


def _one_case_run(tmp_path: Path, engine: str) -> dict[str, Any]:
    """A one-case ``nlu-tui run`` in a fresh interpreter: its exit code, the modules it
    imported and the threads it started."""
    suite = tmp_path / "one.suite.yaml"
    suite.write_text(ONE_CASE, encoding="utf-8")
    out = _python(
        f"""
        import contextlib, io, json, sys, threading
        started = []
        start = threading.Thread.start
        def spy(self):
            started.append(self.name)
            return start(self)
        threading.Thread.start = spy
        from nlu_tui.cli.main import run
        with contextlib.redirect_stdout(io.StringIO()):
            code = run(["run", {str(suite)!r}, "-e", {engine!r}, "--retries", "0"])
        modules = sorted(n for n, m in sys.modules.items() if m is not None)
        print(json.dumps({{"code": code, "modules": modules, "threads": started}}))
        """,
        tmp_path,
    )
    seen: dict[str, Any] = json.loads(out)
    return seen


def test_a_one_case_run_on_a_plain_http_engine_imports_no_aiohttp(tmp_path: Path) -> None:
    """``nlu-tui run SUITE -e rasa:http://...`` (the one-case run of
    ``bench/bench_cli_start.py``): the engine's ``GET /version`` probe and its parse both go
    over the run transport's HTTP/1.1 pool, and no thread preloads aiohttp."""
    from runner_loopback import LoopbackNlu

    with LoopbackNlu() as server:
        seen = _one_case_run(tmp_path, f"rasa:{server.url}")
        assert server.counts == {"send 200 dollars to Leonardo": 1}
    assert seen["code"] == 0  # the case passed: the engine was reached
    assert _loaded(seen["modules"], HTTP_STACK) == []
    assert "nlu-tui-http" not in seen["threads"]


def test_a_one_case_run_on_the_embedded_engine_imports_no_aiohttp_nor_sklearn_from_its_cache(
    tmp_path: Path,
) -> None:
    training = tmp_path / "tiny.nlu.yml"
    training.write_text(
        'version: "3.1"\nnlu:\n'
        "- intent: transfer_money\n  examples: |\n"
        "    - send 200 dollars to Leonardo\n    - transfer money to my mother\n"
        "    - pay 30 euros to Anna\n"
        "- intent: check_balance\n  examples: |\n"
        "    - what is my balance\n    - how much money do I have\n"
        "    - show my account balance\n",
        encoding="utf-8",
    )
    trained = _one_case_run(tmp_path, f"embedded:{training}")  # trains, fills the model cache
    cached = _one_case_run(tmp_path, f"embedded:{training}")
    for seen in (trained, cached):
        assert seen["code"] == 0
        assert _loaded(seen["modules"], HTTP_STACK) == []
        assert "nlu-tui-http" not in seen["threads"]
    # the model read from the cache parses with numpy and scipy.sparse alone: scikit-learn
    # (and the scipy.stats it imports, half a second in all) is for training
    assert "sklearn" in trained["modules"]
    assert _loaded(cached["modules"], ("sklearn", "scipy.stats")) == []


def test_the_http_stack_is_preloaded_only_for_engines_that_may_need_it() -> None:
    from nlu_tui.runner.client import http_stack_needed

    assert not http_stack_needed("embedded:data/nlu.yml")
    assert not http_stack_needed("rasa:http://127.0.0.1:5005")
    assert not http_stack_needed("http: HTTP://engine:8080/parse")
    assert http_stack_needed("rasa:https://rasa.example.com")
    assert http_stack_needed("staging")  # a profile: any engine type, any scheme
    assert http_stack_needed("kore-batch:bot")
    assert http_stack_needed(None)  # a resume: the stored run's engine
