"""Rasa NLU training data (YAML, Rasa 3): read it for engines, import it as a suite, export to it.

A Rasa file teaches as well as tests: :func:`load_training_data` is what the embedded engine
trains from, and importing the same file gives the "developer defined utterances" suite (one case
per example). The YAML is read as a node tree so every error names its line; scalars are taken
as written (no YAML 1.1 surprises such as an intent called ``yes`` becoming ``True``).

Our convention on top of Rasa: intent ``metadata: {parent: X, kind: faq|small_talk|dialog|trait}`` (trait: the embedded engine learns it as a trait)
marks follow-up intents and intent kinds; retrieval intents (``faq/ask_fees``) default to FAQ.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.errors import InputError
from nlu_tui.fileio import atomic_write_text
from nlu_tui.formats import yaml_loader
from nlu_tui.formats import yaml_nodes as yn
from nlu_tui.formats.rasa_markup import MarkupError, format_example, parse_example
from nlu_tui.formats.yaml_loader import SafeLoader as _Loader
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    Suite,
    TestCase,
    ValueKind,
    digest_bytes,
)
from nlu_tui.training import RETRIEVAL_SEPARATOR, TrainingData, TrainingExample

__all__ = [
    "DESCRIPTION",
    "EXTENSIONS",
    "NAME",
    "TrainingData",
    "TrainingExample",
    "dump_training_yaml",
    "load_training_data",
    "read",
    "sniff",
    "suite_from_training_data",
    "training_data_from_suite",
    "training_yaml",
    "write",
]

NAME = "rasa"
EXTENSIONS = (".yml", ".yaml")
DESCRIPTION = "Rasa NLU training data (YAML: nlu intents, entities, synonyms, regexes, lookups)"
RASA_VERSION = "3.1"
SECTION_KEYS = ("intent", "synonym", "regex", "lookup")
KIND_VALUES = tuple(k.value for k in IntentKind)

_TOP_LEVEL_NLU = re.compile(r"^nlu\s*:", re.MULTILINE)


# --- reading ------------------------------------------------------------------------------------


def _to_python(node: yaml.Node, path: Path | None, depth: int) -> Any:
    """Free-form data (metadata) at ``depth`` in the document, within the loader's limits."""
    return yaml_loader.construct(node, path, depth=depth)


def _example_lines(
    node: yaml.Node, path: Path, section: str, warnings: list[str]
) -> Iterator[tuple[str, int, Any]]:
    """The items of an ``examples`` value as (text, line, example metadata).

    Rasa's usual form is a literal block of ``- item`` lines; its other form is a list of
    ``{text: ..., metadata: ...}`` mappings. Both are accepted.
    """
    if isinstance(node, yaml.ScalarNode):
        first = yn.line_of(node) + 1 if node.style == "|" else yn.line_of(node)
        literal = node.style == "|"
        for offset, raw in enumerate(str(node.value).splitlines()):
            line = first + offset if literal else first
            stripped = raw.strip()
            if not stripped:
                continue
            if not stripped.startswith("-"):
                warnings.append(
                    f"{path}: line {line}: {section}: example does not start with '-', "
                    f"skipped (as Rasa does): {stripped[:60]!r}"
                )
                continue
            yield stripped[1:].strip(), line, None
        return
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if isinstance(item, yaml.ScalarNode):
                yield str(item.value).strip(), yn.line_of(item), None
                continue
            if not isinstance(item, yaml.MappingNode):
                raise InputError(
                    "an example must be text or a mapping with 'text'",
                    path=path,
                    line=yn.line_of(item),
                    field="examples",
                )
            text: str | None = None
            meta: Any = None
            for key_node, value_node in item.value:
                key = yn.text(key_node, path, "examples")
                if key == "text":
                    text = yn.text(value_node, path, "text").strip()
                elif key == "metadata":
                    meta = _to_python(value_node, path, 6)
            if text is None:
                raise InputError(
                    "example mapping has no 'text'",
                    path=path,
                    line=yn.line_of(item),
                    field="examples",
                )
            yield text, yn.line_of(item), meta
        return
    raise InputError(
        "'examples' must be a block of '- ' lines",
        path=path,
        line=yn.line_of(node),
        field="examples",
    )


def _check_metadata(meta: Any, path: Path, line: int) -> dict[str, Any]:
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        # Rasa allows any metadata; only a mapping can carry our parent/kind convention.
        return {"value": meta}
    kind = meta.get("kind")
    if kind is not None and kind not in KIND_VALUES:
        raise InputError(
            f"unknown intent kind {kind!r}; use one of {', '.join(KIND_VALUES)}",
            path=path,
            line=line,
            field="metadata.kind",
        )
    parent = meta.get("parent")
    if parent is not None and (not isinstance(parent, str) or not parent.strip()):
        raise InputError(
            "'parent' must be an intent name", path=path, line=line, field="metadata.parent"
        )
    return dict(meta)


def _add_unique(target: dict[str, list[str]], key: str, items: list[str]) -> None:
    bucket = target.setdefault(key, [])
    for item in items:
        if item not in bucket:
            bucket.append(item)


def _read_file_into(path: Path, data: TrainingData, *, require_nlu: bool) -> bytes:
    root, raw = yn.read_root_and_bytes(path)
    if root is None:
        if require_nlu:
            raise InputError("empty file: no 'nlu:' section", path=path)
        return raw
    if not isinstance(root, yaml.MappingNode):
        raise InputError(
            "a Rasa training file is a mapping with an 'nlu:' key", path=path, line=yn.line_of(root)
        )
    nlu_node: yaml.Node | None = None
    for key_node, value_node in root.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == "nlu":
            nlu_node = value_node
        # version, stories, rules, responses, ... are not ours to read: ignored on purpose.
    if nlu_node is None:
        if require_nlu:
            raise InputError("no 'nlu:' section (is this Rasa NLU training data?)", path=path)
        return raw
    if isinstance(nlu_node, yaml.ScalarNode) and nlu_node.value in ("", "~", "null"):
        return raw
    if not isinstance(nlu_node, yaml.SequenceNode):
        raise InputError(
            "'nlu' must be a list of intent/synonym/regex/lookup items",
            path=path,
            line=yn.line_of(nlu_node),
            field="nlu",
        )
    for item in nlu_node.value:
        _read_item(item, path, data)
    return raw


def _read_item(item: yaml.Node, path: Path, data: TrainingData) -> None:
    line = yn.line_of(item)
    if not isinstance(item, yaml.MappingNode):
        raise InputError(
            "each 'nlu' item must be a mapping such as 'intent: greet'",
            path=path,
            line=line,
            field="nlu",
        )
    fields: dict[str, yaml.Node] = {}
    for key_node, value_node in item.value:
        fields[yn.text(key_node, path, "nlu")] = value_node
    sections = [k for k in SECTION_KEYS if k in fields]
    if len(sections) != 1:
        found = ", ".join(sections) or "none"
        raise InputError(
            f"an 'nlu' item needs exactly one of {', '.join(SECTION_KEYS)} (found: {found})",
            path=path,
            line=line,
            field="nlu",
        )
    section = sections[0]
    name = yn.text(fields[section], path, section).strip()
    if not name:
        raise InputError(f"'{section}' needs a name", path=path, line=line, field=section)
    extra = sorted(set(fields) - {section, "examples", "metadata"})
    if extra:
        data.warnings.append(f"{path}: line {line}: ignored key(s) {', '.join(extra)}")
    examples_node = fields.get("examples")
    if examples_node is None:
        if section != "intent" or "metadata" not in fields:
            data.warnings.append(f"{path}: line {line}: {section} '{name}' has no examples")
        items: list[tuple[str, int, Any]] = []
    else:
        items = list(_example_lines(examples_node, path, f"{section} '{name}'", data.warnings))
    if section == "intent":
        if "metadata" in fields:
            meta = _check_metadata(
                _to_python(fields["metadata"], path, 4), path, yn.line_of(fields["metadata"])
            )
            if meta:
                data.intent_metadata.setdefault(name, {}).update(meta)
        for markup, ex_line, ex_meta in items:
            if not markup:
                data.warnings.append(f"{path}: line {ex_line}: empty example skipped")
                continue
            try:
                parsed = parse_example(markup)
            except MarkupError as exc:
                raise InputError(str(exc), path=path, line=ex_line, field="examples") from None
            if not parsed.text.strip():
                raise InputError("empty example", path=path, line=ex_line, field="examples")
            data.examples.append(
                TrainingExample(parsed.text, name, parsed.entities, ex_line, ex_meta)
            )
            for entity in parsed.entities:
                surface = parsed.text[entity.start : entity.end]
                if entity.start is not None and surface != entity.value:
                    data.entity_synonyms[surface] = entity.value
        return
    values = [text for text, _, _ in items if text]
    if section == "synonym":
        _add_unique(data.synonym_blocks, name, values)
        for value in values:
            data.entity_synonyms[value] = name
    elif section == "regex":
        for pattern, ex_line, _ in items:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise InputError(
                    f"invalid regular expression {pattern!r}: {exc}",
                    path=path,
                    line=ex_line,
                    field=f"regex '{name}'",
                ) from None
        _add_unique(data.regexes, name, values)
    else:
        _add_unique(data.lookups, name, values)


def _check_parents(data: TrainingData) -> None:
    for intent, meta in data.intent_metadata.items():
        seen = [intent]
        current = meta.get("parent")
        while current:
            if current in seen:
                chain = " > ".join([*seen, current])
                raise InputError(
                    f"intent parents form a cycle: {chain}", path=data.path, field="metadata.parent"
                )
            seen.append(current)
            current = data.intent_metadata.get(current, {}).get("parent")
    known = set(data.intents)
    for intent, meta in data.intent_metadata.items():
        parent = meta.get("parent")
        if parent and parent not in known:
            data.warnings.append(
                f"{data.path}: intent '{intent}' names parent '{parent}', which has no examples"
            )


def _merge_synonyms(data: TrainingData) -> None:
    """``synonyms`` = declared blocks plus every inline value that differs from its text."""
    merged: dict[str, list[str]] = {k: list(v) for k, v in data.synonym_blocks.items()}
    for example in data.examples:
        for entity in example.entities:
            if entity.text is not None and entity.value != entity.text:
                _add_unique(merged, entity.value, [entity.text])
    data.synonyms = merged


def load_training_data(path: Path | str) -> TrainingData:
    """Read a Rasa NLU YAML file, or every such file in a directory, for training.

    Raises :class:`InputError` naming the file, line and field of the first problem. The
    ``digest`` covers the bytes of every file read, so a model cache keyed on it is exact.
    """
    path = Path(path)
    data = TrainingData(path=path)
    hasher = hashlib.sha256()
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in EXTENSIONS and p.is_file())
        for file in files:
            raw = _read_file_into(file, data, require_nlu=False)
            hasher.update(str(file.relative_to(path)).encode() + b"\0" + raw + b"\0")
        if not data.examples:
            raise InputError("no Rasa NLU examples in any .yml/.yaml file here", path=path)
        data.digest = hasher.hexdigest()
    else:
        raw = _read_file_into(path, data, require_nlu=True)
        data.digest = digest_bytes(raw)
    _check_parents(data)
    _merge_synonyms(data)
    return data


def load_responses(path: Path | str) -> dict[str, list[dict[str, Any]]]:
    """The ``responses:`` of a Rasa NLU file (or of every such file in a folder, later files
    winning): the texts of retrieval intents (``utter_faq/ask_fees``), which Rasa's reader
    keeps with the training data. Unreadable or odd sections give nothing."""
    path = Path(path)
    files = (
        sorted(p for p in path.rglob("*") if p.suffix in EXTENSIONS and p.is_file())
        if path.is_dir()
        else [path]
    )
    out: dict[str, list[dict[str, Any]]] = {}
    for file in files:
        try:
            doc = yaml.load(file.read_text(encoding="utf-8"), Loader=_Loader)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        section = doc.get("responses") if isinstance(doc, dict) else None
        if not isinstance(section, dict):
            continue
        for name, items in section.items():
            if isinstance(items, list):
                out[str(name)] = [dict(i) for i in items if isinstance(i, dict)]
    return out


def responses_yaml(responses: dict[str, list[dict[str, Any]]]) -> str:
    """Rasa's NLG file for ``responses`` (``nlg_training_data.yml``): a version line and a
    ``responses:`` section in the given order; "" when there is none (Rasa writes an empty
    file then)."""
    if not responses:
        return ""
    body = yaml.safe_dump({"responses": responses}, allow_unicode=True, sort_keys=False)
    return f'version: "{RASA_VERSION}"\n' + body


# --- import: training data -> suite -------------------------------------------------------------


def _suite_name(path: Path | None) -> str:
    """``banking_bot.nlu.yml`` → ``banking_bot``; a bare ``nlu.yml`` is named after its folder."""
    if path is None:
        return "Rasa training data"
    if path.is_dir():
        return path.resolve().name
    stem = path.name
    for suffix in (".yml", ".yaml", ".nlu"):
        stem = stem.removesuffix(suffix)
    if stem in ("nlu", "data", "train", "training", ""):
        return path.resolve().parent.name or stem
    return stem


def _stable_id(intent: str, text: str, seen: dict[str, int]) -> str:
    """Ids derived from the example, so re-importing a file keeps every case's id."""
    base = hashlib.sha1(f"{intent}\0{text}".encode()).hexdigest()[:12]
    count = seen.get(base, 0)
    seen[base] = count + 1
    if count == 0:
        return base
    return hashlib.sha1(f"{base}\0{count}".encode()).hexdigest()[:12]


def suite_from_training_data(data: TrainingData, name: str | None = None) -> Suite:
    """The "developer defined utterances" suite: one case per training example."""
    seen: dict[str, int] = {}
    cases: list[TestCase] = []
    for example in data.examples:
        entities = []
        for entity in example.entities:
            copy = ExpectedEntity(
                name=entity.name,
                value=entity.value,
                text=entity.text,
                start=entity.start,
                end=entity.end,
                role=entity.role,
                group=entity.group,
            )
            if "|" in copy.value:  # would read as multi-item/composite under "auto"
                copy.kind = ValueKind.EXACT
            entities.append(copy)
        extra: dict[str, Any] = {}
        if example.metadata is not None:
            extra["rasa_metadata"] = example.metadata
        cases.append(
            TestCase(
                utterance=example.text,
                intents=[ExpectedIntent(example.intent, data.intent_kind(example.intent))],
                parent_intents=data.parent_path(example.intent),
                entities=entities,
                id=_stable_id(example.intent, example.text, seen),
                extra=extra,
                line=example.line,
            )
        )
    training: dict[str, Any] = {}
    if data.synonym_blocks:
        training["synonyms"] = {k: list(v) for k, v in data.synonym_blocks.items()}
    if data.regexes:
        training["regexes"] = {k: list(v) for k, v in data.regexes.items()}
    if data.lookups:
        training["lookups"] = {k: list(v) for k, v in data.lookups.items()}
    extra_meta = {
        intent: {k: v for k, v in meta.items() if k not in ("parent", "kind")}
        for intent, meta in data.intent_metadata.items()
    }
    extra_meta = {k: v for k, v in extra_meta.items() if v}
    if extra_meta:
        training["intent_metadata"] = extra_meta
    source = data.path.name if data.path is not None else "training data"
    return Suite(
        name=name or _suite_name(data.path),
        description=f"Developer defined utterances from Rasa training data {source}",
        cases=cases,
        training=training,
    )


def training_data_from_suite(suite: Suite) -> TrainingData:
    """Training data from a suite's single-intent cases (what an engine could learn from it)."""
    data = TrainingData(path=suite.path)
    for name, variants in dict(suite.training.get("synonyms") or {}).items():
        _add_unique(data.synonym_blocks, str(name), [str(v) for v in variants])
    for name, patterns in dict(suite.training.get("regexes") or {}).items():
        _add_unique(data.regexes, str(name), [str(p) for p in patterns])
    for name, items in dict(suite.training.get("lookups") or {}).items():
        _add_unique(data.lookups, str(name), [str(i) for i in items])
    metadata, _ = _intent_metadata(suite)
    data.intent_metadata = metadata
    for case in suite.cases:
        if len(case.intents) != 1:
            continue
        entities = [
            ExpectedEntity(
                e.name, e.value, text=e.text, start=e.start, end=e.end, role=e.role, group=e.group
            )
            for e in case.entities
            if e.kind in (ValueKind.AUTO, ValueKind.EXACT)
        ]
        data.examples.append(
            TrainingExample(case.utterance, case.intents[0].name, entities, case.line)
        )
    text = json.dumps(
        [[e.intent, e.text] for e in data.examples] + [data.synonym_blocks, data.regexes],
        sort_keys=True,
    )
    data.digest = digest_bytes(text.encode())
    _merge_synonyms(data)
    return data


# --- export: suite -> Rasa YAML -----------------------------------------------------------------


def _intent_metadata(suite: Suite) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Intent metadata implied by the cases (kind, parent chain), over any kept in ``training``."""
    warnings: list[str] = []
    metadata: dict[str, dict[str, Any]] = {
        str(k): dict(v) for k, v in dict(suite.training.get("intent_metadata") or {}).items()
    }
    kinds: dict[str, str] = {}
    parents: dict[str, str | None] = {}

    def set_parent(intent: str, parent: str | None, case_id: str) -> None:
        previous = parents.get(intent)
        if intent in parents and previous != parent:
            if previous is None:
                parents[intent] = parent  # a follow-up tested without its context elsewhere
            elif parent is not None:
                warnings.append(
                    f"case {case_id}: intent '{intent}' has parent '{parent}' here but "
                    f"'{previous}' elsewhere; kept '{previous}'"
                )
            return
        parents[intent] = parent

    for case in suite.cases:
        if len(case.intents) != 1:
            continue
        intent = case.intents[0]
        if intent.kind is not None:
            default = IntentKind.FAQ if RETRIEVAL_SEPARATOR in intent.name else None
            if intent.kind != default:
                previous = kinds.setdefault(intent.name, intent.kind.value)
                if previous != intent.kind.value:
                    warnings.append(
                        f"case {case.id}: intent '{intent.name}' is kind {intent.kind.value} "
                        f"here but {previous} elsewhere; kept {previous}"
                    )
        path = case.parent_intents
        set_parent(intent.name, path[-1] if path else None, case.id)
        for depth in range(len(path) - 1, -1, -1):
            set_parent(path[depth], path[depth - 1] if depth > 0 else None, case.id)
    for name, kind in kinds.items():
        metadata.setdefault(name, {})["kind"] = kind
    for name, parent in parents.items():
        if parent:
            metadata.setdefault(name, {})["parent"] = parent
    return metadata, warnings


def _find(text: str, needle: str, occurrence: int) -> tuple[int, int] | None:
    """The ``occurrence``-th place of ``needle`` in ``text``: exact first, then ignoring case."""
    for haystack, target in ((text, needle), (text.casefold(), needle.casefold())):
        if len(haystack) != len(text):  # casefold changed lengths: offsets would be wrong
            continue
        pos = -1
        for _ in range(occurrence + 1):
            pos = haystack.find(target, pos + 1)
            if pos < 0:
                break
        if pos >= 0:
            return pos, pos + len(target)
    return None


def _locate(
    case: TestCase, entity: ExpectedEntity, synonyms: dict[str, list[str]]
) -> tuple[int, int, bool] | None:
    """Where an expected entity sits in the utterance, and whether it was found by a regex.

    Tried in turn: its span; its text; its value and alternatives; the synonyms of its value
    (from the suite's training data); its value as a regular expression.
    """
    text = case.utterance
    start, end = entity.start, entity.end
    if (
        start is not None
        and end is not None
        and 0 <= start < end <= len(text)
        and (entity.text is None or text[start:end] == entity.text)
    ):
        return start, end, False
    occurrence = entity.match_index or 0
    needles = [entity.text] if entity.text else []
    if entity.kind is not ValueKind.REGEX:
        needles += [entity.value, *entity.alternatives, *synonyms.get(entity.value, [])]
    for needle in needles:
        if needle and (span := _find(text, needle, occurrence)):
            return span[0], span[1], False
    for pattern in [entity.value, *entity.alternatives]:
        try:
            found = [m for m in re.finditer(pattern, text, re.IGNORECASE) if m.end() > m.start()]
        except re.error:
            continue
        if len(found) > occurrence:
            return found[occurrence].start(), found[occurrence].end(), True
    return None


def locate_entity(
    case: TestCase, entity: ExpectedEntity, synonyms: dict[str, list[str]] | None = None
) -> tuple[int, int] | None:
    """The span an export to Rasa YAML gives an expected entity (``None``: it has none)."""
    found = _locate(case, entity, synonyms or {})
    return None if found is None else (found[0], found[1])


_YAML_UNSAFE = re.compile("[^\x09\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_YAML_BREAKS = re.compile("[\r\n\x85\u2028\u2029]")


def _line_ok(markup: str) -> bool:
    """Whether ``- markup`` survives a YAML literal block and Rasa's strip unchanged."""
    return (
        markup == markup.strip()
        and not _YAML_UNSAFE.search(markup)
        and not _YAML_BREAKS.search(markup)
        and "\ufeff" not in markup
    )


def _unwritable_shape(entity: ExpectedEntity) -> str | None:
    """Multi-item and composite values have no Rasa equivalent."""
    if entity.kind is ValueKind.MULTI or (entity.kind is ValueKind.AUTO and "||" in entity.value):
        return "multi-item"
    if entity.kind is ValueKind.COMPOSITE or (
        entity.kind is ValueKind.AUTO and "|" in entity.value and ":" in entity.value
    ):
        return "composite"
    return None


def _case_markup(case: TestCase, warnings: list[str], synonyms: dict[str, list[str]]) -> str | None:
    spans: list[tuple[int, int, ExpectedEntity]] = []
    for entity in case.entities:
        shape = _unwritable_shape(entity)
        if shape:
            warnings.append(
                f"case {case.id}: entity '{entity.name}' has a {shape} value "
                f"{entity.value!r} that Rasa cannot express; dropped"
            )
            continue
        if entity.alternatives:
            warnings.append(f"case {case.id}: entity '{entity.name}': alternative values dropped")
        where = _locate(case, entity, synonyms)
        if where is None:
            warnings.append(
                f"case {case.id}: entity '{entity.name}' ({entity.value!r}) is not found in "
                "the utterance, so it cannot be annotated; dropped"
            )
            continue
        start, end, by_regex = where
        if any(start < e and s < end and (s, e) != (start, end) for s, e, _ in spans):
            warnings.append(
                f"case {case.id}: entity '{entity.name}' overlaps another annotation; dropped"
            )
            continue
        if by_regex:
            surface = case.utterance[start:end]
            warnings.append(
                f"case {case.id}: entity '{entity.name}': the regular expression "
                f"{entity.value!r} is written as the text it matches, {surface!r}"
            )
            entity = ExpectedEntity(entity.name, surface, role=entity.role, group=entity.group)
        spans.append((start, end, entity))
    utterance = case.utterance
    lead = len(utterance) - len(utterance.lstrip())
    stripped = utterance.strip()
    if not stripped:
        warnings.append(f"case {case.id}: empty utterance; skipped")
        return None
    shifted = []
    for s, e, ent in spans:
        if s >= lead and e <= lead + len(stripped):
            shifted.append((s - lead, e - lead, ent))
        else:
            warnings.append(
                f"case {case.id}: entity '{ent.name}' lies in leading or trailing spaces, "
                "which Rasa strips; dropped"
            )
    markup = format_example(stripped, shifted)
    if markup is None or not _line_ok(markup):
        warnings.append(
            f"case {case.id}: utterance {stripped[:40]!r} cannot be written as a Rasa example "
            "(brackets that read as annotations, line breaks or control characters); skipped"
        )
        return None
    return markup


def _yaml_scalar(value: str) -> str:
    """A plain YAML scalar when it reads back as the same string, else a JSON-quoted one."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_/.\-]*( [A-Za-z0-9_/.\-]+)*", value):
        try:
            if yaml.safe_load(value) == value:
                return value
        except yaml.YAMLError:  # pragma: no cover - the pattern above excludes syntax
            pass
    return _json_for_yaml(value)


_PAIR_ESCAPE = re.compile(r"\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})")


def _json_for_yaml(value: Any) -> str:
    """JSON (ASCII) that YAML reads back as ``value``: YAML's double quotes take JSON's escapes
    except surrogate pairs (libyaml refuses ``\\ud83d\\ude00``), so astral characters are
    written as ``\\U0001f600`` instead."""

    def astral(match: re.Match[str]) -> str:
        high, low = int(match.group(1), 16), int(match.group(2), 16)
        return f"\\U{0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00):08x}"

    return _PAIR_ESCAPE.sub(astral, json.dumps(value, ensure_ascii=True))


def _examples_block(lines: list[str]) -> list[str]:
    out = ["  examples: |"]
    out.extend(f"    - {line}" for line in lines)
    return out


def _flow_mapping(meta: dict[str, Any]) -> str:
    return _json_for_yaml(meta)


def training_yaml(data: TrainingData) -> str:
    """Rasa 3 NLU YAML for ``data`` (examples by intent, synonyms, regexes, lookups): the
    training file the Rasa engine posts and the parts ``data split`` writes."""
    text, _warnings = dump_training_yaml(suite_from_training_data(data))
    return text


def dump_training_yaml(suite: Suite) -> tuple[str, list[str]]:
    """Rasa 3 YAML text for ``suite`` and warnings about everything it had to leave out."""
    warnings: list[str] = []
    by_intent: dict[str, list[str]] = {}
    dropped = {"traits": 0, "tags": 0, "entity_order": 0, "bots": 0, "raw_checks": 0}
    synonyms = {
        str(k): [str(v) for v in vs] for k, vs in dict(suite.training.get("synonyms") or {}).items()
    }
    for case in suite.cases:
        if not case.intents and case.traits:
            warnings.append(
                f"case {case.id}: expects traits only ({', '.join(case.traits)}); "
                "Rasa has no traits, skipped"
            )
            continue
        if not case.intents:
            warnings.append(f"case {case.id}: no intent expected; Rasa examples need one, skipped")
            continue
        if len(case.intents) > 1:
            warnings.append(
                f"case {case.id}: {len(case.intents)} acceptable intents; written under "
                f"'{case.intents[0].name}' only"
            )
        dropped["traits"] += bool(case.traits)
        dropped["tags"] += bool(case.tags)
        dropped["bots"] += any(i.bot for i in case.intents)
        dropped["entity_order"] += bool(case.entity_order)
        dropped["raw_checks"] += bool(case.raw_checks)
        markup = _case_markup(case, warnings, synonyms)
        if markup is not None:
            by_intent.setdefault(case.intents[0].name, []).append(markup)
    for what, count in dropped.items():
        if count:
            label = what.replace("_", " ")
            warnings.append(f"{count} case(s) have {label}, which Rasa cannot express; dropped")
    metadata, meta_warnings = _intent_metadata(suite)
    warnings.extend(meta_warnings)

    out = [f'version: "{RASA_VERSION}"', "", "nlu:"]
    for intent, lines in by_intent.items():
        out.append(f"- intent: {_yaml_scalar(intent)}")
        meta = metadata.get(intent)
        if meta:
            out.append(f"  metadata: {_flow_mapping(meta)}")
        out.extend(_examples_block(lines))
    for intent, meta in metadata.items():
        if intent not in by_intent and meta:
            # A parent with no examples of its own still carries the chain above its children.
            out.append(f"- intent: {_yaml_scalar(intent)}")
            out.append(f"  metadata: {_flow_mapping(meta)}")
    for key, section in (("synonyms", "synonym"), ("regexes", "regex"), ("lookups", "lookup")):
        for name, items in dict(suite.training.get(key) or {}).items():
            good = [str(i) for i in items if _line_ok(str(i)) and str(i)]
            if len(good) != len(items):
                warnings.append(f"{section} '{name}': items with line breaks dropped")
            if not good:
                continue
            out.append(f"- {section}: {_yaml_scalar(str(name))}")
            out.extend(_examples_block(good))
    if out[-1] == "nlu:":
        out[-1] = "nlu: []"
    return "\n".join(out) + "\n", warnings


# --- format module interface ----------------------------------------------------------------


def sniff(path: Path, head: str) -> bool:
    """Rasa training data has a top-level ``nlu:`` key; native suites are never claimed."""
    name = path.name.lower()
    if name.endswith((".suite.yaml", ".suite.yml")) or not name.endswith(EXTENSIONS):
        return False
    return bool(_TOP_LEVEL_NLU.search(head))


def read(path: Path) -> Any:
    from nlu_tui.formats.registry import ImportResult

    data = load_training_data(path)
    suite = suite_from_training_data(data)
    return ImportResult(suite, list(data.warnings))


def write(suite: Suite, path: Path) -> list[str]:
    text, warnings = dump_training_yaml(suite)
    atomic_write_text(Path(path), text)
    return warnings
