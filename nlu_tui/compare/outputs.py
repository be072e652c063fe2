"""What ``compare`` writes: ``metadata.json``, ``statistics.json``, NUnit ``TestResult.xml`` and
the console summary (markdown tables with baseline deltas and the intent confusion table)."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from nlu_tui.compare.decisions import Decision, ResultKind, TargetKind
from nlu_tui.compare.statistics import Counts, Statistics
from nlu_tui.compare.thresholds import GateResult
from nlu_tui.fileio import atomic_write_text

_CDATA_END = "]]>"


def metadata_json(decisions: Sequence[Decision]) -> str:
    """One decision per line: readable, diffable, and fast.

    The rows are those of :meth:`Decision.to_json`; each utterance is encoded once and reused
    by all of its decisions (they repeat it, as NLU.DevOps does).
    """
    if not decisions:
        return "[]\n"
    encoded: dict[int, str] = {}

    def enc(raw: dict[str, object]) -> str:
        key = id(raw)
        text = encoded.get(key)
        if text is None:
            text = encoded[key] = json.dumps(raw, ensure_ascii=False)
        return text

    rows = []
    for d in decisions:
        head = json.dumps(
            {
                "utteranceId": d.utterance_id,
                "group": d.group,
                "resultKind": d.result_kind.value,
                "targetKind": d.target_kind.value,
            },
            ensure_ascii=False,
        )
        tail = json.dumps(
            {
                "score": d.score,
                "testName": d.test_name,
                "because": d.because,
                "categories": d.categories,
            },
            ensure_ascii=False,
        )
        rows.append(
            f'  {head[:-1]}, "expectedUtterance": {enc(d.expected.raw)}, '
            f'"actualUtterance": {enc(d.actual.raw)}, {tail[1:]}'
        )
    return "[\n" + ",\n".join(rows) + "\n]\n"


def statistics_json(stats: Statistics) -> str:
    """Indented JSON with each ``[TP, TN, FP, FN]`` on one line, as in the NLU.DevOps docs."""
    data = stats.to_json()
    lines = ["{"]
    items = list(data.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(value, list):
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
            continue
        if not value:
            lines.append(f"  {json.dumps(key)}: {{}}{comma}")
            continue
        lines.append(f"  {json.dumps(key)}: {{")
        groups = list(value.items())
        for j, (name, counts) in enumerate(groups):
            inner = "," if j < len(groups) - 1 else ""
            lines.append(f"    {json.dumps(name, ensure_ascii=False)}: {json.dumps(counts)}{inner}")
        lines.append(f"  }}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _cdata(text: str) -> str:
    return "<![CDATA[" + text.replace(_CDATA_END, "]]]]><![CDATA[>") + "]]>"


_XML_INVALID = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    """A double-quoted XML attribute value (quotes, tabs and newlines as references)."""
    escaped = _escape(text).replace('"', "&quot;")
    return '"' + escaped.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;") + '"'


def _xml_safe(text: str) -> str:
    """Drop characters XML 1.0 cannot carry (control characters from untrusted files)."""
    return _XML_INVALID.sub("", text)


def nunit_xml(decisions: Sequence[Decision], *, started: datetime | None = None) -> str:
    """NUnit 3 result file: one test case per decision, FP and FN as failures."""
    started = started or datetime.now(UTC)
    stamp = started.strftime("%Y-%m-%d %H:%M:%SZ")
    failed = sum(1 for d in decisions if not d.result_kind.passed)
    total = len(decisions)
    result = "Failed" if failed else "Passed"
    lines = [
        '<?xml version="1.0" encoding="utf-8" standalone="no"?>',
        f'<test-run id="0" testcasecount="{total}" result="{result}" total="{total}" '
        f'passed="{total - failed}" failed="{failed}" inconclusive="0" skipped="0" asserts="{total}" '
        f'engine-version="3.0" start-time="{stamp}" end-time="{stamp}" duration="0">',
        f'  <test-suite type="Assembly" id="0-1" name="nlu-tui compare" fullname="nlu-tui compare" '
        f'testcasecount="{total}" result="{result}" total="{total}" passed="{total - failed}" '
        f'failed="{failed}" inconclusive="0" skipped="0" asserts="{total}">',
        f'    <test-suite type="TestFixture" id="0-2" name="Tests" '
        f'fullname="NLU.DevOps.ModelPerformance.Tests" testcasecount="{total}" result="{result}" '
        f'total="{total}" passed="{total - failed}" failed="{failed}" inconclusive="0" skipped="0" asserts="{total}">',
    ]
    for i, d in enumerate(decisions, start=1):
        name = _xml_safe(d.test_name)
        passed = d.result_kind.passed
        lines.append(
            f'      <test-case id="0-{i + 2}" name={quoteattr(name)} '
            f"fullname={quoteattr('NLU.DevOps.ModelPerformance.Tests.' + name)} "
            f'methodname="{"Pass" if passed else "Fail"}" classname="NLU.DevOps.ModelPerformance.Tests" '
            f'result="{"Passed" if passed else "Failed"}" asserts="1">'
        )
        lines.append("        <properties>")
        for category in d.categories:
            lines.append(f'          <property name="Category" value={quoteattr(category)} />')
        lines.append(
            f'          <property name="utteranceId" value={quoteattr(_xml_safe(d.utterance_id))} />'
        )
        lines.append("        </properties>")
        if not passed:
            lines.append(
                f"        <failure><message>{_cdata(_xml_safe(d.because))}</message></failure>"
            )
        else:
            lines.append(
                f"        <reason><message>{_escape(_xml_safe(d.because))}</message></reason>"
            )
        lines.append("      </test-case>")
    lines += ["    </test-suite>", "  </test-suite>", "</test-run>", ""]
    return "\n".join(lines)


def write_outputs(
    out_dir: Path,
    decisions: Sequence[Decision],
    stats: Statistics,
    spec: dict[str, object] | None = None,
) -> list[Path]:
    """Write the three files (atomically), and ``metric_spec.json`` (ours, not NLU.DevOps':
    the definitions and settings the numbers follow) when ``spec`` is given; returns their
    paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {
        "metadata.json": metadata_json(decisions),
        "statistics.json": statistics_json(stats),
        "TestResult.xml": nunit_xml(decisions),
    }
    if spec is not None:
        files["metric_spec.json"] = json.dumps(spec, indent=2, ensure_ascii=False) + "\n"
    paths = []
    for name, text in files.items():
        atomic_write_text(out_dir / name, text)
        paths.append(out_dir / name)
    return paths


# --- console summary ------------------------------------------------------------------------


def _cell(value: float, base: float | None) -> str:
    text = f"{value:.4f}"
    if base is not None:
        text += f" ({value - base:+.3f})"
    return text


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    out = [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


def _metric_rows(
    label: str, stats: Statistics, kind: TargetKind, baseline: Statistics | None
) -> list[list[str]]:
    def row(name: str, cur: Counts, base: Counts | None) -> list[str]:
        return [
            _md_escape(name),
            _cell(cur.precision, base.precision if base else None),
            _cell(cur.recall, base.recall if base else None),
            _cell(cur.f1, base.f1 if base else None),
            str(cur.total),
            str(cur.fp),
        ]

    rows = [row("*", stats.counts(kind), baseline.counts(kind) if baseline else None)]
    for name in sorted(stats.group_names(kind)):
        rows.append(
            row(name, stats.counts(kind, name), baseline.counts(kind, name) if baseline else None)
        )
    return rows


def confusion_pairs(decisions: Sequence[Decision]) -> list[tuple[str, str, int]]:
    """(expected intent, actual intent, FP count) over intent FPs, most frequent first."""
    counter: Counter[tuple[str, str]] = Counter(
        (d.expected.intent or "null", d.actual.intent or "null")
        for d in decisions
        if d.target_kind is TargetKind.INTENT and d.result_kind is ResultKind.FP
    )
    return [(e, a, n) for (e, a), n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))]


def console_summary(
    decisions: Sequence[Decision],
    stats: Statistics,
    baseline: Statistics | None = None,
    gates: Sequence[GateResult] = (),
) -> str:
    """Plain text (markdown tables); the caller escapes it before any Rich markup."""
    parts = [
        "== Intent results ==",
        markdown_table(
            ["Intent", "Precision", "Recall", "F1", "Total", "FP"],
            _metric_rows("Intent", stats, TargetKind.INTENT, baseline),
        ),
        "",
        "== Entity results ==",
        markdown_table(
            ["Entity", "Precision", "Recall", "F1", "Total", "FP"],
            _metric_rows("Entity", stats, TargetKind.ENTITY, baseline),
        ),
        "",
        "== Intent confusion matrix ==",
        markdown_table(
            ["Expected", "Actual", "FP"],
            [[_md_escape(e), _md_escape(a), str(n)] for e, a, n in confusion_pairs(decisions)],
        ),
    ]
    if gates:
        parts += ["", "== Thresholds =="]
        parts += [_md_escape(g.description) for g in gates]
    failed = sum(1 for d in decisions if not d.result_kind.passed)
    parts += ["", f"Tests: {len(decisions)}, passed: {len(decisions) - failed}, failed: {failed}"]
    return "\n".join(parts) + "\n"
