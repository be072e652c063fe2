"""How a run behaves: concurrency, pacing, timeouts, retries and when to give up."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class RunOptions:
    """Knobs of one run; profiles give the engine-specific ones, the CLI/TUI may override.

    ``max_error_rate`` stops a run early (status ``failed``) once at least
    ``min_cases_for_error_rate`` cases are done and more than that share of them errored; a run
    that ends with more than that share errored is ``failed`` too, however few cases it had.
    ``secrets`` are values scrubbed from every stored reason and raw answer.
    """

    concurrency: int = 8
    rate_limit: float | None = None
    """Requests per second across the run; None means as fast as the concurrency allows."""
    timeout: float = 30.0
    """Seconds per attempt."""
    retries: int = 3
    """Extra attempts after a connection error, a 429 or a 5xx."""
    backoff_base: float = 0.25
    backoff_max: float = 20.0
    retry_after_max: float = 60.0
    max_error_rate: float = 0.5
    min_cases_for_error_rate: int = 20
    flush_interval: float = 0.1
    progress_interval: float = 0.1
    heartbeat_interval: float = 2.0
    store_retry: float = 60.0
    """How long (seconds) the run store may be away mid-run: meanwhile the results not yet
    written are kept in memory and their write retried (backoff up to 5 s), no new item is
    sent; after that the run ends ``interrupted`` (resume it once the store is back)."""
    max_raw_bytes: int = 65536
    """Engine answers above this many bytes (as JSON) are stored cut, with a marker."""
    repeat: int = 1
    """Send each case this many times (stability figures: :mod:`nlu_tui.scoring.stability`)."""
    secrets: tuple[str, ...] = field(default=(), repr=False)
    rerun_of: str | None = None
    """The run whose failed and errored cases this run sends again (:mod:`nlu_tui.reruns`)."""
    robustness_of: str | None = None
    """The run of the original suite a run of its perturbed copy is compared with
    (``run --robustness``, :mod:`nlu_tui.robustness`)."""
    warnings: tuple[str, ...] = ()
    """What was found before the run (a ``raw:`` check that can never match the engine's
    answer shape), stored with the run so every report names it."""

    def with_settings(self, settings: Any) -> RunOptions:
        """Take concurrency, rate limit, timeout, retries, the raw-answer cap and the repeat count
        from a profile's RunSettings or a request (any object with those attributes; None
        leaves a knob as it is)."""
        changes: dict[str, Any] = {}
        names = ("concurrency", "rate_limit", "timeout", "retries", "max_raw_bytes", "repeat")
        for name in names:
            value = getattr(settings, name, None)
            if value is not None:
                changes[name] = value
        return replace(self, **changes)

    def public(self) -> dict[str, Any]:
        """What is stored with a run (no secrets)."""
        data = asdict(self)
        data.pop("secrets", None)
        if data.get("rerun_of") is None:  # only a rerun names its parent
            data.pop("rerun_of", None)
        if data.get("robustness_of") is None:
            data.pop("robustness_of", None)
        if not data.get("warnings"):
            data.pop("warnings", None)
        else:
            data["warnings"] = list(data["warnings"])
        return data
