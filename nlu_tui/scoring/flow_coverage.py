"""Flow-step coverage of a test run and its command histogram, as Rasa Pro 3.21 computes them.

Derived from Rasa Pro 3.21.0's source (read, not copied):

- **tested steps of one test** (``rasa/e2e_test/e2e_test_runner.py``,
  ``E2ETestRunner._get_tested_flow_paths_and_commands``, run on the test's tracker events
  after it ends): a ``flow_started`` of a non-pattern flow opens a path (and, when its
  metadata names ``parent_flow_id``/``parent_step_id``, marks that call/link step in the
  parent's open path); ``flow_completed`` of the innermost open flow closes it; a ``bot``
  event and a *custom* ``action`` event carrying ``step_id`` and ``active_flow`` metadata add
  that step of that flow; a ``slot`` event adds the collect step of the innermost open flow
  that collects the slot; a ``user`` event's ``parse_data.commands`` count per command name.
  :func:`visited_from_events` reads the same events as Rasa's tracker JSON.
- **the report** (``rasa/e2e_test/e2e_test_coverage_report.py``, ``create_coverage_report``):
  per flow holding testable steps (:func:`nlu_tui.formats.flow_steps.flow_nodes`),
  ``Num Steps`` = its testable steps, ``Missing Steps`` = those no test of the group visited,
  ``Coverage`` = (steps - missing) / steps * 100, then a ``Total`` row over the sums. A
  group without tests, or whose tests visited no step at all, gets an empty report.
- **the histogram** (``extract_tested_commands``): the counts of ``knowledge``, ``start
  flow``, ``set slot``, ``clarify``, ``cancel flow``, ``chitchat`` and ``skip question``
  (every other command name is left out), each starting at 0.

Rasa Pro's ``rasa test du`` writes no coverage report; for DUT test cases
:func:`dut_events` turns a test case into the events a tracker following it would hold (its
expected commands and its bot steps, the history Rasa's DUT simulator builds), and the E2E
rules above read them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nlu_tui.formats.flow_steps import PATTERN_PREFIX, FlowGraph, Node, flow_nodes

HISTOGRAM_COMMANDS = (
    "knowledge",
    "start flow",
    "set slot",
    "clarify",
    "cancel flow",
    "chitchat",
    "skip question",
)
"""Rasa's ``SUPPORTED_HISTOGRAM_COMMANDS`` (each command class's ``command()``)."""

DEFAULT_ACTIONS = frozenset(
    [
        "action_listen",
        "action_restart",
        "action_session_start",
        "action_default_fallback",
        "action_deactivate_loop",
        "action_revert_fallback_events",
        "action_default_ask_affirmation",
        "action_default_ask_rephrase",
        "action_two_stage_fallback",
        "action_unlikely_intent",
        "action_back",
        "action_send_text",
        "action_agent_request_user_input",
        "...",
        "action_extract_slots",
        "action_cancel_flow",
        "action_correct_flow_slot",
        "action_clarify_flows",
        "action_run_slot_rejections",
        "action_clean_stack",
        "action_trigger_search",
        "action_trigger_chitchat",
        "action_reset_routing",
        "action_hangup",
        "action_handoff_metric",
        "action_repeat_bot_messages",
        "action_default_capabilities",
        "action_continue_interrupted_flow",
        "action_cancel_interrupted_flows",
        "action_send_text_update",
    ]
)
"""Rasa Pro 3.21's ``DEFAULT_ACTION_NAMES`` (``rasa/shared/core/constants.py``)."""


def is_custom_action(name: str | None, domain_actions: frozenset[str] | None = None) -> bool:
    """Rasa asks the domain (``Domain.is_custom_action``: its ``actions:``); without the
    domain, an action that is neither a response (``utter_``) nor one of Rasa's own."""
    if not name:
        return False
    if domain_actions is not None:
        return name in domain_actions
    return not name.startswith("utter_") and name not in DEFAULT_ACTIONS


@dataclass
class VisitedPaths:
    """What one test visited: its flow paths' nodes and its commands per flow."""

    nodes: list[Node] = field(default_factory=list)
    commands: dict[str, dict[str, int]] = field(default_factory=dict)


def _meta(event: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = event.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def visited_from_events(
    events: Iterable[Mapping[str, Any]],
    graph: FlowGraph,
    domain_actions: frozenset[str] | None = None,
) -> VisitedPaths:
    """The flow steps one test visited and the commands it saw, from its tracker events."""
    collects = graph.collect_steps()
    stack: list[tuple[str, list[Node]]] = []
    closed: list[list[Node]] = []
    commands: dict[str, dict[str, int]] = {}
    for event in events:
        kind = event.get("event")
        meta = _meta(event)
        if kind == "flow_started":
            flow_id = str(event.get("flow_id") or "")
            if flow_id.startswith(PATTERN_PREFIX):
                continue
            parent_flow, parent_step = meta.get("parent_flow_id"), meta.get("parent_step_id")
            if stack and parent_flow is not None and parent_step is not None:
                for open_flow, nodes in reversed(stack):
                    if open_flow == parent_flow:
                        node = Node(str(parent_flow), str(parent_step))
                        if node not in nodes:
                            nodes.append(node)
                        break
            stack.append((flow_id, []))
        elif kind == "flow_completed":
            if stack and event.get("flow_id") == stack[-1][0]:
                closed.append(stack.pop()[1])
        elif kind in ("bot", "action"):
            if not stack or "step_id" not in meta or "active_flow" not in meta:
                continue
            if kind == "action" and not is_custom_action(event.get("name"), domain_actions):
                continue
            stack[-1][1].append(Node(str(meta["active_flow"]), str(meta["step_id"])))
        elif kind == "slot":
            if stack and (stack[-1][0], event.get("name")) in collects:
                node = Node(stack[-1][0], collects[(stack[-1][0], str(event.get("name")))])
                if node not in stack[-1][1]:
                    stack[-1][1].append(node)
        elif kind == "user":
            parse = event.get("parse_data")
            listed = parse.get("commands") if isinstance(parse, Mapping) else None
            if isinstance(listed, list):
                current = stack[-1][0] if stack else "no_flow"
                for command in listed:
                    name = command.get("command") if isinstance(command, Mapping) else None
                    if isinstance(name, str):
                        per_flow = commands.setdefault(current, {})
                        per_flow[name] = per_flow.get(name, 0) + 1
    while stack:
        closed.append(stack.pop()[1])
    return VisitedPaths([n for nodes in closed for n in nodes], commands)


def dut_events(steps: Sequence[tuple[str, Any]], graph: FlowGraph) -> list[dict[str, Any]]:
    """The tracker events of a DUT test case's conversation: ``("user", [command dicts])``
    and ``("bot", "utter_name")`` steps in order. A ``start flow`` opens the flow, a ``set
    slot`` sets the slot, a bot step is the step of the innermost open flow (or, failing it,
    of an outer one) that utters it: an action step of that name or a collect step asking
    with it. A cancelled flow stays open, as a tracker's ``flow_cancelled`` is not read."""
    events: list[dict[str, Any]] = []
    open_flows: list[str] = []
    for actor, payload in steps:
        if actor == "user":
            cmds = [c for c in payload if isinstance(c, Mapping)]
            events.append({"event": "user", "parse_data": {"commands": cmds}})
            for c in cmds:
                if c.get("command") == "start flow" and c.get("flow") in graph.flows:
                    open_flows.append(str(c["flow"]))
                    events.append({"event": "flow_started", "flow_id": c["flow"]})
                elif c.get("command") == "set slot" and c.get("name"):
                    events.append({"event": "slot", "name": c["name"], "value": c.get("value")})
        elif actor == "bot" and isinstance(payload, str):
            for flow_id in reversed(open_flows):
                step = next(
                    (
                        s
                        for s in graph.flows[flow_id].steps
                        if (s.kind == "action" and s.value == payload)
                        or (s.kind == "collect" and s.utter == payload)
                    ),
                    None,
                )
                if step is not None:
                    meta = {"step_id": step.id, "active_flow": flow_id}
                    events.append({"event": "bot", "metadata": meta})
                    break
    return events


@dataclass
class CoverageRow:
    flow: str
    """The flow's full name, ``<file>::<name>``."""
    flow_id: str
    steps: int
    missing: int
    missing_lines: list[str]
    covered: list[str] = field(default_factory=list)
    """Step ids visited (for the workbench's list)."""
    uncovered: list[str] = field(default_factory=list)
    steps_seen: list[tuple[str, str, bool]] = field(default_factory=list)
    """Every testable step in the report's order: (step id, line range, visited)."""

    @property
    def coverage(self) -> float:
        return (self.steps - self.missing) / self.steps * 100 if self.steps else 0.0


@dataclass
class CoverageReport:
    rows: list[CoverageRow] = field(default_factory=list)

    @property
    def total_steps(self) -> int:
        return sum(r.steps for r in self.rows)

    @property
    def total_missing(self) -> int:
        return sum(r.missing for r in self.rows)

    @property
    def total_coverage(self) -> float | None:
        total = self.total_steps
        return None if total == 0 else (total - self.total_missing) / total * 100

    def as_dict(self) -> dict[str, Any]:
        return {
            "flows": [
                {
                    "flow": r.flow,
                    "flow_id": r.flow_id,
                    "coverage": r.coverage,
                    "num_steps": r.steps,
                    "missing_steps": r.missing,
                    "missing_lines": r.missing_lines,
                    "covered": r.covered,
                    "uncovered": r.uncovered,
                    "steps": [
                        {"id": i, "lines": lines, "visited": seen}
                        for i, lines, seen in r.steps_seen
                    ],
                }
                for r in self.rows
            ],
            "total_steps": self.total_steps,
            "total_missing": self.total_missing,
            "total_coverage": self.total_coverage,
        }


def _start(lines: str) -> int:
    head = lines.split("-", 1)[0]
    return int(head) if head.isdigit() else 0


def coverage_report(graph: FlowGraph, tests: Sequence[VisitedPaths]) -> CoverageReport | None:
    """One group's report (passed or failed tests); None when Rasa writes only the header
    (no test, no user flow, or no visited step). Uncovered lines are sorted by line (Rasa lists
    them in set order, which changes from run to run)."""
    if not tests or not graph.user_flows or not any(t.nodes for t in tests):
        return None
    visited = {(n.flow, n.step_id) for t in tests for n in t.nodes}
    report = CoverageReport()
    for flow_id, nodes in flow_nodes(graph).items():
        missing = [n for n in nodes if (n.flow, n.step_id) not in visited]
        flow = graph.flows.get(flow_id)
        report.rows.append(
            CoverageRow(
                flow=flow.full_name if flow is not None else flow_id,
                flow_id=flow_id,
                steps=len(nodes),
                missing=len(missing),
                missing_lines=sorted((n.lines for n in missing if n.lines), key=_start),
                covered=[n.step_id for n in nodes if (n.flow, n.step_id) in visited],
                uncovered=[n.step_id for n in missing],
                steps_seen=[(n.step_id, n.lines, (n.flow, n.step_id) in visited) for n in nodes],
            )
        )
    return report


def command_histogram(tests: Sequence[VisitedPaths]) -> dict[str, int]:
    """The group's command counts over Rasa's histogram commands (all listed, from 0)."""
    counts = dict.fromkeys(HISTOGRAM_COMMANDS, 0)
    for test in tests:
        for per_flow in test.commands.values():
            for name, count in per_flow.items():
                if name in counts:
                    counts[name] += count
    return counts
