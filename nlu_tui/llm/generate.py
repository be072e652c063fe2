"""Generate test cases for an intent with an LLM, review them, add the accepted ones.

Seed 000's flow (Kore.ai): generate utterances for an intent, reject some, "Generate more",
then "Add Test Cases". The faces (``nlu-tui generate``, the Cases tab's "Generate…" dialog)
drive one :class:`CaseGenerator`:

1. :meth:`CaseGenerator.messages` builds the prompt from the intent's name, description and
   training examples (and the entity types and values annotated in them); later rounds list
   every utterance already shown, so the model does not repeat them.
2. :meth:`CaseGenerator.generate` asks the endpoint and turns its JSON into
   :class:`Proposal` s; an exact repeat (normalised) of anything shown or rejected is dropped.
3. Every proposal is checked: identical or near-identical to a training example (leakage) or
   to an existing case is flagged; :func:`nlu_tui.validation.validate_case` runs as for a
   hand-written case, and its errors block adding.
4. :meth:`CaseGenerator.accepted_cases` are appended to the suite through the workspace's
   comment-preserving save (:func:`add_to_suite`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.coverage import DEFAULT_NEAR, find_leaks, normalise
from nlu_tui.engines.llm_config import LLMError
from nlu_tui.errors import InputError
from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase, new_case_id

if TYPE_CHECKING:
    from nlu_tui.engines.llm_client import ChatClient
    from nlu_tui.training import TrainingData

GENERATED_TAG = "generated"
MAX_EXAMPLES = 15
PROPOSALS_PER_COUNT = 4
"""An answer may carry up to this many times the proposals asked for; more is refused unread."""


@dataclass
class Proposal:
    """One generated utterance under review. ``flags`` are warnings (leakage, duplicates,
    validation warnings); ``errors`` block adding until the text is edited."""

    utterance: str
    entities: list[ExpectedEntity] = field(default_factory=list)
    accepted: bool = True
    flags: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    proposed_entities: list[ExpectedEntity] = field(default_factory=list, repr=False)
    """The entities as the model proposed them: an edit keeps those whose words remain."""

    def __post_init__(self) -> None:
        if not self.proposed_entities:
            self.proposed_entities = list(self.entities)

    @property
    def addable(self) -> bool:
        return self.accepted and not self.errors and bool(self.utterance.strip())

    def summary(self) -> str:
        """What the case expects besides its text, on one line (shown after the utterance)."""
        return ", ".join(f"{e.name}={e.value}" for e in self.entities)

    def more_lines(self) -> list[str]:
        """Further lines of the proposal (a flow proposal's later turns)."""
        return []


@dataclass
class IntentBrief:
    """What the prompt tells the model about the intent."""

    name: str
    description: str = ""
    examples: list[str] = field(default_factory=list)
    entity_values: dict[str, list[str]] = field(default_factory=dict)


def intent_brief(intent: str, training: TrainingData | None, suite: Suite | None) -> IntentBrief:
    """The intent's description, examples and entity values, from the training data (else
    from the suite's cases of that intent)."""
    brief = IntentBrief(intent)
    if training is not None:
        meta = training.intent_metadata.get(intent, {})
        if isinstance(meta.get("description"), str):
            brief.description = meta["description"].strip()
        for example in training.examples:
            if example.intent != intent:
                continue
            brief.examples.append(example.text)
            for entity in example.entities:
                values = brief.entity_values.setdefault(entity.name, [])
                value = entity.text or entity.value
                if value and value not in values:
                    values.append(value)
    if not brief.examples and suite is not None:
        brief.examples = [
            c.utterance for c in suite.cases if any(i.name == intent for i in c.intents)
        ]
    if not brief.description and suite is not None:
        described = suite.extra.get("intents") if isinstance(suite.extra, dict) else None
        if isinstance(described, dict) and isinstance(described.get(intent), str):
            brief.description = described[intent]
    return brief


class ProposalSession:
    """What every review session shares (an intent's cases here, a flow's DUT test cases in
    :mod:`nlu_tui.llm.generate_flow`): the proposals shown so far, in order, the rounds, and
    "generate more" without repeating anything shown or rejected. A subclass gives the prompt
    (:meth:`messages`), reads the answer (:meth:`parse`) and checks a proposal (:meth:`check`).
    """

    what = "test cases"

    def __init__(self, count: int) -> None:
        if not 1 <= count <= 100:
            raise InputError("must be within 1..100", field="--count")
        self.count = count
        self.proposals: list[Any] = []
        self.rounds = 0
        self.dropped_repeats = 0
        self.last_prompt_tokens: int | None = None

    def messages(self) -> list[dict[str, str]]:
        raise NotImplementedError

    def parse(self, text: str, where: str) -> list[Any]:
        raise NotImplementedError

    def check(self, proposal: Any) -> None:
        raise NotImplementedError

    def shown_lines(self) -> list[str]:
        """The prompt's "do not repeat" part: every utterance already shown (rejected too)."""
        shown = [p.utterance for p in self.proposals]
        if not shown:
            return []
        return [
            "Do not repeat or rephrase any of these (already proposed):",
            *(f"- {text}" for text in shown),
        ]

    async def generate(self, client: ChatClient) -> list[Any]:
        """One round: ask, parse, drop repeats, check. The new proposals (also appended)."""
        reply = await client.chat(self.messages())
        self.rounds += 1
        self.last_prompt_tokens = reply.usage.prompt_tokens
        where = f"LLM answer (round {self.rounds})"
        fresh: list[Any] = []
        seen = {normalise(p.utterance) for p in self.proposals}
        for item in self.parse(reply.text, where):
            key = normalise(item.utterance)
            if not key or key in seen:
                self.dropped_repeats += 1
                continue
            seen.add(key)
            fresh.append(item)
        for proposal in fresh:
            self.check(proposal)
        self.proposals.extend(fresh)
        return fresh

    def set_accepted(self, index: int, accepted: bool) -> None:
        self.proposals[index].accepted = accepted

    def edit(self, index: int, utterance: str) -> Any:
        raise NotImplementedError

    near: float = DEFAULT_NEAR

    def repeat_flags(self, proposal: Any) -> list[str]:
        """A flag when the proposal is the same as, or near-identical to, one shown earlier
        (a rephrased repeat of a rejected proposal must not slip back in)."""
        earlier = [
            (p.utterance, "rejected" if not p.accepted else "earlier")
            for p in self.proposals
            if p is not proposal
        ]
        probe = TestCase(utterance=proposal.utterance, id="proposal")
        flags = []
        for dup in find_leaks([probe], earlier, self.near):
            if dup.identical:
                flags.append("duplicate of another proposal")
            else:
                flags.append(
                    f"{dup.similarity:.0%} like the {dup.example_intent} proposal {dup.example!r}"
                )
        return flags


class CaseGenerator(ProposalSession):
    """One review session for an intent's test cases."""

    def __init__(
        self,
        intent: str,
        suite: Suite,
        training: TrainingData | None = None,
        *,
        count: int = 10,
        with_entities: bool = True,
        near: float = DEFAULT_NEAR,
    ) -> None:
        if not intent.strip():
            raise InputError("give the intent to generate test cases for", field="--intent")
        super().__init__(count)
        self.intent = intent.strip()
        self.suite = suite
        self.training = training
        self.with_entities = with_entities
        self.near = near
        self.brief = intent_brief(self.intent, training, suite)
        self.proposals: list[Proposal] = []

    # --- the prompt -------------------------------------------------------------------------

    def messages(self) -> list[dict[str, str]]:
        """The chat messages of the next round."""
        brief = self.brief
        lines = [
            f"Write {self.count} new test utterances for the intent {brief.name!r} of a chatbot.",
        ]
        if brief.description:
            lines.append(f"Intent description: {brief.description}")
        if brief.examples:
            lines.append("Training examples of this intent (do NOT copy or lightly reword them):")
            lines += [f"- {text}" for text in brief.examples[:MAX_EXAMPLES]]
        lines.append(
            "Make them varied and realistic, as real users would type them: different lengths, "
            "wordings, politeness, typos and slang now and then, with and without details."
        )
        if self.with_entities and brief.entity_values:
            lines.append(
                "Entities this intent uses (type: example values): "
                + "; ".join(
                    f"{k}: {', '.join(v[:5])}" for k, v in sorted(brief.entity_values.items())
                )
            )
            lines.append(
                "Where an utterance mentions an entity, list it with the exact words used."
            )
        lines += self.shown_lines()
        lines.append(
            'Answer with one JSON array and nothing else: [{"utterance": "...", '
            '"entities": [{"entity": "<type>", "value": "<value>", "text": "<exact words>"}]}]'
        )
        return [
            {
                "role": "system",
                "content": "You write test data for chatbot NLU testing. You answer only JSON.",
            },
            {"role": "user", "content": "\n".join(lines)},
        ]

    def parse(self, text: str, where: str) -> list[Proposal]:
        return parse_proposals(text, where, self.count)

    # --- review ---------------------------------------------------------------------------

    def edit(self, index: int, utterance: str) -> Proposal:
        """Change a proposal's text (inline edit) and check it again; entities whose words
        are no longer in it are dropped."""
        proposal = self.proposals[index]
        proposal.utterance = utterance.strip()
        proposal.entities = [
            e
            for e in proposal.proposed_entities
            if not e.text or e.text.lower() in proposal.utterance.lower()
        ]
        self.check(proposal)
        return proposal

    def check(self, proposal: Proposal) -> None:
        """Flag leakage and duplicates, validate as a hand-written case."""
        from nlu_tui.validation import validate_case

        proposal.flags, proposal.errors = [], []
        case = self.case_of(proposal)
        if self.training is not None:
            pairs = [(e.text, e.intent) for e in self.training.examples]
            for leak in find_leaks([case], pairs, self.near):
                kind = "identical to" if leak.identical else f"{leak.similarity:.0%} like"
                proposal.flags.append(
                    f"leakage: {kind} training example {leak.example!r} ({leak.example_intent})"
                )
        existing = [(c.utterance, ",".join(i.name for i in c.intents)) for c in self.suite.cases]
        for dup in find_leaks([case], existing, self.near):
            kind = "duplicate of" if dup.identical else f"{dup.similarity:.0%} like"
            proposal.flags.append(f"{kind} existing case {dup.example!r}")
        proposal.flags += self.repeat_flags(proposal)
        for entity in proposal.entities:
            if entity.text and entity.text.lower() not in proposal.utterance.lower():
                proposal.flags.append(f"entity {entity.name}: {entity.text!r} is not in the text")
        probe = Suite(self.suite.name, cases=list(self.suite.cases), path=self.suite.path)
        for problem in validate_case(case, probe):
            if problem.code in ("duplicate-utterance", "duplicate-case"):
                continue  # already said above, with the case it repeats
            target = proposal.errors if problem.severity == "error" else proposal.flags
            target.append(problem.message)

    def case_of(self, proposal: Proposal) -> TestCase:
        return TestCase(
            utterance=proposal.utterance,
            intents=[ExpectedIntent(self.intent)],
            entities=list(proposal.entities),
            tags=[GENERATED_TAG],
            id=new_case_id(),
        )

    def accepted_cases(self) -> list[TestCase]:
        return [self.case_of(p) for p in self.proposals if p.addable]


def json_answer(text: str, where: str) -> Any:
    from nlu_tui.engines.llm_answer_json import AnswerTooDeep, found, loose_json

    try:
        value = loose_json(text, "[]")
    except AnswerTooDeep as exc:
        raise LLMError(f"{where}: {exc}; not a list of utterances") from None
    if found(value):
        return value
    snippet = text.strip().replace("\n", " ")[:80]
    raise LLMError(f"{where}: not a JSON array of utterances (starts {snippet!r})")


def answer_items(
    text: str, where: str, keys: Sequence[str], noun: str, count: int | None
) -> list[Any]:
    """The array a proposal answer holds (bare, or under one of ``keys`` of an object).

    With ``count`` (the proposals asked for), an array longer than ``count`` ×
    :data:`PROPOSALS_PER_COUNT` is refused before any item is read: checking each proposal
    against the training data and the others costs more than linear time.
    """
    value = json_answer(text, where)
    if isinstance(value, dict):
        for key in keys:
            if isinstance(value.get(key), list):
                value = value[key]
                break
    if not isinstance(value, list):
        raise LLMError(f"{where}: expected a JSON array of {noun}, got {type(value).__name__}")
    if count is not None and len(value) > count * PROPOSALS_PER_COUNT:
        raise LLMError(
            f"{where}: {len(value)} proposals for --count {count}; at most "
            f"{count * PROPOSALS_PER_COUNT} ({PROPOSALS_PER_COUNT} × the count) are read"
        )
    return value


def parse_proposals(
    text: str, where: str = "LLM answer", count: int | None = None
) -> list[Proposal]:
    """The model's JSON as proposals: an array of ``{"utterance", "entities"}`` objects or of
    plain strings (``{"utterances": [...]}`` is read too). LLMError when it is neither, or when
    it holds more than ``count`` × :data:`PROPOSALS_PER_COUNT` items."""
    value = answer_items(
        text, where, ("utterances", "test_cases", "cases", "items"), "utterances", count
    )

    out: list[Proposal] = []
    for n, item in enumerate(value, 1):
        if isinstance(item, str):
            out.append(Proposal(" ".join(item.split()), []))
            continue
        if not isinstance(item, dict) or not isinstance(item.get("utterance"), str):
            raise LLMError(f"{where}: item {n} has no 'utterance' text")
        entities: list[ExpectedEntity] = []
        raw = item.get("entities") or []
        if not isinstance(raw, list):
            raise LLMError(f"{where}: item {n}: 'entities' is not a list")
        for entity in raw:
            if not isinstance(entity, dict) or not isinstance(entity.get("entity"), str):
                raise LLMError(f"{where}: item {n}: an entity has no 'entity' type")
            words = entity.get("text")
            value_text = entity.get("value", words)
            entities.append(
                ExpectedEntity(
                    name=entity["entity"].strip(),
                    value="" if value_text is None else str(value_text),
                    text=words if isinstance(words, str) and words else None,
                )
            )
        out.append(Proposal(" ".join(item["utterance"].split()), entities))
    return out


# --- the service calls the faces share ------------------------------------------------------


def find_training(suite_path: Path, explicit: Path | None) -> Path | None:
    """The training data: ``explicit``, else the one ``*.nlu.yml`` beside the suite."""
    if explicit is not None:
        if not explicit.is_file():
            raise InputError("no such training data file", path=explicit, field="--engine-training")
        return explicit
    stem = suite_path.name.split(".", 1)[0]
    folder = suite_path.expanduser().resolve().parent
    candidates = sorted(folder.glob("*.nlu.yml")) + sorted(folder.glob("*.nlu.yaml"))
    named = [p for p in candidates if p.name.split(".", 1)[0] == stem]
    if named:
        return named[0]
    return candidates[0] if len(candidates) == 1 else None


def load_training(path: Path | None) -> TrainingData | None:
    if path is None:
        return None
    from nlu_tui.formats.rasa_yaml import load_training_data

    return load_training_data(path)


def add_to_suite(suite_path: Path, cases: Sequence[TestCase]) -> Path:
    """Append ``cases`` to the suite file through the workspace's comment-preserving save."""
    from nlu_tui.workspace import Workspace

    workspace = Workspace(suite_path.expanduser().resolve().parent)
    workspace.append_cases(suite_path.expanduser().resolve(), list(cases))
    return suite_path
