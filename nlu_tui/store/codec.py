"""JSON round trips for the model's dataclasses, as the run store keeps them.

A generic encoder/decoder driven by the dataclasses' own type hints, so a field added to the
model later is stored without touching this module, and unknown keys from a newer store are
ignored rather than fatal.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from functools import cache
from typing import Any, TypeVar, Union, cast

from nlu_tui.model import CaseResult, Prediction, TestCase

T = TypeVar("T")

_SKIP_FIELDS = {"line"}  # where a case sat in its source file is not part of a run


def to_jsonable(obj: Any) -> Any:
    """Plain JSON-ready data: dataclasses become dicts, enums their values."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {
            f.name: to_jsonable(getattr(obj, f.name))
            for f in dataclasses.fields(obj)
            if f.name not in _SKIP_FIELDS
        }
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set):
        return [to_jsonable(v) for v in obj]
    if obj is None or isinstance(obj, str | int | float | bool):
        return obj
    return str(obj)


def dumps(obj: Any) -> str:
    return json.dumps(to_jsonable(obj), ensure_ascii=False, separators=(",", ":"))


@cache
def _hints(cls: Any) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _decode(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return _decode(args[0], value)
        return value
    if origin is list:
        (arg,) = typing.get_args(tp) or (Any,)
        return [_decode(arg, v) for v in value]
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return from_dict(tp, value)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp(value)
    return value


def from_dict(cls: type[T], data: dict[str, Any]) -> T:
    """Rebuild a model dataclass from :func:`to_jsonable` output."""
    hints = _hints(cast(Any, cls))
    kwargs = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name in data and f.init:
            kwargs[f.name] = _decode(hints[f.name], data[f.name])
    return cls(**kwargs)


def case_from_json(text: str) -> TestCase:
    return from_dict(TestCase, json.loads(text))


def prediction_from_json(text: str) -> Prediction:
    return from_dict(Prediction, json.loads(text))


def result_from_json(text: str) -> CaseResult:
    return from_dict(CaseResult, json.loads(text))
