"""The steps of Rasa Pro flows as its coverage report sees them: ids, line ranges, testable steps.

Derived from Rasa Pro 3.21.0's source (read, not copied):

- **line ranges** (``rasa/shared/core/flows/yaml_flows_io.py``, ``line_number_constructor``):
  every step mapping gets ``metadata.line_numbers = f"{start.line + 1}-{end.line}"`` from the
  YAML node's marks (0-based lines; the end mark is where the next token begins, so a step
  ``N-M`` runs from its first line to the line before the next step).
- **step ids** (``flow_step.py``, ``FlowStep.id``/``default_id``; ``flow.py``,
  ``Flow.resolve_default_ids``): a step's ``id:`` or ``{flow}_{idx}_{postfix}``, ``idx`` its
  position among all the flow's steps in tree order (a step, then the steps of its ``next``
  branches), postfix the action name, ``collect_{slot}``, ``link_{flow}``, ``call_{flow}``,
  ``set_slots`` or ``noop``; a step without ``next`` goes on to the following step of its
  sequence, the last step of the flow to ``END`` (the last step of a branch to nowhere).
- **testable steps** (``flow.py``, ``Flow.extract_all_paths`` / ``_go_over_steps`` /
  ``_handle_link``; ``flows_list.py``, ``extract_flow_paths``; ``e2e_test_coverage_report.py``,
  ``_collect_all_flow_nodes``): every path from each user flow's first step (flows whose
  id starts with ``pattern_`` are not user flows) is walked; ``collect``, ``action``, ``call``
  and ``link`` steps are path nodes (``set_slots`` and ``noop`` are only followed); a ``call``
  enters the called flow and comes back to the call's ``next`` at the called flow's end, a
  ``link`` enters the linked flow for good; a path ends at ``END`` or at a step it already
  holds. A node counts for the flow that *holds the step* (a called flow's steps count for
  the called flow), and only nodes of a path that reached an end count.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.errors import InputError

END = "END"
NODE_KINDS = ("collect", "action", "call", "link")
"""The step kinds that are path nodes (Rasa: CollectInformation/Action/Call/LinkFlowStep)."""
STEP_KEYS = ("action", "collect", "link", "call", "set_slots", "noop")
"""In Rasa's order of precedence (``step_from_json``)."""
PATTERN_PREFIX = "pattern_"
MAX_PATHS = 200_000
"""Paths walked per flows file before giving up (Rasa has no limit; paths grow with branches)."""


@dataclass
class Link:
    """``next``: a step id (``if_`` None) or an ``if``/``else`` branch to an id or steps."""

    target: str | None = None
    branch: list[Step] | None = None
    is_branch: bool = False


@dataclass
class Step:
    kind: str
    value: str
    flow_id: str
    lines: str
    custom_id: str | None = None
    idx: int = -1
    links: list[Link] = field(default_factory=list)
    utter: str | None = None
    """A collect step's question (``utter:``, default ``utter_ask_<slot>``)."""

    @property
    def id(self) -> str:
        if self.custom_id:
            return self.custom_id
        postfix = {
            "action": self.value,
            "collect": f"collect_{self.value}",
            "link": f"link_{self.value}",
            "call": f"call_{self.value}",
            "set_slots": "set_slots",
            "noop": "noop",
        }[self.kind]
        return f"{self.flow_id}_{self.idx}_{postfix}"

    def in_tree(self) -> list[Step]:
        out = [self]
        for link in self.links:
            for child in link.branch or []:
                out.extend(child.in_tree())
        return out


@dataclass
class FlowDef:
    id: str
    name: str
    root: list[Step]
    file: str

    @property
    def steps(self) -> list[Step]:
        return [s for child in self.root for s in child.in_tree()]

    def step(self, step_id: str | None) -> Step | None:
        for s in self.steps:
            if s.id == step_id:
                return s
        return None

    @property
    def full_name(self) -> str:
        """Rasa's ``Flow.get_full_name``: ``<file>::<name>`` (name: ``name:`` or the id with
        ``_``/``-`` as spaces)."""
        return f"{self.file}::{self.name}" if self.file else self.name


@dataclass(frozen=True)
class Node:
    flow: str
    step_id: str
    lines: str = ""


@dataclass
class FlowGraph:
    flows: dict[str, FlowDef] = field(default_factory=dict)

    @property
    def user_flows(self) -> list[FlowDef]:
        return [f for f in self.flows.values() if not f.id.startswith(PATTERN_PREFIX)]

    def collect_steps(self) -> dict[tuple[str, str], str]:
        """(flow id, slot) -> the collect step's id (the last one wins, as Rasa's mapping)."""
        out: dict[tuple[str, str], str] = {}
        for flow in self.flows.values():
            for s in flow.steps:
                if s.kind == "collect":
                    out[(flow.id, s.value)] = s.id
        return out


# ---- reading -------------------------------------------------------------------------------


def _value(node: yaml.Node) -> Any:
    """A plain value of a composed node (scalars as their text, null as None)."""
    if isinstance(node, yaml.MappingNode):
        return {_value(k): _value(v) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [_value(v) for v in node.value]
    if node.tag == "tag:yaml.org,2002:null":
        return None
    return str(node.value)


def _get(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            found: yaml.Node = v
            return found
    return None


def _steps(seq: yaml.Node, flow_id: str, path: Path, where: str) -> list[Step]:
    if not isinstance(seq, yaml.SequenceNode):
        raise InputError("steps must be a list", path, seq.start_mark.line + 1, field=where)
    out: list[Step] = []
    for i, item in enumerate(seq.value):
        if not isinstance(item, yaml.MappingNode):
            raise InputError("a step must be a mapping", path, item.start_mark.line + 1, where)
        out.append(_step(item, flow_id, path, f"{where}[{i}]"))
    return out


def _step(node: yaml.MappingNode, flow_id: str, path: Path, where: str) -> Step:
    kind = next((k for k in STEP_KEYS if _get(node, k) is not None), None)
    line = node.start_mark.line + 1
    if kind is None:
        raise InputError(f"a step needs one of {', '.join(STEP_KEYS)}", path, line, field=where)
    raw = _get(node, kind)
    value = str(_value(raw)) if isinstance(raw, yaml.ScalarNode) else kind
    custom = _get(node, "id")
    step = Step(
        kind,
        value,
        flow_id,
        f"{node.start_mark.line + 1}-{node.end_mark.line}",
        custom_id=str(_value(custom)) if isinstance(custom, yaml.ScalarNode) else None,
    )
    if kind == "collect":
        utter = _get(node, "utter")
        step.utter = str(_value(utter)) if utter is not None else f"utter_ask_{value}"
    nxt = _get(node, "next")
    if isinstance(nxt, yaml.ScalarNode) and _value(nxt) not in (None, ""):
        step.links.append(Link(target=str(_value(nxt))))
    elif isinstance(nxt, yaml.SequenceNode):
        for j, item in enumerate(nxt.value):
            if not isinstance(item, yaml.MappingNode) or not item.value:
                continue
            target = _get(item, "then") if _get(item, "if") is not None else _get(item, "else")
            if target is None:
                raise InputError("a branch needs if/then or else", path, line, f"{where}.next")
            if isinstance(target, yaml.SequenceNode):
                sub = _steps(target, flow_id, path, f"{where}.next[{j}]")
                step.links.append(Link(branch=sub, is_branch=True))
            else:
                step.links.append(Link(target=str(_value(target)), is_branch=True))
    return step


def _resolve_next(steps: list[Step], root: bool) -> None:
    """Rasa's ``resolve_default_next``: a step without ``next`` goes to the following step."""
    for i, step in enumerate(steps):
        if not step.links and step.kind != "link":
            if i == len(steps) - 1:
                if root:
                    step.links.append(Link(target=END))
            else:
                step.links.append(Link(target=steps[i + 1].id))
        for link in step.links:
            if link.branch:
                _resolve_next(link.branch, root=False)


def read_flow_steps(paths: list[Path]) -> FlowGraph:
    """The flows of one or more Rasa flows files, with step ids and line ranges."""
    graph = FlowGraph()
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot read flows: {exc.strerror}", path) from None
        try:
            doc = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise InputError(
                f"not valid YAML: {exc}", path, mark.line + 1 if mark else None
            ) from None
        flows = _get(doc, "flows") if isinstance(doc, yaml.MappingNode) else None
        if not isinstance(flows, yaml.MappingNode):
            raise InputError("expected a mapping with 'flows:'", path, field="flows")
        for key, body in flows.value:
            flow_id = str(_value(key))
            if not isinstance(body, yaml.MappingNode):
                raise InputError("a flow must be a mapping", path, field=f"flows.{flow_id}")
            steps_node = _get(body, "steps")
            if steps_node is None:
                raise InputError("a flow needs steps", path, field=f"flows.{flow_id}.steps")
            root = _steps(steps_node, flow_id, path, f"flows.{flow_id}.steps")
            name_node = _get(body, "name")
            name = (
                str(_value(name_node))
                if name_node is not None
                else flow_id.replace("_", " ").replace("-", " ")
            )
            flow = FlowDef(flow_id, name, root, str(path))
            for idx, s in enumerate(flow.steps):
                s.idx = idx
            _resolve_next(root, root=True)
            graph.flows[flow_id] = flow
    return graph


# ---- testable nodes ------------------------------------------------------------------------


class _Walk:
    """Rasa's path walk; records the nodes of every finished path in the order met."""

    def __init__(self, graph: FlowGraph) -> None:
        self.graph = graph
        self.found: dict[tuple[str, str], Node] = {}
        self.paths = 0

    def record(self, path: list[Node]) -> None:
        self.paths += 1
        if self.paths > MAX_PATHS:
            raise InputError(f"the flows have more than {MAX_PATHS} paths", field="flows")
        for node in path:
            self.found.setdefault((node.flow, node.step_id), node)

    def go(
        self,
        flow: FlowDef,
        step: Step,
        path: list[Node],
        visited: set[str],
        stack: list[tuple[Step, FlowDef, str]],
    ) -> None:
        is_node = step.kind in NODE_KINDS
        if is_node:
            path.append(Node(flow.id, step.id, step.lines))
        at_end = len(step.links) == 1 and not step.links[0].is_branch
        at_end = at_end and step.links[0].target == END
        if step.id in visited or at_end:
            rest = stack.copy()
            parent = rest.pop() if rest else None
            if parent is not None and parent[2] == "call":
                for link in parent[0].links:
                    self.link(parent[1], link, path, visited, rest)
            else:
                self.record(path)
            if is_node:
                path.pop()
            return
        visited.add(step.id)
        if step.kind in ("call", "link"):
            target = self.graph.flows.get(step.value)
            first = target.steps[0] if target is not None and target.steps else None
            if target is not None and first is not None:
                stack.append((step, flow, step.kind))
                self.go(target, first, path, visited, stack)
                visited.discard(step.id)
                stack.pop()
                if is_node:
                    path.pop()
            return  # as Rasa: an unresolved call/link ends here, its path never recorded
        for link in step.links:
            self.link(flow, link, path, visited, stack)
        visited.discard(step.id)
        if is_node:
            path.pop()

    def link(
        self,
        flow: FlowDef,
        link: Link,
        path: list[Node],
        visited: set[str],
        stack: list[tuple[Step, FlowDef, str]],
    ) -> None:
        if link.branch is not None:
            for child in link.branch:  # Rasa walks from every step of a branch's sequence
                self.go(flow, child, path, visited, stack)
            return
        target = flow.step(link.target)
        if target is not None:
            self.go(flow, target, path, visited, stack)


def flow_nodes(graph: FlowGraph) -> dict[str, list[Node]]:
    """Each flow's testable steps (flow id -> nodes), flows and steps in the order Rasa's
    report lists them (the order they are first met walking the user flows' paths)."""
    walk = _Walk(graph)
    for flow in graph.user_flows:
        if flow.steps:
            walk.go(flow, flow.steps[0], [], set(), [])
    out: dict[str, list[Node]] = {}
    for node in walk.found.values():
        out.setdefault(node.flow, []).append(node)
    return out
