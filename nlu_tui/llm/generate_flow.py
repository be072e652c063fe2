"""Generate dialogue-understanding (DUT) test cases for a flow with an LLM.

What a user of ``nlu-tui test du`` needs to test a flow is user messages that *start* it, each
with the commands the command generator must predict: ``start flow F`` and a ``set slot S V``
for every slot value the message already gives. With ``conversation=True`` each test case goes
on: for every slot of the flow the opening message left open, the bot asks
(``utter: utter_ask_<slot>``, the response name Rasa's flows use) and the user answers
(``set slot <slot> <value>``).

The review is :class:`nlu_tui.llm.generate.ProposalSession`'s (reject, edit, "Generate more"
without repeats). Each proposal is checked before it can be added:

- leakage: identical or near-identical to a training example (of any intent);
- duplicates: of a user message already in the DUT file, or of another proposal;
- a slot that is not one of the flow's slots, an empty value, or a command the DUT reader
  would refuse (parsed as ``test du`` parses it, in the file's DSL) is an *error*; a slot
  value whose words are not in the message is a *flag* (values may be normalised, ``50$`` →
  ``50``).

:func:`add_to_dut_file` appends the accepted test cases to the DUT file (created when missing),
keeping the file's text and comments when the new test cases can simply follow them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.coverage import DEFAULT_NEAR, find_leaks
from nlu_tui.engines.llm_config import LLMError
from nlu_tui.errors import InputError
from nlu_tui.llm.generate import (
    GENERATED_TAG,
    MAX_EXAMPLES,
    Proposal,
    ProposalSession,
    answer_items,
)
from nlu_tui.model import TestCase

if TYPE_CHECKING:
    from nlu_tui.conversation_model import E2EFile, E2ETestCase
    from nlu_tui.dialogue_understanding.flows import Flow, Flows
    from nlu_tui.training import TrainingData


@dataclass
class SlotAnswer:
    """The user's reply when the bot asks for ``slot``; ``value`` is what the slot is set to."""

    slot: str
    text: str
    value: str


@dataclass
class FlowProposal(Proposal):
    """A generated opening message of a flow, the slots it fills, and (conversation mode) the
    user's answers for the slots it leaves open."""

    slots: dict[str, str] = field(default_factory=dict)
    answers: list[SlotAnswer] = field(default_factory=list)
    proposed_slots: dict[str, str] = field(default_factory=dict, repr=False)
    proposed_text: str = field(default="", repr=False)
    flow: str = ""
    """The flow it starts (set by the session), for :meth:`summary`."""
    version: str = "v2"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.proposed_slots:
            self.proposed_slots = dict(self.slots)
        if not self.proposed_text:
            self.proposed_text = self.utterance

    def summary(self) -> str:
        return "; ".join(self.commands_of_opening(self.version, self.flow))

    def commands_of_opening(self, version: str, flow: str) -> list[str]:
        from nlu_tui.dialogue_understanding.commands import set_slot, start_flow, to_dsl

        out = [to_dsl(start_flow(flow), version)] if flow else []
        out += [to_dsl(set_slot(k, v), version) for k, v in self.slots.items()]
        return out

    def more_lines(self) -> list[str]:
        return [
            f"bot asks {a.slot} → user: {a.text}   [set slot {a.slot} {a.value}]"
            for a in self.answers
        ]


class FlowCaseGenerator(ProposalSession):
    """One review session for DUT test cases that start ``flow``."""

    what = "DUT test cases"

    def __init__(
        self,
        flow: str,
        flows: Flows,
        dut: E2EFile | None = None,
        training: TrainingData | None = None,
        *,
        count: int = 10,
        conversation: bool = False,
        near: float = DEFAULT_NEAR,
    ) -> None:
        name = flow.strip()
        if not name:
            raise InputError("give the flow to generate test cases for", field="--flow")
        if name not in flows.flows:
            raise InputError(
                f"flow {name!r} is not in the flows file (flows: {', '.join(flows.flows) or 'none'})",
                path=flows.path,
                field="--flow",
            )
        super().__init__(count)
        self.flows = flows
        self.flow: Flow = flows.flows[name]
        self.dut = dut
        self.training = training
        self.conversation = conversation
        self.near = near
        self.proposals: list[FlowProposal] = []
        from nlu_tui.dut.editing import file_version

        self.version = file_version(dut) if dut is not None and dut.test_cases else "v2"

    @property
    def intent(self) -> str:
        """The flow's name (what the faces show where an intent's name would be)."""
        return self.flow.name

    # --- what the prompt knows --------------------------------------------------------------

    def existing_openings(self) -> list[str]:
        """User messages in the DUT file whose commands start this flow."""
        out: list[str] = []
        if self.dut is None:
            return out
        start = f"start flow {self.flow.name}"
        for case in self.dut.test_cases:
            for step in case.user_steps():
                commands = [" ".join(c.split()) for c in step.commands or []]
                if step.text and (start in commands or f"StartFlow({self.flow.name})" in commands):
                    out.append(step.text)
        return out

    def training_examples(self) -> list[str]:
        if self.training is None:
            return []
        intents = set(self.flow.intents or (self.flow.name,))
        return [e.text for e in self.training.examples if e.intent in intents]

    def messages(self) -> list[dict[str, str]]:
        flow = self.flow
        lines = [
            f"Write {self.count} new messages a user might send to a chatbot to start the flow "
            f"{flow.name!r}.",
        ]
        if flow.description:
            lines.append(f"Flow description: {flow.description}")
        if flow.slots:
            lines.append(f"The flow collects these slots: {', '.join(flow.slots)}")
        else:
            lines.append("The flow collects no slots.")
        others = [f for f in self.flows.flows.values() if f.name != flow.name]
        if others:
            lines.append("Other flows of the bot (the messages must start none of these):")
            lines += [
                f"- {f.name}" + (f": {f.description}" if f.description else "") for f in others
            ]
        examples = list(dict.fromkeys([*self.training_examples(), *self.existing_openings()]))
        if examples:
            lines.append(
                "Messages that already start this flow (do NOT copy or lightly reword them):"
            )
            lines += [f"- {text}" for text in examples[:MAX_EXAMPLES]]
        lines.append(
            "Make them varied and realistic, as real users would type them: different lengths, "
            "wordings, politeness, typos and slang now and then."
        )
        if flow.slots:
            lines.append(
                "Some messages give no details, some give values for some or all of the slots; "
                'list in "slots" each slot the message gives a value for, with the value as the '
                "bot should store it."
            )
            if self.conversation:
                lines.append(
                    'For every slot the message leaves open, add to "answers" the user\'s short '
                    "reply when the bot then asks for that slot, in the order of the slots above."
                )
        lines += self.shown_lines()
        shape = '[{"utterance": "...", "slots": {"<slot>": "<value>"}'
        if self.conversation and flow.slots:
            shape += ', "answers": [{"slot": "<slot>", "text": "<the user\'s reply>", "value": "<value>"}]'
        lines.append(f"Answer with one JSON array and nothing else: {shape}}}]")
        return [
            {
                "role": "system",
                "content": "You write test data for testing a chatbot's dialogue understanding. "
                "You answer only JSON.",
            },
            {"role": "user", "content": "\n".join(lines)},
        ]

    def parse(self, text: str, where: str) -> list[FlowProposal]:
        proposals = parse_flow_proposals(text, where, self.count)
        for proposal in proposals:
            proposal.flow, proposal.version = self.flow.name, self.version
            if not self.conversation:
                proposal.answers = []  # not asked for: the test case is the opening only
        return proposals

    # --- review ---------------------------------------------------------------------------

    def edit(self, index: int, utterance: str) -> FlowProposal:
        """Change the opening message and check again: a slot whose value was in the proposed
        text and no longer is in the edited one is dropped."""
        proposal = self.proposals[index]
        proposal.utterance = " ".join(utterance.split())
        before, now = proposal.proposed_text.lower(), proposal.utterance.lower()
        proposal.slots = {
            k: v
            for k, v in proposal.proposed_slots.items()
            if v.lower() not in before or v.lower() in now
        }
        self.check(proposal)
        return proposal

    def check(self, proposal: FlowProposal) -> None:
        from nlu_tui.dialogue_understanding.commands import CommandSet, parse_commands

        proposal.flags, proposal.errors = [], []
        probe = [TestCase(utterance=proposal.utterance, id="probe")]
        if self.training is not None:
            pairs = [(e.text, e.intent) for e in self.training.examples]
            for leak in find_leaks(probe, pairs, self.near):
                kind = "identical to" if leak.identical else f"{leak.similarity:.0%} like"
                proposal.flags.append(
                    f"leakage: {kind} training example {leak.example!r} ({leak.example_intent})"
                )
        if self.dut is not None:
            existing = [
                (s.text, c.name) for c in self.dut.test_cases for s in c.user_steps() if s.text
            ]
            for dup in find_leaks(probe, existing, self.near):
                kind = "duplicate of" if dup.identical else f"{dup.similarity:.0%} like"
                proposal.flags.append(
                    f"{kind} user message {dup.example!r} of test case {dup.example_intent!r}"
                )
        proposal.flags += self.repeat_flags(proposal)
        known = set(self.flow.slots)
        slots_of = f"the slots of {self.flow.name}: {', '.join(self.flow.slots) or 'none'}"
        for slot, value in proposal.slots.items():
            if slot not in known:
                proposal.errors.append(f"slot {slot!r} is not one of {slots_of}")
            elif not value.strip():
                proposal.errors.append(f"slot {slot!r} has an empty value")
            elif value.lower() not in proposal.utterance.lower():
                proposal.flags.append(f"slot {slot}: the value {value!r} is not in the text")
        answered = [a.slot for a in proposal.answers]
        for slot in sorted({a for a in answered if answered.count(a) > 1}):
            proposal.flags.append(f"{answered.count(slot)} answers for {slot!r}: the first is used")
        for answer in proposal.answers:
            if answer.slot not in known:
                proposal.errors.append(f"answer for {answer.slot!r}, not one of {slots_of}")
            elif answer.slot in proposal.slots:
                proposal.flags.append(f"answer for {answer.slot!r}, already set by the message")
            if not answer.text.strip() or not answer.value.strip():
                proposal.errors.append(f"the answer for {answer.slot!r} is empty")
        commands = CommandSet(version=self.version, flows=self.flows.ids)
        case = self.case_of(proposal, "probe")
        for step in case.user_steps():
            for text in step.commands or []:
                if not parse_commands(text, commands):
                    proposal.errors.append(f"'{text}' is not a command in DSL {self.version}")
        if not proposal.utterance.strip():
            proposal.errors.append("the message is empty")

    # --- the test cases -------------------------------------------------------------------

    def case_of(self, proposal: FlowProposal, name: str) -> E2ETestCase:
        from nlu_tui.conversation_model import E2EStep, E2ETestCase, StepKind
        from nlu_tui.dialogue_understanding.commands import set_slot, to_dsl

        steps = [
            E2EStep(
                StepKind.USER,
                proposal.utterance,
                commands=proposal.commands_of_opening(self.version, self.flow.name),
            )
        ]
        order = {slot: n for n, slot in enumerate(self.flow.slots)}
        asked: set[str] = set()
        for answer in sorted(proposal.answers, key=lambda a: order.get(a.slot, len(order))):
            if answer.slot in proposal.slots or answer.slot in asked:
                continue
            asked.add(answer.slot)
            steps.append(E2EStep(StepKind.UTTER, f"utter_ask_{answer.slot}"))
            steps.append(
                E2EStep(
                    StepKind.USER,
                    answer.text,
                    commands=[to_dsl(set_slot(answer.slot, answer.value), self.version)],
                )
            )
        return E2ETestCase(name, steps)

    def accepted_cases(self) -> list[E2ETestCase]:
        """The accepted, error-free proposals as DUT test cases, named
        ``generated <flow> <n>`` (n unused in the file)."""
        taken = {c.name for c in self.dut.test_cases} if self.dut is not None else set()
        out: list[E2ETestCase] = []
        n = 0
        for proposal in self.proposals:
            if not proposal.addable:
                continue
            n += 1
            while f"{GENERATED_TAG} {self.flow.name} {n}" in taken:
                n += 1
            out.append(self.case_of(proposal, f"{GENERATED_TAG} {self.flow.name} {n}"))
        return out


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int | float):
        return f"{value:g}" if isinstance(value, float) else str(value)
    return " ".join(str(value).split()) if value is not None else ""


def parse_flow_proposals(
    text: str, where: str = "LLM answer", count: int | None = None
) -> list[FlowProposal]:
    """The model's JSON as flow proposals: an array of ``{"utterance", "slots", "answers"}``
    objects (``slots`` a mapping or a list of ``{"slot", "value"}``) or of plain strings; at most
    ``count`` × :data:`~nlu_tui.llm.generate.PROPOSALS_PER_COUNT` of them."""
    value = answer_items(
        text, where, ("utterances", "messages", "test_cases", "cases", "items"), "messages", count
    )
    out: list[FlowProposal] = []
    for n, item in enumerate(value, 1):
        if isinstance(item, str):
            out.append(FlowProposal(" ".join(item.split())))
            continue
        if not isinstance(item, dict) or not isinstance(item.get("utterance"), str):
            raise LLMError(f"{where}: item {n} has no 'utterance' text")
        raw = item.get("slots") or {}
        slots: dict[str, str] = {}
        if isinstance(raw, list):
            for entry in raw:
                if not isinstance(entry, dict) or not isinstance(entry.get("slot"), str):
                    raise LLMError(f"{where}: item {n}: a slot has no 'slot' name")
                slots[entry["slot"].strip()] = _text(entry.get("value"))
        elif isinstance(raw, dict):
            slots = {str(k).strip(): _text(v) for k, v in raw.items()}
        else:
            raise LLMError(f"{where}: item {n}: 'slots' is neither a mapping nor a list")
        answers: list[SlotAnswer] = []
        raw_answers = item.get("answers") or []
        if not isinstance(raw_answers, list):
            raise LLMError(f"{where}: item {n}: 'answers' is not a list")
        for entry in raw_answers:
            if not isinstance(entry, dict) or not isinstance(entry.get("slot"), str):
                raise LLMError(f"{where}: item {n}: an answer has no 'slot' name")
            reply = _text(entry.get("text"))
            answers.append(
                SlotAnswer(entry["slot"].strip(), reply, _text(entry.get("value", reply)))
            )
        out.append(FlowProposal(" ".join(item["utterance"].split()), slots=slots, answers=answers))
    return out


# --- the service calls the faces share ------------------------------------------------------


def find_flows_for(dut_path: Path, explicit: Path | None, training: Path | None) -> Path | None:
    """The flows file as ``test du`` finds it: ``explicit``, else ``<stem>.flows.yml`` or
    ``flows.yml`` beside the DUT file or the training data."""
    from nlu_tui.dut.service import DutRequest, find_flows

    if explicit is not None and not explicit.is_file():
        raise InputError("no such flows file", path=explicit, field="--flows")
    return find_flows(DutRequest(dut_path, flows=explicit), training)


def load_dut_file(path: Path) -> E2EFile | None:
    """The DUT file's test cases (None when it does not exist yet)."""
    from nlu_tui.formats.e2e_cases import read

    return read(path) if path.is_file() else None


def add_to_dut_file(path: Path, cases: Sequence[E2ETestCase]) -> bool:
    """Append ``cases`` to the DUT file (created when missing), atomically. The file's own text
    and comments are kept when the new test cases can follow them (``test_cases:`` is the last
    key); otherwise the file is rewritten. True when the text was kept."""
    import yaml

    from nlu_tui.conversation_model import E2EFile
    from nlu_tui.fileio import atomic_write_text
    from nlu_tui.formats.e2e_cases import case_to_data, read, write

    if not path.is_file():
        write(E2EFile(test_cases=list(cases)), path)
        return True

    class IndentedDumper(yaml.SafeDumper):
        """Block lists indented under their key (``steps:`` then ``  - user:``), as the
        sample files and Rasa's documentation write them."""

        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            return super().increase_indent(flow, False)

    old = read(path)
    text = path.read_text(encoding="utf-8")
    indent = _item_indent(text)
    block = yaml.dump(
        [case_to_data(c) for c in cases],
        Dumper=IndentedDumper if _lists_indented(text) else yaml.SafeDumper,
        sort_keys=False,
        allow_unicode=True,
        width=100,
    )
    block = "".join(
        " " * indent + line if line.strip() else line for line in block.splitlines(True)
    )
    candidate = text.rstrip("\n") + "\n\n" + block
    if indent >= 0 and _reads_as(
        candidate, path, [c.name for c in old.test_cases] + [c.name for c in cases]
    ):
        atomic_write_text(path, candidate)
        return True
    old.test_cases.extend(cases)
    write(old, path)
    return False


def _lists_indented(text: str) -> bool:
    """Whether the file's first ``steps:`` list is indented under its key (else, as PyYAML
    writes it, at the key's column); True when there is none."""
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if line.strip() != "steps:":
            continue
        key = len(line) - len(line.lstrip(" "))
        for item in lines[n + 1 :]:
            if item.strip() and not item.lstrip().startswith("#"):
                return len(item) - len(item.lstrip(" ")) > key
    return True


def _item_indent(text: str) -> int:
    """The indent of the ``- test_case:`` items when ``test_cases:`` is the file's last
    top-level key; -1 otherwise."""
    lines = text.splitlines()
    top = [i for i, line in enumerate(lines) if line[:1].isalpha()]
    if not top or not lines[top[-1]].startswith("test_cases:"):
        return -1
    for line in lines[top[-1] + 1 :]:
        stripped = line.lstrip(" ")
        if stripped.startswith("- "):
            return len(line) - len(stripped)
    return 0


def _reads_as(candidate: str, path: Path, names: list[str]) -> bool:
    """Whether ``candidate`` reads (as ``test du`` reads it) to test cases named ``names``."""
    import tempfile

    from nlu_tui.formats.e2e_cases import read

    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / path.name
        probe.write_text(candidate, encoding="utf-8")
        try:
            return [c.name for c in read(probe).test_cases] == names
        except InputError:
            return False
