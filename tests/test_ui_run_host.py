"""The app's run registry and run store are declared, typed attributes (not set on the fly)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App

from nlu_tui.runsessions import RunHost, sessions, store_for
from nlu_tui.store import RunStore
from nlu_tui.ui.app import NluTuiApp
from nlu_tui.workspace import Workspace


def test_app_declares_run_sessions_and_store(tmp_path: Path) -> None:
    app = NluTuiApp(Workspace(tmp_path), user_themes=False)
    assert isinstance(app, RunHost)
    assert app.run_sessions == {} and app.run_store is None
    assert sessions(app) is app.run_sessions
    store = store_for(app)
    try:
        assert isinstance(store, RunStore) and app.run_store is store
        assert store_for(app) is store
    finally:
        store.close()


def test_an_app_without_them_is_refused_rather_than_patched() -> None:
    app: App[None] = App()
    with pytest.raises(TypeError, match="run_store"):
        sessions(app)
    with pytest.raises(TypeError, match="run_store"):
        store_for(app)
    assert not hasattr(app, "run_sessions") and not hasattr(app, "_nlu_run_sessions")
