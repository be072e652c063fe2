"""Kore.ai batch-test suites as CSV: ``input,intent,parentIntent,entityName,entityValue,entityOrder``.

Each extra entity takes an extra row whose ``input`` is empty; a row repeating the utterance
with a new value of an entity makes that value an accepted alternative. Kore.ai's own samples
quote fields with curly quotes and shift a column, so the reader tolerates both (with a
warning naming the row); an unclosed straight quote is an error naming the row it opened on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.fileio import atomic_write_text
from nlu_tui.formats.kore_common import (
    CURLY_DOUBLE,
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

NAME = "kore-csv"
EXTENSIONS = (".csv",)
DESCRIPTION = "Kore.ai batch test suite (CSV, input,intent,parentIntent,entityName,entityValue)"

COLUMNS = ("input", "intent", "parentIntent", "entityName", "entityValue", "entityOrder")
OPTIONAL = ("botName",)
_ENTITY_NAME = re.compile(r"^[A-Za-z_][\w-]*$")


def sniff(path: Path, head: str) -> bool:
    first = head.lstrip("\ufeff").splitlines()[0] if head.strip() else ""
    names = [_header_name(c) for c in first.split(",")]
    return "input" in names and "intent" in names


def _header_name(cell: str) -> str:
    return clean(cell).strip('"' + CURLY_DOUBLE).strip()


# --- a CSV reader that knows where each record starts and tolerates curly quotes -----------------


class _Quoted(str):
    """A field written in straight quotes: its text is literal (no curly-quote repairs)."""

    __slots__ = ()


@dataclass
class _Record:
    fields: list[str]
    line: int


def _records(text: str, path: Path) -> list[_Record]:
    """Split CSV text into records, RFC 4180 style, plus fields quoted with “curly quotes”."""
    first_line = text.lstrip("\ufeff").split("\n", 1)[0]
    names = [_header_name(c) for c in first_line.split(",")]

    def column_name(index: int) -> str:
        return names[index] if index < len(names) and names[index] else f"column {index + 1}"

    records: list[_Record] = []
    i, n, line = 0, len(text), 1
    while i < n:
        start_line = line
        fields: list[str] = []
        while True:  # one field per iteration
            j = i
            while j < n and text[j] in " \t":
                j += 1
            if j < n and text[j] == '"':
                buf: list[str] = []
                k = j + 1
                while True:
                    q = text.find('"', k)
                    if q < 0:
                        raise InputError(
                            "unclosed quote: this field's opening '\"' is never closed",
                            path=path,
                            line=start_line,
                            kind="row",
                            field=column_name(len(fields)),
                        )
                    buf.append(text[k:q])
                    if q + 1 < n and text[q + 1] == '"':
                        buf.append('"')
                        k = q + 2
                        continue
                    break
                value = "".join(buf)
                spanned = value.count("\n")
                i = q + 1
                tail_end = i
                while tail_end < n and text[tail_end] not in ",\r\n":
                    tail_end += 1
                tail = text[i:tail_end]
                if tail.strip():
                    if spanned:
                        raise InputError(
                            f"unclosed quote: the quoted field runs on to line {line + spanned} "
                            "and is followed by more text",
                            path=path,
                            line=start_line,
                            kind="row",
                            field=column_name(len(fields)),
                        )
                    value += tail
                else:
                    value = _Quoted(value)
                line += spanned
                i = tail_end
            elif j < n and text[j] in "“”„":
                m = re.compile(r"[“”„]([^\n]*?)[”“]\s*(?=,|\r?\n|$)").match(text, j)
                if m is not None:
                    value = m.group(1)
                    i = m.end()
                else:
                    value, i = _plain_field(text, i)
            else:
                value, i = _plain_field(text, i)
            fields.append(value)
            if i < n and text[i] == ",":
                i += 1
                continue
            if i < n and text[i] == "\r":
                i += 1
            if i < n and text[i] == "\n":
                i += 1
            line += 1
            break
        records.append(_Record(fields, start_line))
    return records


def _plain_field(text: str, i: int) -> tuple[str, int]:
    j = i
    while j < len(text) and text[j] not in ",\r\n":
        j += 1
    return text[i:j], j


# --- reading ----------------------------------------------------------------------------------


def read(path: Path) -> Any:
    from nlu_tui.formats.registry import ImportResult

    suite, warnings = load(path)
    return ImportResult(suite, warnings)


def _decode(data: bytes, path: Path, warnings: list[str]) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        warnings.append(f"{path}: not UTF-8; read as Windows-1252 (as Excel writes it)")
        return data.decode("cp1252", errors="replace")


def load(path: Path) -> tuple[Suite, list[str]]:
    warnings: list[str] = []
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=path) from None
    records = _records(_decode(data, path, warnings), path)
    records = [r for r in records if any(f.strip() for f in r.fields)]
    if not records:
        raise InputError("empty file: expected the header " + ",".join(COLUMNS), path=path)
    header = records[0]
    columns = [_header_name(c) for c in header.fields]
    lower = {c.lower(): c for c in (*COLUMNS, *OPTIONAL)}
    index: dict[str, int] = {}
    for pos, name in enumerate(columns):
        if not name:
            continue
        canonical = lower.get(name.lower())
        if canonical is None:
            canonical = name
            warnings.append(f"{path}, row {header.line}: column '{name}' kept as an extra property")
        if canonical in index:
            raise InputError(
                f"column '{name}' appears twice",
                path=path,
                line=header.line,
                kind="row",
                field=name,
            )
        index[canonical] = pos
    if "input" not in index or "intent" not in index:
        raise InputError(
            "the first row must be the header " + ",".join(COLUMNS),
            path=path,
            line=header.line,
            kind="row",
        )
    builder = CaseBuilder(str(path), "row")
    extras = [c for c in index if c not in COLUMNS and c not in OPTIONAL]
    for record in records[1:]:
        get = _getter(record, index, path, len(columns), warnings)
        utterance = clean(get("input"))
        name, value = clean(get("entityName")), clean(get("entityValue"))
        parent_raw = get("parentIntent")
        if name and not value and clean(parent_raw) and _ENTITY_NAME.match(clean(parent_raw)):
            warnings.append(
                f"{path}, row {record.line}: entityName without entityValue; read as "
                "input,intent,entityName,entityValue (the parentIntent column is missing)"
            )
            name, value, parent_raw = clean(parent_raw), name, ""
        if not isinstance(get("entityName"), _Quoted):
            name = _drop_stray_curly(name, "entityName", record.line, path, warnings)
        if not isinstance(get("entityValue"), _Quoted):
            value = _drop_stray_curly(value, "entityValue", record.line, path, warnings)
        order_raw = get("entityOrder")
        if not isinstance(order_raw, _Quoted):
            order_raw = _drop_stray_curly(order_raw, "entityOrder", record.line, path, warnings)
        entities = [ExpectedEntity(name, value)] if name else []
        if value and not name:
            raise InputError(
                "entityValue given without entityName",
                path=path,
                line=record.line,
                kind="row",
                field="entityName",
            )
        order = parse_order_field(order_raw)
        if not utterance:  # a continuation row: more about the case above
            if not builder.cases:
                raise InputError(
                    "the first row after the header has no input (utterance)",
                    path=path,
                    line=record.line,
                    kind="row",
                    field="input",
                )
            case = builder.cases[-1]
            for column in ("intent", "parentIntent", "botName"):
                if clean(get(column)):
                    raise InputError(
                        f"a row with an empty input only adds entities to the case above; "
                        f"'{column}' must be empty here",
                        path=path,
                        line=record.line,
                        kind="row",
                        field=column,
                    )
            case.entities.extend(entities)  # "an extra row for each additional entity"
            builder.set_order(case, order, record.line)
            continue
        where: dict[str, Any] = {"path": path, "line": record.line, "kind": "row"}
        check_utterance(utterance, where)
        try:
            parsed = parse_intent_field(get("intent"), get("botName"))
        except ValueError as exc:
            raise InputError(str(exc), field="botName", **where) from None
        row = Row(
            utterance=utterance,
            intents=parsed.intents,
            traits=parsed.traits,
            parents=parse_parent_field(parent_raw),
            entities=entities,
            order=order,
            line=record.line,
            extra={c: get(c) for c in extras if get(c)},
        )
        builder.add(row)
    suite, more = builder.finish(suite_stem(path))
    return suite, warnings + more


def _getter(
    record: _Record, index: dict[str, int], path: Path, width: int, warnings: list[str]
) -> Any:
    fields = record.fields
    beyond = [f for f in fields[width:] if f.strip()]
    if beyond:
        raise InputError(
            f"{len(fields)} fields but the header names {width} columns "
            f"(unexpected {beyond[0][:30]!r}); quote fields that contain commas",
            path=path,
            line=record.line,
            kind="row",
        )

    def get(column: str) -> str:
        pos = index.get(column)
        return fields[pos] if pos is not None and pos < len(fields) else ""

    return get


def _drop_stray_curly(text: str, column: str, line: int, path: Path, warnings: list[str]) -> str:
    """A lone curly quote in a name or value is a typo (Kore.ai's own sample has one)."""
    opening = sum(text.count(c) for c in "“„")
    closing = text.count("”")
    if opening == closing:
        return text
    warnings.append(f"{path}, row {line}, field '{column}': stray curly quote removed")
    return clean(re.sub("[“”„]", "", text))


# --- writing ----------------------------------------------------------------------------------


def dumps(suite: Suite) -> tuple[str, list[str]]:
    exporter = Exporter()
    rows: list[list[str]] = []
    with_bots = any(i.bot for c in suite.cases for i in c.intents)
    extra_columns: list[str] = []
    for case in suite.cases:
        kore = case.extra.get("kore")
        if isinstance(kore, dict):
            for key, val in kore.items():
                if isinstance(val, str) and key not in extra_columns and key not in COLUMNS:
                    extra_columns.append(key)
    header = [*COLUMNS, *(["botName"] if with_bots else []), *extra_columns]
    for case in suite.cases:
        for row_index, row in enumerate(exporter.rows(case)):
            entities = row.entities or [("", "")]
            for k, (name, value) in enumerate(entities):
                first = k == 0
                cells = {
                    "input": row.input if first else "",
                    "intent": row.intent if first else "",
                    "parentIntent": row.parent if first else "",
                    "entityName": name,
                    "entityValue": value,
                    "entityOrder": ">".join(row.order) if first else "",
                    "botName": row.bot if first else "",
                }
                for key in extra_columns:
                    val = row.extra.get(key) if first and row_index == 0 else None
                    cells[key] = val if isinstance(val, str) else ""
                rows.append([cells[c] for c in header])
    for case in suite.cases:
        if any(">" in name for name in case.entity_order):
            exporter.lost["entity names containing '>' in an entity order"] = 1
            break
    lines = [_csv_line(header), *(_csv_line(r) for r in rows)]
    return "".join(lines), exporter.warnings(suite, len(suite.cases))


def _csv_cell(cell: str) -> str:
    """RFC 4180 quoting, also for cells holding curly quotes, which our reader would otherwise
    take as “curly-quoted” or repair as stray."""
    if any(c in cell for c in ',"\r\n“”„') or cell != cell.strip():
        return '"' + cell.replace('"', '""') + '"'
    return cell


def _csv_line(cells: list[str]) -> str:
    return ",".join(_csv_cell(c) for c in cells) + "\r\n"


def write(suite: Suite, path: Path) -> list[str]:
    text, warnings = dumps(suite)
    atomic_write_text(Path(path), text)
    return warnings
