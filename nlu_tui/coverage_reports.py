"""``--coverage-report`` for ``test e2e`` and ``test du``: the flow-step coverage files of a
finished run, as one service call for the CLI (and the workbench).

The figures are :mod:`nlu_tui.scoring.flow_coverage`'s; the files
:mod:`nlu_tui.reports.coverage_files`'. E2E tests are read from their trackers, fetched after
the run as Rasa Pro does (``E2ETestRunner.run_tests`` retrieves each test's tracker when
``coverage`` is on); DUT test cases from their own steps (:func:`dut_events`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.formats.flow_steps import FlowGraph, read_flow_steps
from nlu_tui.reports.coverage_files import check_output_dir, write_coverage_files
from nlu_tui.scoring.flow_coverage import (
    CoverageReport,
    VisitedPaths,
    command_histogram,
    coverage_report,
    dut_events,
    visited_from_events,
)

DEFAULT_OUTPUT = Path("e2e_coverage_results")
"""Rasa Pro's ``DEFAULT_COVERAGE_OUTPUT_PATH``."""
FLOW_FILE_SUFFIXES = (".yml", ".yaml")


@dataclass
class CoverageResult:
    reports: dict[str, CoverageReport | None] = field(default_factory=dict)
    histograms: dict[str, dict[str, int]] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)


def flow_files(path: Path) -> list[Path]:
    """A flows file, or every YAML file with ``flows:`` under a folder (sorted)."""
    if path.is_dir():
        found = [
            p
            for p in sorted(path.rglob("*"))
            if p.suffix in FLOW_FILE_SUFFIXES and p.is_file() and _has_flows(p)
        ]
        if not found:
            raise InputError("no flows file (YAML with 'flows:') in the folder", path)
        return found
    if not path.is_file():
        raise InputError("no such flows file", path, field="flows")
    return [path]


def _has_flows(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return any(line.startswith("flows:") for line in text.splitlines())


def prepare(output: Path, flows: Path | None) -> FlowGraph:
    """Check the output folder and read the flows before any test runs (bad input: exit 2)."""
    problem = check_output_dir(output)
    if problem is not None:
        raise InputError(problem, output, field="coverage-output-path")
    if flows is None:
        raise InputError(
            "--coverage-report needs the assistant's flows: give --flows FILE or FOLDER",
            field="flows",
        )
    return read_flow_steps(flow_files(flows))


def report(
    graph: FlowGraph, tests: Iterable[tuple[bool, VisitedPaths]], output: Path
) -> CoverageResult:
    """Split the tests into passed and failed, compute both reports, write the files."""
    groups: dict[str, list[VisitedPaths]] = {"passed": [], "failed": []}
    for passed, tested in tests:
        groups["passed" if passed else "failed"].append(tested)
    result = CoverageResult()
    for status, members in groups.items():
        result.reports[status] = coverage_report(graph, members)
        result.histograms[status] = command_histogram(members)
    result.files = write_coverage_files(output, result.reports, result.histograms)
    return result


def summary_lines(result: CoverageResult) -> list[str]:
    """One line per group: its total coverage, then each flow's uncovered lines."""
    out: list[str] = []
    for status, rep in result.reports.items():
        if rep is None or rep.total_coverage is None:
            out.append(f"flow coverage of {status} tests: no flow step visited")
            continue
        covered = rep.total_steps - rep.total_missing
        out.append(
            f"flow coverage of {status} tests: {rep.total_coverage:.2f}% "
            f"({covered} of {rep.total_steps} steps)"
        )
        for row in rep.rows:
            if row.missing:
                lines = ", ".join(row.missing_lines)
                out.append(f"  {row.flow}: {row.coverage:.2f}%, not visited: lines {lines}")
    return out


def dut_tested(case: Any, graph: FlowGraph) -> VisitedPaths:
    """A DUT test case (:class:`nlu_tui.dut.model.DutCase`) as tested paths."""
    steps: list[tuple[str, Any]] = []
    for step in case.steps:
        if step.actor == "user":
            steps.append(("user", [c.as_json() for c in step.commands]))
        elif step.template:
            steps.append(("bot", step.template))
    return visited_from_events(dut_events(steps, graph), graph)


def e2e_tested(
    events: Sequence[Mapping[str, Any]], graph: FlowGraph, domain_actions: frozenset[str] | None
) -> VisitedPaths:
    return visited_from_events(events, graph, domain_actions)


async def fetch_trackers(
    engine: Any, senders: Iterable[str]
) -> tuple[dict[str, list[dict[str, Any]]], frozenset[str] | None]:
    """Each sender's tracker events and the domain's custom actions from a Rasa engine
    (``GET /conversations/{id}/tracker``, ``GET /domain``); an engine without trackers gives
    none, as Rasa's coverage has no path for a test whose tracker is gone."""
    import urllib.parse

    base = getattr(engine, "base_url", None)
    request_json = getattr(engine, "request_json", None)
    if base is None or request_json is None:
        return {}, None
    params = getattr(engine, "_params", None)
    headers = getattr(engine, "_headers", None)
    out: dict[str, list[dict[str, Any]]] = {}
    for sender in senders:
        url = f"{base}/conversations/{urllib.parse.quote(sender, safe='')}/tracker"
        body, _ = await request_json("GET", url, params=params, headers=headers)
        events = body.get("events") if isinstance(body, dict) else None
        if isinstance(events, list):
            out[sender] = [e for e in events if isinstance(e, dict)]
    actions: frozenset[str] | None = None
    try:
        body, _ = await request_json(
            "GET", f"{base}/domain", params=params, headers=headers_json(headers)
        )
        listed = body.get("actions") if isinstance(body, dict) else None
        if isinstance(listed, list):  # names, or {name: {send_domain: true}}
            actions = frozenset(
                str(name)
                for a in listed
                for name in ([a] if isinstance(a, str) else list(a) if isinstance(a, dict) else [])
            )
    except Exception:  # a server without /domain: Rasa's own action names decide
        actions = None
    return out, actions


async def e2e_coverage(
    engine: Any, items: Iterable[Any], graph: FlowGraph, output: Path
) -> CoverageResult:
    """Fetch each finished E2E test case's tracker (its last sender id) from the engine and
    write the coverage files; test cases that errored are left out (Rasa has no such case)."""
    from nlu_tui.runner.client import make_client

    finished = [
        (item.outcome == "passed", str(item.data["sender_id"]))
        for item in items
        if item.outcome in ("passed", "failed") and item.data.get("sender_id")
    ]
    client = make_client(concurrency=1, timeout=60.0)
    try:
        await engine.open(client)
        try:
            trackers, actions = await fetch_trackers(engine, [s for _, s in finished])
        finally:
            await engine.close()
    finally:
        await client.aclose()
    return report(
        graph,
        ((ok, e2e_tested(trackers.get(sender, []), graph, actions)) for ok, sender in finished),
        output,
    )


def _relative(file: str, root: Path) -> Path:
    """Where a test case's file goes under ``passed/`` or ``failed/`` (Rasa Pro's
    ``_get_relative_output_path``: its path below the tests folder, else its name)."""
    if not file:
        return Path("_unsourced.yml")
    path, base = os.path.normpath(file), os.path.normpath(str(root))
    if path == base or os.path.dirname(path) == base:
        return Path(os.path.basename(path))
    if path.startswith(base + os.sep):
        return Path(path[len(base) + 1 :])
    return Path(os.path.basename(path))


def write_status_cases(e2e: Any, items: Iterable[Any], root: Path, output: Path) -> list[Path]:
    """The test cases of each status as E2E files under ``output/passed`` and
    ``output/failed``, one per source file, the folder layout of the tests kept (Rasa Pro's
    ``save_test_cases_to_yaml``: the fixtures the cases use, all metadata and stubs); a
    status without test cases writes nothing."""
    from nlu_tui.conversation_model import E2EFile
    from nlu_tui.fileio import atomic_write_text
    from nlu_tui.formats.e2e_cases import dumps

    by_key = {(c.file, c.line, c.name): c for c in e2e.test_cases}
    items = list(items)
    written: list[Path] = []
    for status in ("passed", "failed"):
        groups: dict[str, list[Any]] = {}
        for item in items:
            key = (item.data.get("file"), item.data.get("line"), item.data.get("name"))
            if item.outcome == status and key in by_key:
                groups.setdefault(by_key[key].file, []).append(by_key[key])
        for file, cases in groups.items():
            used = {name for case in cases for name in case.fixture_names}
            part = E2EFile(
                test_cases=cases,
                fixtures={k: v for k, v in e2e.fixtures.items() if k in used},
                metadata=dict(e2e.metadata),
                stub_custom_actions=dict(e2e.stub_custom_actions),
            )
            target = output / status / _relative(file, root)
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(target, dumps(part))
            written.append(target)
    return written


def default_flows(path: Path | None) -> Path | None:
    """``--flows``, else the Rasa project's ``data`` folder when it holds flows (Rasa reads
    the flows from the trained model, i.e. from the project's data)."""
    if path is not None:
        return path
    data = Path("data")
    if data.is_dir() and any(_has_flows(p) for p in data.rglob("*.y*ml")):
        return data
    return None


def headers_json(headers: Mapping[str, str] | None) -> dict[str, str]:
    out = dict(headers or {})
    out["Accept"] = "application/json"
    return out


# ---- kept with the run, shown by the workbench ------------------------------------------------

SUMMARY_KEY = "flow_coverage"
"""The run summary's key for its coverage (set by ``--coverage-report``)."""


def coverage_summary(result: CoverageResult) -> dict[str, Any]:
    """The coverage of a run as JSON data: each group's report (None: header only) and
    histogram."""
    return {
        "reports": {
            status: (rep.as_dict() if rep is not None else None)
            for status, rep in result.reports.items()
        },
        "histograms": dict(result.histograms),
    }


def keep_with_run(store: Any, run_id: str, result: CoverageResult) -> None:
    """Add the coverage to the run's summary, so the workbench can show it and compare."""
    run = store.get_run(run_id)
    summary = dict(run.summary or {})
    summary[SUMMARY_KEY] = coverage_summary(result)
    store.set_summary(run_id, summary)


def previous_coverage(store: Any, run: Any) -> dict[str, Any] | None:
    """The coverage of the newest earlier run of the same kind and tests that has one."""
    for other in store.list_runs(run.suite_path or run.suite_hash, limit=200):
        if other.id == run.id or other.kind != run.kind or other.started_at >= run.started_at:
            continue
        found = (other.summary or {}).get(SUMMARY_KEY)
        if isinstance(found, dict):
            return found
    return None


@dataclass
class StepLine:
    flow: str
    step_id: str
    lines: str
    visited: bool
    change: str = ""
    """``+`` visited now but not before, ``-`` visited before but not now, else empty."""


def step_lines(
    current: Mapping[str, Any], previous: Mapping[str, Any] | None, status: str
) -> list[StepLine]:
    """Each testable step of one group's report with its mark and its change since the
    previous run's report of that group (no change is shown without a previous report)."""
    rep = (current.get("reports") or {}).get(status)
    if not isinstance(rep, dict):
        return []
    before: dict[tuple[str, str], bool] | None = None
    old = ((previous or {}).get("reports") or {}).get(status) if previous else None
    if previous is not None:
        before = {}
        if isinstance(old, dict):
            for flow in old.get("flows", []):
                for step in flow.get("steps", []):
                    before[(flow["flow_id"], step["id"])] = bool(step["visited"])
    out: list[StepLine] = []
    for flow in rep.get("flows", []):
        for step in flow.get("steps", []):
            visited = bool(step["visited"])
            change = ""
            if before is not None:
                was = before.get((flow["flow_id"], step["id"]), False)
                change = "+" if visited and not was else "-" if was and not visited else ""
            out.append(StepLine(flow["flow"], step["id"], step["lines"], visited, change))
    return out
