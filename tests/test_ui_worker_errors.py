"""A failed worker is never silent: one handler notifies what failed and logs the traceback.

Textual posts ``Worker.StateChanged`` to the node that started the worker (it does not bubble),
so every node with workers mixes in ``ReportsFailedWorkers``; the structural test below keeps
it that way for workers added later.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static
from ui_support import SIZE, cases_view, make_workspace, new_app, settle

import nlu_tui.ui
from nlu_tui import paths
from nlu_tui.ui.workers import ReportsFailedWorkers


def _notes(app: Any) -> list[str]:
    return [f"{note.title}\n{note.message}" for note in app._notifications]


class Boom(RuntimeError):
    pass


async def test_a_failed_cases_build_is_notified_logged_and_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nlu_tui.ui.widgets import cases_shown as module

    def broken_build(*args: object, **kwargs: object) -> None:
        raise Boom("the rows could not be built ?token=s3cret")

    monkeypatch.setattr(module, "build_arrow", broken_build)
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        notes = _notes(app)
        failed = [n for n in notes if "Showing the cases of banking_bot.suite.yaml failed" in n]
        assert failed, notes
        assert "Boom: the rows could not be built" in failed[0]
        assert "s3cret" not in failed[0]  # redacted like every engine error
        assert str(paths.log_path()) in failed[0]
        # the cases area says why it is empty, instead of an empty table
        view = cases_view(app)
        assert view.table is None
        shown = [str(s.render()) for s in view.query("#cases-host Static").results(Static)]
        assert any("the cases could not be shown" in text and "Boom" in text for text in shown)
    log = paths.log_path().read_text(encoding="utf-8")
    assert "Showing the cases of banking_bot.suite.yaml failed" in log
    assert "Traceback (most recent call last)" in log and "broken_build" in log
    assert "s3cret" not in log


async def test_a_failed_app_worker_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app's own workers too (here: reading the training data's intents)."""
    root = make_workspace(tmp_path)
    app = new_app(root)

    def broken_paths() -> list[Path]:
        raise Boom("no training data today")

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app.workspace, "training_paths", broken_paths)
        worker = app.load_training_intents()
        with pytest.raises(Exception, match="no training data today"):
            await worker.wait()  # it failed ...
        await pilot.pause()
        assert any(  # ... and said so
            "Reading the intents of the training data failed: Boom: no training data today" in n
            for n in _notes(app)
        ), _notes(app)
    assert "no training data today" in paths.log_path().read_text(encoding="utf-8")


def _ui_modules() -> list[Any]:
    return [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(nlu_tui.ui.__path__, "nlu_tui.ui.")
    ]


def _work_decorators(cls: type) -> list[ast.Call]:
    tree = ast.parse(_dedented(cls))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                if isinstance(deco, ast.Call) and getattr(deco.func, "id", "") == "work":
                    found.append(deco)
    return found


def _dedented(cls: type) -> str:
    import textwrap

    return textwrap.dedent(inspect.getsource(cls))


def test_every_node_with_workers_reports_their_failures() -> None:
    """Each class that starts a worker mixes in the one handler, and every worker names what
    it does (the notice says "<description> failed") and never takes the app down."""
    checked = 0
    for module in _ui_modules():
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            source = _dedented(cls)
            decorators = _work_decorators(cls)
            if not decorators and "run_worker(" not in source:
                continue
            checked += 1
            assert issubclass(cls, ReportsFailedWorkers), cls
            for deco in decorators:
                keywords = {k.arg: k.value for k in deco.keywords}
                where = f"{cls.__qualname__} line {deco.lineno}"
                assert "name" in keywords and "description" in keywords, where
                exit_on_error = keywords.get("exit_on_error")
                assert isinstance(exit_on_error, ast.Constant), where
                assert exit_on_error.value is False, where
    assert checked >= 14
