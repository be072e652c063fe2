"""The native suite file (``*.suite.yaml``): what testers write by hand and what every face saves.

Reading keeps the line of every case (so validation and errors can say "case at line N") and
refuses unknown keys by name: a typo such as ``entites:`` must not silently drop expectations.
Writing is deterministic (same suite, same bytes) so suites diff well under version control.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.errors import ConflictError, InputError
from nlu_tui.fileio import atomic_write_text
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    Suite,
    TestCase,
    ValueKind,
    digest_bytes,
)

NAME = "native"
EXTENSIONS = (".suite.yaml", ".suite.yml")
DESCRIPTION = "nlu-tui suite (YAML, one file per suite)"
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

try:  # the C loader is ~10x faster on large suites; fall back when libyaml is absent
    _Loader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Loader = yaml.SafeLoader


# --- format module interface ----------------------------------------------------------------


def sniff(path: Path, head: str) -> bool:
    """A native suite by name, or by its version key near the top."""
    name = path.name.lower()
    if name.endswith(EXTENSIONS):
        return True
    return any(line.startswith("nlu_tui_suite:") for line in head.splitlines()[:50])


def read(path: Path) -> Any:
    from nlu_tui.formats.registry import ImportResult

    return ImportResult(load_suite(path))


def write(suite: Suite, path: Path) -> list[str]:
    """Export as native: nothing is lost, so no warnings. Existence checks are the caller's."""
    atomic_write_text(Path(path), dump_suite(suite))
    return []


# --- loading ----------------------------------------------------------------------------------


def load_suite(path: Path | str) -> Suite:
    """Read a suite file; sets ``path`` and ``loaded_digest`` so a later save can detect edits."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read suite: {exc.strerror or exc}", path=path) from None
    suite = parse_suite(data, path)
    suite.path = path
    suite.loaded_digest = digest_bytes(data)
    return suite


def parse_suite(data: bytes | str, path: Path | str | None = None) -> Suite:
    """Parse suite text (bytes or str); errors name ``path`` and the line."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise InputError("not valid UTF-8 text", path=path, line=line) from None
    else:
        text = data
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = mark.line + 1 if mark is not None else None
        problem = exc.problem or "invalid YAML"
        if "\t" in text and "tab" not in problem and _tab_near(text, where):
            problem += " (tabs cannot indent YAML; use spaces)"
        raise InputError(f"YAML syntax error: {problem}", path=path, line=where) from None
    finally:
        loader.dispose()
    if node is None:
        raise InputError("empty file: expected a suite with 'cases:'", path=path, line=1)
    return _Reader(path).suite(node)


def _tab_near(text: str, line: int | None) -> bool:
    if line is None:
        return False
    lines = text.splitlines()
    return any("\t" in lines[i] for i in range(max(0, line - 2), min(len(lines), line + 1)))


def case_id_for(utterance: str, occurrence: int) -> str:
    """A stable id for a case written without one: same file, same ids, until it is saved."""
    digest = hashlib.sha1(f"{utterance}\0{occurrence}".encode()).hexdigest()
    return digest[:12]


class _Reader:
    """Turns composed YAML nodes into the model, checking keys and types with line numbers."""

    def __init__(self, path: Path | str | None) -> None:
        self.path = path

    def error(self, message: str, node: yaml.Node, field: str | None = None) -> InputError:
        return InputError(message, path=self.path, line=node.start_mark.line + 1, field=field)

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

    def plain(self, node: yaml.Node) -> Any:
        """Construct free-form data (``extra``, ``training``, ``json_value``) the YAML way."""
        loader = _Loader("")
        try:
            return loader.construct_document(node)
        except yaml.MarkedYAMLError as exc:
            raise self.error(f"cannot read value: {exc.problem}", node) from None
        finally:
            loader.dispose()

    def free_mapping(self, node: yaml.Node, field: str, what: str) -> dict[str, Any]:
        if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null":
            return {}
        value = self.plain(node)
        if not isinstance(value, dict):
            raise self.error(f"'{field}' in {what} must be a mapping", node, field=field)
        return {str(k): v for k, v in value.items()}

    def kind(self, enum: Any, raw: str, node: yaml.Node) -> Any:
        """An intent or value kind, forgiving case, spaces and dashes ("Small Talk")."""
        norm = raw.strip().lower().replace("-", "_").replace(" ", "_")
        if norm == "smalltalk":
            norm = "small_talk"
        try:
            return enum(norm)
        except ValueError:
            choices = ", ".join(m.value for m in enum)
            raise self.error(
                f"unknown kind {raw!r}; expected one of: {choices}", node, "kind"
            ) from None

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
            name = _stem(Path(self.path))
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
            self.free_mapping(keys["training"][1], "training", "the suite")
            if "training" in keys
            else {}
        )
        extra = self.free_mapping(keys["extra"][1], "extra", "the suite") if "extra" in keys else {}
        return Suite(
            name=name, description=description, cases=cases, training=training, extra=extra
        )

    def case(self, node: yaml.Node, seen: dict[str, int]) -> TestCase:
        line = node.start_mark.line + 1
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
            extra=self.free_mapping(keys["extra"][1], "extra", what) if "extra" in keys else {},
            line=line,
        )

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
            entity.json_value = self.plain(keys["json_value"][1])
        return entity


def _stem(path: Path) -> str:
    name = path.name
    for ext in (*EXTENSIONS, ".yaml", ".yml"):
        if name.lower().endswith(ext):
            return name[: -len(ext)]
    return path.stem


# --- dumping ----------------------------------------------------------------------------------
#
# The case part of the file is written by hand rather than by ``yaml.dump``: the layout stays
# fixed (short lists on one line, list items indented under their key) and a 10,000-case suite
# saves several times faster. Free-form data (``extra``, ``json_value``, ``training``) goes
# through PyYAML. Every scalar is either a plain word that YAML reads back as the same string, or
# a double-quoted JSON string (valid YAML) with YAML's non-printable characters escaped.

_FLOW_LIMIT = 90
"""Lists and entity mappings shorter than this (in characters) go on one line."""

_PLAIN = re.compile(
    "[A-Za-z0-9\u00c0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
    "[^\\x00-\\x1f\\x7f-\\x9f:#\\[\\]{},\\ud800-\\udfff\\ufffe\\uffff]*"
)
_RESOLVER = yaml.resolver.Resolver()


def _reads_as_text(text: str) -> bool:
    """Whether YAML reads the plain scalar as a string (not a number, date, bool or null)."""
    tag: str = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return tag == "tag:yaml.org,2002:str"


_NOT_PRINTABLE = re.compile("[\\x7f-\\x9f\\u2028\\u2029\\ud800-\\udfff\\ufffe\\uffff]")


def _scalar(text: str) -> str:
    """``text`` as a YAML scalar that reads back as exactly ``text`` (a string)."""
    if (
        _PLAIN.fullmatch(text)
        and text[-1] != " "
        and not _NOT_PRINTABLE.search(text)
        and _reads_as_text(text)
    ):
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    return _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def _flow_list(items: list[str]) -> str:
    return "[" + ", ".join(_scalar(i) for i in items) + "]"


def _inline(value: Any) -> str:
    """A scalar or an empty container on one line."""
    if isinstance(value, str):
        return _scalar(value)
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    text: str = yaml.safe_dump(value, default_flow_style=True, width=4096)
    return text.splitlines()[0]


def _is_block(value: Any) -> bool:
    return isinstance(value, dict | list | tuple) and len(value) > 0


def _block(value: Any, indent: int) -> list[str]:
    """A non-empty mapping or list of free-form data, as block lines at ``indent``."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if _is_block(item):
                lines.append(f"{pad}{_inline(key)}:")
                lines.extend(_block(item, indent + 2))
            else:
                lines.append(f"{pad}{_inline(key)}: {_inline(item)}")
        return lines
    for item in value:
        if _is_block(item):
            sub = _block(item, indent + 2)
            lines.append(f"{pad}- {sub[0][indent + 2 :]}")
            lines.extend(sub[1:])
        else:
            lines.append(f"{pad}- {_inline(item)}")
    return lines


def _free(value: Any, indent: int) -> list[str]:
    """Free-form data after ``key:`` — inline when scalar or empty, else a block below."""
    if _is_block(value):
        return ["", *_block(value, indent)]
    return [" " + _inline(value)]


def _key(out: list[str], pad: str, key: str, value: Any) -> None:
    lines = _free(value, len(pad) + 2)
    out.append(f"{pad}{key}:{lines[0]}")
    out.extend(lines[1:])


def _texts(out: list[str], pad: str, key: str, items: list[str]) -> None:
    line = _flow_list(items)
    if len(line) <= _FLOW_LIMIT:
        out.append(f"{pad}{key}: {line}")
    else:
        out.append(f"{pad}{key}:")
        out.extend(f"{pad}  - {_scalar(i)}" for i in items)


def _intent_flow(intent: ExpectedIntent) -> str:
    if intent.kind is None and intent.bot is None:
        return _scalar(intent.name)
    parts = [f"name: {_scalar(intent.name)}"]
    if intent.kind is not None:
        parts.append(f"kind: {intent.kind.value}")
    if intent.bot is not None:
        parts.append(f"bot: {_scalar(intent.bot)}")
    return "{" + ", ".join(parts) + "}"


def _entity_lines(entity: ExpectedEntity, pad: str) -> list[str]:
    """One ``- {...}`` line when short and simple, else a block mapping."""
    parts: list[tuple[str, str]] = [("name", _scalar(entity.name))]
    if entity.value != "":
        parts.append(("value", _scalar(entity.value)))
    if entity.kind is not ValueKind.AUTO:
        parts.append(("kind", entity.kind.value))
    if entity.alternatives:
        parts.append(("alternatives", _flow_list(entity.alternatives)))
    for key in ("text", "start", "end", "match_index", "role", "group"):
        value = getattr(entity, key)
        if value is not None:
            parts.append((key, _scalar(value) if isinstance(value, str) else str(value)))
    flow = "{" + ", ".join(f"{k}: {v}" for k, v in parts) + "}"
    if entity.json_value is None and len(flow) <= _FLOW_LIMIT:
        return [f"{pad}- {flow}"]
    lines = [f"{pad}{'- ' if i == 0 else '  '}{k}: {v}" for i, (k, v) in enumerate(parts)]
    if entity.json_value is not None:
        _key(lines, pad + "  ", "json_value", entity.json_value)
    return lines


def _case_lines(case: TestCase) -> list[str]:
    out = [f"  - id: {_scalar(case.id)}", f"    utterance: {_scalar(case.utterance)}"]
    pad = "    "
    if case.intents:
        items = [_intent_flow(i) for i in case.intents]
        line = "[" + ", ".join(items) + "]"
        if all(i.kind is None and i.bot is None for i in case.intents) and len(line) <= _FLOW_LIMIT:
            out.append(f"{pad}intents: {line}")
        else:
            out.append(f"{pad}intents:")
            out.extend(f"{pad}  - {item}" for item in items)
    if case.parent_intents:
        _texts(out, pad, "parent_intents", case.parent_intents)
    if case.traits:
        _texts(out, pad, "traits", case.traits)
    if case.entities:
        out.append(f"{pad}entities:")
        for entity in case.entities:
            out.extend(_entity_lines(entity, pad + "  "))
    if case.entity_order:
        _texts(out, pad, "entity_order", case.entity_order)
    if case.tags:
        _texts(out, pad, "tags", case.tags)
    if case.extra:
        _key(out, pad, "extra", dict(case.extra))
    return out


def dump_suite(suite: Suite) -> str:
    """The suite as native YAML text: deterministic, keys in schema order, Unicode as is."""
    out = [f"nlu_tui_suite: {FORMAT_VERSION}", f"name: {_scalar(suite.name)}"]
    if suite.description:
        out.append(f"description: {_scalar(suite.description)}")
    if suite.cases:
        out.append("cases:")
        for case in suite.cases:
            out.extend(_case_lines(case))
    else:
        out.append("cases: []")
    if suite.training:
        _key(out, "", "training", suite.training)
    if suite.extra:
        _key(out, "", "extra", suite.extra)
    return "\n".join(out) + "\n"


# --- saving -----------------------------------------------------------------------------------


def save_suite(suite: Suite, path: Path | str | None = None, *, force: bool = False) -> Path:
    """Write the suite atomically, keeping ``<file>.bak``; never clobber someone else's edit.

    Raises :class:`ConflictError` when the file changed on disk since ``suite`` was loaded, or
    when a new suite would overwrite an existing file, unless ``force``.
    """
    target = Path(path) if path is not None else suite.path
    if target is None:
        raise InputError("the suite has no file yet; give a path to save it to")
    if not force and target.exists():
        try:
            current = digest_bytes(target.read_bytes())
        except OSError as exc:
            raise InputError(f"cannot read suite: {exc.strerror or exc}", path=target) from None
        same_file = suite.path is not None and _same(suite.path, target)
        if suite.loaded_digest is None or not same_file:
            raise ConflictError(
                f"{target}: a file already exists there; nothing was written "
                "(choose another name, or overwrite it explicitly)"
            )
        if current != suite.loaded_digest:
            raise ConflictError(
                f"{target}: the file changed on disk since it was loaded; nothing was written "
                "(reload it, or save under another name)"
            )
    text = dump_suite(suite)
    atomic_write_text(target, text, backup=True)
    suite.path = target
    suite.loaded_digest = digest_bytes(text.encode("utf-8"))
    return target


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b
