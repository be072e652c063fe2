"""Amazon Lex V2 Test Workbench test sets (CSV): single inputs and multi-turn conversations.

The columns, as Amazon documents them ("Creating a test set from a CSV file for Test
Workbench", "Test set columns supported by Test Workbench", "Tips for creating a successful test
set" in the Lex V2 developer guide):

- ``Line #`` (or ``Line Number``): a counter for the author, ignored by Lex;
- ``Conversation #`` (or ``Conversation Number``): rows of one conversation share it; empty,
  ``-`` or ``N/A`` for single inputs;
- ``Source`` (or ``Conversation Participant``): ``User`` or ``Agent``;
- ``Input`` (text sets) or ``Expected Transcription`` (audio sets): the user's utterance, or the
  agent's prompt on Agent rows;
- ``Expected Output Intent`` and one ``Expected Output Slot N`` column per slot, each
  ``SlotName = value`` (a multi-value slot ``FlowerType = roses, lilies``; a composite slot's
  sub-slot ``Car.Color = red``);
- and columns our cases do not check: ``S3 Audio Location``, ``Input Context Tag``,
  ``Request Attribute``, ``Session Attribute``, ``RunTime Hint``, ``Barge In`` (and any other).

Each User row becomes one case (its intent and slots as expectations; a multi-value slot as a
multi-item value ``roses||lilies``). Everything else is kept in the case's ``extra["lex"]`` so an
export writes the same rows back: the line and conversation numbers as written, the Agent rows
before and after it, and the other columns. What our cases cannot do is said in warnings: a
conversation's turns run one by one, without the turns before them; Agent prompts, contexts,
attributes and runtime hints are kept but neither sent nor checked.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.fileio import atomic_write_text
from nlu_tui.formats.case_losses import case_fields_lost
from nlu_tui.formats.native_reader import suite_stem
from nlu_tui.formats.registry import ImportResult
from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase, ValueKind

NAME = "lex-csv"
EXTENSIONS = (".lex.csv",)
"""For ``export -o NAME`` without --format (a plain ``.csv`` is Kore.ai's); importing detects the
format from the header, whatever the name."""
DESCRIPTION = "Amazon Lex V2 Test Workbench test set (CSV)"

LINE = "Line #"
CONVERSATION = "Conversation #"
SOURCE = "Source"
INPUT = "Input"
TRANSCRIPTION = "Expected Transcription"
INTENT = "Expected Output Intent"
SLOT = "Expected Output Slot"
ALIASES = {
    "line #": LINE,
    "line number": LINE,
    "conversation #": CONVERSATION,
    "conversation number": CONVERSATION,
    "source": SOURCE,
    "conversation participant": SOURCE,
    "input": INPUT,
    "expected transcription": TRANSCRIPTION,
    "expected output intent": INTENT,
}
SINGLE = ("", "-", "n/a")
"""What the Conversation # column holds for a single input."""
_SLOT_COLUMN = re.compile(r"^expected output slot(?:\s*(\d+))?(?: #\d+)?$", re.IGNORECASE)
EXTRA = "lex"


def _header(cells: list[str]) -> list[str]:
    return [c.strip().lstrip("\ufeff").strip() for c in cells]


def sniff(path: Path, head: str) -> bool:
    first = head.lstrip("\ufeff").splitlines()[0] if head.strip() else ""
    names = {c.lower() for c in _header(next(csv.reader([first]), []))}
    return "expected output intent" in names and ("source" in names or "input" in names)


def _slot(cell: str, where: dict[str, Any]) -> ExpectedEntity:
    name, sep, value = cell.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name:
        raise InputError(f"a slot is written 'SlotName = value', not {cell!r}", **where)
    parts = [p.strip() for p in value.split(",")]
    if len(parts) > 1 and all(parts):  # a multi-value slot: "FlowerType = roses, lilies"
        return ExpectedEntity(name, "||".join(parts), kind=ValueKind.MULTI)
    return ExpectedEntity(name, value)


def read(path: Path) -> ImportResult:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=path) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", path=path) from None
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows:
        raise InputError(f"empty file: expected a header with {INPUT!r} and {INTENT!r}", path=path)
    header = _header(rows[0])
    columns: list[str] = []
    for pos, cell in enumerate(header):
        name = ALIASES.get(cell.lower(), cell) or f"column {pos + 1}"
        if name in columns:
            if name in ALIASES.values():
                raise InputError(
                    f"column {cell!r} appears twice", path=path, line=1, kind="row", field=cell
                )
            # columns that may repeat ("Expected Output Slot", "Session Attribute"): each its own
            n = 2
            while f"{name} #{n}" in columns:
                n += 1
            name = f"{name} #{n}"
        columns.append(name)
    if INPUT not in columns and TRANSCRIPTION not in columns:
        raise InputError(
            f"no {INPUT!r} (or {TRANSCRIPTION!r}) column", path=path, line=1, kind="row"
        )
    warnings: list[str] = []
    cases: list[TestCase] = []
    pending_agent: list[dict[str, Any]] = []
    agent_conversation: str | None = None
    kept_columns: set[str] = set()
    conversations = 0
    seen_conversations: set[str] = set()
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(columns):
            raise InputError(
                f"{len(row)} cells, but the header has {len(columns)}",
                path=path,
                line=number,
                kind="row",
            )
        cells = dict(zip(columns, [*row, *[""] * (len(columns) - len(row))], strict=True))
        where: dict[str, Any] = {"path": path, "line": number, "kind": "row"}
        source = cells.get(SOURCE, "User").strip() or "User"
        if source.lower() not in ("user", "agent"):
            raise InputError(
                f"{SOURCE!r} is 'User' or 'Agent', not {source!r}", field=SOURCE, **where
            )
        said = cells.get(INPUT, "") or cells.get(TRANSCRIPTION, "")
        conversation = cells.get(CONVERSATION, "")
        others = {
            column: cells[column]
            for column in columns
            if column not in (LINE, CONVERSATION, SOURCE, INPUT, TRANSCRIPTION, INTENT)
            and not _SLOT_COLUMN.match(column)
            and cells[column] != ""
        }
        if source.lower() == "agent":
            if agent_conversation is not None and agent_conversation != conversation:
                _attach_after(cases, pending_agent, warnings, path)
                pending_agent = []
            prompt: dict[str, Any] = {"input": said}
            if LINE in columns:
                prompt["line"] = cells[LINE]
            if source != "Agent":
                prompt["source"] = source
            if others:
                prompt["columns"] = others
                kept_columns.update(others)
            pending_agent.append(prompt)
            agent_conversation = conversation
            continue
        if pending_agent and agent_conversation != conversation:
            _attach_after(cases, pending_agent, warnings, path)
            pending_agent = []
        if not said.strip():
            raise InputError("a User row without input", field=INPUT, **where)
        intent = cells.get(INTENT, "").strip()
        entities = []
        for column in columns:
            if _SLOT_COLUMN.match(column) and cells[column].strip():
                entities.append(_slot(cells[column], {**where, "field": column}))
        lex: dict[str, Any] = {}
        if LINE in columns:
            lex["line"] = cells[LINE]
        if CONVERSATION in columns:
            lex["conversation"] = conversation
        if SOURCE in columns and source != "User":
            lex["source"] = source
        if INPUT not in columns:
            lex["audio"] = True  # the utterance came from Expected Transcription
        if pending_agent:
            lex["agent_before"] = pending_agent
            pending_agent = []
        if others:
            lex["columns"] = others
            kept_columns.update(others)
        if conversation.strip().lower() not in SINGLE and conversation not in seen_conversations:
            seen_conversations.add(conversation)
            conversations += 1
        cases.append(
            TestCase(
                utterance=said,
                intents=[ExpectedIntent(intent)] if intent else [],
                entities=entities,
                extra={EXTRA: lex},
                line=number,
            )
        )
    if pending_agent:
        _attach_after(cases, pending_agent, warnings, path)
    kept: dict[str, Any] = {"columns": columns}
    if header != columns:
        kept["header"] = header  # the names as written ("Line Number", "Conversation Participant")
    suite = Suite(name=suite_stem(Path(path)), cases=cases, extra={EXTRA: kept})
    if conversations:
        warnings.append(
            f"{path}: {conversations} conversation(s) imported one case per user turn; each "
            "turn runs on its own, without the turns before it (kept for export)"
        )
    if any("agent_before" in c.extra[EXTRA] or "agent_after" in c.extra[EXTRA] for c in cases):
        warnings.append(f"{path}: Agent rows (bot prompts) are kept for export but not checked")
    if kept_columns:
        warnings.append(
            f"{path}: columns {', '.join(sorted(kept_columns))} are kept for export but neither "
            "sent to the engine nor checked"
        )
    return ImportResult(suite, warnings)


def _attach_after(
    cases: list[TestCase], agent: list[dict[str, Any]], warnings: list[str], path: Path
) -> None:
    """Agent rows after a conversation's last user turn go with that turn."""
    if not cases:
        warnings.append(f"{path}: Agent rows before any User row are left out")
        return
    cases[-1].extra[EXTRA]["agent_after"] = list(agent)


# --- writing -------------------------------------------------------------------------------------


def _slot_text(entity: ExpectedEntity) -> str:
    value = entity.value
    if MULTI_SEP in value:
        value = ", ".join(p.strip() for p in value.split(MULTI_SEP))
    return f"{entity.name} = {value}"


MULTI_SEP = "||"


def dumps(suite: Suite) -> tuple[str, list[str]]:
    """The suite as a Test Workbench CSV, and what it could not hold."""
    warnings: list[str] = []
    suite_lex = suite.extra.get(EXTRA)
    stored = suite_lex.get("columns") if isinstance(suite_lex, dict) else None
    slots = max((len(c.entities) for c in suite.cases), default=0)
    other: list[str] = []
    for case in suite.cases:
        lex = case.extra.get(EXTRA) if isinstance(case.extra.get(EXTRA), dict) else {}
        for column in (lex.get("columns") or {}) if isinstance(lex, dict) else {}:
            if column not in other:
                other.append(str(column))
    audio = bool(suite.cases) and all(
        isinstance(c.extra.get(EXTRA), dict) and c.extra[EXTRA].get("audio") for c in suite.cases
    )
    said_column = TRANSCRIPTION if audio else INPUT
    if isinstance(stored, list) and all(isinstance(c, str) for c in stored):
        columns = list(stored)
        have = sum(1 for c in columns if _SLOT_COLUMN.match(c))
        columns += [f"{SLOT} {n}" for n in range(have + 1, slots + 1)]
        columns += [c for c in other if c not in columns]
    else:
        columns = [LINE, CONVERSATION, SOURCE, said_column, INTENT]
        columns += [f"{SLOT} {n}" for n in range(1, slots + 1)]
        columns += other
    slot_columns = [c for c in columns if _SLOT_COLUMN.match(c)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    written = suite_lex.get("header") if isinstance(suite_lex, dict) else None
    if (
        isinstance(written, list)
        and isinstance(stored, list)
        and len(written) == len(stored)
        and columns[: len(stored)] == stored
    ):
        writer.writerow([*written, *columns[len(stored) :]])
    else:
        writer.writerow(columns)
    _refuse_unreadable_slots(suite)
    line = 0
    for case in suite.cases:
        lex = case.extra.get(EXTRA) if isinstance(case.extra.get(EXTRA), dict) else {}
        assert isinstance(lex, dict)
        lost = _lost(case)
        if lost:
            warnings.append(f"case {case.id}: a Lex test set cannot hold {', '.join(lost)}")
        conversation = str(lex.get("conversation", ""))

        shape = _Shape(columns, slot_columns, said_column, conversation)
        for prompt in _prompts(lex.get("agent_before")):
            line += 1
            writer.writerow(shape.row(prompt, "Agent", str(prompt.get("input", "")), None, line))
        line += 1
        writer.writerow(shape.row(lex, "User", case.utterance, case, line))
        for prompt in _prompts(lex.get("agent_after")):
            line += 1
            writer.writerow(shape.row(prompt, "Agent", str(prompt.get("input", "")), None, line))
    return out.getvalue(), warnings


@dataclass(frozen=True)
class _Shape:
    """The columns of the file being written, and the conversation of the rows to write."""

    columns: list[str]
    slot_columns: list[str]
    said_column: str
    conversation: str

    def row(
        self, stored: dict[str, Any], source: str, said: str, case: TestCase | None, line: int
    ) -> list[str]:
        cells: dict[str, str] = {
            LINE: str(stored.get("line", line)),
            CONVERSATION: self.conversation,
            SOURCE: str(stored.get("source", source)),
            self.said_column: said,
        }
        if case is not None:
            cells[INTENT] = case.intents[0].name if case.intents else ""
            for column, entity in zip(self.slot_columns, case.entities, strict=False):
                cells[column] = _slot_text(entity)
        others = stored.get("columns")
        if isinstance(others, dict):
            cells.update({str(k): str(v) for k, v in others.items()})
        return [cells.get(column, "") for column in self.columns]


def _refuse_unreadable_slots(suite: Suite) -> None:
    """A slot cell is ``SlotName = value`` and is read up to its first ``=``: a name holding
    ``=`` would read back as another slot (or none). Lex has no escape for it and its slot names
    never hold one (letters, digits, ``_`` and ``-``: the key pattern of ``UserTurnSlotOutput``
    in the Lex V2 API reference), so such a suite is refused before anything is written."""
    for case in suite.cases:
        for entity in case.entities:
            if "=" in entity.name:
                raise InputError(
                    f"case {case.id}: the slot name {entity.name!r} holds '=', which a Lex test "
                    "set cannot hold (a slot is written 'SlotName = value'); nothing written",
                    field="entities.name",
                )


def _prompts(value: Any) -> list[dict[str, Any]]:
    """Stored Agent rows (a plain string is taken as the prompt)."""
    if not isinstance(value, list):
        return []
    return [p if isinstance(p, dict) else {"input": str(p)} for p in value]


def _lost(case: TestCase) -> list[str]:
    lost = case_fields_lost(case)
    for e in case.entities:
        if e.kind in (ValueKind.REGEX, ValueKind.COMPOSITE) or e.alternatives:
            lost.append(f"the value kind/alternatives of {e.name!r}")
        if e.role or e.group:
            lost.append(f"the role/group of {e.name!r}")
        if e.name != e.name.strip() or e.value != e.value.strip():
            lost.append(f"the spaces around the name or value of {e.name!r}")
    return lost


def write(suite: Suite, path: Path) -> list[str]:
    text, warnings = dumps(suite)
    atomic_write_text(Path(path), text)
    return warnings
