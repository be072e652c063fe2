"""``nlu-tui test du convert-dsl``: rewrite the commands of DUT files from one DSL to another.

Follows Rasa Pro's ``convert_dut_dsl.py``: mappings are tried in order with ``re.match`` (so
anchored at the start only); the first that matches builds the new command from
``to_dsl_pattern`` by replacing ``{1}``, ``{2}``... with the captured groups, in which runs of
``input_separators`` become one ``output_separator`` (stripped at both ends); a command no
mapping matches is kept as is. Every ``.yml``/``.yaml`` file under the input folder is written
to the same relative path under the output folder; nothing is written when the mappings or
any test file are bad.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.errors import InputError


@dataclass(frozen=True)
class DslMapping:
    from_dsl_regex: str
    to_dsl_pattern: str
    input_separators: tuple[str, ...] | None = None
    output_separator: str | None = None


def load_mappings(path: Path) -> list[DslMapping]:
    """Read ``mappings:``; a bad entry is an error naming the file and the entry's line."""
    from nlu_tui.formats import yaml_loader

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read DSL mappings: {exc.strerror}", path) from None
    node = yaml_loader.compose(text, path)
    data = yaml_loader.construct(node, path) if node is not None else None
    if not isinstance(data, dict) or not isinstance(data.get("mappings"), list):
        raise InputError("expected a mapping with a 'mappings:' list", path, field="mappings")
    items = data["mappings"]
    lines = _item_lines(node)
    mappings: list[DslMapping] = []
    for index, item in enumerate(items):
        line = lines[index] if index < len(lines) else None
        if not isinstance(item, dict):
            raise InputError("each mapping must be a mapping", path, line, "mappings")
        for key in ("from_dsl_regex", "to_dsl_pattern"):
            if not isinstance(item.get(key), str):
                raise InputError(f"'{key}' must be a string", path, line, key)
        try:
            re.compile(item["from_dsl_regex"])
        except re.error as exc:
            raise InputError(
                f"not a regular expression: {exc}", path, line, "from_dsl_regex"
            ) from None
        seps = item.get("input_separators")
        if seps is not None and (
            not isinstance(seps, list) or not all(isinstance(s, str) for s in seps)
        ):
            raise InputError("must be a list of strings", path, line, "input_separators")
        out = item.get("output_separator")
        if out is not None and not isinstance(out, str):
            raise InputError("must be a string", path, line, "output_separator")
        mappings.append(
            DslMapping(
                item["from_dsl_regex"],
                item["to_dsl_pattern"],
                tuple(seps) if seps is not None else None,
                out,
            )
        )
    return mappings


def _item_lines(root: Any) -> list[int]:
    if not isinstance(root, yaml.MappingNode):
        return []
    for key, value in root.value:
        if getattr(key, "value", None) == "mappings" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def replace_separators(text: str, separators: tuple[str, ...] | None, output: str | None) -> str:
    if not separators or not output:
        return text
    pattern = "|".join(map(re.escape, separators))
    return re.sub(rf"(?:{pattern})+", output, text).strip(output)


def transform_command(command: str, mappings: list[DslMapping]) -> str:
    for mapping in mappings:
        match = re.match(mapping.from_dsl_regex, command)
        if match:
            result = mapping.to_dsl_pattern
            for i, group in enumerate(match.groups(), start=1):
                cleaned = replace_separators(
                    group or "", mapping.input_separators, mapping.output_separator
                )
                result = result.replace(f"{{{i}}}", cleaned)
            return result
    return command


def transform_data(data: Any, mappings: list[DslMapping]) -> Any:
    """Rewrite ``commands:`` of every step of every test case; anything else stays."""
    if not isinstance(data, dict) or not isinstance(data.get("test_cases"), list):
        return data
    for case in data["test_cases"]:
        if not isinstance(case, dict):
            continue
        for step in case.get("steps") or []:
            if isinstance(step, dict) and isinstance(step.get("commands"), list):
                step["commands"] = [transform_command(str(c), mappings) for c in step["commands"]]
    return data


@dataclass(frozen=True)
class Converted:
    source: Path
    target: Path
    changed: int


def convert_dsl(tests_dir: Path, output_dir: Path, mappings_path: Path) -> list[Converted]:
    """Convert every YAML file under ``tests_dir``; read everything first, then write."""
    from nlu_tui.fileio import atomic_write_text
    from nlu_tui.formats import yaml_loader

    if not tests_dir.is_dir():
        raise InputError("not a directory", tests_dir, field="dut-tests-dir")
    mappings = load_mappings(mappings_path)
    planned: list[tuple[Path, Path, Any, int]] = []
    for source in sorted(p for p in tests_dir.rglob("*") if p.suffix.lower() in (".yml", ".yaml")):
        if not source.is_file():
            continue
        data = yaml_loader.load(source.read_text(encoding="utf-8"), source)
        before = _commands(data)
        data = transform_data(data, mappings)
        changed = sum(1 for a, b in zip(before, _commands(data), strict=True) if a != b)
        planned.append((source, output_dir / source.relative_to(tests_dir), data, changed))
    done: list[Converted] = []
    for source, target, data, changed in planned:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
        done.append(Converted(source, target, changed))
    return done


def _commands(data: Any) -> list[str]:
    if not isinstance(data, dict) or not isinstance(data.get("test_cases"), list):
        return []
    return [
        str(c)
        for case in data["test_cases"]
        if isinstance(case, dict)
        for step in case.get("steps") or []
        if isinstance(step, dict) and isinstance(step.get("commands"), list)
        for c in step["commands"]
    ]
