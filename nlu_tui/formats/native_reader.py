"""Reading the native suite file: its schema, the YAML node tree (with line numbers) and the
turning of that tree into the model, refusing unknown keys by name.

Shared by the loader (:mod:`nlu_tui.formats.native`) and the splicing saver
(:mod:`nlu_tui.formats.native_splice`), which reads the file it edits back.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.errors import InputError
from nlu_tui.formats import yaml_loader
from nlu_tui.formats.yaml_loader import SafeLoader as _Loader
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    Suite,
    TestCase,
    ValueKind,
)
from nlu_tui.raw_checks import RawCheckError, compiled_check

EXTENSIONS = (".suite.yaml", ".suite.yml")
FORMAT_VERSION = 1

SUITE_KEYS = ("nlu_tui_suite", "name", "description", "cases", "training", "extra")
CASE_KEYS = (
    "id",
    "utterance",
    "intents",
    "parent_intents",
    "traits",
    "entities",
    "entity_order",
    "tags",
    "raw",
    "origin",
    "extra",
)
INTENT_KEYS = ("name", "kind", "bot")
ENTITY_KEYS = (
    "name",
    "value",
    "kind",
    "alternatives",
    "text",
    "start",
    "end",
    "match_index",
    "role",
    "group",
    "json_value",
)

_STR_TAG = "tag:yaml.org,2002:str"


class SuiteLoader(_Loader):  # type: ignore[valid-type,misc]
    """The safe loader with a cheaper resolver: same tags, fewer regex scans.

    PyYAML resolves every plain scalar in Python by trying the YAML 1.1 regexes filed under its
    first character. A scalar whose first character has no regex (most utterances) is a string
    outright, and the few distinct others (keys, intent names, tags) are resolved once per file.
    Other scalars and collections are resolved by PyYAML, so typing is exactly YAML 1.1.
    """

    def __init__(self, stream: str | bytes) -> None:
        super().__init__(stream)
        self._tag_memo: dict[tuple[Any, Any, Any], str] = {}
        resolvers: dict[Any, Any] = self.yaml_implicit_resolvers
        self._plain_first = None if None in resolvers else frozenset(k for k in resolvers if k)
        self._no_paths = not self.yaml_path_resolvers
        if self._no_paths:
            # Without path resolvers these two hooks do nothing, yet libyaml's composer calls
            # them for every node; C built-ins taking the same arguments are cheaper no-ops.
            self.__dict__["descend_resolver"] = slice
            self.__dict__["ascend_resolver"] = tuple

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if not self._no_paths:
            return super().resolve(kind, value, implicit)
        first = self._plain_first
        if (
            kind is yaml.ScalarNode
            and implicit[0]
            and value
            and first is not None
            and value[0] not in first
        ):
            return _STR_TAG
        key = (kind, value, implicit)  # without path resolvers, the tag depends on these only
        tag = self._tag_memo.get(key)
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if len(self._tag_memo) < 50_000:
                self._tag_memo[key] = tag
        return tag


def compose(text: str, path: Path | str | None) -> yaml.Node:
    """The single document's node tree; syntax errors name the file and line. Nesting and
    alias expansion are bounded (see :mod:`nlu_tui.formats.yaml_loader`)."""
    try:
        node = yaml_loader.compose(text, path, SuiteLoader)
    except InputError as exc:
        if (
            exc.message.startswith("YAML syntax error")
            and "\t" in text
            and "tab" not in exc.message
            and _tab_near(text, exc.line)
        ):
            raise InputError(
                exc.message + " (tabs cannot indent YAML; use spaces)", path=path, line=exc.line
            ) from None
        raise
    if node is None:
        raise InputError("empty file: expected a suite with 'cases:'", path=path, line=1)
    return node


def _tab_near(text: str, line: int | None) -> bool:
    if line is None:
        return False
    lines = text.splitlines()
    return any("\t" in lines[i] for i in range(max(0, line - 2), min(len(lines), line + 1)))


def case_id_for(utterance: str, occurrence: int) -> str:
    """A stable id for a case written without one: same file, same ids, until it is saved."""
    digest = hashlib.sha1(f"{utterance}\0{occurrence}".encode()).hexdigest()
    return digest[:12]


class SuiteReader:
    """Turns composed YAML nodes into the model, checking keys and types with line numbers."""

    def __init__(self, path: Path | str | None) -> None:
        self.path = path
        self.line_offset = 0  # where the text being read starts in the file (chunked reads)
        self.name_from_path = False
        self.constructor = yaml.constructor.SafeConstructor()

    def error(self, message: str, node: yaml.Node, field: str | None = None) -> InputError:
        line = node.start_mark.line + 1 + self.line_offset
        return InputError(message, path=self.path, line=line, field=field)

    # generic helpers

    def mapping(
        self, node: yaml.Node, allowed: tuple[str, ...], what: str
    ) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        if not isinstance(node, yaml.MappingNode):
            raise self.error(f"{what} must be a mapping of keys to values", node)
        result: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise self.error(f"{what} has a key that is not a plain word", key_node)
            key = str(key_node.value)
            if key == "<<":
                raise self.error(f"{what}: YAML merge keys ('<<') are not supported", key_node)
            if key not in allowed:
                raise self.error(
                    f"unknown key '{key}' in {what}; expected one of: {', '.join(allowed)}",
                    key_node,
                    field=key,
                )
            if key in result:
                raise self.error(f"key '{key}' appears twice in {what}", key_node, field=key)
            result[key] = (key_node, value_node)
        return result

    def text(self, node: yaml.Node, field: str, what: str) -> str:
        """A scalar as written (``200`` stays "200", ``yes`` stays "yes")."""
        if not isinstance(node, yaml.ScalarNode):
            raise self.error(f"'{field}' in {what} must be text", node, field=field)
        if node.tag == "tag:yaml.org,2002:null" and node.style is None and node.value in ("", "~"):
            return ""
        return str(node.value)

    def opt_text(self, node: yaml.Node, field: str, what: str) -> str | None:
        if (
            isinstance(node, yaml.ScalarNode)
            and node.tag == "tag:yaml.org,2002:null"
            and node.style is None
            and node.value in ("", "~", "null", "Null", "NULL")
        ):
            return None
        return self.text(node, field, what)

    def text_list(self, node: yaml.Node, field: str, what: str) -> list[str]:
        """A list of texts; a single text is taken as a one-item list (friendlier by hand)."""
        if isinstance(node, yaml.ScalarNode):
            value = self.opt_text(node, field, what)
            return [] if value is None else [value]
        if not isinstance(node, yaml.SequenceNode):
            raise self.error(f"'{field}' in {what} must be a list", node, field=field)
        return [self.text(item, field, what) for item in node.value]

    def integer(self, node: yaml.Node, field: str, what: str) -> int | None:
        value = self.opt_text(node, field, what)
        if value is None:
            return None
        try:
            number = int(value)
        except ValueError:
            raise self.error(
                f"'{field}' in {what} must be a whole number, not {value!r}", node, field=field
            ) from None
        if number < 0:
            raise self.error(f"'{field}' in {what} must not be negative", node, field=field)
        return number

    def plain(self, node: yaml.Node, level: int) -> Any:
        """Construct free-form data (``extra``, ``training``, ``json_value``) the YAML way.

        ``level`` is the node's depth in the document (the suite's mapping is 1), so that the
        nesting limit counts from the top of the file, however the file is read."""
        yaml_loader.check_tree(node, self.path, line_offset=self.line_offset, depth=level)
        try:
            value = self.constructor.construct_document(node)
        except yaml.MarkedYAMLError as exc:
            self.constructor = yaml.constructor.SafeConstructor()  # drop half-built state
            raise self.error(f"cannot read value: {exc.problem}", node) from None
        except ValueError as exc:  # an integer of over 4,300 digits, a date out of range
            self.constructor = yaml.constructor.SafeConstructor()
            raise self.error(f"cannot read value: {exc}".split(";")[0], node) from None
        if isinstance(node, yaml.MappingNode | yaml.SequenceNode):  # keys: see long_key_error
            line = node.start_mark.line + 1 + self.line_offset
            error = yaml_loader.long_key_error(value, self.path, line, None)
            if error is not None:
                raise error
        return value

    def free_mapping(self, node: yaml.Node, field: str, what: str, level: int) -> dict[str, Any]:
        if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null":
            return {}
        value = self.plain(node, level)
        if not isinstance(value, dict):
            raise self.error(f"'{field}' in {what} must be a mapping", node, field=field)
        return {str(k): v for k, v in value.items()}

    def kind(self, enum: Any, raw: str, node: yaml.Node) -> Any:
        """An intent or value kind, forgiving case, spaces and dashes ("Small Talk")."""
        member = kind_value(enum, raw)
        if member is None:
            choices = ", ".join(m.value for m in enum)
            raise self.error(f"unknown kind {raw!r}; expected one of: {choices}", node, "kind")
        return member

    # the schema

    def suite(self, node: yaml.Node) -> Suite:
        keys = self.mapping(node, SUITE_KEYS, "the suite")
        if "nlu_tui_suite" in keys:
            version = self.text(keys["nlu_tui_suite"][1], "nlu_tui_suite", "the suite")
            if version != str(FORMAT_VERSION):
                raise self.error(
                    f"suite format version {version} is not supported (this nlu-tui reads "
                    f"version {FORMAT_VERSION})",
                    keys["nlu_tui_suite"][1],
                    field="nlu_tui_suite",
                )
        name = self.text(keys["name"][1], "name", "the suite") if "name" in keys else ""
        if not name and self.path is not None:
            name = suite_stem(Path(self.path))
            self.name_from_path = True
        description = (
            self.opt_text(keys["description"][1], "description", "the suite") or ""
            if "description" in keys
            else ""
        )
        cases: list[TestCase] = []
        if "cases" in keys:
            cases_node = keys["cases"][1]
            if isinstance(cases_node, yaml.ScalarNode) and cases_node.tag.endswith(":null"):
                pass
            elif not isinstance(cases_node, yaml.SequenceNode):
                raise self.error("'cases' must be a list of cases", cases_node, field="cases")
            else:
                seen: dict[str, int] = {}
                for case_node in cases_node.value:
                    cases.append(self.case(case_node, seen))
        training = (
            self.free_mapping(keys["training"][1], "training", "the suite", 2)
            if "training" in keys
            else {}
        )
        extra = (
            self.free_mapping(keys["extra"][1], "extra", "the suite", 2) if "extra" in keys else {}
        )
        return Suite(
            name=name, description=description, cases=cases, training=training, extra=extra
        )

    def case(self, node: yaml.Node, seen: dict[str, int]) -> TestCase:
        line = node.start_mark.line + 1 + self.line_offset
        what = f"case at line {line}"
        keys = self.mapping(node, CASE_KEYS, what)
        if "utterance" not in keys:
            raise self.error(f"{what} has no 'utterance'", node, field="utterance")
        utterance = self.text(keys["utterance"][1], "utterance", what)
        occurrence = seen.get(utterance, 0)
        seen[utterance] = occurrence + 1
        case_id = ""
        if "id" in keys:
            case_id = self.opt_text(keys["id"][1], "id", what) or ""
        if not case_id:
            case_id = case_id_for(utterance, occurrence)
        intents: list[ExpectedIntent] = []
        if "intents" in keys:
            intents = self.intents(keys["intents"][1], what)
        entities: list[ExpectedEntity] = []
        if "entities" in keys:
            ent_node = keys["entities"][1]
            if isinstance(ent_node, yaml.ScalarNode) and ent_node.tag.endswith(":null"):
                pass
            elif not isinstance(ent_node, yaml.SequenceNode):
                raise self.error(f"'entities' in {what} must be a list", ent_node, "entities")
            else:
                entities = [self.entity(item, what) for item in ent_node.value]

        def texts(key: str) -> list[str]:
            return self.text_list(keys[key][1], key, what) if key in keys else []

        return TestCase(
            utterance=utterance,
            intents=intents,
            traits=texts("traits"),
            parent_intents=texts("parent_intents"),
            entities=entities,
            entity_order=texts("entity_order"),
            tags=texts("tags"),
            id=case_id,
            extra=self.free_mapping(keys["extra"][1], "extra", what, 4) if "extra" in keys else {},
            line=line,
            raw_checks=self.raw_checks(keys["raw"][1], what) if "raw" in keys else [],
            origin=self.opt_text(keys["origin"][1], "origin", what) if "origin" in keys else None,
        )

    def raw_checks(self, node: yaml.Node, what: str) -> list[str]:
        """``raw:`` checks, each parsed now: one that does not parse is an error at its line."""
        items = (
            [node]
            if isinstance(node, yaml.ScalarNode)
            else node.value
            if isinstance(node, yaml.SequenceNode)
            else None
        )
        if items is None:
            raise self.error(f"'raw' in {what} must be a list of checks", node, field="raw")
        checks = []
        for item in items:
            text = self.opt_text(item, "raw", what)
            if text is None:
                continue
            try:
                compiled_check(text)
            except RawCheckError as exc:
                raise self.error(str(exc), item, field="raw") from None
            checks.append(text)
        return checks

    def intents(self, node: yaml.Node, what: str) -> list[ExpectedIntent]:
        if isinstance(node, yaml.ScalarNode):
            value = self.opt_text(node, "intents", what)
            return [] if value is None else [ExpectedIntent(value)]
        if not isinstance(node, yaml.SequenceNode):
            raise self.error(f"'intents' in {what} must be a list", node, field="intents")
        result: list[ExpectedIntent] = []
        for item in node.value:
            if isinstance(item, yaml.ScalarNode):
                result.append(ExpectedIntent(self.text(item, "intents", what)))
                continue
            keys = self.mapping(item, INTENT_KEYS, f"an intent of {what}")
            if "name" not in keys:
                raise self.error(f"an intent of {what} has no 'name'", item, field="name")
            kind: IntentKind | None = None
            if "kind" in keys:
                raw = self.opt_text(keys["kind"][1], "kind", what)
                if raw:
                    kind = self.kind(IntentKind, raw, keys["kind"][1])
            bot = self.opt_text(keys["bot"][1], "bot", what) if "bot" in keys else None
            result.append(ExpectedIntent(self.text(keys["name"][1], "name", what), kind, bot))
        return result

    def entity(self, node: yaml.Node, what: str) -> ExpectedEntity:
        keys = self.mapping(node, ENTITY_KEYS, f"an entity of {what}")
        if "name" not in keys:
            raise self.error(f"an entity of {what} has no 'name'", node, field="name")
        entity = ExpectedEntity(name=self.text(keys["name"][1], "name", what))
        if "value" in keys:
            entity.value = self.opt_text(keys["value"][1], "value", what) or ""
        if "kind" in keys:
            raw = self.opt_text(keys["kind"][1], "kind", what)
            if raw:
                entity.kind = self.kind(ValueKind, raw, keys["kind"][1])
        if "alternatives" in keys:
            entity.alternatives = self.text_list(keys["alternatives"][1], "alternatives", what)
        for key in ("text", "role", "group"):
            if key in keys:
                setattr(entity, key, self.opt_text(keys[key][1], key, what))
        for key in ("start", "end", "match_index"):
            if key in keys:
                setattr(entity, key, self.integer(keys[key][1], key, what))
        if "json_value" in keys:
            entity.json_value = self.plain(keys["json_value"][1], 6)
        return entity


def kind_value(enum: Any, raw: str) -> Any:
    """The member of ``enum`` (IntentKind, ValueKind) that ``raw`` names, forgiving case,
    spaces and dashes ("Small Talk"); None when it names none."""
    norm = raw.strip().lower().replace("-", "_").replace(" ", "_")
    if norm == "smalltalk":
        norm = "small_talk"
    try:
        return enum(norm)
    except ValueError:
        return None


def suite_stem(path: Path) -> str:
    name = path.name
    for ext in (*EXTENSIONS, ".yaml", ".yml"):
        if name.lower().endswith(ext):
            return name[: -len(ext)]
    return path.stem
