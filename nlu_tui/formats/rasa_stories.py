"""Rasa test stories (``stories:`` with ``steps:``), read as Rasa's ``YAMLStoryReader`` does.

A user step is ``intent:`` with an optional ``user:`` text (entity markup such as
``[Paris]{"entity": "city"}`` or ``[Paris](city)`` is read with Rasa's own pattern) or an
``entities:`` list; the other steps are ``action``, ``bot``, ``slot_was_set`` (names or
``name: value``), ``active_loop`` (a form or ``null``) and ``checkpoint``. Other top-level keys
of a Rasa data file (``version``, ``nlu``, ``rules``, ``responses``...) are not ours and are
skipped. Every error names the file, the line and the field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.conversation_model import Story, StoryEntity, StoryFile, StoryStep, StoryStepKind
from nlu_tui.errors import InputError
from nlu_tui.formats import yaml_nodes as yn
from nlu_tui.formats.conversation_limits import max_cases, max_steps
from nlu_tui.formats.rasa_markup import MarkupError, parse_example
from nlu_tui.formats.yaml_files import joined_digest, mapping_root, yaml_files
from nlu_tui.model import digest_bytes

NAME = "rasa-stories"
EXTENSIONS = (".yml", ".yaml")
DESCRIPTION = "Rasa test stories (stories: with user text, intents, actions, slots)"

STEP_KEYS = (
    "intent",
    "user",
    "entities",
    "action",
    "bot",
    "slot_was_set",
    "active_loop",
    "checkpoint",
    "metadata",
)
_TOP_LEVEL = re.compile(r"^stories\s*:", re.MULTILINE)


def sniff(path: Path, head: str) -> bool:
    del path
    return _TOP_LEVEL.search(head) is not None


TEST_PREFIX = "test_"
"""``rasa.shared.constants.TEST_STORIES_FILE_PREFIX``: with ``--e2e`` Rasa reads only files
named so (``YAMLStoryReader.is_test_stories_file``)."""


def story_files(path: Path, *, e2e: bool = False, notes: list[str] | None = None) -> list[Path]:
    """``path`` itself, or the YAML files under a directory with a ``stories:`` key.

    With ``e2e`` a directory gives only the files whose name starts with ``test_``, as
    ``rasa test core --e2e`` reads them (``RasaFileImporter.get_conversation_tests``); each
    file left out is named in ``notes``. A file named on the command line is read whatever
    its name, with a note that Rasa would skip it.
    """
    found = yaml_files(path, lambda head: sniff(path, head))
    if path.is_dir():
        kept = []
        for candidate in found:
            if e2e and not candidate.name.startswith(TEST_PREFIX):
                if notes is not None:
                    notes.append(
                        f"{candidate}: skipped, as rasa test core --e2e skips it (its name "
                        f"does not start with '{TEST_PREFIX}')"
                    )
                continue
            kept.append(candidate)
        return kept
    if e2e and not path.name.startswith(TEST_PREFIX) and notes is not None:
        notes.append(
            f"{path}: read, although rasa test core --e2e would skip it (its name does not "
            f"start with '{TEST_PREFIX}')"
        )
    return found


def read_path(path: Path, *, e2e: bool = False, notes: list[str] | None = None) -> StoryFile:
    """Every story under ``path`` (see :func:`story_files` for ``e2e`` and ``notes``)."""
    files = story_files(path, e2e=e2e, notes=notes)
    if not files:
        raise InputError("no test stories (YAML with a 'stories:' key) found", path=path)
    out = StoryFile()
    digests = []
    for file in files:
        part = read(file)
        out.stories.extend(part.stories)
        out.paths.extend(part.paths)
        digests.append(part.digest)
    out.digest = joined_digest(digests)
    return out


def read(path: Path) -> StoryFile:
    root, raw = yn.read_root_and_bytes(path)
    shown = str(path.resolve())
    out = StoryFile(paths=[shown], digest=digest_bytes(raw))
    root = mapping_root(
        root,
        path,
        empty="empty file: no 'stories:' key",
        not_mapping="a test stories file is a mapping with a 'stories:' key",
    )
    found = False
    for key, _, value in yn.pairs(root, path, "stories"):
        if key != "stories":
            continue
        found = True
        for item in yn.bounded_items(value, path, "stories", max_cases(), "the file"):
            out.stories.append(_story(item, path, shown))
    if not found:
        raise InputError("no 'stories:' key", path=path, field="stories")
    return out


def _story(node: yaml.Node, path: Path, shown: str) -> Story:
    line = yn.line_of(node)
    name: str | None = None
    steps_node: yaml.Node | None = None
    for key, _, value in yn.pairs(node, path, "stories"):
        if key == "story":
            name = yn.text(value, path, "story").strip()
        elif key == "steps":
            steps_node = value
    if not name:
        raise InputError("a story needs a 'story:' name", path=path, line=line, field="story")
    if steps_node is None:
        raise InputError(f"story '{name}' has no 'steps:'", path=path, line=line, field="steps")
    steps: list[StoryStep] = []
    for step in yn.bounded_items(steps_node, path, "steps", max_steps(), f"story '{name}'"):
        steps.extend(_step(step, path))
    return Story(name=name, steps=steps, file=shown, line=line)


def _step(node: yaml.Node, path: Path) -> list[StoryStep]:
    line = yn.line_of(node)
    if isinstance(node, yaml.ScalarNode):
        raise InputError(
            f"a step is a mapping such as 'action: {node.value}', not a bare text",
            path=path,
            line=line,
            field="steps",
        )
    values: dict[str, yaml.Node] = {}
    for key, key_node, value in yn.pairs(node, path, "steps"):
        if key == "or":
            raise InputError(
                "'or' steps are not supported in test stories; write one story per branch",
                path=path,
                line=yn.line_of(key_node),
                field="or",
            )
        if key not in STEP_KEYS:
            raise InputError(
                f"unknown step key '{key}' (expected one of {', '.join(STEP_KEYS)})",
                path=path,
                line=yn.line_of(key_node),
                field=key,
            )
        values[key] = value
    if "intent" in values or "user" in values:
        return [_user_step(values, path, line)]
    if "action" in values:
        return [
            StoryStep(
                StoryStepKind.ACTION, name=yn.name(values["action"], path, "action"), line=line
            )
        ]
    if "bot" in values:
        return [StoryStep(StoryStepKind.BOT, text=yn.text(values["bot"], path, "bot"), line=line)]
    if "checkpoint" in values:
        return [
            StoryStep(
                StoryStepKind.CHECKPOINT,
                name=yn.name(values["checkpoint"], path, "checkpoint"),
                line=line,
            )
        ]
    if "slot_was_set" in values:
        return _slot_steps(values["slot_was_set"], path, line)
    if "active_loop" in values:
        loop = values["active_loop"]
        loop_name = yn.scalar_value(loop) if isinstance(loop, yaml.ScalarNode) else None
        return [
            StoryStep(
                StoryStepKind.ACTIVE_LOOP,
                name=None if loop_name is None else yn.name(loop, path, "active_loop"),
                line=line,
            )
        ]
    if "metadata" in values:
        return []
    raise InputError("an empty step", path=path, line=line, field="steps")


def _user_step(values: dict[str, yaml.Node], path: Path, line: int) -> StoryStep:
    intent = yn.name(values["intent"], path, "intent") if "intent" in values else None
    step = StoryStep(StoryStepKind.INTENT, name=intent, line=line)
    if "user" in values:
        markup = yn.text(values["user"], path, "user").strip()
        try:
            parsed = parse_example(markup)
        except MarkupError as exc:
            raise InputError(str(exc), path=path, line=line, field="user") from None
        step.markup = markup
        step.text = parsed.text
        step.entities = [
            StoryEntity(
                entity=e.name,
                value=e.value,
                start=e.start,
                end=e.end,
                role=e.role,
                group=e.group,
            )
            for e in parsed.entities
        ]
    elif "entities" in values:
        step.entities = _entity_list(values["entities"], path)
    return step


def _entity_list(node: yaml.Node, path: Path) -> list[StoryEntity]:
    """``entities:`` of an intent-only step: names, or ``name: value`` (+ ``role``/``group``)."""
    out = []
    for item in yn.items(node, path, "entities"):
        if isinstance(item, yaml.ScalarNode):
            out.append(StoryEntity(entity=yn.name(item, path, "entities"), value=""))
            continue
        entity: dict[str, Any] = {}
        name: str | None = None
        value: Any = None
        for key, _, val in yn.pairs(item, path, "entities"):
            if key in ("role", "group"):
                entity[key] = yn.text(val, path, f"entities.{key}")
            else:
                name, value = key, yn.to_python(val, path, 6)
        if name is None:
            raise InputError(
                "an entity needs 'name: value'", path=path, line=yn.line_of(item), field="entities"
            )
        out.append(StoryEntity(entity=name, value=value, **entity))
    return out


def _slot_steps(node: yaml.Node, path: Path, line: int) -> list[StoryStep]:
    out = []
    for item in yn.items(node, path, "slot_was_set"):
        if isinstance(item, yaml.ScalarNode):
            out.append(
                StoryStep(
                    StoryStepKind.SLOT_WAS_SET, slot=yn.name(item, path, "slot_was_set"), line=line
                )
            )
            continue
        for slot, _, value in yn.pairs(item, path, "slot_was_set"):
            out.append(
                StoryStep(
                    StoryStepKind.SLOT_WAS_SET,
                    slot=slot,
                    value=yn.to_python(value, path, 6),
                    has_value=True,
                    line=line,
                )
            )
    return out
