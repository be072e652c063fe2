"""Which engines a suite can run on, and the choice remembered per suite.

The start dialog (the workbench) shows these; nothing here imports Textual. The last spec that
ran successfully is kept per suite in ``last-run.json`` in the user config directory (engine spec
and stage only: specs are profile names or paths/URLs without tokens, never a secret), and so is
every engine that ran successfully in a workspace (any suite, a resumed run, the conversation
tests' ``rasa:`` URL): each is offered to every suite of that workspace.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LAST_RUN_FILE = "last-run.json"
STAGES = ("development", "published")
MAX_WORKSPACE_ENGINES = 20
"""Engines remembered per workspace (the most recently successful first)."""

PROFILE_TEMPLATE = """\
# nlu-tui engine profiles: uncomment an entry, set its url, and pick it in the Run dialog.
# Secrets only as ${{ENV_VAR}} references. Profiles are looked up beside the suite, then in
# the workspace, then in {config}.
# engines:
#   my-rasa:
#     type: rasa                     # rasa, http or embedded
#     url: http://127.0.0.1:5005
#     # token: ${{RASA_TOKEN}}
#     # concurrency: 8
#   my-embedded:
#     type: embedded
#     nlu: path/to/training.nlu.yml
"""


@dataclass(frozen=True)
class StartChoice:
    """What the user picked: an engine spec (profile name or ``embedded:PATH`` ...), a version."""

    engine: str
    stage: str
    note: str = ""
    repeat: int = 1
    """Send each case this many times (stability figures); never remembered between runs."""


def _last_run_path() -> Path:
    from nlu_tui import paths

    return paths.config_dir() / LAST_RUN_FILE


def load_last_choice(suite_key: str) -> StartChoice | None:
    """The choice that last ran successfully for this suite (never another suite's)."""
    try:
        data = json.loads(_last_run_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("suites"), dict):
        return None
    entry = data["suites"].get(suite_key)
    if not isinstance(entry, dict) or not isinstance(entry.get("engine"), str):
        return None
    stage = entry.get("stage") if entry.get("stage") in STAGES else "development"
    return StartChoice(entry["engine"], str(stage))


def _read_memory() -> dict[str, Any]:
    try:
        data = json.loads(_last_run_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_memory(data: dict[str, Any]) -> None:
    from nlu_tui.fileio import atomic_write_text

    path = _last_run_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, indent=2) + "\n")


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    found = data.get(key)
    return found if isinstance(found, dict) else {}


def save_last_choice(suite_key: str, choice: StartChoice, workspace: Path | None = None) -> None:
    """Remember a choice that ran successfully on this suite (callers save nothing else), and
    its engine among the workspace's (:func:`workspace_engines`) when ``workspace`` is given."""
    data = _read_memory()
    suites = _section(data, "suites")
    suites[suite_key] = {"engine": choice.engine, "stage": choice.stage}
    spaces = _section(data, "workspaces")
    if workspace is not None:
        _add_engine(spaces, workspace, choice.engine)
    # an older file's global "last" entry is dropped: never used
    _write_memory({"suites": suites, "workspaces": spaces})


def remember_engine(workspace: Path, spec: str) -> None:
    """Remember an engine that ran successfully in ``workspace`` (a conversation run's)."""
    data = _read_memory()
    spaces = _section(data, "workspaces")
    _add_engine(spaces, workspace, spec)
    _write_memory({"suites": _section(data, "suites"), "workspaces": spaces})


def _add_engine(spaces: dict[str, Any], workspace: Path, spec: str) -> None:
    key = str(Path(workspace).expanduser().resolve())
    known = spaces.get(key)
    specs = [s for s in known if isinstance(s, str)] if isinstance(known, list) else []
    spaces[key] = [spec, *(s for s in specs if s != spec)][:MAX_WORKSPACE_ENGINES]


def workspace_engines(workspace: Path | None) -> list[str]:
    """The engines that ran successfully in ``workspace``, the most recent first."""
    if workspace is None:
        return []
    found = _section(_read_memory(), "workspaces").get(str(Path(workspace).expanduser().resolve()))
    return [s for s in found if isinstance(s, str)] if isinstance(found, list) else []


def engine_choices(suite_path: Path | None, workspace: Path | None) -> list[tuple[str, str]]:
    """(spec, label) for the engines this suite can run on: profiles, the embedded engine of
    its training file, then every engine that ran successfully in the workspace."""
    from nlu_tui.engines import profiles

    choices: list[tuple[str, str]] = []
    try:
        found = profiles.list_profiles(suite_path, workspace)
    except Exception:  # a broken engines.yaml is reported when a run starts with it
        found = {}
    for name, source in found.items():
        choices.append((name, f"{name}  ({source.parent.name}/{source.name})"))
    sibling = profiles.sibling_training_data(suite_path)
    if sibling is not None:
        choices.append((f"embedded:{sibling}", f"embedded ({sibling.name})"))
    for spec in workspace_engines(workspace):
        if spec not in (s for s, _ in choices):
            choices.append((spec, f"{_short(spec)}  (used in this workspace)"))
    return choices


def _short(spec: str) -> str:
    """A remembered spec as the list shows it: an embedded engine by its file's name."""
    kind, _, rest = spec.partition(":")
    if kind == "embedded" and rest:
        return f"embedded ({Path(rest).name})"
    return spec


def write_profile_template(folder: Path) -> Path:
    """Put a commented profile entry in ``folder/engines.yaml`` (appended when the file exists
    and has none yet); the user uncomments and edits it. Returns the file."""
    from nlu_tui import paths
    from nlu_tui.fileio import atomic_write_text

    target = folder / "engines.yaml"
    template = PROFILE_TEMPLATE.format(config=paths.config_dir())
    if target.is_file():
        existing = target.read_text(encoding="utf-8")
        if "#   my-rasa:" in existing:
            return target
        body = existing + ("" if existing.endswith("\n") or not existing else "\n")
        # commented lines only, without a second "engines:" (the file has one already)
        template = template.replace("# engines:\n", "")
        atomic_write_text(target, body + "\n" + template)
    else:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, template)
    return target
