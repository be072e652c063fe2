"""A small JSON path syntax for the generic HTTP engine: ``intent.name``, ``intents[0].score``,
``entities[*]``, ``prediction["top intent"]`` and ``@key`` (the key of an item taken from an
object with ``[*]``, for answers that map intent names to scores).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<key>[^.\[\]"']+)
      | \[(?P<index>-?\d+)\]
      | \[\*\](?P<all>)
      | \[(?P<quote>["'])(?P<qkey>.*?)(?P=quote)\]
      | (?P<dot>\.)
    )""",
    re.VERBOSE,
)

_ALL = object()


class PathError(ValueError):
    """The path does not parse."""


@dataclass(frozen=True)
class JsonPath:
    text: str
    steps: tuple[Any, ...]  # str key, int index or _ALL

    @classmethod
    def parse(cls, text: str) -> JsonPath:
        text = str(text).strip()
        if not text or text in ("$", "."):
            return cls(text, ())
        if text.startswith("$."):
            text = text[2:]
        steps: list[Any] = []
        pos = 0
        expect_step = True
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            if match is None or match.end() == pos:
                raise PathError(f"bad JSON path {text!r} at character {pos + 1}")
            pos = match.end()
            if match.group("dot") is not None:
                if expect_step:
                    raise PathError(f"bad JSON path {text!r}: empty step at character {pos}")
                expect_step = True
                continue
            if match.group("key") is not None:
                if not expect_step:
                    raise PathError(f"bad JSON path {text!r}: missing '.' at character {pos}")
                steps.append(match.group("key").strip())
            elif match.group("index") is not None:
                steps.append(int(match.group("index")))
            elif match.group("all") is not None:
                steps.append(_ALL)
            else:
                steps.append(match.group("qkey"))
            expect_step = False
        if expect_step:
            raise PathError(f"bad JSON path {text!r}: ends with '.'")
        return cls(text, tuple(steps))

    @property
    def is_key(self) -> bool:
        return self.steps == ("@key",)

    def find_all(self, doc: Any) -> list[Any]:
        """Every value the path reaches (``[*]`` fans out; missing steps yield nothing)."""
        current = [doc]
        for step in self.steps:
            nxt: list[Any] = []
            for value in current:
                if step is _ALL:
                    if isinstance(value, list):
                        nxt.extend(value)
                    elif isinstance(value, dict):
                        nxt.extend(_Keyed(k, v) for k, v in value.items())
                elif isinstance(step, int):
                    value = value.value if isinstance(value, _Keyed) else value
                    if isinstance(value, list) and -len(value) <= step < len(value):
                        nxt.append(value[step])
                else:
                    if isinstance(value, _Keyed):
                        if step == "@key":
                            nxt.append(value.key)
                            continue
                        value = value.value
                    if isinstance(value, dict) and step in value:
                        nxt.append(value[step])
            current = nxt
        return [v.value if isinstance(v, _Keyed) and self.steps else v for v in current]

    def find(self, doc: Any) -> Any:
        """The first value reached, or None."""
        found = self.find_all(doc)
        return found[0] if found else None

    def items(self, doc: Any) -> list[Any]:
        """The items of a list path: ``a.b`` and ``a.b[*]`` both give a list's elements; an object
        gives keyed items whose ``@key`` is the member name."""
        steps = self.steps if self.steps and self.steps[-1] is _ALL else (*self.steps, _ALL)
        current = JsonPath(self.text, steps[:-1]).find_all(doc)
        out: list[Any] = []
        for value in current:
            if isinstance(value, list):
                out.extend(value)
            elif isinstance(value, dict):
                out.extend(_Keyed(k, v) for k, v in value.items())
        return out

    def find_in_item(self, item: Any) -> Any:
        """Like :meth:`find` on one item from :meth:`items` (``@key`` gives its member name)."""
        if isinstance(item, _Keyed):
            if self.is_key:
                return item.key
            return self.find(item.value)
        return self.find(item)


@dataclass(frozen=True)
class _Keyed:
    key: str
    value: Any
