"""What the workbench remembers between sessions: per workspace, the suite and tab last open,
and whether the suites panel was collapsed.

Kept apart from ``settings.yaml`` (which users edit by hand, with comments) in a small JSON
file under the user data folder (``paths.state_path``). Reading never fails: a missing or
broken file is an empty state. No Textual here.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from nlu_tui import paths
from nlu_tui.fileio import atomic_write_text


def load_state() -> dict[str, Any]:
    try:
        raw = json.loads(paths.state_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def _save(state: dict[str, Any]) -> None:
    # remembering is a convenience: a read-only data folder must not break the app
    with contextlib.suppress(OSError):
        atomic_write_text(paths.state_path(), json.dumps(state, indent=1, sort_keys=True))


def workspace_state(root: Path) -> dict[str, Any]:
    """The remembered ``suite`` (file name) and ``tab`` of one workspace folder."""
    entry = load_state().get("workspaces", {})
    found = entry.get(str(root)) if isinstance(entry, dict) else None
    return found if isinstance(found, dict) else {}


def remember_workspace(root: Path, **values: str) -> None:
    state = load_state()
    spaces = state.get("workspaces")
    if not isinstance(spaces, dict):
        spaces = state["workspaces"] = {}
    entry = spaces.get(str(root))
    if not isinstance(entry, dict):
        entry = spaces[str(root)] = {}
    if all(entry.get(k) == v for k, v in values.items()):
        return
    entry.update(values)
    _save(state)


def panel_collapsed() -> bool:
    return load_state().get("suites_panel_collapsed") is True


def remember_panel_collapsed(collapsed: bool) -> None:
    state = load_state()
    if state.get("suites_panel_collapsed") == collapsed:
        return
    state["suites_panel_collapsed"] = collapsed
    _save(state)
