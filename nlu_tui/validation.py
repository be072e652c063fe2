"""Checks a suite before it is run, in the spirit of ``rasa data validate``.

Errors make a case meaningless or unrunnable (no utterance, four intents, a regular expression
that cannot compile, two cases sharing an id); warnings are probably mistakes that still run
(a duplicate case, one utterance expected as two different intents). Every problem names the
file, the case id and the line, so the CLI, CI logs and the editor can point at it.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nlu_tui.model import (
    MAX_INTENTS,
    MAX_UTTERANCE_CHARS,
    ExpectedEntity,
    Suite,
    TestCase,
    ValueKind,
)

ERROR = "error"
WARNING = "warning"

CODES: dict[str, str] = {
    "empty-utterance": "a case has no utterance",
    "long-utterance": f"an utterance is over {MAX_UTTERANCE_CHARS:,} characters",
    "too-many-intents": f"more than {MAX_INTENTS} acceptable intents",
    "empty-name": "an intent, trait or entity without a name",
    "invalid-regex": "a regular expression that does not compile",
    "suspicious-regex": "a value that looks like a regular expression but does not compile",
    "duplicate-id": "two cases share an id",
    "duplicate-case": "the same utterance with the same expectations twice",
    "conflicting-intents": "the same utterance expected as different intents",
    "order-unknown-entity": "the entity order names an entity the case does not expect",
    "order-with-several-intents": "an entity order on a case with several intents",
    "traits-and-intents": "a case expects both traits and intents",
}
"""Every problem code with what it means (the README lists these)."""

_SEVERITY = {
    "empty-utterance": ERROR,
    "long-utterance": ERROR,
    "too-many-intents": ERROR,
    "empty-name": ERROR,
    "invalid-regex": ERROR,
    "duplicate-id": ERROR,
}


@dataclass
class Problem:
    severity: str  # "error" | "warning"
    code: str
    message: str
    path: Path | None = None
    case_id: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = str(self.path) if self.path is not None else "<suite>"
        if self.line is not None:
            where += f":{self.line}"
        case = f" case {self.case_id}:" if self.case_id else ""
        return f"{where}: {self.severity}: [{self.code}]{case} {self.message}"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["path"] = str(self.path) if self.path is not None else None
        return data


def _problem(code: str, message: str, case: TestCase | None, path: Path | None) -> Problem:
    return Problem(
        severity=_SEVERITY.get(code, WARNING),
        code=code,
        message=message,
        path=path,
        case_id=case.id if case is not None else None,
        line=case.line if case is not None else None,
    )


# --- one case --------------------------------------------------------------------------------

_REGEX_ONLY = re.compile(r"\\[dDwWsSbB]|\.[*+?]|\[\^?.-.|\[[^\]]*\]|\(\?|^\^|\$$|\{\d+(?:,\d*)?\}")
"""Constructs that only make sense in a regular expression (``\\d``, ``.*``, ``[a-z]``, ``^…$``)."""

_COMPOSITE = re.compile(r"\s*[^:|]+:[^|]*(?:\|[^:|]+:[^|]*)*\s*")


def _compile_error(pattern: str) -> str | None:
    try:
        re.compile(pattern.strip(), re.IGNORECASE | re.DOTALL)
    except (re.error, RecursionError, OverflowError) as exc:
        return str(exc)
    return None


def _value_parts(entity: ExpectedEntity, value: str) -> list[str]:
    """The pieces the scorer compares one by one: items of ``a||b``, components of ``c:v|c:v``."""
    kind = entity.kind
    if kind is ValueKind.MULTI or (kind is ValueKind.AUTO and "||" in value):
        return value.split("||")
    if kind is ValueKind.COMPOSITE or (
        kind is ValueKind.AUTO and ":" in value and _COMPOSITE.fullmatch(value)
    ):
        return [part.partition(":")[2] for part in value.split("|")]
    return [value]


def _regex_problems(entity: ExpectedEntity, case: TestCase, path: Path | None) -> list[Problem]:
    out: list[Problem] = []
    for value in entity.accepted_values:
        if entity.kind is ValueKind.REGEX:
            error = _compile_error(value)
            if error:
                out.append(
                    _problem(
                        "invalid-regex",
                        f"entity '{entity.name}': {value!r} is not a valid regular expression ({error})",
                        case,
                        path,
                    )
                )
        elif entity.kind in (ValueKind.AUTO, ValueKind.COMPOSITE):
            # auto values are usually plain text ("C++", "$5 (approx") and are compared as text
            # when they do not compile; only flag those written with regex-only constructs
            for part in _value_parts(entity, value):
                if _REGEX_ONLY.search(part.strip()) and _compile_error(part):
                    out.append(
                        _problem(
                            "suspicious-regex",
                            f"entity '{entity.name}': {part!r} looks like a regular expression but "
                            f"does not compile ({_compile_error(part)}); it will be compared as text",
                            case,
                            path,
                        )
                    )
    return out


def check_case(case: TestCase, path: Path | None = None) -> list[Problem]:
    """Problems of one case on its own (no other case needed)."""
    out: list[Problem] = []
    if not case.utterance.strip():
        out.append(_problem("empty-utterance", "the utterance is empty", case, path))
    elif len(case.utterance) > MAX_UTTERANCE_CHARS:
        out.append(
            _problem(
                "long-utterance",
                f"the utterance is {len(case.utterance):,} characters; the limit is "
                f"{MAX_UTTERANCE_CHARS:,}",
                case,
                path,
            )
        )
    if len(case.intents) > MAX_INTENTS:
        out.append(
            _problem(
                "too-many-intents",
                f"{len(case.intents)} intents ({', '.join(case.intent_names)}); at most {MAX_INTENTS} "
                "alternatives are allowed",
                case,
                path,
            )
        )
    if any(not i.name.strip() for i in case.intents) or any(not t.strip() for t in case.traits):
        out.append(_problem("empty-name", "an intent or trait has no name", case, path))
    if any(not e.name.strip() for e in case.entities):
        out.append(_problem("empty-name", "an expected entity has no name", case, path))
    if case.intents and case.traits:
        out.append(
            _problem(
                "traits-and-intents",
                f"expects intents ({', '.join(case.intent_names)}) and traits "
                f"({', '.join(case.traits)}); Kore.ai files hold one or the other",
                case,
                path,
            )
        )
    if case.entity_order:
        names = {e.name for e in case.entities}
        unknown = [n for n in case.entity_order if n not in names]
        if unknown:
            out.append(
                _problem(
                    "order-unknown-entity",
                    f"entity order names {', '.join(repr(n) for n in unknown)}, which the case "
                    "does not expect",
                    case,
                    path,
                )
            )
        if len(case.intents) > 1:
            out.append(
                _problem(
                    "order-with-several-intents",
                    "an entity order is only checked for a case with one intent "
                    f"(this one has {len(case.intents)})",
                    case,
                    path,
                )
            )
    for entity in case.entities:
        out.extend(_regex_problems(entity, case, path))
    return out


# --- across cases ------------------------------------------------------------------------------


def _utterance_key(case: TestCase) -> tuple[str, tuple[str, ...]]:
    """Same words in the same context: duplicates and conflicts are judged per parent path."""
    return (" ".join(case.utterance.split()).casefold(), tuple(case.parent_intents))


def _expectation_key(case: TestCase) -> Any:
    return (
        sorted((i.name, i.bot or "") for i in case.intents),
        sorted(case.traits),
        sorted((e.name, e.value, e.kind.value, tuple(e.alternatives)) for e in case.entities),
        tuple(case.entity_order),
    )


def _intent_key(case: TestCase) -> Any:
    return (sorted(case.intent_names), sorted(case.traits))


def _where(case: TestCase) -> str:
    return f"case {case.id}" + (f" at line {case.line}" if case.line is not None else "")


def _pair_problems(case: TestCase, first: TestCase, path: Path | None) -> list[Problem]:
    """Problems of ``case`` given an earlier case ``first`` with the same utterance."""
    if _expectation_key(case) == _expectation_key(first):
        return [_problem("duplicate-case", f"duplicate of {_where(first)}", case, path)]
    if _intent_key(case) != _intent_key(first):
        mine = ", ".join(case.intent_names + case.traits) or "no intent"
        theirs = ", ".join(first.intent_names + first.traits) or "no intent"
        return [
            _problem(
                "conflicting-intents",
                f"expected as {mine}, but {_where(first)} expects the same utterance as {theirs}",
                case,
                path,
            )
        ]
    return []


def validate_suite(suite: Suite) -> list[Problem]:
    """Every problem of every case, in file order."""
    path = suite.path
    out: list[Problem] = []
    by_id: dict[str, TestCase] = {}
    by_utterance: dict[Any, list[TestCase]] = {}
    for case in suite.cases:
        out.extend(check_case(case, path))
        if case.id in by_id:
            out.append(
                _problem(
                    "duplicate-id", f"the id is also used by {_where(by_id[case.id])}", case, path
                )
            )
        else:
            by_id[case.id] = case
        earlier = by_utterance.setdefault(_utterance_key(case), [])
        for first in earlier:
            found = _pair_problems(case, first, path)
            if found:
                out.extend(found)
                break
        earlier.append(case)
    return out


def validate_case(case: TestCase, suite: Suite | None = None) -> list[Problem]:
    """The problems of one case being edited, including clashes with the rest of ``suite``."""
    path = suite.path if suite is not None else None
    out = check_case(case, path)
    if suite is None:
        return out
    key = _utterance_key(case)
    clash_found = False
    for other in suite.cases:
        if other is case:
            continue
        if other.id == case.id:
            out.append(
                _problem("duplicate-id", f"the id is also used by {_where(other)}", case, path)
            )
        if not clash_found and _utterance_key(other) == key:
            found = _pair_problems(case, other, path)
            if found:
                out.extend(found)
                clash_found = True
    return out


def count(problems: list[Problem]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = sum(1 for p in problems if p.severity == ERROR)
    return errors, len(problems) - errors
