"""Entity values: flattening an engine's value to a string and comparing it with an expectation.

Kore.ai compares entity values as strings after flattening structured values with a fixed key
order (the "Entity Format Conversions" table of its Batch Testing docs). The expected value is
"a string or a regular expression", ``a||b`` for multi-item entities and ``c1:v|c2:v`` for
composite entities. Comparison ignores case and surrounding whitespace.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from nlu_tui.model import ExpectedEntity, ValueKind

# (keys that identify the type, key order of the flat form), checked in this order.
# Source: Kore.ai Batch Testing, "Entity Format Conversions".
KNOWN_LAYOUTS: tuple[tuple[str, frozenset[str], tuple[str, ...]], ...] = (
    (
        "airport",
        frozenset({"IATA"}),
        ("AirportName", "IATA", "ICAO", "Latitude", "Longitude", "City", "CityLocal"),
    ),
    (
        "country",
        frozenset({"alpha2", "alpha3"}),
        ("alpha2", "alpha3", "numericalCode", "localName", "shortName"),
    ),
    ("location", frozenset({"formatted_address"}), ("formatted_address", "lat", "lng")),
    ("quantity", frozenset({"amount", "unit"}), ("amount", "unit", "type", "source")),
    ("currency", frozenset({"amount", "code"}), ("amount", "code")),
    ("date_period", frozenset({"fromDate", "toDate"}), ("fromDate", "toDate")),
    # Duckling-style intervals (Rasa, Wit): the same shape as a date period.
    ("interval", frozenset({"from", "to"}), ("from", "to")),
)

MULTI_SEPARATOR = "||"
COMPOSITE_SEPARATOR = "|"

_COMPOSITE_RE = re.compile(r"\s*[^:|]+:[^|]*(?:\|[^:|]+:[^|]*)*\s*")


def _scalar(value: Any) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    if type(value) is float and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


def _is_mapping(value: Any) -> bool:
    return type(value) is dict or isinstance(value, Mapping)


def _is_list(value: Any) -> bool:
    kind = type(value)
    if kind is list or kind is tuple:
        return True
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


_LAYOUT_OF_KEYS: dict[tuple[Any, ...], tuple[str, ...] | None] = {}
"""Layouts already found, by the value's keys in order; engines return few distinct shapes."""
_LAYOUT_CACHE_SIZE = 1024


def _cached_layout(value: dict[Any, Any]) -> tuple[str, ...] | None:
    """:func:`_layout`, remembered per key sequence (a lookup instead of seven subset tests)."""
    keys = tuple(value)
    try:
        return _LAYOUT_OF_KEYS[keys]
    except KeyError:
        pass
    order = _layout(value)
    if len(_LAYOUT_OF_KEYS) < _LAYOUT_CACHE_SIZE:
        _LAYOUT_OF_KEYS[keys] = order
    return order


def _layout(value: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The key order of a known structured type (``KNOWN_LAYOUTS``), checked cheaply first."""
    if "amount" in value or "IATA" in value or "alpha2" in value or "formatted_address" in value:
        pass
    elif "fromDate" not in value and "from" not in value:
        return None
    keys = value.keys()
    for _name, required, order in KNOWN_LAYOUTS:
        if required <= keys:
            return order
    return None


def flatten_value(value: Any) -> str | None:
    """The engine's value as Kore.ai's flat string; ``None`` when the engine gave no value.

    Known structured types use the table's key order (missing keys skipped, other keys
    ignored). Other mappings are flattened as their values joined by spaces in **sorted key
    order** (JSON objects have no order). A list of one item is that item; longer lists are
    joined with ``||``, the multi-item notation. A mapping ``{"value": x}`` alone is ``x``.
    """
    if value is None:
        return None
    kind = type(value)
    if kind is str:
        return str(value)
    if kind is int:
        # Exact-type shortcuts before the ABC checks below (each isinstance against
        # Mapping/Sequence costs more than the whole flattening of a number).
        return str(value)
    if kind is float:
        return _scalar(value)
    if kind is list and len(value) == 1:
        return flatten_value(value[0])
    if kind is dict or _is_mapping(value):
        order = _cached_layout(value) if kind is dict else _layout(value)
        if order is not None:
            parts = [flatten_value(value[k]) for k in order if k in value]
            return " ".join([p for p in parts if p is not None])
        if len(value) == 1 and "value" in value:
            return flatten_value(value["value"])
        parts = [flatten_value(value[k]) for k in sorted(value, key=str)]
        return " ".join(p for p in parts if p is not None)
    if isinstance(value, str):
        return str(value)
    if _is_list(value):
        if len(value) == 1:
            return flatten_value(value[0])
        items = [flatten_value(v) for v in value]
        flat = [i for i in items if i is not None]
        if not flat:
            return None
        return MULTI_SEPARATOR.join(flat)
    return _scalar(value)


def normalize(text: str) -> str:
    """Case- and surrounding-whitespace-insensitive form used for every comparison."""
    return text.strip().casefold()


@lru_cache(maxsize=4096)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern.strip(), re.IGNORECASE | re.DOTALL)
    except (re.error, RecursionError, OverflowError):
        return None


def regex_matches(pattern: str, actual: str) -> bool:
    """Full match of ``pattern`` against the actual flat value, ignoring case and outer spaces."""
    compiled = _compiled(pattern)
    return compiled is not None and compiled.fullmatch(actual.strip()) is not None


def _multi_items(value: Any) -> list[str] | None:
    """The engine's value as a list of flat items (for multi-item comparison)."""
    if value is None:
        return None
    if _is_list(value):
        items = [flatten_value(v) for v in value]
        return [i for i in items if i is not None]
    flat = flatten_value(value)
    if flat is None:
        return None
    return [p for p in flat.split(MULTI_SEPARATOR)]


def multi_matches(expected: str, actual_value: Any) -> bool:
    """Set equality of ``a||b`` with the engine's list (or ``||``-joined string), order-free."""
    items = _multi_items(actual_value)
    if items is None:
        return False
    want = {normalize(p) for p in expected.split(MULTI_SEPARATOR)}
    return want == {normalize(p) for p in items}


def parse_composite(expected: str) -> dict[str, str] | None:
    """``c1:v1|c2:v2`` as {component: value}, or ``None`` when it does not read that way."""
    if not _COMPOSITE_RE.fullmatch(expected):
        return None
    out: dict[str, str] = {}
    for part in expected.split(COMPOSITE_SEPARATOR):
        name, _, val = part.partition(":")
        out[normalize(name)] = val
    return out


def composite_components(value: Any) -> dict[str, Any] | None:
    """The engine's composite value as {component: value}: a mapping, or a list of {name, value}."""
    if _is_mapping(value):
        return {normalize(str(k)): v for k, v in value.items()}
    if _is_list(value):
        out: dict[str, Any] = {}
        for item in value:
            if not _is_mapping(item):
                return None
            name = item.get("name", item.get("entity"))
            if name is None or "value" not in item:
                return None
            out[normalize(str(name))] = item["value"]
        return out
    return None


def composite_matches(expected: str, actual_value: Any) -> bool:
    """Each expected component equals (as string or full regex) the engine's component.

    Components the engine returns beyond the expected ones are ignored.
    """
    want = parse_composite(expected)
    got = composite_components(actual_value)
    if want is None or got is None:
        return False
    for name, val in want.items():
        if name not in got:
            return False
        flat = flatten_value(got[name])
        if flat is None or not _plain_or_regex(val, flat):
            return False
    return True


def _plain_or_regex(expected: str, actual: str) -> bool:
    if normalize(expected) == normalize(actual):
        return True
    return regex_matches(expected, actual)


_UNSET: Any = object()


def value_matches(
    expected: str, kind: ValueKind, actual_value: Any, flat: str | None = _UNSET
) -> bool:
    """Whether one accepted expected value matches the engine's value, under ``kind``.

    ``auto`` (Kore.ai): ``a||b`` is multi-item; ``c1:v|c2:v`` is composite when the engine's
    value is structured; otherwise equal as a string, or a full match as a regular expression.
    ``flat`` may pass ``flatten_value(actual_value)`` when the caller already has it.
    """
    if actual_value is None:
        return False
    if kind is ValueKind.MULTI:
        return multi_matches(expected, actual_value)
    if kind is ValueKind.COMPOSITE:
        return composite_matches(expected, actual_value)
    if flat is _UNSET:
        flat = flatten_value(actual_value)
    if flat is None:
        return False
    if kind is ValueKind.EXACT:
        return normalize(expected) == normalize(flat)
    if kind is ValueKind.REGEX:
        return regex_matches(expected, flat)
    # auto
    if MULTI_SEPARATOR in expected:
        return multi_matches(expected, actual_value)
    if normalize(expected) == normalize(flat):
        return True
    if (
        ":" in expected
        and (_is_mapping(actual_value) or _is_list(actual_value))
        and composite_components(actual_value) is not None
        and parse_composite(expected) is not None
        and composite_matches(expected, actual_value)
    ):
        return True
    return regex_matches(expected, flat)


def entity_matches(expected: ExpectedEntity, actual_value: Any, flat: str | None = _UNSET) -> bool:
    """Any accepted value (the primary one or an alternative) matches the engine's value."""
    if flat is _UNSET:
        flat = flatten_value(actual_value)
    if value_matches(expected.value, expected.kind, actual_value, flat):
        return True
    return any(value_matches(v, expected.kind, actual_value, flat) for v in expected.alternatives)
