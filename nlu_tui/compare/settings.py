"""Test settings files (``-t``): JSON or YAML with ``trueNegativeIntent``, ``strictEntities``,
``ignoreEntities`` and ``thresholds``, the same file for ``compare`` and for our own runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui.compare.decisions import CompareSettings
from nlu_tui.compare.thresholds import Threshold, parse_threshold
from nlu_tui.errors import InputError

KNOWN_KEYS = {"trueNegativeIntent", "strictEntities", "ignoreEntities", "thresholds"}


@dataclass
class TestSettings:
    __test__ = False

    compare: CompareSettings = field(default_factory=CompareSettings)
    thresholds: list[Threshold] = field(default_factory=list)


def parse_settings(data: Any, *, path: Path | str | None = None) -> TestSettings:
    if data is None:
        return TestSettings()
    if not isinstance(data, Mapping):
        raise InputError("test settings must be a mapping", path=path)
    unknown = set(data) - KNOWN_KEYS
    if unknown:
        raise InputError(
            f"unknown settings: {', '.join(sorted(map(str, unknown)))} "
            f"(known: {', '.join(sorted(KNOWN_KEYS))})",
            path=path,
        )
    tni = data.get("trueNegativeIntent")
    if tni is not None and not isinstance(tni, str):
        raise InputError("must be a string", path=path, field="trueNegativeIntent")
    lists: dict[str, list[str]] = {}
    for key in ("strictEntities", "ignoreEntities"):
        value = data.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError("must be a list of entity types", path=path, field=key)
        lists[key] = list(value)
    raw_thresholds = data.get("thresholds") or []
    if not isinstance(raw_thresholds, list):
        raise InputError("must be a list", path=path, field="thresholds")
    thresholds = [parse_threshold(t, path=path, index=i) for i, t in enumerate(raw_thresholds)]
    return TestSettings(
        CompareSettings(tni, lists["strictEntities"], lists["ignoreEntities"]), thresholds
    )


def load_settings(path: Path) -> TestSettings:
    """Read a settings file; ``.json`` is JSON, anything else is YAML (which also reads JSON)."""
    from nlu_tui import jsonfile

    try:
        data_bytes = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read test settings: {exc.strerror}", path=path) from None
    raw = jsonfile.decode(data_bytes, path, "test settings")
    if Path(path).suffix.lower() == ".json":
        data = jsonfile.loads(raw, path)
    else:
        from nlu_tui.formats import yaml_loader

        data = yaml_loader.load(raw, path, prefix="invalid YAML")
    return parse_settings(data, path=path)
