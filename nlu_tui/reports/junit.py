"""JUnit XML: one test case per utterance, so CI servers show each failing utterance.

A case fails (``<failure>``) when its result is FP or FN, when an expected entity is wrong, when
the entity order disagrees or when a ``raw:`` check fails; the message says what was expected and what matched. An engine
error is an ``<error>``. ``classname`` is ``<suite>.<first expected intent or "none">``,
``name`` the utterance with the case id, ``time`` the engine latency in seconds.
Everything is XML-escaped, and characters XML 1.0 cannot carry become U+FFFD.
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Sequence
from itertools import chain
from pathlib import Path

from nlu_tui.fileio import atomic_write_chunks
from nlu_tui.model import CaseResult, Prediction, ResultType, TestCase
from nlu_tui.reports.common import ResultRow, RunMeta, iso_time
from nlu_tui.reports.kore_csv import expected_intent_text, matched_intent_text
from nlu_tui.reports.metric_spec import KORE, kore_spec, settings_pairs
from nlu_tui.reports.prepared import PreparedRun, prepare_run
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions
from nlu_tui.scoring.intent_report import NO_INTENT_LABEL

# What XML 1.0 cannot carry: the complement of #x9 | #xA | #xD | [#x20-#xD7FF] |
# [#xE000-#xFFFD] | [#x10000-#x10FFFF], written as a positive class (3x faster to search).
_INVALID_CHARS = "\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff"
_INVALID_XML = re.compile(f"[{_INVALID_CHARS}]")


def _has_invalid(text: str) -> bool:
    """Whether ``text`` holds a character XML 1.0 cannot carry.

    Printable ASCII (two flag checks in C) cannot; only other text needs the regex scan.
    """
    if text.isascii() and text.isprintable():
        return False
    return _INVALID_XML.search(text) is not None


def clean(text: str) -> str:
    """Text XML 1.0 can carry (control characters and lone surrogates replaced)."""
    if not _has_invalid(text):
        return text
    return _INVALID_XML.sub("\ufffd", text)


def _text(text: str) -> str:
    """Escaped element text (str.replace chains are C loops: 3x faster than saxutils here)."""
    return clean(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_ATTR_SPECIAL = re.compile(f'[&<>"\t\n\r{_INVALID_CHARS}]')


def _attr(text: str) -> str:
    """A double-quoted, escaped attribute value (newlines and tabs kept as references)."""
    if _ATTR_SPECIAL.search(text) is None:  # one scan instead of eight for plain text
        return f'"{text}"'
    if _has_invalid(text):
        text = _INVALID_XML.sub("\ufffd", text)
    return f'"{_escape_attr_chars(text)}"'


def _escape_attr_chars(text: str) -> str:
    """The markup characters of valid XML text as references (newlines and tabs too)."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\n", "&#10;")
        .replace("\r", "&#13;")
        .replace("\t", "&#9;")
    )


_SEPARATOR = "\x00"  # XML 1.0 cannot carry it, so no escaped value holds it
_INVALID_XML_BUT_NUL = re.compile(f"[\x01{_INVALID_CHARS[1:]}]")  # \x01-\x08 and the rest


def _attr_values(texts: Sequence[str]) -> list[str]:
    """``[_attr(t)[1:-1] for t in texts]``: escaped attribute values, without the quotes.

    Each replacement runs once over the texts joined by NUL (C loops over megabytes instead
    of a Python call per value), then the result is split again. A text holding NUL itself
    is rare enough to escape them one by one.
    """
    if not texts:
        return []
    joined = _SEPARATOR.join(texts)
    if joined.count(_SEPARATOR) != len(texts) - 1:
        return [_attr(t)[1:-1] for t in texts]
    if _INVALID_XML_BUT_NUL.search(joined) is not None:
        joined = _INVALID_XML_BUT_NUL.sub("\ufffd", joined)
    return _escape_attr_chars(joined).split(_SEPARATOR)


def _named(intent: str) -> str:
    """An intent in a failure line: its name quoted, or :data:`NO_INTENT_LABEL` without one."""
    return repr(intent) if intent else NO_INTENT_LABEL


def failure_details(case: TestCase, prediction: Prediction | None, result: CaseResult) -> list[str]:
    """What went wrong, one line per problem (empty when the case passed)."""
    lines: list[str] = []
    if result.result in (ResultType.FP, ResultType.FN):
        lines.append(
            f"{result.result.value}: expected intent {_named(expected_intent_text(case))}, "
            f"matched {_named(matched_intent_text(result, prediction))}"
        )
    for e in result.entities:
        if not e.ok:
            got = "not found" if e.matched is None else f"matched {e.matched!r}"
            lines.append(f"entity {e.name!r}: expected {e.expected!r}, {got}")
    if result.entity_order_ok is False:
        lines.append(
            f"entity order: expected {'>'.join(result.expected_entity_order)}, "
            f"actual {'>'.join(result.actual_entity_order) or '(none returned)'}"
        )
    for check in result.raw_checks:
        if not check.ok:
            found = "nothing" if check.actual is None else repr(check.actual)
            why = f" ({check.reason})" if check.reason else ""
            lines.append(f"raw check {check.check!r} failed: found {found}{why}")
    return lines


def _testcases(
    rows: Sequence[ResultRow], first_expected: Sequence[str | None], suite_name: str
) -> tuple[str, int, array[float]]:
    """The ``<testcase>`` elements of ``rows`` (each line ending in a newline), how many of
    them failed, and their times in seconds."""
    body: list[str] = []
    failures = 0
    times = array("d")
    add_time = times.append
    classnames: dict[str | None, str] = {}  # few distinct classes: escape each once
    isfinite = math.isfinite
    names = _attr_values([f"{case.utterance} [{case.id}]" for case, _p, _r in rows])
    for (case, prediction, result), intent, name in zip(rows, first_expected, names, strict=True):
        # The engine latency in seconds; 0 when missing or not finite.
        seconds = (result.latency_ms or 0.0) / 1000.0
        if not isfinite(seconds):
            seconds = 0.0
        add_time(seconds)
        classname = classnames.get(intent)
        if classname is None:
            classname = classnames[intent] = _attr(f"{suite_name}.{intent or 'none'}")
        open_tag = f'    <testcase classname={classname} name="{name}" time="{seconds:.3f}"'
        kind = result.result
        if kind is ResultType.ERROR:
            msg = result.error or "engine error"
            body.append(
                f'{open_tag}>\n      <error type="ERROR" message={_attr(msg)}>'
                f"{_text(msg)}</error>\n    </testcase>"
            )
            continue
        entities = result.entities
        if (
            (kind is ResultType.TP or kind is ResultType.TN)
            and result.entity_order_ok is not False
            and (not entities or all(e.ok for e in entities))
            and (not result.raw_checks or all(c.ok for c in result.raw_checks))
        ):
            details = []  # passed: what failure_details would find, without building it
        else:
            details = failure_details(case, prediction, result)
        if not details:
            body.append(f"{open_tag}/>")
            continue
        failures += 1
        body.append(
            f"{open_tag}>\n      <failure type={_attr(result.result.value)} "
            f"message={_attr(details[0])}>{_text(chr(10).join(details))}</failure>\n"
            "    </testcase>"
        )
    if body:
        body.append("")  # the last element's newline
    return "\n".join(body), failures, times


JUnitPart = tuple[bytes, int, "array[float]"]
"""(UTF-8 ``<testcase>`` elements, failures, times in seconds) of a range of rows."""


def junit_rows(prepared: PreparedRun, meta: RunMeta, lo: int, hi: int) -> JUnitPart:
    """(UTF-8 ``<testcase>`` elements, failures) of rows ``lo``..``hi``, for
    :func:`junit_chunks`."""
    text, failures, times = _testcases(
        prepared.rows[lo:hi], prepared.first_expected(lo, hi), meta.suite or "suite"
    )
    return text.encode("utf-8"), failures, times


def junit_chunks(prepared: PreparedRun, meta: RunMeta, parts: Sequence[JUnitPart]) -> list[bytes]:
    """The whole document from :func:`junit_rows` parts of consecutive ranges.

    The total time is the exact (``math.fsum``) sum of the test cases' times.
    """
    summary = prepared.summary
    rows = prepared.rows
    failures = sum(f for _body, f, _times in parts)
    total_time = math.fsum(chain.from_iterable(times for _body, _f, times in parts))
    counts = (
        f'tests="{len(rows)}" failures="{failures}" errors="{summary.errors}" '
        f'time="{total_time:.3f}"'
    )
    props = [
        ("run_id", meta.id),
        ("engine", meta.engine),
        ("version", meta.version or ""),
        ("status", meta.status or ""),
        ("precision", f"{summary.precision:.6f}"),
        ("recall", f"{summary.recall:.6f}"),
        ("f1", f"{summary.f1:.6f}"),
        ("metric_definitions", KORE),
        ("negative_intents", "|".join(prepared.options.negative_intents)),
        ("entity_synonym_groups", str(meta.entity_synonym_groups)),
    ]
    if summary.raw_checks:
        props += [
            ("raw_checks", str(summary.raw_checks)),
            ("raw_checks_ok", str(summary.raw_checks_ok)),
        ]
    props += [("warning", w) for w in meta.warnings]
    props += [
        (f"metric_{key}", text) for key, text in settings_pairs(kore_spec(meta, prepared.options))
    ]
    stability = meta.stability
    if stability is not None:  # a repeated run: how stable, and which cases were flaky
        share = stability["overall"]["stability"]
        props += [
            ("repeat", str(stability["repeat"])),
            ("stability", "" if share is None else f"{share:.6f}"),
            ("flaky_cases", " ".join(stability["flaky"])),
        ]
    prop_xml = "\n".join(f"      <property name={_attr(k)} value={_attr(v)}/>" for k, v in props)
    stamp = iso_time(meta.started_at)
    timestamp = f" timestamp={_attr(stamp)}" if stamp else ""
    suite_name = meta.suite or "suite"
    head = "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<testsuites name="nlu-tui" {counts}>',
            f'  <testsuite name={_attr(suite_name)} {counts} skipped="0"{timestamp}>',
            f"    <properties>\n{prop_xml}\n    </properties>",
            "",
        ]
    )
    tail = "  </testsuite>\n</testsuites>\n"
    return [head.encode("utf-8"), *(body for body, _f, _t in parts), tail.encode("utf-8")]


def render_junit(
    meta: RunMeta,
    rows: Sequence[ResultRow],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    prepared: PreparedRun | None = None,
) -> str:
    if prepared is None:
        prepared = prepare_run(rows, options)
    part = junit_rows(prepared, meta, 0, len(prepared.rows))
    return b"".join(junit_chunks(prepared, meta, [part])).decode("utf-8")


def write_junit_parts(
    path: Path, prepared: PreparedRun, meta: RunMeta, parts: Sequence[JUnitPart]
) -> list[Path]:
    atomic_write_chunks(Path(path), junit_chunks(prepared, meta, parts))
    return [Path(path)]
