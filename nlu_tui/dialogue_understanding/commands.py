"""Dialogue-understanding commands: the model, the three DSLs and their parser.

Mirrors Rasa Pro 3.21 (``rasa/dialogue_understanding/commands/*`` and
``generator/command_parser.py``) so that a test file means here what it means to ``rasa test
du``: the same regular expressions per DSL version, the same clean-up of values, the same
equality (``SetSlot`` values compare case-insensitively as strings, ``Clarify`` options as a
list), and the same command-type names (``command()``) that key the metrics.
Custom commands are declared by pattern (:class:`CustomCommand`), not as Python classes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

DSL_VERSIONS = ("v1", "v2", "v3")

START_FLOW = "start flow"
SET_SLOT = "set slot"
CANCEL_FLOW = "cancel flow"
CLARIFY = "clarify"
CHITCHAT = "chitchat"
KNOWLEDGE = "knowledge"
HUMAN_HANDOFF = "human handoff"
SKIP_QUESTION = "skip question"
REPEAT = "repeat"
CONTINUE_AGENT = "continue agent"
RESTART_AGENT = "restart agent"
CANNOT_HANDLE = "cannot handle"

_NONE_VALUES = {"[missing information]", "[missing]", "None", "undefined", "null"}


@dataclass(frozen=True)
class Command:
    """One command: its type (Rasa's ``command()``) and its arguments.

    ``start flow``: ``(flow,)``; ``set slot``: ``(name, value)`` (value may be None);
    ``clarify``: the options; ``restart agent``: ``(agent_id,)``; custom: the captured groups.
    ``custom`` names the :class:`CustomCommand` that parsed it (None for a default command).
    """

    name: str
    args: tuple[str | None, ...] = ()
    custom: str | None = None

    @property
    def compared_as(self) -> str | None:
        """The custom class a comparison must match, or None when the command compares as a
        default command. A custom command whose type (``command()``) is a default command's
        type stands for a subclass of that default (e.g. ``CustomCancelFlow(CancelFlowCommand)``
        predicted as ``cancel flow``): Rasa's default ``__eq__`` is an ``isinstance`` check, so
        it compares as the default (``cancel_flow_command.py``, ``CancelFlowCommand.__eq__``)."""
        if self.custom is None or self.name in _BY_NAME:
            return None
        return self.custom

    def hash_key(self) -> tuple[Any, ...]:
        """What Rasa's ``__hash__`` of the command class hashes: two commands are one element of
        a Python ``set`` only when these keys are equal *and* they compare equal. Note
        ``SetSlotCommand.__hash__`` (``hash(value) + hash(name)``) is case-sensitive while its
        ``__eq__`` is not, so ``set slot x True`` and ``set slot x true`` both stay in a set."""
        if self.compared_as is not None:
            return (self.compared_as, *self.args)
        if self.name == SET_SLOT:
            return (SET_SLOT, *self.args)
        if self.name in (START_FLOW, CLARIFY):
            return (self.name, *self.args)
        return (self.name,)

    @property
    def metric_name(self) -> str:
        """The key of the per-command metrics (Rasa replaces spaces with underscores)."""
        return self.name.replace(" ", "_")

    def same_as(self, other: Command) -> bool:
        """Rasa's ``__eq__`` of the command classes (not the DUT comparison: see
        :func:`nlu_tui.dialogue_understanding.compare.are_commands_equal`)."""
        if self.name != other.name or self.compared_as != other.compared_as:
            return False
        if self.name == SET_SLOT:
            return (
                len(self.args) == 2
                and len(other.args) == 2
                and self.args[0] == other.args[0]
                and str(self.args[1]).lower() == str(other.args[1]).lower()
            )
        if self.name in (START_FLOW, CLARIFY) or self.compared_as is not None:
            return self.args == other.args
        # every other default command compares by type alone (restart agent included)
        return True

    def to_dsl(self, version: str) -> str:
        """The command written in one DSL version (V1 is Rasa's default)."""
        return to_dsl(self, version)

    def as_json(self) -> dict[str, Any]:
        """The shape of Rasa's ``Command.as_dict`` (what its trackers store)."""
        data: dict[str, Any] = {"command": self.name}
        if self.name == START_FLOW:
            data["flow"] = self.args[0]
        elif self.name == SET_SLOT:
            data["name"], data["value"] = self.args[0], self.args[1]
        elif self.name == CLARIFY:
            data["options"] = list(self.args)
        elif self.name == RESTART_AGENT:
            data["agent_id"] = self.args[0]
        elif self.custom is not None:
            custom = _CUSTOM_TEMPLATES.get(self.custom)
            if custom is not None and custom.fields:
                # Rasa's Command.as_dict: the dataclass fields, then "command"
                data = {f: a for f, a in zip(custom.fields, self.args, strict=False)}
                data["command"] = self.name
            else:  # no fields declared: a shape of our own that reads back without them
                data["custom"] = self.custom
                data["args"] = list(self.args)
        return data


def start_flow(flow: str) -> Command:
    return Command(START_FLOW, (flow,))


def set_slot(name: str, value: str | None) -> Command:
    return Command(SET_SLOT, (name, value))


def clarify(options: Iterable[str]) -> Command:
    return Command(CLARIFY, tuple(options))


@dataclass(frozen=True)
class _Default:
    """A default command: its class name, regex and DSL text per version."""

    class_name: str
    name: str
    regex: Mapping[str, str]
    dsl: Mapping[str, str]
    """Format strings: ``{0}``, ``{1}`` are the arguments, ``{options}`` the clarify options."""


def _same(v1: str, v2: str, v3: str | None = None) -> dict[str, str]:
    return {"v1": v1, "v2": v2, "v3": v2 if v3 is None else v3}


_V2_SIMPLE = r"""^[\s\W\d]*{}['"`]*$"""

DEFAULT_COMMANDS: tuple[_Default, ...] = (
    # the order of Rasa's DEFAULT_COMMANDS (command_parser.py), HumanHandoff appended
    _Default(
        "SetSlotCommand",
        SET_SLOT,
        _same(
            r"""SetSlot\(['"]?([a-zA-Z_][a-zA-Z0-9_-]*)['"]?, ?['"]?(.*)['"]?\)""",
            r"""^[\s\W\d]*set slot ['"`]?([a-zA-Z_][a-zA-Z0-9_-]*)['"`]? ['"`]?(.+?)[\W]*$""",
        ),
        _same("SetSlot({0}, {1})", "set slot {0} {1}"),
    ),
    _Default(
        "StartFlowCommand",
        START_FLOW,
        _same(
            r"StartFlow\(['\"]?([a-zA-Z0-9_-]+)['\"]?\)",
            r"""^[\s\W\d]*start flow ['"`]?([a-zA-Z0-9_-]+)['"`]*""",
        ),
        _same("StartFlow({0})", "start flow {0}"),
    ),
    _Default(
        "CancelFlowCommand",
        CANCEL_FLOW,
        _same(r"CancelFlow\(\)", _V2_SIMPLE.format("cancel flow")),
        _same("CancelFlow()", "cancel flow"),
    ),
    _Default(
        "ChitChatAnswerCommand",
        CHITCHAT,
        _same(r"ChitChat\(\)", _V2_SIMPLE.format("offtopic reply")),
        _same("ChitChat()", "offtopic reply"),
    ),
    _Default(
        "SkipQuestionCommand",
        SKIP_QUESTION,
        _same(r"SkipQuestion\(\)", _V2_SIMPLE.format("skip question")),
        _same("SkipQuestion()", "skip question"),
    ),
    _Default(
        "KnowledgeAnswerCommand",
        KNOWLEDGE,
        _same(
            r"SearchAndReply\(\)",
            _V2_SIMPLE.format("provide info"),
            _V2_SIMPLE.format("search and reply"),
        ),
        _same("SearchAndReply()", "provide info", "search and reply"),
    ),
    _Default(
        "ClarifyCommand",
        CLARIFY,
        _same(
            r"Clarify\(([\"\'a-zA-Z0-9_, -]*)\)",
            r"""^[\s\W\d]*disambiguate flows\s*(["'a-zA-Z0-9_, -]*)[\W]*$""",
        ),
        _same("Clarify({options_v1})", "disambiguate flows {options}"),
    ),
    _Default(
        "RepeatBotMessagesCommand",
        REPEAT,
        _same(r"RepeatLastBotMessages\(\)", _V2_SIMPLE.format("repeat message")),
        _same("RepeatLastBotMessages()", "repeat message"),
    ),
    _Default(
        "ContinueAgentCommand",
        CONTINUE_AGENT,
        _same(r"ContinueAgent\(\)", _V2_SIMPLE.format("continue agent")),
        _same("ContinueAgent()", "continue agent"),
    ),
    _Default(
        "RestartAgentCommand",
        RESTART_AGENT,
        _same(
            r"RestartAgent\(['\"]?([a-zA-Z0-9_-]+)['\"]?\)",
            r"""^[\s\W\d]*restart agent ['"`]?([a-zA-Z0-9_-]+)['"`]*""",
        ),
        _same("RestartAgent({0})", "restart agent {0}"),
    ),
    _Default(
        # not a default any more in Rasa Pro 3.21; kept because seed 003's table lists it
        "HumanHandoffCommand",
        HUMAN_HANDOFF,
        _same(r"HumanHandoff\(\)", _V2_SIMPLE.format("hand over")),
        _same("HumanHandoff()", "hand over"),
    ),
)

_BY_NAME = {d.name: d for d in DEFAULT_COMMANDS}
DEFAULT_CLASS_NAMES = tuple(d.class_name for d in DEFAULT_COMMANDS)


@dataclass(frozen=True)
class CustomCommand:
    """A command declared by pattern, standing in for Rasa's ``--additional-commands`` class.

    ``regex`` per DSL version (a single string serves all versions); its groups are the
    arguments. ``dsl`` per version formats them back (``{1}``, ``{2}``...). Two custom
    commands are equal when their class name and arguments are.
    """

    class_name: str
    name: str
    regex: Mapping[str, str]
    dsl: Mapping[str, str]
    fields: tuple[str, ...] = ()
    """The command class's dataclass fields, one per regex group, in order: the keys of its
    ``as_dict`` (what a Rasa Pro tracker stores, e.g. ``{"command": "say hello", "who": "bob"}``)."""


@dataclass(frozen=True)
class CommandSet:
    """The commands a parser knows: the defaults minus the removed ones, plus custom ones."""

    version: str = "v2"
    removed: frozenset[str] = frozenset()
    custom: tuple[CustomCommand, ...] = ()
    flows: frozenset[str] | None = None
    """User flow ids; when known, flows are checked the way Rasa's parser checks them."""

    def defaults(self) -> list[_Default]:
        return [
            d
            for d in DEFAULT_COMMANDS
            if d.class_name not in self.removed
            and d.class_name.removesuffix("Command") not in self.removed
        ]


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _clean_value(value: str) -> str:
    return value.strip("'\" ")


def _nullable(value: str) -> str | None:
    return None if not value or value in _NONE_VALUES else value


def _options(text: str) -> list[str]:
    """Rasa's ``extract_cleaned_options``: split on commas and spaces, strip quotes, sort."""
    for delimiter in (",", " "):
        text = text.replace(delimiter, " ")
    return sorted(o.strip().strip('"').strip("'") for o in text.split() if o.strip())


def _start_flow_by_name(flow: str | None, flows: frozenset[str] | None) -> Command | None:
    if flow is None:
        return None
    if flows is not None and flow not in flows:
        return None
    return start_flow(flow)


def _from_match(default: _Default, match: re.Match[str], commands: CommandSet) -> Command | None:
    """Build a default command from its regex match, with Rasa's additional parsing logic."""
    flows = commands.flows
    if default.name == SET_SLOT:
        name = match.group(1).strip()
        value = _nullable(_clean_value(match.group(2)))
        if name == "flow_name":  # the LLM tried to start a flow with a slot set
            return _start_flow_by_name(value, flows)
        return set_slot(name, value)
    if default.name == START_FLOW:
        return _start_flow_by_name(match.group(1).strip(), flows)
    if default.name == CLARIFY:
        options = _options(match.group(1))
        if not options:
            return clarify([])
        valid = [o for o in options if flows is None or o in flows]
        if len(set(valid)) == 1:  # one valid option: Rasa starts that flow
            return _start_flow_by_name(valid[0], flows)
        return clarify(valid)
    if default.name == RESTART_AGENT:
        return Command(RESTART_AGENT, (match.group(1).strip(),))
    return Command(default.name)


def parse_commands(text: str, commands: CommandSet) -> list[Command]:
    """Rasa's ``parse_commands``: every line is tried against every known command's regex
    (``re.search``), so one line can give several commands; custom commands come last."""
    found: list[Command] = []
    if not text:
        return found
    for raw_line in text.strip().splitlines():
        line = raw_line.strip()
        for default in commands.defaults():
            match = _compiled(default.regex[commands.version]).search(line)
            if match:
                command = _from_match(default, match, commands)
                if command is not None:
                    found.append(command)
        for custom in commands.custom:
            pattern = custom.regex.get(commands.version)
            if pattern is None:
                continue
            match = _compiled(pattern).search(line)
            if match:
                groups = tuple(g.strip() if g is not None else None for g in match.groups())
                found.append(Command(custom.name, groups, custom=custom.class_name))
    return found


def to_dsl(command: Command, version: str) -> str:
    """Write a command in a DSL version, as Rasa's ``to_dsl``."""
    if command.custom is not None:
        return _custom_dsl(command, version)
    default = _BY_NAME.get(command.name)
    if default is None:
        return command.name
    template = default.dsl.get(version, default.dsl["v1"])
    args = ["" if a is None else a for a in command.args]
    return template.format(
        *[str(a) for a in command.args] if command.name == SET_SLOT else args,
        options=" ".join(args),
        options_v1=", ".join(args),
    )


_CUSTOM_TEMPLATES: dict[str, CustomCommand] = {}


def _custom_dsl(command: Command, version: str) -> str:
    custom = _CUSTOM_TEMPLATES.get(command.custom or "")
    if custom is None:
        return " ".join([command.name, *[str(a) for a in command.args]])
    template = custom.dsl.get(version) or next(iter(custom.dsl.values()), command.name)
    for i, arg in enumerate(command.args, start=1):
        template = template.replace(f"{{{i}}}", "" if arg is None else arg)
    return template


_ACTIVE_CUSTOM: list[CustomCommand] = []


def remember_custom(customs: Sequence[CustomCommand]) -> None:
    """The custom commands of the run being read: printable by :func:`to_dsl` (templates are
    per class), resolved by :func:`command_from_json` and parsed by the engines that read the
    DSL (:func:`known_custom`), as Rasa's ``--additional-commands`` classes are known to every
    part of ``rasa test du``."""
    for custom in customs:
        _CUSTOM_TEMPLATES[custom.class_name] = custom
    _ACTIVE_CUSTOM[:] = list(customs)


def known_custom() -> tuple[CustomCommand, ...]:
    """The custom commands of the run being read (see :func:`remember_custom`)."""
    return tuple(_ACTIVE_CUSTOM)


def command_syntax(version: str, flows: frozenset[str] | None = None) -> CommandSet:
    """The parser an engine reads predicted DSL text with: every default command plus the
    run's custom commands (Rasa parses predictions with its generator's full command set)."""
    return CommandSet(version=version, custom=known_custom(), flows=flows)


def command_from_json(data: Mapping[str, Any]) -> Command | None:
    """Rasa's ``Command.command_from_json`` (``rasa/dialogue_understanding/commands/
    command.py``): ``data["command"]`` is resolved over every command class, the default ones
    first (Rasa walks ``all_subclasses(Command)``: direct subclasses before their subclasses),
    then the run's custom commands, whose fields are read by name (``Command.as_dict``
    shape). None when there is no command type."""
    kind = data.get("command")
    if not isinstance(kind, str):
        return None
    if kind not in _BY_NAME and not data.get("custom"):
        for custom in _ACTIVE_CUSTOM or list(_CUSTOM_TEMPLATES.values()):
            if custom.name == kind:
                if custom.fields:
                    values = [data.get(f) for f in custom.fields]
                else:
                    values = list(data.get("args") or [])
                return Command(
                    kind,
                    tuple(None if v is None else _scalar(v) for v in values),
                    custom.class_name,
                )
    if kind == START_FLOW:
        return start_flow(str(data.get("flow", "")))
    if kind == SET_SLOT:
        value = data.get("value")
        return set_slot(str(data.get("name", "")), None if value is None else _scalar(value))
    if kind == CLARIFY:
        options = data.get("options") or []
        return clarify(str(o) for o in options)
    if kind == RESTART_AGENT:
        return Command(RESTART_AGENT, (str(data.get("agent_id", "")),))
    if data.get("custom"):
        return Command(kind, tuple(str(a) for a in data.get("args") or []), str(data["custom"]))
    return Command(kind)


def _scalar(value: Any) -> str:
    """Slot values are compared as ``str(value).lower()``; keep Python's spelling of bools."""
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


def dedupe(commands: Iterable[Command]) -> list[Command]:
    """Rasa's runner drops duplicate predicted commands with ``list(set(...))``
    (``du_test_runner.py``, ``get_dialogue_understanding_output``): a command is a duplicate
    only when its ``__hash__`` *and* ``__eq__`` agree with one kept (:meth:`Command.hash_key`);
    the order is kept (Rasa's is the set's, which no comparison depends on)."""
    seen: list[Command] = []
    for command in commands:
        key = command.hash_key()
        if not any(key == other.hash_key() and command.same_as(other) for other in seen):
            seen.append(command)
    return seen


@dataclass
class CommandSpec:
    """How a run reads commands: the DSL version (or ``auto``), removed and custom commands."""

    dsl: str = "auto"
    removed: list[str] = field(default_factory=list)
    custom: list[CustomCommand] = field(default_factory=list)


def detect_version(texts: Iterable[str]) -> str:
    """``auto``: V1 when every command looks like ``Name(...)``, V3 when ``search and reply``
    appears, else V2 (the DSL of Rasa Pro's CompactLLMCommandGenerator)."""
    items = [t.strip() for t in texts if t and t.strip()]
    if items and all(re.match(r"^[A-Z][A-Za-z]*\(.*\)$", t) for t in items):
        return "v1"
    if any(re.search(r"search and reply", t) for t in items):
        return "v3"
    return "v2"
