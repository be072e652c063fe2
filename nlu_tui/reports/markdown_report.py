"""A short Markdown summary of a scored run, ready to paste as a pull-request comment.

The headline metrics, the weakest intents and, given a baseline run (``show -f markdown
--diff-with RUN``), the cases that broke and were fixed since then and the F1 change per
intent. Text from suites and engines goes through :func:`nlu_tui.textsafe.inert_markdown`,
so an utterance can neither break the table nor inject links, images or HTML.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from nlu_tui.fileio import atomic_write_text
from nlu_tui.model import CaseResult
from nlu_tui.reports.common import ResultRow, RunMeta
from nlu_tui.reports.prepared import PreparedRun, prepare_run
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions
from nlu_tui.scoring.intent_report import NO_INTENT_LABEL, shown_label
from nlu_tui.textsafe import inert_markdown as md


class CaseChangeLike(Protocol):
    """One changed case of a diff (:class:`nlu_tui.rundiff.CaseChange`, a layer above)."""

    @property
    def case_id(self) -> str: ...
    @property
    def utterance(self) -> str: ...
    @property
    def before(self) -> CaseResult: ...
    @property
    def after(self) -> CaseResult: ...


class IntentDeltaLike(Protocol):
    """One intent's F1 in both runs (:class:`nlu_tui.rundiff.IntentDelta`)."""

    @property
    def intent(self) -> str: ...
    @property
    def f1_before(self) -> float | None: ...
    @property
    def f1_after(self) -> float | None: ...
    @property
    def delta(self) -> float | None: ...


class RunDiffLike(Protocol):
    """What the summary reads of a run diff (:class:`nlu_tui.rundiff.RunDiff`, computed by the
    services above this layer and handed down)."""

    @property
    def changes(self) -> Sequence[CaseChangeLike]: ...
    @property
    def only_before(self) -> Sequence[str]: ...
    @property
    def only_after(self) -> Sequence[str]: ...
    @property
    def intent_deltas(self) -> Sequence[IntentDeltaLike]: ...
    @property
    def broke(self) -> Sequence[CaseChangeLike]: ...
    @property
    def fixed(self) -> Sequence[CaseChangeLike]: ...


WEAKEST_INTENTS = 5
LISTED_CHANGES = 20
"""At most this many broke (and fixed) cases are listed; the count says how many there are."""


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.2f} %"


def _intent(label: str | None, options: ScoringOptions) -> str:
    """An intent in a table cell: its name made inert, or :data:`NO_INTENT_LABEL` as it is
    (its parentheses are safe, and escaped they read ``\\(no intent\\)`` in plain text)."""
    shown = shown_label(label, options)
    return shown if shown == NO_INTENT_LABEL else md(shown)


def _delta(value: float | None) -> str:
    return "–" if value is None else f"{value:+.4f}"


def _changes(
    title: str, changes: Sequence[CaseChangeLike], options: ScoringOptions = DEFAULT_OPTIONS
) -> list[str]:
    lines = [f"**{title}: {len(changes)}**", ""]
    if not changes:
        return lines
    lines += ["| case | utterance | before | after |", "|---|---|---|---|"]
    for change in changes[:LISTED_CHANGES]:
        before = change.before.result.value
        before += f" {_intent(change.before.matched_intent, options)}"
        after = change.after.result.value
        after += f" {_intent(change.after.matched_intent, options)}"
        lines.append(f"| {md(change.case_id)} | {md(change.utterance)} | {before} | {after} |")
    if len(changes) > LISTED_CHANGES:
        lines.append(f"| … | {len(changes) - LISTED_CHANGES} more | | |")
    lines.append("")
    return lines


def markdown_text(
    prepared: PreparedRun,
    meta: RunMeta,
    *,
    diff: RunDiffLike | None = None,
    baseline: str | None = None,
) -> str:
    """The summary; with ``diff`` (this run against ``baseline``), what broke and was fixed."""
    s = prepared.summary
    status = f" ({md(meta.status)})" if meta.status and meta.status != "success" else ""
    lines = [
        f"### nlu-tui run `{md(meta.id)}`{status}",
        "",
        f"Suite **{md(meta.suite)}** on engine **{md(meta.engine)}**"
        + (f" ({md(meta.version)})" if meta.version else ""),
        "",
        "| cases | errors | TP | TN | FP | FN | precision | recall | F1 | intent success |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {s.cases} | {s.errors} | {s.tp} | {s.tn} | {s.fp} | {s.fn} | {_num(s.precision)} "
        f"| {_num(s.recall)} | {_num(s.f1)} | {_pct(s.intent_success)} |",
        "",
    ]
    if meta.note:
        lines += [f"> {md(meta.note)}", ""]
    intents = [
        (label, row)
        for label, row in prepared.report.items()
        if isinstance(row, dict) and label not in ("macro avg", "weighted avg", "micro avg")
    ]
    weakest = sorted(intents, key=lambda item: (item[1].get("f1-score", 0.0), item[0]))
    weakest = [(label, row) for label, row in weakest if row.get("f1-score", 0.0) < 1.0]
    if weakest:
        lines += ["**Weakest intents**", "", "| intent | F1 | support |", "|---|---:|---:|"]
        for label, row in weakest[:WEAKEST_INTENTS]:
            lines.append(
                f"| {_intent(label, prepared.options)} | {_num(row.get('f1-score'))} "
                f"| {int(row.get('support', 0))} |"
            )
        lines.append("")
    if diff is not None:
        lines += [f"#### Against run `{md(baseline or '?')}`", ""]
        if not diff.changes and not diff.only_before and not diff.only_after:
            lines += ["No changes: every case has the same outcome.", ""]
        lines += _changes("Broke", diff.broke, prepared.options)
        lines += _changes("Fixed", diff.fixed, prepared.options)
        moved = [d for d in diff.intent_deltas if d.delta not in (None, 0.0)]
        if moved:
            lines += ["| intent | F1 before | F1 after | change |", "|---|---:|---:|---:|"]
            for d in moved[:LISTED_CHANGES]:
                lines.append(
                    f"| {_intent(d.intent, prepared.options)} | {_num(d.f1_before)} | {_num(d.f1_after)} | {_delta(d.delta)} |"
                )
            lines.append("")
        if diff.only_before or diff.only_after:
            lines += [
                f"{len(diff.only_after)} cases only in this run, "
                f"{len(diff.only_before)} only in the baseline.",
                "",
            ]
    return "\n".join(lines)


def markdown_rows(prepared: PreparedRun, meta: RunMeta, lo: int, hi: int) -> None:
    """Nothing per row: the summary is built from the whole run's figures."""
    return None


def render_markdown(
    meta: RunMeta,
    rows: Sequence[ResultRow],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    diff: RunDiffLike | None = None,
    baseline: str | None = None,
) -> str:
    return markdown_text(prepare_run(rows, options), meta, diff=diff, baseline=baseline)


def write_markdown_parts(
    path: Path, prepared: PreparedRun, meta: RunMeta, parts: Sequence[None]
) -> list[Path]:
    atomic_write_text(Path(path), markdown_text(prepared, meta))
    return [Path(path)]
