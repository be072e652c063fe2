"""JSON round trips for the model's dataclasses, as the run store keeps them.

Encoders and decoders are derived once per class from the dataclasses' own type hints, so a
field added to the model later is stored without touching this module, unknown keys from a
newer store are ignored, and a 100,000-result run loads in a fraction of a second rather than
walking every value generically. Encoding and decoding go through orjson (the standard library
takes over for what orjson refuses: integers beyond 64 bits, non-string keys, NaN on input).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar, Union, cast

import orjson

from nlu_tui.model import CaseResult, Prediction, TestCase

T = TypeVar("T")

_SKIP_FIELDS = frozenset({"line"})  # where a case sat in its source file is not part of a run

Converter = Callable[[Any], Any] | None


_NO_DEFAULT = object()
# Dataclasses through _default (fields at their default are left out); dates and times too,
# so they keep the spelling str() gives them.
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


@cache
def _encode_plan(cls: type) -> tuple[tuple[str, Any], ...]:
    """(field, default) pairs; a field still at its default is not written (smaller, faster)."""
    plan = []
    for f in dataclasses.fields(cls):
        if f.name in _SKIP_FIELDS:
            continue
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = _NO_DEFAULT
        plan.append((f.name, default))
    return tuple(plan)


def _make_encoder(cls: type) -> Callable[[Any], dict[str, Any]]:
    """A function writing one instance of ``cls`` as a dict, generated the way ``dataclasses``
    generates ``__init__``: a straight line per field instead of a loop over the plan (the
    store encodes a dozen dataclasses per result, in the run's event loop)."""
    namespace: dict[str, Any] = {}
    lines = ["def encode(obj):", "    out = {}"]
    for i, (name, default) in enumerate(_encode_plan(cls)):
        if default is _NO_DEFAULT:
            lines.append(f"    out[{name!r}] = obj.{name}")
        else:
            namespace[f"d{i}"] = default
            lines.append(f"    v = obj.{name}")
            lines.append(f"    if v != d{i}: out[{name!r}] = v")
    lines.append("    return out")
    exec("\n".join(lines), namespace)
    encode: Callable[[Any], dict[str, Any]] = namespace["encode"]
    return encode


_ENCODERS: dict[type, Callable[[Any], dict[str, Any]]] = {}


def _default(obj: Any) -> Any:
    """``json.dumps`` fallback: dataclasses become dicts; anything else unknown becomes text."""
    encode = _ENCODERS.get(type(obj))
    if encode is not None:
        return encode(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        encode = _ENCODERS[type(obj)] = _make_encoder(type(obj))
        return encode(obj)
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    return str(obj)


def dumps(obj: Any) -> str:
    """Compact JSON of a model object (str enums are written as their values)."""
    try:
        return orjson.dumps(obj, default=_default, option=_ORJSON_OPTIONS).decode()
    except orjson.JSONEncodeError:  # an integer beyond 64 bits, a key that is not a string
        return json.dumps(obj, default=_default, ensure_ascii=False, separators=(",", ":"))


def loads(text: str | bytes) -> Any:
    """Parse stored JSON (older stores may hold NaN, which only the standard library reads)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


TRUNCATED_MARK = "…[truncated: {size} bytes, kept {kept}]"
"""Appended to a raw answer stored cut, so a reader sees it was cut and by how much."""


def cap_raw(raw: Any, limit: int) -> Any:
    """``raw`` as stored: itself when its JSON fits in ``limit`` bytes, else its JSON text cut
    to ``limit`` bytes followed by :data:`TRUNCATED_MARK` (a string, so it is never mistaken
    for the engine's own answer). What scoring needs was read from the full answer before."""
    if raw is None or limit <= 0 or (isinstance(raw, str) and len(raw) * 4 <= limit):
        return raw
    try:
        data = orjson.dumps(raw, default=_default, option=_ORJSON_OPTIONS)
    except orjson.JSONEncodeError:
        data = dumps(raw).encode("utf-8")
    if len(data) <= limit:
        return raw
    kept = data[:limit].decode("utf-8", "ignore")  # never half a character
    return kept + TRUNCATED_MARK.format(size=len(data), kept=len(kept.encode("utf-8")))


def _converter(tp: Any) -> Converter:
    """A function turning stored JSON into a value of type ``tp`` (None: keep it as it is)."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        members = [a for a in typing.get_args(tp) if a is not type(None)]
        return _converter(members[0]) if len(members) == 1 else None
    if origin is list:
        args = typing.get_args(tp)
        inner = _converter(args[0]) if args else None
        if inner is None:
            return None
        return lambda v: [inner(x) for x in v]
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return lambda v: from_dict(tp, v)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp
    return None


@cache
def _decoder(cls: Any) -> tuple[tuple[str, Converter], ...]:
    hints = typing.get_type_hints(cls)
    return tuple(
        (f.name, _converter(hints[f.name]))
        for f in dataclasses.fields(cls)
        if f.init and f.name not in _SKIP_FIELDS
    )


@dataclasses.dataclass(frozen=True)
class _Plan:
    names: frozenset[str]
    required: frozenset[str]
    convs: tuple[tuple[str, Converter], ...]
    defaults: tuple[tuple[str, Any, bool], ...]  # (name, value or factory, is a factory)
    fast: bool


@cache
def _plan(cls: Any) -> _Plan:
    decoder = _decoder(cls)
    fields = dataclasses.fields(cls)
    defaults = []
    required = set()
    for f in fields:
        if f.default is not dataclasses.MISSING:
            defaults.append((f.name, f.default, False))
        elif f.default_factory is not dataclasses.MISSING:
            defaults.append((f.name, f.default_factory, True))
        else:
            required.add(f.name)
    return _Plan(
        names=frozenset(name for name, _conv in decoder),
        required=frozenset(required),
        convs=tuple((name, conv) for name, conv in decoder if conv is not None),
        defaults=tuple(defaults),
        fast=not hasattr(cls, "__post_init__") and not hasattr(cls, "__slots__"),
    )


def from_dict(cls: type[T], data: dict[str, Any]) -> T:
    """Rebuild a model dataclass from :func:`dumps` output.

    For what this version wrote (no unknown keys, every required field present) the object is
    filled in directly, skipping ``__init__``: loading big runs is dominated by this.
    """
    plan = _plan(cast(Any, cls))
    keys = data.keys()
    if plan.fast and keys <= plan.names and plan.required <= keys:
        obj = object.__new__(cls)
        state = obj.__dict__
        for name, value, factory in plan.defaults:
            if name not in data:  # a stored case has its id: no fresh one drawn for nothing
                state[name] = value() if factory else value
        state.update(data)
        for name, conv in plan.convs:
            value = data.get(name)
            if value is not None:
                state[name] = conv(value)  # type: ignore[misc]
        return obj
    kwargs: dict[str, Any] = {}
    for name, conv in _decoder(cast(Any, cls)):
        if name in data:
            value = data[name]
            kwargs[name] = conv(value) if conv is not None and value is not None else value
    return cls(**kwargs)


def case_from_json(text: str) -> TestCase:
    return from_dict(TestCase, loads(text))


def prediction_from_json(text: str) -> Prediction:
    return from_dict(Prediction, loads(text))


def result_from_json(text: str) -> CaseResult:
    return from_dict(CaseResult, loads(text))
