"""What every export of a scored run takes: the run's identity and its (case, prediction, result) rows.

Exporters take plain values so the CLI, the runner and the TUI can call them alike, from a
fresh run or from the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from nlu_tui.model import CaseResult, Stage
from nlu_tui.scoring.rows import ResultRow as ResultRow
from nlu_tui.scoring.rows import finite as finite

if TYPE_CHECKING:
    from nlu_tui.store.records import RunRecord

Timestamp = str | float | datetime | None


def iso_time(value: Timestamp) -> str | None:
    """An ISO 8601 UTC time (``2026-11-21T05:51:39Z``) from epoch seconds, a datetime or a string."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, datetime):
        dt = value if value.tzinfo else value.replace(tzinfo=UTC)
    else:
        dt = datetime.fromtimestamp(float(value), UTC)
    return dt.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass
class RunMeta:
    """The run a report describes. ``engine`` is the engine's name, never its settings.

    ``version`` is the stage the engine ran (``development``/``published``) or a model version.
    ``language`` and ``engine_settings`` only feed the Kore.ai CSV header; pass public settings
    only (thresholds and such), never secrets.
    """

    id: str
    suite: str
    engine: str
    version: str | None = None
    status: str | None = None
    reason: str | None = None
    started_at: Timestamp = None
    finished_at: Timestamp = None
    note: str = ""
    language: str | None = None
    engine_settings: dict[str, Any] = field(default_factory=dict)
    stability: dict[str, Any] | None = None
    """A repeated run's stability figures (``StabilityReport.as_dict``), for the JSON report."""
    bot_name: str | None = None
    """The bot's own name where the engine reported it (a kore-batch run: Kore.ai's result
    file), for the Kore.ai CSV header; else the engine's name is written."""
    bot_thresholds: list[list[tuple[str, str]]] | None = None
    """The NLP thresholds the bot applied, per NL engine, where the engine reported them (a
    kore-batch run: the Threshold Setting block of Kore.ai's result file); else the Kore.ai
    CSV header writes the profile's and says so."""
    entity_synonym_groups: int = 0
    """How many entity synonym groups scored the run's entity values (its metric spec)."""
    warnings: list[str] = field(default_factory=list)
    """What the run's checks found before it ran (a ``raw:`` check that can never match the
    engine's answer shape), for every report."""

    @classmethod
    def from_record(cls, record: RunRecord) -> RunMeta:
        """The meta of a stored run (the store's public engine profile gives the settings)."""
        batch = record.options.get("kore_batch")
        batch = batch if isinstance(batch, dict) else {}
        bot_name, bot_language = batch.get("bot_name"), batch.get("bot_language")
        thresholds = batch.get("thresholds")
        return cls(
            id=record.id,
            suite=record.suite_name,
            engine=record.engine_name,
            version=record.stage,
            status=str(record.status.value),
            reason=record.reason,
            started_at=record.started_at,
            finished_at=record.finished_at,
            note=record.note,
            engine_settings=dict(record.engine_profile),
            bot_name=bot_name if isinstance(bot_name, str) and bot_name else None,
            language=bot_language if isinstance(bot_language, str) and bot_language else None,
            bot_thresholds=_threshold_blocks(thresholds),
            entity_synonym_groups=_count(record.options.get("entity_synonyms")),
            warnings=[str(w) for w in record.options.get("warnings") or []],
        )

    def run_dict(self) -> dict[str, Any]:
        """The ``run`` object of the JSON report."""
        return {
            "id": self.id,
            "suite": self.suite,
            "engine": self.engine,
            "version": self.version,
            "status": self.status,
            "reason": self.reason,
            "started_at": iso_time(self.started_at),
            "finished_at": iso_time(self.finished_at),
            "note": self.note,
            **({"warnings": list(self.warnings)} if self.warnings else {}),
        }

    @property
    def stage(self) -> Stage | None:
        try:
            return Stage(self.version) if self.version else None
        except ValueError:
            return None


def _count(value: Any) -> int:
    return len(value) if isinstance(value, list) else 0


def results_of(rows: Sequence[ResultRow]) -> list[CaseResult]:
    return [r for _c, _p, r in rows]


def _threshold_blocks(value: Any) -> list[list[tuple[str, str]]] | None:
    """The stored Threshold Setting blocks (lists of ``[key, value]``), checked; None if absent."""
    if not isinstance(value, list) or not value:
        return None
    blocks: list[list[tuple[str, str]]] = []
    for block in value:
        if not isinstance(block, list):
            return None
        pairs: list[tuple[str, str]] = []
        for pair in block:
            if not (
                isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)
            ):
                return None
            pairs.append((pair[0], pair[1]))
        blocks.append(pairs)
    return blocks
