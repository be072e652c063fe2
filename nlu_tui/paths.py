"""Where nlu-tui keeps things: one module over platformdirs, overridable for tests.

``NLU_TUI_DATA_DIR`` and ``NLU_TUI_CONFIG_DIR`` (and the CLI's ``--data-dir``) redirect
everything, which keeps tests and CI away from a developer's own files.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

APP_NAME = "nlu-tui"


def data_dir() -> Path:
    env = os.environ.get("NLU_TUI_DATA_DIR")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False)


def config_dir() -> Path:
    env = os.environ.get("NLU_TUI_CONFIG_DIR")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_config_path

    return user_config_path(APP_NAME, appauthor=False)


SETTINGS_FILE = "settings.yaml"


def settings_path() -> Path:
    """The user's settings (theme, key bindings, the ``llm:`` endpoint), in the config folder."""
    return config_dir() / SETTINGS_FILE


def store_path() -> Path:
    """The SQLite run store, shared by the CLI and the TUI whatever folder they start from."""
    return data_dir() / "runs.sqlite3"


def default_workspace() -> Path:
    return data_dir() / "workspace"


def models_cache_dir() -> Path:
    return data_dir() / "models"


def _bundled(name: str) -> Path:
    """A top-level folder shipped with the package: next to the source tree, or in the wheel."""
    checkout = Path(__file__).resolve().parent.parent / name
    if checkout.is_dir():
        return checkout
    return Path(str(resources.files("nlu_tui") / "_data" / name))


def bundled_themes_dir() -> Path:
    return _bundled("themes")


def sample_suites_dir() -> Path:
    return _bundled("sample_suites")


def state_path() -> Path:
    """What the workbench remembers between sessions (the open suite and tab, the panel)."""
    return data_dir() / "state.json"


def log_path() -> Path:
    """The workbench's log file: one line (and a traceback) per failed background task."""
    return data_dir() / "nlu-tui.log"
