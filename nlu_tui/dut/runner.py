"""The requests of a DUT run: one per evaluated user step, and the CLI's run settings.

The run itself is the run kernel's (:mod:`nlu_tui.runner.kernel`) with the DUT strategy
(:mod:`nlu_tui.dut.kind`): concurrency, the attempt deadline, retries, cancel, persist and
resume are the same as for every kind of run.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from nlu_tui.dut.model import DutCase
from nlu_tui.engines.command_api import CommandRequest


@dataclass(frozen=True)
class DutRunSettings:
    """``test du --concurrency --retries --timeout`` (made kernel options by the service)."""

    concurrency: int = 4
    retries: int = 3
    timeout: float = 60.0
    backoff_base: float = 0.25
    backoff_max: float = 20.0


def build_request(
    case: DutCase,
    index: int,
    run_key: str,
    metadata: dict[str, dict[str, object]] | None = None,
    slots: dict[str, object] | None = None,
    stubs: dict[str, object] | None = None,
) -> CommandRequest:
    """The request for one step: text, conversation before it, merged metadata (the test
    case's, then the step's, as Rasa's ``filter_metadata`` merges them)."""
    step = case.steps[index]
    key = f"{run_key}-{zlib.crc32(case.full_name.encode()):08x}-{case.line or 0}"
    merged: dict[str, object] = {}
    if metadata:
        if case.metadata and case.metadata in metadata:
            merged.update(metadata[case.metadata])
        if step.metadata and step.metadata in metadata:
            merged.update(metadata[step.metadata])
    return CommandRequest(
        text=step.text or "",
        conversation=case.conversation_before(index),
        conversation_id=f"{key}-{index}",
        case_key=key,
        metadata=merged,
        slots=dict(slots or {}),
        stub_actions=dict(stubs or {}),
    )
