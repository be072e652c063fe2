"""Bar charts drawn with block characters, for any terminal: confidence hits vs misses and
the latency distribution.

The bins and counts come from the scoring core; these functions only draw them (Rich text,
no Textual), scaled to the width they are given, so a chart reads the same at 80 columns and at
200, in the workbench and on the command line.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text

from nlu_tui.model import CaseResult, ResultType
from nlu_tui.textsafe import inert

if TYPE_CHECKING:
    from nlu_tui.scoring.histogram import Histogram

_EIGHTHS = " ▏▎▍▌▋▊▉█"


def bar(value: int, peak: int, width: int) -> str:
    """A bar of ``value`` out of ``peak`` drawn in ``width`` cells, with eighth-cell precision."""
    if peak <= 0 or value <= 0 or width <= 0:
        return ""
    eighths = max(1, round(value / peak * width * 8))
    full, part = divmod(eighths, 8)
    return "█" * full + (_EIGHTHS[part] if part else "")


def hits_misses_chart(
    bins: Sequence[tuple[str, int, int]],
    width: int = 60,
    title: str = "",
    sides: tuple[str, str] = ("hits", "misses"),
) -> Text:
    """One row per bin: label, hits bar (green) and misses bar (red), mirrored around the label.

    ``bins`` are (label, hits, misses), as Rasa's intent histogram splits them; ``sides`` names
    the two halves.
    """
    text = Text()
    if title:
        text.append(title + "\n", style="bold")
    if not bins:
        text.append("(no data)")
        return text
    label_w = max(len(label) for label, _, _ in bins)
    count_w = max(len(str(max(h, m))) for _, h, m in bins)
    half = max(4, (width - label_w - 2 * count_w - 6) // 2)
    peak = max(max(h, m) for _, h, m in bins)
    left, right = sides
    text.append(f"{left:>{half + count_w + 1}}  {'':<{label_w}}  {right}\n", style="dim")
    for label, hits, misses in bins:
        hits_bar = bar(hits, peak, half)
        text.append(f"{hits:>{count_w}} ")
        text.append(f"{hits_bar[::-1]:>{half}}", style="green")
        text.append(inert(f" {label:^{label_w}} ", newlines=False), style="bold")
        text.append(f"{bar(misses, peak, half):<{half}}", style="red")
        text.append(f" {misses:<{count_w}}\n")
    return text


def distribution_chart(
    bins: Sequence[tuple[str, int]], width: int = 60, title: str = "", style: str = "cyan"
) -> Text:
    """One row per bin: label, bar and count (a latency distribution)."""
    text = Text()
    if title:
        text.append(title + "\n", style="bold")
    if not bins:
        text.append("(no data)")
        return text
    label_w = max(len(label) for label, _ in bins)
    count_w = max(len(str(c)) for _, c in bins)
    bar_w = max(4, width - label_w - count_w - 4)
    peak = max(c for _, c in bins)
    for label, count in bins:
        text.append(inert(f"{label:>{label_w}} ", newlines=False), style="bold")
        text.append(f"{bar(count, peak, bar_w):<{bar_w}}", style=style)
        text.append(f" {count:>{count_w}}\n")
    return text


def confidence_bins(histogram: Histogram) -> list[tuple[str, int, int]]:
    """The scoring core's confidence histogram as chart rows, highest confidence on top.

    Cases with no confidence or one above 1 (unbounded engine scores) get rows of their own
    when there are any, so the chart accounts for every scored case.
    """
    rows = [(f"{lo:.2f}-{hi:.2f}", h, m) for lo, hi, h, m in reversed(histogram.rows())]
    if histogram.above_one_hits or histogram.above_one_misses:
        rows.insert(0, ("> 1", histogram.above_one_hits, histogram.above_one_misses))
    if histogram.no_confidence_hits or histogram.no_confidence_misses:
        rows.append(("none", histogram.no_confidence_hits, histogram.no_confidence_misses))
    return rows


LATENCY_EDGES_MS = (5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
"""Upper bounds of the latency bins (roughly logarithmic; the last bin is open)."""


def latency_bins(results: Iterable[CaseResult]) -> list[tuple[str, int]]:
    """Cases per latency bin (results without a latency are left out).

    This only counts for the chart; latency percentiles are the scoring core's (Summary).
    Errored cases are left out, as the core leaves them out of the percentiles.
    """
    counts = [0] * (len(LATENCY_EDGES_MS) + 1)
    for r in results:
        if r.latency_ms is None or r.result is ResultType.ERROR:
            continue
        counts[bisect_right(LATENCY_EDGES_MS, r.latency_ms)] += 1
    labels = [f"< {e} ms" for e in LATENCY_EDGES_MS] + [f">= {LATENCY_EDGES_MS[-1]} ms"]
    return list(zip(labels, counts, strict=True))
