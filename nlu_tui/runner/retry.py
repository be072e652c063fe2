"""Which failures are worth another attempt, and how long to wait before it.

Connection errors, timeouts, 429 and 5xx are transient; a 4xx or a malformed answer is not.
Waits grow exponentially with jitter so many workers do not retry in lockstep, and a
``Retry-After`` from the server wins.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
from dataclasses import dataclass

import httpx

from nlu_tui.engines.transport_errors import transport_reason
from nlu_tui.errors import NluTuiError


@dataclass(frozen=True)
class Failure:
    """A classified failure of one attempt."""

    reason: str
    retryable: bool
    retry_after: float | None = None


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - (now if now is not None else time.time()), 0.0)


def classify(exc: BaseException) -> Failure:
    """Turn what an engine raised into a reason (naming at most a URL's origin, never its path
    or query) and a retry decision."""
    if isinstance(exc, httpx.HTTPStatusError):
        status = exc.response.status_code
        retryable = status == 429 or status >= 500
        retry_after = parse_retry_after(exc.response.headers.get("retry-after"))
        phrase = exc.response.reason_phrase or ""
        return Failure(f"HTTP {status} {phrase}".strip(), retryable, retry_after)
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return Failure("timed out", True)
    if isinstance(exc, httpx.TransportError | OSError):
        # One clean line (``cannot connect to http://h:1 (connection refused)``), read from
        # the whole cause chain: httpx-aiohttp reports every connection error as ConnectTimeout.
        return Failure(transport_reason(exc), True)
    if isinstance(exc, json.JSONDecodeError):
        return Failure(f"malformed answer: not JSON ({exc.msg} at char {exc.pos})", False)
    if isinstance(exc, ValueError | KeyError | TypeError | AttributeError | IndexError):
        return Failure(f"malformed answer: {type(exc).__name__}: {exc}", False)
    if type(exc).__name__ == "BadResponseError":  # engines.httpcall: the answer was unusable
        return Failure(f"malformed answer: {exc}", False)
    if isinstance(exc, NluTuiError):
        return Failure(str(exc), False)
    return Failure(f"{type(exc).__name__}: {exc}", False)


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Exponential backoff with jitter: ``base * 2**attempt``, capped, times 0.5-1.5."""
    r = rng or random
    return float(min(cap, base * (2**attempt)) * r.uniform(0.5, 1.5))
