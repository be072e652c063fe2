"""Simulated-user scenarios (``nlu-tui simulate``): who the simulated user is, what they want,
how the conversation starts, and what counts as success.

Two shapes are read, each error naming the file, the line and the field:

- nlu-tui's own: a file with ``scenarios:`` (a list), and optionally a file-wide ``reset:``::

      reset: {command: ./reset-db.sh}
      scenarios:
        - name: book a table
          persona: A hurried customer who types short messages.
          goal: Book a table for two, Italian food.
          start: I want to book a table      # the first user message, sent as written
          context: {logged_in: true}          # slots set before the first message
          max_turns: 6
          assertions: [...]                   # Rasa Pro's E2E assertion set
          criteria: [The bot confirms the booking]

- Rasa Pro's simulation-and-evaluation scenario (Rasa Pro 3.17+, one file per scenario under
  ``eval/scenarios/``; docs: https://rasa.com/docs/reference/testing/evals/scenarios and the
  schema ``rasa/builder/copilot/mcp_server/schema/scenario_schema.yml`` of Rasa Pro 3.21): a
  top-level ``scenario:`` with ``name``, ``simulation_context`` (who the user is and what they
  want: the persona and the goal in one text), ``setup.initial_slots`` and ``goals`` with
  ``assertions`` and ``criteria``. Rasa's ``type`` label is kept; its Mantle-only keys
  (``goals.expected_tools``, ``sequencing``, ``skill_*``...) are refused by name, as the E2E
  assertion reader refuses them. A Rasa file may use nlu-tui's extra keys too (``start``,
  ``max_turns``, ``sender_id``, ``reset``).

A scenario without a goal (``goal`` or ``simulation_context``) is refused. The assertions are
read by :mod:`nlu_tui.formats.e2e_assertions` (the same set as ``test e2e``), and checked
against the whole conversation once it ended.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from nlu_tui import conversation_assertions as ca
from nlu_tui.errors import InputError
from nlu_tui.formats import e2e_assertions
from nlu_tui.formats import yaml_nodes as yn
from nlu_tui.formats.yaml_files import joined_digest, mapping_root, yaml_files
from nlu_tui.model import digest_bytes

EXTENSIONS = (".yml", ".yaml")
DEFAULT_MAX_TURNS = 10
MAX_TURNS_LIMIT = 100
"""At most this many user messages per conversation (checked before anything runs)."""
MAX_SCENARIOS = 10_000
RASA_MAX_TURNS = 30
"""Rasa Pro's ``SIMULATOR_MAX_TURNS`` (``mcp_server/constants.py``), used for Rasa files."""

SCENARIO_KEYS = (
    "name",
    "scenario",
    "type",
    "persona",
    "goal",
    "simulation_context",
    "start",
    "context",
    "setup",
    "max_turns",
    "sender_id",
    "assertions",
    "criteria",
    "goals",
    "reset",
)
_TOP = re.compile(r"^(scenario|scenarios)\s*:", re.MULTILINE)


@dataclass(frozen=True)
class ResetHook:
    """What runs before every conversation of a scenario: a shell command, or an HTTP call."""

    command: str | None = None
    url: str | None = None
    method: str = "POST"
    body: Any = None
    line: int | None = None

    def describe(self) -> str:
        return self.command if self.command is not None else f"{self.method} {self.url}"


@dataclass(frozen=True)
class Criterion:
    """A plain-language success criterion, scored by the LLM judge."""

    text: str
    line: int


@dataclass
class Scenario:
    name: str
    file: str
    line: int
    goal: str
    persona: str = ""
    start: str | None = None
    slots: dict[str, Any] = field(default_factory=dict)
    max_turns: int = DEFAULT_MAX_TURNS
    sender_id: str | None = None
    assertions: list[ca.Assertion] = field(default_factory=list)
    criteria: list[Criterion] = field(default_factory=list)
    reset: ResetHook | None = None
    rasa: bool = False
    """Read from Rasa Pro's format (``simulation_context`` holds persona and goal)."""
    type: str | None = None

    def needs_user_llm(self) -> bool:
        """Whether an LLM must play the user (a scenario that only sends ``start`` in one
        turn does not need one)."""
        return self.start is None or self.max_turns > 1

    def needs_judge(self) -> bool:
        return bool(self.criteria) or any(
            a.type.startswith("generative_response_is_") for a in self.assertions
        )


@dataclass
class ScenarioFile:
    scenarios: list[Scenario] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    digest: str = ""


def sniff(head: str) -> bool:
    return _TOP.search(head) is not None


def scenario_files(path: Path) -> list[Path]:
    """The file itself, or the YAML files under a folder with ``scenario:`` / ``scenarios:``."""
    return yaml_files(path, sniff)


def read_path(path: Path) -> ScenarioFile:
    files = scenario_files(path)
    if not files:
        raise InputError(
            "no scenario files (YAML with 'scenario:' or 'scenarios:') found", path=path
        )
    out = ScenarioFile()
    digests = []
    for file in files:
        part = read(file)
        out.scenarios.extend(part.scenarios)
        out.paths.extend(part.paths)
        digests.append(part.digest)
        if len(out.scenarios) > MAX_SCENARIOS:
            raise InputError(f"more than {MAX_SCENARIOS:,} scenarios", path=path, field="scenarios")
    out.digest = joined_digest(digests)
    return out


def read(path: Path) -> ScenarioFile:
    root, raw = yn.read_root_and_bytes(path)
    result = ScenarioFile(paths=[str(path)], digest=digest_bytes(raw))
    root = mapping_root(
        root,
        path,
        empty="empty file: no 'scenarios:' or 'scenario:' key",
        not_mapping="a scenario file is a mapping",
    )
    reset: ResetHook | None = None
    scenario_nodes: list[tuple[yaml.Node, bool]] = []
    for key, key_node, value in yn.pairs(root, path, "scenarios"):
        if key == "scenarios":
            nodes = yn.items(value, path, "scenarios")
            if len(nodes) > MAX_SCENARIOS:
                raise InputError(
                    f"more than {MAX_SCENARIOS:,} scenarios",
                    path=path,
                    line=yn.line_of(value),
                    field="scenarios",
                )
            scenario_nodes += [(n, False) for n in nodes]
        elif key == "scenario":
            scenario_nodes.append((value, True))
        elif key == "reset":
            reset = _reset(value, path)
        else:
            raise InputError(
                f"unknown key '{key}' (expected scenarios, scenario or reset)",
                path=path,
                line=yn.line_of(key_node),
                field=key,
            )
    if not scenario_nodes:
        raise InputError("no scenarios found", path=path, field="scenarios")
    names: set[str] = set()
    for node, rasa in scenario_nodes:
        scenario = _scenario(node, path, rasa)
        if scenario.reset is None:
            scenario.reset = reset
        if scenario.name in names:
            raise InputError(
                f"scenario '{scenario.name}' is defined twice",
                path=path,
                line=scenario.line,
                field="name",
            )
        names.add(scenario.name)
        result.scenarios.append(scenario)
    return result


def _error(message: str, path: Path, node: yaml.Node, field_name: str) -> InputError:
    return InputError(message, path=path, line=yn.line_of(node), field=field_name)


def _scalar_text(node: yaml.Node, path: Path, field_name: str) -> str:
    value = yn.text(node, path, field_name).strip()
    if not value:
        raise _error(f"'{field_name}' is empty", path, node, field_name)
    return value


def _scenario(node: yaml.Node, path: Path, rasa: bool) -> Scenario:
    line = yn.line_of(node)
    where = "scenario" if rasa else "scenarios"
    found: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key, key_node, value in yn.pairs(node, path, where):
        if key not in SCENARIO_KEYS:
            raise InputError(
                f"unknown key '{key}' in a scenario (expected {', '.join(SCENARIO_KEYS)})",
                path=path,
                line=yn.line_of(key_node),
                field=key,
            )
        found[key] = (key_node, value)
    name_node = found.get("name") or found.get("scenario")
    if name_node is None:
        raise InputError("a scenario needs a 'name:'", path=path, line=line, field="name")
    name = _scalar_text(name_node[1], path, "name")
    rasa = rasa or "simulation_context" in found
    goal = ""
    if "goal" in found:
        goal = _scalar_text(found["goal"][1], path, "goal")
    if "simulation_context" in found:
        context_text = _scalar_text(found["simulation_context"][1], path, "simulation_context")
        goal = f"{goal}\n{context_text}".strip() if goal else context_text
    if not goal:
        field_name = "simulation_context" if rasa else "goal"
        raise InputError(
            f"scenario '{name}' has no goal: say what the simulated user wants "
            "(goal:, or Rasa's simulation_context:)",
            path=path,
            line=line,
            field=field_name,
        )
    scenario = Scenario(name=name, file=str(path), line=line, goal=goal, rasa=rasa)
    if rasa:
        scenario.max_turns = RASA_MAX_TURNS
    if "persona" in found:
        scenario.persona = _scalar_text(found["persona"][1], path, "persona")
    if "type" in found:
        scenario.type = _scalar_text(found["type"][1], path, "type")
    if "start" in found:
        scenario.start = _scalar_text(found["start"][1], path, "start")
    if "sender_id" in found:
        scenario.sender_id = _scalar_text(found["sender_id"][1], path, "sender_id")
    if "max_turns" in found:
        scenario.max_turns = _max_turns(found["max_turns"][1], path)
    if "context" in found:
        scenario.slots.update(_slots(found["context"][1], path, "context"))
    if "setup" in found:
        for key, key_node, value in yn.pairs(found["setup"][1], path, "setup"):
            if key != "initial_slots":
                raise _error(
                    f"unknown key '{key}' in setup (expected initial_slots)", path, key_node, key
                )
            scenario.slots.update(_slots(value, path, "setup.initial_slots"))
    assertion_nodes: list[yaml.Node] = []
    criteria_nodes: list[yaml.Node] = []
    if "assertions" in found:
        assertion_nodes.append(found["assertions"][1])
    if "criteria" in found:
        criteria_nodes.append(found["criteria"][1])
    if "goals" in found:
        for key, key_node, value in yn.pairs(found["goals"][1], path, "goals"):
            if key == "assertions":
                assertion_nodes.append(value)
            elif key == "criteria":
                criteria_nodes.append(value)
            elif key == "expected_tools":
                raise _error(
                    "'expected_tools' checks the tool calls of Rasa's Mantle engine; nlu-tui "
                    "tests no Mantle engine",
                    path,
                    key_node,
                    "goals.expected_tools",
                )
            else:
                raise _error(
                    f"unknown key '{key}' in goals (expected assertions, criteria)",
                    path,
                    key_node,
                    key,
                )
    for assertions in assertion_nodes:
        scenario.assertions += e2e_assertions.read_assertions(assertions, path)
    for criteria in criteria_nodes:
        for item in yn.items(criteria, path, "criteria"):
            scenario.criteria.append(
                Criterion(_scalar_text(item, path, "criteria"), yn.line_of(item))
            )
    if "reset" in found:
        scenario.reset = _reset(found["reset"][1], path)
    return scenario


def _max_turns(node: yaml.Node, path: Path) -> int:
    value = yn.scalar_value(node) if isinstance(node, yaml.ScalarNode) else None
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_TURNS_LIMIT:
        raise _error(
            f"'max_turns' must be a whole number from 1 to {MAX_TURNS_LIMIT}",
            path,
            node,
            "max_turns",
        )
    return value


def _slots(node: yaml.Node, path: Path, field_name: str) -> dict[str, Any]:
    value = yn.to_python(node, path, 3)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _error(
            f"'{field_name}' must be a mapping of slot names to values", path, node, field_name
        )
    return value


def _reset(node: yaml.Node, path: Path) -> ResetHook:
    """``reset: CMD`` (a shell command), ``reset: {command: CMD}`` or
    ``reset: {url: URL, method: POST, json: BODY}`` (an HTTP call)."""
    line = yn.line_of(node)
    if isinstance(node, yaml.ScalarNode):
        return ResetHook(command=_scalar_text(node, path, "reset"), line=line)
    command = url = None
    method = "POST"
    body: Any = None
    for key, key_node, value in yn.pairs(node, path, "reset"):
        if key == "command":
            command = _scalar_text(value, path, "reset.command")
        elif key == "url":
            url = _scalar_text(value, path, "reset.url")
            if not url.startswith(("http://", "https://")):
                raise _error(
                    "'reset.url' must be an http:// or https:// URL", path, value, "reset.url"
                )
        elif key == "method":
            method = _scalar_text(value, path, "reset.method").upper()
            if method not in ("GET", "POST", "PUT", "DELETE", "PATCH"):
                raise _error(
                    "'reset.method' must be GET, POST, PUT, DELETE or PATCH",
                    path,
                    value,
                    "reset.method",
                )
        elif key == "json":
            body = yn.to_python(value, path, 3)
        else:
            raise _error(
                f"unknown key '{key}' in reset (expected command, or url, method, json)",
                path,
                key_node,
                f"reset.{key}",
            )
    if (command is None) == (url is None):
        raise InputError(
            "'reset' needs either a 'command' (shell) or a 'url' (HTTP call)",
            path=path,
            line=line,
            field="reset",
        )
    return ResetHook(command=command, url=url, method=method, body=body, line=line)
