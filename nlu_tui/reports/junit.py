"""JUnit XML: one test case per utterance, so CI servers show each failing utterance.

A case fails (``<failure>``) when its result is FP or FN, when an expected entity is wrong, or
when the entity order disagrees; the message says what was expected and what matched. An engine
error is an ``<error>``. ``classname`` is ``<suite>.<first expected intent or "none">``,
``name`` the utterance with the case id, ``time`` the engine latency in seconds.
Everything is XML-escaped, and characters XML 1.0 cannot carry become U+FFFD.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

from nlu_tui.fileio import atomic_write_text
from nlu_tui.model import CaseResult, Prediction, ResultType, TestCase
from nlu_tui.reports.common import ResultRow, RunMeta, iso_time
from nlu_tui.reports.kore_csv import expected_intent_text, matched_intent_text
from nlu_tui.reports.prepared import PreparedRun, prepare_run
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions

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
    escaped = (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\n", "&#10;")
        .replace("\r", "&#13;")
        .replace("\t", "&#9;")
    )
    return f'"{escaped}"'


def failure_details(case: TestCase, prediction: Prediction | None, result: CaseResult) -> list[str]:
    """What went wrong, one line per problem (empty when the case passed)."""
    lines: list[str] = []
    if result.result in (ResultType.FP, ResultType.FN):
        lines.append(
            f"{result.result.value}: expected intent {expected_intent_text(case) or '(none)'!r}, "
            f"matched {matched_intent_text(result, prediction) or '(none)'!r}"
        )
    for e in result.entities:
        if not e.ok:
            got = "not found" if e.matched is None else f"matched {e.matched!r}"
            lines.append(f"entity {e.name!r}: expected {e.expected!r}, {got}")
    if result.entity_order_ok is False:
        lines.append(
            f"entity order: expected {'>'.join(result.expected_entity_order)}, "
            f"actual {'>'.join(result.actual_entity_order)}"
        )
    return lines


def render_junit(
    meta: RunMeta,
    rows: Sequence[ResultRow],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    prepared: PreparedRun | None = None,
) -> str:
    if prepared is None:
        prepared = prepare_run(rows, options)
    summary = prepared.summary
    body: list[str] = []
    failures = 0
    total_time = 0.0
    suite_name = meta.suite or "suite"
    classnames: dict[str | None, str] = {}  # few distinct classes: escape each once
    isfinite = math.isfinite
    for (case, prediction, result), first in zip(rows, prepared.first_expected, strict=True):
        seconds = (result.latency_ms or 0.0) / 1000.0
        if not isfinite(seconds):
            seconds = 0.0
        total_time += seconds
        intent = first
        classname = classnames.get(intent)
        if classname is None:
            classname = classnames[intent] = _attr(f"{suite_name}.{intent or 'none'}")
        name = _attr(f"{case.utterance} [{case.id}]")
        open_tag = f'    <testcase classname={classname} name={name} time="{seconds:.3f}"'
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
    ]
    prop_xml = "\n".join(f"      <property name={_attr(k)} value={_attr(v)}/>" for k, v in props)
    stamp = iso_time(meta.started_at)
    timestamp = f" timestamp={_attr(stamp)}" if stamp else ""
    return "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<testsuites name="nlu-tui" {counts}>',
            f'  <testsuite name={_attr(suite_name)} {counts} skipped="0"{timestamp}>',
            f"    <properties>\n{prop_xml}\n    </properties>",
            *body,
            "  </testsuite>",
            "</testsuites>",
            "",
        ]
    )


def write_junit(
    path: Path,
    meta: RunMeta,
    rows: Sequence[ResultRow],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    prepared: PreparedRun | None = None,
) -> list[Path]:
    atomic_write_text(Path(path), render_junit(meta, rows, options, prepared=prepared))
    return [Path(path)]
