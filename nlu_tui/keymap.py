"""User key remapping: the ``keymap:`` section of ``settings.yaml``.

Core only (no Textual). The section maps a binding id (the help screen's "Id" column, e.g.
``app.theme``) to a key string; several keys are separated by commas (``"f2,ctrl+t"``). A bad
entry is skipped and described in ``problems``; it never stops the app. Whether an id belongs to
a real binding is checked by the UI, which knows the bindings.
"""

from __future__ import annotations

from typing import Any

from nlu_tui.themes import load_settings

SETTINGS_KEY = "keymap"


def parse_keymap(raw: Any) -> tuple[dict[str, str], list[str]]:
    """The valid ``id -> keys`` entries of a ``keymap:`` value, and a line per bad entry.

    Keys are stripped of surrounding spaces (``"f2, ctrl+t"`` becomes ``"f2,ctrl+t"``). A missing
    section (``None``) is an empty keymap without problems.
    """
    if raw is None:
        return {}, []
    if not isinstance(raw, dict):
        return {}, [
            f"{SETTINGS_KEY}: expected a mapping of binding id to keys, got {type(raw).__name__}"
        ]
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, value in raw.items():
        if not isinstance(binding_id, str) or not binding_id.strip():
            problems.append(f"{SETTINGS_KEY}: {binding_id!r} is not a binding id")
            continue
        name = binding_id.strip()
        if not isinstance(value, str):
            problems.append(
                f"{SETTINGS_KEY}.{name}: keys must be a string (quote them), "
                f"got {type(value).__name__}"
            )
            continue
        keys = [key.strip() for key in value.split(",")]
        if not all(keys):
            problems.append(f"{SETTINGS_KEY}.{name}: empty key in {value!r}")
            continue
        keymap[name] = ",".join(keys)
    return keymap, problems


def load_keymap() -> tuple[dict[str, str], list[str]]:
    """The user's keymap from ``settings.yaml`` (see :func:`parse_keymap`)."""
    return parse_keymap(load_settings().get(SETTINGS_KEY))
