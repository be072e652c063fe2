"""Test settings files (``-t``): JSON or YAML with ``trueNegativeIntent``, ``strictEntities``,
``ignoreEntities`` and ``thresholds``, the same file for ``compare`` and for our own runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui import jsonfile
from nlu_tui.compare.decisions import CompareSettings
from nlu_tui.compare.normalize import JsonRules
from nlu_tui.compare.thresholds import STAR_GROUPS, Threshold, parse_threshold
from nlu_tui.errors import InputError

KNOWN_KEYS = {"trueNegativeIntent", "strictEntities", "ignoreEntities", "thresholds", "nluTui"}
OPTIONS_KEY = "nluTui"
OPTION_CHOICES: dict[str, tuple[str, ...]] = {
    "starGroups": STAR_GROUPS,
    "numbers": ("token", "value"),
    "expectedNull": ("exact", "any"),
    "dates": ("newtonsoft", "text"),
    "ownFields": ("read", "ignore"),
}
"""``nluTui:`` options, first choice = the default; plus ``strict``. The default is
NLU.DevOps' behaviour, except for ``ownFields``, which is about nlu-tui's own ``nluTui``
object (upstream's files have none): see ``CompareSettings.own_fields``."""

UPSTREAM_CHOICE = {name: choices[0] for name, choices in OPTION_CHOICES.items()}
UPSTREAM_CHOICE["ownFields"] = "ignore"
"""The choice that reads a file as ``dotnet nlu compare`` reads it."""


@dataclass
class TestSettings:
    """A test settings file as NLU.DevOps' ``TestSettings`` reads it, plus our ``nluTui``
    options and the warnings about what upstream silently ignores (shown by the CLI)."""

    __test__ = False

    compare: CompareSettings = field(default_factory=CompareSettings)
    thresholds: list[Threshold] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _by_lower_key(data: Mapping[Any, Any], path: Path | str | None) -> dict[str, tuple[str, Any]]:
    """Keys in any case, as .NET configuration keys are; the same key twice is an error."""
    out: dict[str, tuple[str, Any]] = {}
    for key, value in data.items():
        name = str(key)
        if name.lower() in out:
            raise InputError(f"key {name!r} given twice (keys ignore case)", path=path)
        out[name.lower()] = (name, value)
    return out


def _options(raw: Any, path: Path | str | None) -> dict[str, Any]:
    """The ``nluTui`` block: each option checked against its choices."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InputError("must be a mapping of options", path=path, field=OPTIONS_KEY)
    out: dict[str, Any] = {}
    for name, value in raw.items():
        if name == "strict":
            if not isinstance(value, bool):
                raise InputError("must be true or false", path=path, field=f"{OPTIONS_KEY}.strict")
            out[name] = value
            continue
        choices = OPTION_CHOICES.get(str(name))
        if choices is None:
            known = ", ".join([*OPTION_CHOICES, "strict"])
            raise InputError(
                f"unknown option {name!r} (known: {known})", path=path, field=OPTIONS_KEY
            )
        if value not in choices:
            raise InputError(
                f"must be one of {', '.join(choices)} "
                f"(NLU.DevOps' behaviour: {UPSTREAM_CHOICE[str(name)]})",
                path=path,
                field=f"{OPTIONS_KEY}.{name}",
            )
        out[str(name)] = value
    return out


def parse_settings(data: Any, *, path: Path | str | None = None) -> TestSettings:
    """Bind a settings mapping as NLU.DevOps does (keys in any case, unknown keys ignored with
    a warning) unless ``nluTui: {strict: true}`` asks to refuse what upstream ignores."""
    if data is None:
        return TestSettings()
    if not isinstance(data, Mapping):
        raise InputError("test settings must be a mapping", path=path)
    keys = _by_lower_key(data, path)
    options = _options(keys.get(OPTIONS_KEY.lower(), (OPTIONS_KEY, None))[1], path)
    strict = bool(options.get("strict", False))
    warnings: list[str] = []
    known_lower = {k.lower() for k in KNOWN_KEYS}
    unknown = sorted(name for low, (name, _v) in keys.items() if low not in known_lower)
    if unknown:
        message = f"unknown settings: {', '.join(unknown)} (known: {', '.join(sorted(KNOWN_KEYS))})"
        if strict:
            raise InputError(message, path=path)
        warnings.append(f"{message}; ignored, as NLU.DevOps ignores them")

    def get(name: str) -> Any:
        return keys.get(name.lower(), (name, None))[1]

    tni = get("trueNegativeIntent")
    if tni is not None and not isinstance(tni, str):
        raise InputError("must be a string", path=path, field="trueNegativeIntent")
    lists: dict[str, list[str]] = {}
    for key in ("strictEntities", "ignoreEntities"):
        value = get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError("must be a list of entity types", path=path, field=key)
        lists[key] = list(value)
    raw_thresholds = get("thresholds") or []
    if not isinstance(raw_thresholds, list):
        raise InputError("must be a list", path=path, field="thresholds")
    star = str(options.get("starGroups", STAR_GROUPS[0]))
    thresholds = [
        parse_threshold(t, path=path, index=i, strict=strict, star=star, warnings=warnings)
        for i, t in enumerate(raw_thresholds)
    ]
    rules = JsonRules(
        numbers=str(options.get("numbers", "token")),
        expected_null=str(options.get("expectedNull", "exact")),
        dates=str(options.get("dates", "newtonsoft")),
    )
    compare = CompareSettings(
        tni,
        lists["strictEntities"],
        lists["ignoreEntities"],
        json_rules=rules,
        own_fields=str(options.get("ownFields", "read")),
    )
    return TestSettings(compare, thresholds, warnings)


def load_settings(path: Path) -> TestSettings:
    """Read a settings file; ``.json`` is JSON, anything else is YAML (which also reads JSON)."""
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
