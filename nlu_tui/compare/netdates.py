"""Which JSON strings NLU.DevOps reads as dates, and the instant each one stands for.

NLU.DevOps reads its files with Newtonsoft.Json's defaults (``DateParseHandling.DateTime``,
``DateTimeZoneHandling.RoundtripKind``): a string of 19 to 40 characters that starts with a
digit, has ``T`` at index 10 and passes Newtonsoft's ISO 8601 parser, or a ``/Date(ms)/``
string, becomes a ``DateTime`` token instead of a string. Two dates are equal when their
tick counts are equal, whatever their kind, so ``…T10:00:00`` (unspecified) equals
``…T10:00:00Z`` (UTC); a string with an offset (``+02:00``) is converted to the machine's
local time first. A date never equals a string. This module re-implements those rules
(``DateTimeUtils.TryParseDateTime`` and ``DateTimeParser`` in Newtonsoft.Json).
"""

from __future__ import annotations

import calendar
from datetime import UTC, datetime, timedelta
from functools import lru_cache

TICKS_PER_SECOND = 10_000_000
_EPOCH_TICKS = 621_355_968_000_000_000  # ticks of 1970-01-01 since 0001-01-01
_MAX_TICKS = 3_155_378_975_999_999_999
_MAX_FRACTION_DIGITS = 7


def _digits(text: str, start: int, count: int) -> int | None:
    part = text[start : start + count]
    if len(part) != count or not all("0" <= c <= "9" for c in part):
        return None
    return int(part)


def _local_offset_ticks(utc_ticks: int) -> int:
    """The machine's UTC offset at that instant, as .NET's ``ToLocalTime`` uses it."""
    seconds = (utc_ticks - _EPOCH_TICKS) // TICKS_PER_SECOND
    try:
        moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=seconds)
        offset = moment.astimezone().utcoffset()
    except (OverflowError, OSError, ValueError):
        return 0
    return int(offset.total_seconds()) * TICKS_PER_SECOND if offset else 0


def _iso_ticks(text: str) -> int | None:
    """Newtonsoft's ``DateTimeParser`` plus ``TryParseDateTimeIso``: ticks, or None."""
    end = len(text)
    year, month, day = _digits(text, 0, 4), _digits(text, 5, 2), _digits(text, 8, 2)
    if year is None or month is None or day is None or year < 1 or not 1 <= month <= 12:
        return None
    if text[4:5] != "-" or text[7:8] != "-" or not 1 <= day <= calendar.monthrange(year, month)[1]:
        return None
    if text[10:11] != "T":
        return None
    hour, minute, second = _digits(text, 11, 2), _digits(text, 14, 2), _digits(text, 17, 2)
    if hour is None or minute is None or second is None or text[13:14] != ":" or text[16:17] != ":":
        return None
    if hour > 24 or minute >= 60 or second >= 60 or (hour == 24 and (minute or second)):
        return None
    pos = 19
    fraction = 0
    if text[pos : pos + 1] == ".":
        count = 0
        pos += 1
        while pos < end and count < _MAX_FRACTION_DIGITS and "0" <= text[pos] <= "9":
            fraction = fraction * 10 + int(text[pos])
            count += 1
            pos += 1
        if count == 0:
            return None
        fraction *= 10 ** (_MAX_FRACTION_DIGITS - count)
        if hour == 24 and fraction:
            return None
    # The zone, with the parser's leniency: 'Z'/'z', or [+-]HH[[:]MM], or a bare MM.
    zone, zone_hour, zone_minute = "", 0, 0
    if pos < end:
        ch = text[pos]
        if ch in "Zz":
            zone = "Z"
            pos += 1
        else:
            hh = _digits(text, pos + 1, 2) if pos + 2 < end else None
            if hh is not None and ch in "+-":
                zone, zone_hour = ch, hh
                pos += 3
            if pos < end:
                if text[pos] == ":":
                    pos += 1
                    mm = _digits(text, pos, 2) if pos + 1 < end else None
                    if mm is not None:
                        zone_minute = mm
                        pos += 2
                else:
                    mm = _digits(text, pos, 2) if pos + 1 < end else None
                    if mm is not None:
                        zone_minute = mm
                        pos += 2
    if pos != end:
        return None
    base = datetime(year, month, day, 0 if hour == 24 else hour, minute, second)
    ticks = (base - datetime(1, 1, 1)) // timedelta(microseconds=1) * 10 + fraction
    if hour == 24:
        ticks += 86_400 * TICKS_PER_SECOND
    if zone in "+-" and zone:
        offset = (zone_hour * 3600 + zone_minute * 60) * TICKS_PER_SECOND
        utc = ticks - offset if zone == "+" else ticks + offset
        if 0 <= utc <= _MAX_TICKS:
            ticks = utc + _local_offset_ticks(utc)
    return ticks


def _microsoft_ticks(text: str) -> int | None:
    """``/Date(1577872800000)/`` (ms since 1970, UTC) or with an offset after the number
    (``/Date(1577872800000+0200)/``: local time), as ``TryParseMicrosoftDate`` reads it: the
    first ``+`` (else ``-``) after the number's first character starts the offset, whose
    two hour digits (and minute digits, when there is room) must be digits; the offset itself
    is not used for a ``DateTime``."""
    inner = text[6:-2]
    cut = inner.find("+", 1)
    if cut < 0:
        cut = inner.find("-", 1)
    millis = inner if cut < 0 else inner[:cut]
    if cut >= 0:
        zone = inner[cut:]
        if not _is_digits(zone[1:3], 2):
            return None
        if len(text) - (6 + cut) > 5 and not _is_digits(zone[3:5], 2):
            return None
    body = millis[1:] if millis[:1] == "-" else millis
    if not _is_digits(body, len(body)) or not body:
        return None
    value = int(millis)
    if not -(2**63) <= value < 2**63:
        return None
    utc = value * 10_000 + _EPOCH_TICKS
    if not 0 <= utc <= _MAX_TICKS:
        return None
    return utc + _local_offset_ticks(utc) if cut >= 0 else utc


def _is_digits(text: str, count: int) -> bool:
    return len(text) == count and all("0" <= c <= "9" for c in text)


@lru_cache(maxsize=4096)
def date_ticks(text: str) -> int | None:
    """The ticks of ``text`` if NLU.DevOps' JSON reader turns it into a date, else None."""
    if text.startswith("/"):
        if len(text) >= 9 and text.startswith("/Date(") and text.endswith(")/"):
            return _microsoft_ticks(text)
        return None
    if 19 <= len(text) <= 40 and text[0].isdigit() and text[10] == "T":
        try:
            return _iso_ticks(text)
        except (OverflowError, ValueError):
            return None
    return None


def as_dotnet_string(text: str | None) -> str | None:
    """A string property (``matchText``) as NLU.DevOps reads it with ``Value<string>``: a
    date token becomes ``DateTime.ToString(InvariantCulture)``, ``MM/dd/yyyy HH:mm:ss`` (no
    fraction, no zone), so ``…T10:00:00`` and ``…T10:00:00.5Z`` read the same."""
    if text is None:
        return None
    ticks = date_ticks(text)
    if ticks is None:
        return text
    moment = datetime(1, 1, 1) + timedelta(microseconds=ticks // 10)
    return moment.strftime("%m/%d/") + f"{moment.year:04d}" + moment.strftime(" %H:%M:%S")
