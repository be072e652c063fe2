"""``nlu-tui test du convert-e2e PATH --output-folder DIR``: E2E test cases to DUT test cases.

As seed 003 describes Rasa Pro's ``convert_e2e_tests_to_du_tests.py``: every E2E test case is
run against the engine (a conversation engine that reports the commands of each user message,
e.g. Rasa Pro: its user events' ``parse_data.commands``); the commands it predicted become the
``commands:`` of each user step. A test case that passed goes to ``ready/``, one that failed
to ``to_review/`` (its commands may be wrong or incomplete). One file per test case, named
after it, with the fixtures and metadata it uses; slot steps are dropped (DUT files have none).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from nlu_tui.conversation_model import E2EFile, E2ETestCase, StepKind
from nlu_tui.dialogue_understanding.commands import command_from_json
from nlu_tui.errors import InputError


def _file_name(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "test_case"
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}_{n}", n + 1
    taken.add(candidate)
    return f"{candidate}.yml"


def commands_of_turn(turn: Any, version: str) -> list[str]:
    """The DSL text of the commands in a turn's user event (``parse_data.commands``)."""
    for event in getattr(turn, "events", []):
        raw = getattr(event, "raw", {}) or {}
        if raw.get("event") == "user":
            items = (raw.get("parse_data") or {}).get("commands") or []
            found = [command_from_json(i) for i in items if isinstance(i, dict)]
            return [c.to_dsl(version) for c in found if c is not None]
    return []


def dut_case_data(case: E2ETestCase, commands: dict[int, list[str]]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    for position, step in enumerate(case.steps):
        if step.kind is StepKind.USER:
            item: dict[str, Any] = {"user": step.text}
            if commands.get(position):
                item["commands"] = commands[position]
            if step.metadata_name:
                item["metadata"] = step.metadata_name
            steps.append(item)
        elif step.kind in (StepKind.BOT, StepKind.UTTER):
            steps.append({step.kind.value: step.text})
    data: dict[str, Any] = {"test_case": case.name, "steps": steps}
    if case.fixture_names:
        data["fixtures"] = list(case.fixture_names)
    if case.metadata_name:
        data["metadata"] = case.metadata_name
    return data


def file_data(source: E2EFile, case: E2ETestCase, commands: dict[int, list[str]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    fixtures = source.fixtures_for(case)
    if fixtures:
        out["fixtures"] = [{f.name: [{k: v} for k, v in f.slots.items()]} for f in fixtures]
    names = {n for n in (case.metadata_name, *(s.metadata_name for s in case.steps)) if n}
    if names:
        out["metadata"] = [
            {n: dict(source.metadata[n].values)} for n in sorted(names) if n in source.metadata
        ]
    out["test_cases"] = [dut_case_data(case, commands)]
    return out


async def convert_e2e(path: Path, output: Path, engine_spec: str, version: str) -> list[str]:
    """Run the E2E tests and write ready/ and to_review/; returns the lines to show."""
    import yaml

    from nlu_tui.conversation.e2e_run import observed_positions, run_case
    from nlu_tui.engines.profiles import resolve_engine
    from nlu_tui.fileio import atomic_write_text
    from nlu_tui.formats.e2e_cases import read_path
    from nlu_tui.runner.client import make_client

    source = read_path(path)
    resolved = resolve_engine(engine_spec, suite_path=path)
    engine = resolved.engine
    if not engine.capabilities.conversation:
        raise InputError(
            f"engine {resolved.name} does not hold conversations; convert-e2e needs one that "
            "does and reports commands (Rasa Pro: rasa:URL or rasa-pro:URL)",
            field="engine",
        )
    planned: list[tuple[Path, dict[str, Any]]] = []
    taken: dict[str, set[str]] = {"ready": set(), "to_review": set()}
    lines: list[str] = []
    client = make_client(concurrency=1, timeout=60.0)
    try:
        await engine.open(client)
        try:
            for n, case in enumerate(source.test_cases):
                conversation = engine.conversation(f"nlu-tui-convert-{n}")  # type: ignore[attr-defined]
                try:
                    result = await run_case(conversation, source, case)
                    passed = bool(result.pass_status)
                    positions = observed_positions(case, result)
                    commands = {p: commands_of_turn(t, version) for p, t in positions.items()}
                except Exception as exc:  # an engine failure: keep the case for review
                    passed, commands = False, {}
                    lines.append(f"error in {case.name}: {resolved.redact(str(exc))}")
                folder = "ready" if passed else "to_review"
                target = output / folder / _file_name(case.name, taken[folder])
                planned.append((target, file_data(source, case, commands)))
                lines.append(f"{folder}: {target}")
        finally:
            await engine.close()
    finally:
        await client.aclose()
    for target, data in planned:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
    ready = sum(1 for t, _ in planned if t.parent.name == "ready")
    lines.append(f"{ready} test case(s) ready, {len(planned) - ready} to review in {output}")
    return lines
