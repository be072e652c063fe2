"""Colour themes as YAML files, and the small settings file that remembers the user's choice.

Core only: files are read and checked here (without Textual); the UI turns each
:class:`ThemeSpec` into a ``textual.theme.Theme``. A broken file never stops startup: the loader
returns it in ``failed`` with the reason, and the UI reports all of them in one notice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from nlu_tui import paths
from nlu_tui.errors import InputError
from nlu_tui.formats import yaml_loader
from nlu_tui.paths import SETTINGS_FILE as SETTINGS_FILE
from nlu_tui.paths import settings_path as settings_path

COLOUR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "background",
    "surface",
    "panel",
    "warning",
    "error",
    "success",
    "foreground",
)
REQUIRED_VARIABLES = ("pass-color", "fail-color", "warn-color")
DEFAULT_THEME = "nlu-dark"

_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
_FUNC = re.compile(r"^(?:rgb|rgba|hsl|hsla)\([^)]*\)$")
_WORD = re.compile(r"^[a-z][a-z_-]*$")


@dataclass
class ThemeSpec:
    """A theme as read from YAML: Textual's base colours plus app variables (pass/fail/warn)."""

    name: str
    colours: dict[str, str]
    dark: bool = True
    variables: dict[str, str] = field(default_factory=dict)
    path: Path | None = None


def theme_dirs() -> list[Path]:
    return [paths.bundled_themes_dir(), paths.config_dir() / "themes"]


def _looks_like_colour(value: str) -> bool:
    return bool(_HEX.match(value) or _FUNC.match(value) or _WORD.match(value))


def parse_theme(path: Path) -> ThemeSpec:
    """Read one theme file; raises ValueError naming the file and the bad key."""
    try:
        raw: Any = yaml_loader.load(path.read_text(encoding="utf-8"), path)
    except (OSError, UnicodeDecodeError, InputError) as exc:
        raise ValueError(f"{path.name}: cannot read: {exc}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{path.name}: a theme file must be a mapping")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{path.name}: 'name' is missing")
    colours: dict[str, str] = {}
    for key in COLOUR_KEYS:
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not _looks_like_colour(value.strip()):
            raise ValueError(f"{path.name}: '{key}' is not a colour: {value!r}")
        colours[key] = value.strip()
    if "primary" not in colours:
        raise ValueError(f"{path.name}: 'primary' is required")
    variables_raw = raw.get("variables") or {}
    if not isinstance(variables_raw, dict):
        raise ValueError(f"{path.name}: 'variables' must be a mapping")
    variables = {str(k): str(v) for k, v in variables_raw.items()}
    for key in REQUIRED_VARIABLES:
        value = variables.get(key)
        if value is None:
            fallback = {"pass-color": "success", "fail-color": "error", "warn-color": "warning"}
            base = colours.get(fallback[key])
            if base:
                variables[key] = base
        elif not _looks_like_colour(value):
            raise ValueError(f"{path.name}: variable '{key}' is not a colour: {value!r}")
    dark = raw.get("dark", True)
    if not isinstance(dark, bool):
        raise ValueError(f"{path.name}: 'dark' must be true or false")
    return ThemeSpec(name=name.strip(), colours=colours, dark=dark, variables=variables, path=path)


def load_themes(dirs: list[Path] | None = None) -> tuple[list[ThemeSpec], list[str]]:
    """Every theme found, later folders overriding earlier ones by name; never raises."""
    loaded: dict[str, ThemeSpec] = {}
    failed: list[str] = []
    for folder in dirs if dirs is not None else theme_dirs():
        if not folder.is_dir():
            continue
        for path in sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]):
            try:
                spec = parse_theme(path)
            except ValueError as exc:
                failed.append(str(exc))
                continue
            loaded[spec.name] = spec
    return list(loaded.values()), failed


# --- settings ---------------------------------------------------------------------------------


def load_settings() -> dict[str, Any]:
    """The settings mapping, or an empty one when the file is missing or unreadable."""
    try:
        path = settings_path()
        raw = yaml_loader.load(path.read_text(encoding="utf-8"), path)
    except (OSError, UnicodeDecodeError, InputError):
        return {}
    return raw if isinstance(raw, dict) else {}


def save_setting(key: str, value: Any) -> None:
    # imported here: the workbench reads themes and settings at every start, and writes rarely
    from nlu_tui.fileio import atomic_write_text

    settings = load_settings()
    settings[key] = value
    atomic_write_text(settings_path(), yaml.safe_dump(settings, sort_keys=True), mode=0o600)


def remembered_theme() -> str | None:
    value = load_settings().get("theme")
    return value if isinstance(value, str) else None


def remember_theme(name: str) -> None:
    save_setting("theme", name)
