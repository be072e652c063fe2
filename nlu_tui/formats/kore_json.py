"""Kore.ai batch-test suites as JSON: ``{"testCases": [{input, intent, parentIntent, entities,
entityOrder, botName}, ...]}``.

Files are often pasted from Kore.ai's own documentation, whose samples use curly quotes as
string delimiters, trailing commas and, once, a missing ``]``. A small tolerant parser reads
them, records the line of every test case, and reports each repair as a warning with its line;
anything else that is not JSON is an error naming the line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlu_tui import jsonfile
from nlu_tui.errors import InputError
from nlu_tui.fileio import atomic_write_text
from nlu_tui.formats.kore_common import (
    CaseBuilder,
    Exporter,
    Row,
    check_utterance,
    clean,
    parse_intent_field,
    parse_order_field,
    parse_parent_field,
)
from nlu_tui.formats.native_reader import suite_stem
from nlu_tui.model import ExpectedEntity, Suite

NAME = "kore-json"
EXTENSIONS = (".json",)
DESCRIPTION = "Kore.ai batch test suite (JSON, testCases)"

KNOWN_KEYS = ("input", "intent", "parentIntent", "entities", "entityOrder", "botName")


def sniff(path: Path, head: str) -> bool:
    return re.search(r"[\"“”]testCases[\"“”]\s*:", head) is not None


# --- the tolerant parser ------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\n\ufeff\u00a0\u2028\u2029]+)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<cstr>[“”„][^“”\n]*[”“"])
  | (?P<sstr>‘[^‘’\n]*’)
  | (?P<num>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
  | (?P<lit>true|false|null)
  | (?P<punct>[{}\[\]:,])
    """,
    re.VERBOSE,
)


@dataclass
class _Tok:
    kind: str  # "str", "num", "lit", one of "{}[]:,", or "end"
    value: Any
    line: int


@dataclass
class _Obj:
    """A parsed JSON object with the line it starts on (for "case at line N")."""

    pairs: dict[str, Any]
    line: int


class _Parser:
    def __init__(self, text: str, path: Path) -> None:
        self.path = path
        self.repairs: list[str] = []
        self.curly_line: int | None = None
        self.check_surrogates = jsonfile.has_surrogate_escape(text)
        self.text = text
        self.toks = self._tokenize(text)
        self.i = 0

    def error(self, message: str, line: int) -> InputError:
        return InputError(f"JSON syntax error: {message}", path=self.path, line=line)

    def _tokenize(self, text: str) -> list[_Tok]:
        toks: list[_Tok] = []
        line = 1
        pos = 0
        n = len(text)
        while pos < n:
            m = _TOKEN.match(text, pos)
            if m is None:
                ch = text[pos]
                if ch == '"':
                    raise self.error("a string is not closed on this line", line)
                raise self.error(f"unexpected character {ch!r}", line)
            kind = m.lastgroup or ""
            raw = m.group()
            if kind == "ws":
                line += raw.count("\n") + raw.count("\u2028") + raw.count("\u2029")
            elif kind == "str":
                try:
                    value = json.loads(raw, strict=False)
                except json.JSONDecodeError as exc:
                    raise self.error(f"bad escape in string: {exc.msg}", line) from None
                if self.check_surrogates and jsonfile.has_lone_surrogate(value):
                    raise jsonfile.surrogate_error(raw, self.path).at(line)
                toks.append(_Tok("str", value, line))
            elif kind in ("cstr", "sstr"):
                if self.curly_line is None:
                    self.curly_line = line
                toks.append(_Tok("str", raw[1:-1], line))
            elif kind == "num":
                try:
                    toks.append(_Tok("num", json.loads(raw), line))
                except ValueError as exc:  # over 4,300 digits (int_max_str_digits)
                    raise self.error(str(exc).split(";")[0], line) from None
            elif kind == "lit":
                toks.append(_Tok("lit", {"true": True, "false": False, "null": None}[raw], line))
            else:
                toks.append(_Tok(raw, raw, line))
            pos = m.end()
        toks.append(_Tok("end", None, line))
        return toks

    def peek(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        tok = self.toks[self.i]
        if tok.kind != "end":
            self.i += 1
        return tok

    def document(self) -> Any:
        value = self.value(())
        tok = self.peek()
        if tok.kind != "end":
            raise self.error(f"unexpected {_show(tok)} after the end of the document", tok.line)
        return value

    def value(self, stack: tuple[str, ...]) -> Any:
        tok = self.take()
        if len(stack) >= jsonfile.MAX_DEPTH and tok.kind in ("{", "["):
            raise InputError(
                f"nested more than {jsonfile.MAX_DEPTH} levels deep (the limit)",
                path=self.path,
                line=tok.line,
            )
        if tok.kind == "{":
            return self.obj(tok.line, stack)
        if tok.kind == "[":
            return self.arr(stack)
        if tok.kind in ("str", "num", "lit"):
            return tok.value
        if tok.kind == "end":
            raise self.error("the file ends where a value was expected", tok.line)
        raise self.error(f"expected a value, found {_show(tok)}", tok.line)

    def _closes_outer(self, tok: _Tok, stack: tuple[str, ...], mine: str) -> bool:
        """A closer for an enclosing container where ours was expected: assume ours is missing."""
        want = "}" if tok.kind == "}" else "]"
        outer = "{" if want == "}" else "["
        if tok.kind in ("}", "]") and outer in stack and tok.kind != mine:
            self.repairs.append(f"line {tok.line}: '{mine}' missing before '{tok.kind}' (assumed)")
            return True
        return False

    def obj(self, line: int, stack: tuple[str, ...]) -> _Obj:
        pairs: dict[str, Any] = {}
        inner = (*stack, "{")
        tok = self.peek()
        if tok.kind == "}":
            self.take()
            return _Obj(pairs, line)
        while True:
            key = self.take()
            if key.kind != "str":
                raise self.error(f"expected a quoted key, found {_show(key)}", key.line)
            colon = self.take()
            if colon.kind != ":":
                raise self.error(f"expected ':' after key {key.value!r}", colon.line)
            pairs[str(key.value)] = self.value(inner)
            tok = self.peek()
            if tok.kind == ",":
                self.take()
                if self.peek().kind == "}":
                    self.repairs.append(f"line {self.peek().line}: trailing comma ignored")
                    self.take()
                    return _Obj(pairs, line)
                continue
            if tok.kind == "}":
                self.take()
                return _Obj(pairs, line)
            if self._closes_outer(tok, stack, "}"):
                return _Obj(pairs, line)
            raise self.error(f"expected ',' or '}}' after a value, found {_show(tok)}", tok.line)

    def arr(self, stack: tuple[str, ...]) -> list[Any]:
        items: list[Any] = []
        inner = (*stack, "[")
        if self.peek().kind == "]":
            self.take()
            return items
        while True:
            items.append(self.value(inner))
            tok = self.peek()
            if tok.kind == ",":
                self.take()
                if self.peek().kind == "]":
                    self.repairs.append(f"line {self.peek().line}: trailing comma ignored")
                    self.take()
                    return items
                continue
            if tok.kind == "]":
                self.take()
                return items
            if self._closes_outer(tok, stack, "]"):
                return items
            raise self.error(f"expected ',' or ']' after a value, found {_show(tok)}", tok.line)


def _show(tok: _Tok) -> str:
    if tok.kind == "end":
        return "the end of the file"
    if tok.kind == "str":
        return f"string {str(tok.value)[:30]!r}"
    if tok.kind in ("num", "lit"):
        return f"{json.dumps(tok.value)}"
    return f"'{tok.kind}'"


def _plain(value: Any) -> Any:
    """Parsed values without the line bookkeeping (for ``extra``)."""
    if isinstance(value, _Obj):
        return {k: _plain(v) for k, v in value.pairs.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(_plain(value), ensure_ascii=False)


# --- reading ----------------------------------------------------------------------------------


def read(path: Path) -> Any:
    from nlu_tui.formats.registry import ImportResult

    suite, warnings = load(path)
    return ImportResult(suite, warnings)


def load(path: Path) -> tuple[Suite, list[str]]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=path) from None
    text = jsonfile.decode(data, path)
    parser = _Parser(text, path)
    doc = parser.document()
    warnings: list[str] = []
    if parser.curly_line is not None:
        warnings.append(f"{path}, line {parser.curly_line}: curly quotes read as JSON quotes")
    warnings.extend(f"{path}, {r}" for r in parser.repairs)
    if not isinstance(doc, _Obj) or "testCases" not in doc.pairs:
        raise InputError(
            'expected an object with a "testCases" array (Kore.ai batch test JSON)',
            path=path,
            line=doc.line if isinstance(doc, _Obj) else 1,
        )
    cases = doc.pairs["testCases"]
    if not isinstance(cases, list):
        raise InputError(
            '"testCases" must be an array', path=path, line=doc.line, field="testCases"
        )
    builder = CaseBuilder(str(path), "line")
    for item in cases:
        builder.add(_row(item, path, doc.line))
    suite, more = builder.finish(suite_stem(path))
    for key, value in doc.pairs.items():
        if key != "testCases":
            suite.extra.setdefault("kore", {})[key] = _plain(value)
    return suite, warnings + more


def _row(item: Any, path: Path, doc_line: int) -> Row:
    if not isinstance(item, _Obj):
        raise InputError(
            "each test case must be an object {...}", path=path, line=doc_line, field="testCases"
        )
    line = item.line
    where: dict[str, Any] = {"path": path, "line": line}

    def field(name: str) -> str:
        value = item.pairs.get(name)
        if isinstance(value, _Obj | list):
            raise InputError(f"'{name}' must be text", field=name, **where)
        return _text(value)

    utterance = clean(field("input"))
    if not utterance:
        raise InputError("test case has no 'input' (the utterance)", field="input", **where)
    check_utterance(utterance, where)
    try:
        parsed = parse_intent_field(field("intent"), field("botName"))
    except ValueError as exc:
        raise InputError(str(exc), field="botName", **where) from None
    entities: list[ExpectedEntity] = []
    raw_entities = item.pairs.get("entities")
    if raw_entities is not None:
        if not isinstance(raw_entities, list):
            raise InputError("'entities' must be an array", field="entities", **where)
        for raw in raw_entities:
            if not isinstance(raw, _Obj):
                raise InputError(
                    "each entity must be an object {entityName, entityValue}",
                    field="entities",
                    **where,
                )
            name = clean(_text(raw.pairs.get("entityName")))
            if not name:
                raise InputError(
                    "an entity has no 'entityName'", path=path, line=raw.line, field="entityName"
                )
            entities.append(ExpectedEntity(name, clean(_text(raw.pairs.get("entityValue")))))
    order_raw = item.pairs.get("entityOrder")
    if isinstance(order_raw, list):
        order = [clean(_text(o)) for o in order_raw if clean(_text(o))]
    else:
        order = parse_order_field(_text(order_raw))
    extra = {k: _plain(v) for k, v in item.pairs.items() if k not in KNOWN_KEYS}
    return Row(
        utterance=utterance,
        intents=parsed.intents,
        traits=parsed.traits,
        parents=parse_parent_field(field("parentIntent")),
        entities=entities,
        order=order,
        line=line,
        extra=extra,
    )


# --- writing ----------------------------------------------------------------------------------


def dumps(suite: Suite) -> tuple[str, list[str]]:
    exporter = Exporter()
    cases: list[dict[str, Any]] = []
    for case in suite.cases:
        for row in exporter.rows(case):
            item: dict[str, Any] = {"input": row.input, "intent": row.intent}
            if row.parent:
                item["parentIntent"] = row.parent
            if row.bot:
                item["botName"] = row.bot
            if row.entities:
                item["entities"] = [
                    {"entityValue": value, "entityName": name} for name, value in row.entities
                ]
            if row.order:
                item["entityOrder"] = row.order
            for key, value in row.extra.items():
                item.setdefault(key, value)
            cases.append(item)
    doc: dict[str, Any] = {"testCases": cases}
    kore_extra = suite.extra.get("kore")
    if isinstance(kore_extra, dict):
        for key, value in kore_extra.items():
            doc.setdefault(key, value)
    text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    return text, exporter.warnings(suite, len(suite.cases))


def write(suite: Suite, path: Path) -> list[str]:
    text, warnings = dumps(suite)
    atomic_write_text(Path(path), text)
    return warnings
