"""The report of a simulate run, computed once from its stored conversations: per scenario the
pass rate with its 95 % Wilson interval (:mod:`nlu_tui.scoring.proportions`), and for each
failed conversation whether an assertion failed or only the judge did; ``--fail-on`` gates;
the text, JSON and JUnit renderings.

The pass rate counts the conversations that were judged (passed + failed): an ERROR (the
simulated user, the judge, the reset hook or the bot failed) is neither, and is listed apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.reports.item_pages import run_payload
from nlu_tui.scoring.proportions import pass_rate
from nlu_tui.store.records import RunRecord, StoredItem

GATE_METRICS = ("pass_rate", "ci95_low", "ci95_high")
_GATE = re.compile(r"^\s*([a-z0-9_]+)\s*(<=|<)\s*([0-9]*\.?[0-9]+)\s*$")


def failure_detail(data: dict[str, Any]) -> str:
    """One line: what made a conversation fail (the first failed assertion, else the first
    criterion the judge failed), or its error."""
    if "error" in data:
        return str(data["error"])
    for assertion in data.get("assertions") or []:
        if not assertion.get("passed"):
            return f"assertion {assertion.get('type')}: {assertion.get('message', '')}".strip()
    for criterion in data.get("criteria") or []:
        if not criterion.get("passed"):
            return (
                f"judge only: {criterion.get('criterion')!r} scored "
                f"{float(criterion.get('score', 0.0)):.2f}: {criterion.get('reason', '')}"
            ).strip()
    return ""


def scenario_summary(items: Sequence[StoredItem]) -> list[dict[str, Any]]:
    """Per scenario, in run order: runs, passed, failed, errors, the pass rate and its 95 %
    Wilson interval, and each failed or errored conversation (repeat, kind, detail)."""
    by: dict[str, dict[str, Any]] = {}
    for item in sorted(items, key=lambda i: i.seq):
        d = item.data
        key = str(d.get("scenario") or item.item_id.rsplit("#", 1)[0])
        row = by.setdefault(
            key,
            {
                "scenario": key,
                "name": d.get("name"),
                "file": d.get("file"),
                "line": d.get("line"),
                "runs": 0,
                "passed": 0,
                "failed": 0,
                "errors": 0,
                "assertion_failures": 0,
                "judge_only_failures": 0,
                "failures": [],
            },
        )
        row["runs"] += 1
        if item.outcome == "passed":
            row["passed"] += 1
            continue
        if item.outcome == "failed":
            row["failed"] += 1
            kind = d.get("failure") or "assertion"
            row["assertion_failures" if kind == "assertion" else "judge_only_failures"] += 1
        else:
            row["errors"] += 1
            kind = "error"
        row["failures"].append(
            {"repeat": d.get("repeat"), "kind": kind, "detail": failure_detail(d)}
        )
    out = []
    for row in by.values():
        rate = pass_rate(row["passed"], row["passed"] + row["failed"])
        row.update(pass_rate=rate.rate, ci95_low=rate.low, ci95_high=rate.high)
        out.append(row)
    return out


@dataclass(frozen=True)
class Gate:
    metric: str
    op: str
    value: float

    def fails(self, actual: float) -> bool:
        return actual < self.value if self.op == "<" else actual <= self.value

    def __str__(self) -> str:
        return f"{self.metric}{self.op}{self.value:g}"


def parse_gates(text: str | None) -> list[Gate]:
    """``--fail-on``: comma-separated ``METRIC<VALUE`` (or ``<=``), METRIC one of
    :data:`GATE_METRICS`, each checked for every scenario (InputError naming the term)."""
    if not text:
        return []
    gates = []
    for term in text.split(","):
        found = _GATE.match(term)
        if found is None or found.group(1) not in GATE_METRICS:
            raise InputError(
                f"cannot read {term.strip()!r}: write METRIC<VALUE with METRIC one of "
                f"{', '.join(GATE_METRICS)} (e.g. pass_rate<0.8)",
                field="--fail-on",
            )
        value = float(found.group(3))
        if not 0.0 <= value <= 1.0:
            raise InputError(f"{term.strip()!r}: the value must be in 0..1", field="--fail-on")
        gates.append(Gate(found.group(1), found.group(2), value))
    return gates


def failed_gates(gates: Sequence[Gate], scenarios: Sequence[dict[str, Any]]) -> list[str]:
    """One line per gate a scenario fails (a scenario without a judged conversation fails every
    gate: nothing shows it passes)."""
    out = []
    for gate in gates:
        for row in scenarios:
            judged = row["passed"] + row["failed"]
            actual = float(row[gate.metric]) if judged else 0.0
            if not judged or gate.fails(actual):
                out.append(
                    f"gate {gate} failed: scenario {row['name']!r} has {gate.metric} "
                    f"{actual:.3f} ({row['passed']} of {judged} passed)"
                )
    return out


def _percent(value: float) -> str:
    return f"{value * 100:.1f}%"


def text_report(scenarios: Sequence[dict[str, Any]]) -> str:
    """The table of scenarios, then every failed or errored conversation."""
    width = max([len(str(r["name"])) for r in scenarios] + [8])
    lines = [
        f"{'scenario':<{width}}  runs  passed  failed  errors  pass rate  95% CI (Wilson)",
    ]
    for r in scenarios:
        judged = r["passed"] + r["failed"]
        rate = _percent(r["pass_rate"]) if judged else "-"
        ci = f"{_percent(r['ci95_low'])}–{_percent(r['ci95_high'])}" if judged else "-"
        lines.append(
            f"{r['name']!s:<{width}}  {r['runs']:>4}  {r['passed']:>6}  {r['failed']:>6}  "
            f"{r['errors']:>6}  {rate:>9}  {ci}"
        )
    for r in scenarios:
        for f in r["failures"]:
            label = {"assertion": "FAILED (assertion)", "judge": "FAILED (judge only)"}.get(
                f["kind"], "ERROR"
            )
            lines.append(f"  {r['name']} #{f['repeat']}: {label}: {f['detail']}")
    return "\n".join(lines) + "\n"


def json_report(run: RunRecord, items: Sequence[StoredItem]) -> str:
    scenarios = scenario_summary(items)
    payload = {
        **run_payload(run, items),
        "scenarios": scenarios,
        "conversations": [
            {"id": i.item_id, "outcome": i.outcome, "latency_ms": i.latency_ms, **i.data}
            for i in sorted(items, key=lambda i: i.seq)
        ],
    }
    return json.dumps(payload, ensure_ascii=False, indent=2, default=str) + "\n"


def junit_xml(run: RunRecord, items: Sequence[StoredItem], suite_name: str) -> str:
    """One ``<testsuite>`` per scenario (its pass rate and interval as properties), one
    ``<testcase>`` per conversation."""
    from xml.etree import ElementTree as ET

    ordered = sorted(items, key=lambda i: i.seq)
    root = ET.Element(
        "testsuites",
        name=suite_name,
        tests=str(len(ordered)),
        failures=str(sum(1 for i in ordered if i.outcome == "failed")),
        errors=str(sum(1 for i in ordered if i.outcome == "error")),
    )
    suites: dict[str, Any] = {}
    for row in scenario_summary(ordered):
        suite = ET.SubElement(
            root,
            "testsuite",
            name=str(row["name"]),
            tests=str(row["runs"]),
            failures=str(row["failed"]),
            errors=str(row["errors"]),
        )
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="run", value=run.id)
        for key in ("pass_rate", "ci95_low", "ci95_high"):
            ET.SubElement(props, "property", name=key, value=f"{row[key]:.4f}")
        suites[row["scenario"]] = suite
    for item in ordered:
        d = item.data
        key = str(d.get("scenario") or item.item_id.rsplit("#", 1)[0])
        case = ET.SubElement(
            suites[key],
            "testcase",
            name=f"{d.get('name')} #{d.get('repeat')}",
            classname=str(d.get("file")),
            time=f"{(item.latency_ms or 0.0) / 1000.0:.3f}",
        )
        if item.outcome == "failed":
            node = ET.SubElement(
                case, "failure", message=failure_detail(d), type=str(d.get("failure"))
            )
            node.text = transcript_lines(d) or None
        elif item.outcome == "error":
            ET.SubElement(case, "error", message=failure_detail(d), type=str(d.get("error_kind")))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def transcript_lines(data: dict[str, Any]) -> str:
    """The conversation as ``user:`` / ``bot:`` lines (the results screen, JUnit)."""
    lines = []
    for turn in data.get("turns") or []:
        if turn.get("user"):
            lines.append(f"user: {turn['user']}")
        for text in turn.get("bot") or []:
            lines.append(f"bot:  {text}")
    return "\n".join(lines)


def diff_lines(before: Sequence[StoredItem], after: Sequence[StoredItem]) -> list[str]:
    """Per scenario (paired by file, line and name): its pass rate then and now, and whether
    the two 95 % intervals are apart (a change the runs support) or overlap."""
    old = {r["scenario"]: r for r in scenario_summary(before)}
    out = []
    for row in scenario_summary(after):
        prior = old.pop(row["scenario"], None)
        now = f"{row['passed']}/{row['passed'] + row['failed']} ({_percent(row['pass_rate'])})"
        if prior is None:
            out.append(f"  new           {row['name']}: {now}")
            continue
        then = f"{prior['passed']}/{prior['passed'] + prior['failed']} ({_percent(prior['pass_rate'])})"
        apart = row["ci95_low"] > prior["ci95_high"] or row["ci95_high"] < prior["ci95_low"]
        if row["pass_rate"] == prior["pass_rate"]:
            verdict = "same"
        elif apart:
            verdict = "better" if row["pass_rate"] > prior["pass_rate"] else "worse"
        else:
            verdict = "within noise"
        out.append(f"  {verdict:<13} {row['name']}: {then} → {now}")
    out += [f"  gone          {r['name']}" for r in old.values()]
    return out
