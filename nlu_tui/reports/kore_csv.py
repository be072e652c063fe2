"""The Kore.ai Batch Testing CSV report: a summary header block, then one block per utterance.

Follows the "Download a CSV Report" section of the Kore.ai docs (seeds/000, metric-semantics.md
§1.5). The header gives bot (engine) name, report (suite) name, language, run type, the engine's
public threshold settings, last tested, utterance count, success/failure ratio and TP/TN/FP/FN as
percentages of the scored utterances. The per-utterance columns are Kore.ai's, in its order,
followed by three of ours (``Error``, ``Case Id``, ``Entity Order Result``). "Actual Entity
Order" is the order the engine returned the expected entities in (not Kore.ai's mix of the
expected order and the engine's, which hid a wrong order), and "Entity Order Result" says
whether it agrees with the expected order (``True``/``False``, empty when none was given).

Each expected entity takes a row of its own; the utterance's columns are filled on its first
row only (as in Kore.ai's dataset CSV), and an entity's alternative values follow on
consecutive rows with the same entity name (Kore.ai's "either value" rule). Scores: "Matched
Intent's Score" for FP and FN, "Expected Intent's Score" for FP: each of the engine's own
engines' scores when it reports them (Kore.ai's ``ML``, ``FM``, ``KG``), else the score from
its ranking; "Elimination Info" gives the expected intent's score and rank when it did not
win. "Task State" is the engine's own state of the matched intent when it reports one (else
the run's stage); "Matched Intent" names the child bot of a universal bot that answered.
The header's Bot Language is the profile's ``language``; its Threshold Setting has one block
per NL engine (:func:`threshold_blocks`); "Results per Intent Type" follows the counts.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from nlu_tui.fileio import atomic_write_chunks
from nlu_tui.formats.kore_common import THRESHOLD_KEYS
from nlu_tui.model import CaseResult, Prediction, ResultType, Stage, TestCase
from nlu_tui.reports.common import ResultRow, RunMeta, iso_time, results_of
from nlu_tui.reports.metric_spec import KORE, kore_spec, settings_pairs
from nlu_tui.reports.prepared import PreparedRun
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions, expected_intents
from nlu_tui.scoring.intent_report import trait_label
from nlu_tui.scoring.slices import slices
from nlu_tui.scoring.summary import Summary, summarize

_UNFINISHED = ("canceled", "failed", "interrupted")

COLUMNS = (
    "Utterances",
    "Expected Intent",
    "Matched Intent",
    "Parent Intent",
    "Task State",
    "Result Type",
    "Entity Name",
    "Expected EntityValue",
    "Matched EntityValue",
    "Entity Result",
    "Expected Entity Order",
    "Actual Entity Order",
    "Matched Intent's Score",
    "Expected Intent's Score",
    "Elimination Info",
    "Error",
    "Case Id",
    "Entity Order Result",
)


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def _pct(value: float) -> str:
    return f"{value:.2f}%"


def expected_intent_text(case: TestCase) -> str:
    """Kore.ai's Expected Intent: alternatives joined by `` | ``, traits with the trait prefix."""
    if len(case.intents) == 1 and not case.traits:
        return case.intents[0].name
    parts = [i.name for i in case.intents]
    if case.traits:
        parts.append(trait_label(case.traits))
    return " | ".join(parts)


def matched_intent_text(result: CaseResult, prediction: Prediction | None) -> str:
    """Kore.ai's Matched Intent: the intent (with the child bot of a universal bot that
    answered, ``Intent (Bot)``) and the matched traits with the trait prefix."""
    bot = result.matched_bot
    if (prediction is None or not prediction.traits) and bot is None:
        return result.matched_intent or ""
    matched = result.matched_intent
    if matched and bot:
        matched = f"{matched} ({bot})"
    parts = [matched] if matched else []
    if prediction is not None and prediction.traits:
        parts.append(trait_label(prediction.traits))
    return " | ".join(parts)


def _ranked(prediction: Prediction | None, name: str) -> tuple[int, float] | None:
    if prediction is None:
        return None
    key = name.strip()
    for rank, s in enumerate(prediction.ranking, 1):
        if s.name.strip() == key:
            return rank, s.confidence
    return None


def _engine_score_text(scores: dict[str, float]) -> str:
    """One intent's scores per engine (Kore.ai's ML, FM and KG): ``ML 0.7100, FM 812.5000``."""
    return ", ".join(f"{engine} {_score(value)}" for engine, value in scores.items())


def _scores(
    case: TestCase, prediction: Prediction | None, result: CaseResult, options: ScoringOptions
) -> tuple[str, str, str]:
    """(Matched Intent's Score, Expected Intent's Score, Elimination Info).

    When the engine gives each of its engines' scores per intent (Kore.ai's ML, FM and KG),
    those are the scores shown, as Kore.ai's report shows them ("the scores are given only if
    the engine detects the intent"); otherwise the intent's confidence and ranking score.
    """
    kind = result.result
    matched = _score(result.confidence) if kind in (ResultType.FP, ResultType.FN) else ""
    expected_score = ""
    elimination = ""
    if kind in (ResultType.FP, ResultType.FN):
        names = expected_intents(case, options)
        found = [(n, r) for n in names if (r := _ranked(prediction, n)) is not None]
        per_engine = prediction.engine_scores if prediction is not None else {}
        if per_engine:
            if result.matched_intent and result.matched_intent in per_engine:
                matched = _engine_score_text(per_engine[result.matched_intent])
            if kind is ResultType.FP:
                expected_score = "; ".join(
                    f"{n}: {_engine_score_text(per_engine[n])}" for n in names if n in per_engine
                )
        elif kind is ResultType.FP and found:
            expected_score = "; ".join(f"{n}: {_score(r[1])}" for n, r in found)
        elimination = "; ".join(f"{n}: {_score(r[1])} (rank {r[0]})" for n, r in found)
    return matched, expected_score, elimination


def _task_state(meta: RunMeta) -> str:
    return "Published" if meta.stage is Stage.PUBLISHED else "Configured"


def _order_result(ok: bool | None) -> str:
    """The "Entity Order Result" cell: empty when the case gives no order."""
    return "" if ok is None else "True" if ok else "False"


def _case_rows(
    case: TestCase,
    prediction: Prediction | None,
    result: CaseResult,
    task_state: str,
    options: ScoringOptions,
) -> list[list[str]]:
    kind = result.result
    if kind is ResultType.FP or kind is ResultType.FN:
        matched_score, expected_score, elimination = _scores(case, prediction, result, options)
    else:
        matched_score = expected_score = elimination = ""
    if prediction is not None and prediction.task_state:
        task_state = prediction.task_state  # the vendor's own state of the matched intent
    head = [
        case.utterance,
        expected_intent_text(case),
        matched_intent_text(result, prediction),
        "||".join(case.parent_intents),
        task_state,
        kind.value,
    ]
    orders = [">".join(result.expected_entity_order), ">".join(result.actual_entity_order)]
    tail = [
        matched_score,
        expected_score,
        elimination,
        result.error or "",
        case.id,
        _order_result(result.entity_order_ok),
    ]
    entity_rows: list[list[str]] = []
    expected_by_pos = list(case.entities)
    for k, er in enumerate(result.entities):
        alternatives = expected_by_pos[k].alternatives if k < len(expected_by_pos) else []
        for value in [er.expected, *alternatives]:
            entity_rows.append([er.name, value, er.matched or "", "True" if er.ok else "False"])
    if not entity_rows:
        return [[*head, "", "", "", "", *orders, *tail]]
    blank_head = [""] * len(head)
    blank_tail = [""] * len(tail)
    out = [[*head, *entity_rows[0], *orders, *tail]]
    out.extend([*blank_head, *e, "", "", *blank_tail] for e in entity_rows[1:])
    return out


_KIND_TEXT = {kind: kind.value for kind in ResultType}
_ORDER_TEXT = {ok: _order_result(ok) for ok in (None, True, False)}


_NEEDS_QUOTES = re.compile('[,"\r\n]').search


def _quote(field: str) -> str:
    """One field as ``csv.writer`` (QUOTE_MINIMAL, ``\r\n``) writes it: quoted, with quotes
    doubled, when it holds a comma, a quote or a line break; otherwise as it is."""
    if _NEEDS_QUOTES(field) is None:
        return field
    return '"' + field.replace('"', '""') + '"'


def _csv_line(fields: Sequence[str]) -> str:
    """A row as ``csv.writer`` writes it, without the line terminator.

    Joined first and checked once: only a row holding a quote, a line break or a comma inside
    a field needs its fields quoted one by one.
    """
    line = ",".join(fields)
    if '"' in line or "\n" in line or "\r" in line or line.count(",") != len(fields) - 1:
        return ",".join([_quote(f) for f in fields])
    return line


def _general_lines(
    out: list[str],
    case: TestCase,
    prediction: Prediction | None,
    result: CaseResult,
    task_state: str,
    options: ScoringOptions,
) -> None:
    """The CSV lines of :func:`_case_rows` appended to ``out``, each field quoted as needed:
    for the rows :func:`_lines` does not build directly (several entities or values, or a
    field holding a comma, a quote or a line break)."""
    out.extend(_csv_line(row) for row in _case_rows(case, prediction, result, task_state, options))


PROFILE_THRESHOLDS = "(from the nlu-tui profile, not read from the bot)"
"""The Threshold Setting cell when the thresholds are the profile's: the engine did not report
the ones the bot applied (only a kore-batch run reads them, from Kore.ai's own report)."""

KIND_TITLES = {"dialog": "Dialog", "faq": "FAQ", "small_talk": "Small Talk", "trait": "Trait"}


def threshold_blocks(settings: Mapping[str, Any]) -> list[list[tuple[str, Any]]]:
    """The Threshold Setting rows, one block per NL engine: Kore.ai's keys at the top of the
    profile, a ``thresholds:`` mapping of mode (``ml``, ``faq``, ``cs``) to those keys, or a
    lone ``threshold`` (an ML confidence threshold: ``mode ml``, ``minThreshold``)."""
    blocks: list[list[tuple[str, Any]]] = []
    top = [(k, settings[k]) for k in THRESHOLD_KEYS if k in settings]
    if top:
        blocks.append(top)
    per_mode = settings.get("thresholds")
    if isinstance(per_mode, Mapping):
        for mode, values in per_mode.items():
            if isinstance(values, Mapping):
                rows = [(k, values[k]) for k in THRESHOLD_KEYS[1:] if k in values]
                blocks.append([("mode", str(mode)), *rows])
    threshold = settings.get("threshold")
    if not blocks and isinstance(threshold, int | float) and not isinstance(threshold, bool):
        blocks.append([("mode", "ml"), ("minThreshold", threshold)])
    return blocks


def _kind_summaries(rows: Sequence[ResultRow]) -> list[tuple[str, Summary]]:
    """Results per intent type (Dialog, FAQ, Small Talk, Trait), when any case has one."""
    found = slices(rows)["intent_kind"]
    return [(s.name, s.summary) for s in found if s.name is not None]


def _header(
    meta: RunMeta,
    summary: Summary,
    kinds: Sequence[tuple[str, Summary]] = (),
    options: ScoringOptions = DEFAULT_OPTIONS,
) -> str:
    """The summary block and the column names, each line ending in ``\r\n``."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(["Bot Name", meta.bot_name or meta.engine])
    w.writerow(["Report Name", meta.suite])
    settings = meta.engine_settings
    language = meta.language or settings.get("language") or settings.get("bot_language")
    w.writerow(["Bot Language", language if isinstance(language, str) else ""])
    w.writerow(["Run Type", meta.version or ""])
    if meta.status in _UNFINISHED:  # Kore.ai marks a canceled or failed run; so does the file
        w.writerow(["Run Status", f"{meta.status}: {meta.reason}" if meta.reason else meta.status])
    blocks: Sequence[Sequence[tuple[str, Any]]] = meta.bot_thresholds or []
    if blocks:  # what the bot applied, as Kore.ai's own report gives it
        w.writerow(["Threshold Setting", ""])
    else:
        blocks = threshold_blocks(settings)
        w.writerow(
            ["Threshold Setting", PROFILE_THRESHOLDS if blocks else "(not reported by the engine)"]
        )
    for block in blocks:
        for key, value in block:
            w.writerow([key, str(value)])
    w.writerow(["Last Tested", iso_time(meta.finished_at) or iso_time(meta.started_at) or ""])
    w.writerow(["Utterance Count", str(summary.cases)])
    w.writerow(["Success/Failure Ratio", _pct(100 * summary.success_failure_ratio)])
    w.writerow(["True Positive (TP)", _pct(summary.pct(ResultType.TP))])
    w.writerow(["True Negative (TN)", _pct(summary.pct(ResultType.TN))])
    w.writerow(["False Positive (FP)", _pct(summary.pct(ResultType.FP))])
    w.writerow(["False Negative (FN)", _pct(summary.pct(ResultType.FN))])
    w.writerow(["Errors", str(summary.errors)])
    if kinds:
        w.writerow(["Results per Intent Type"])
        for name, part in kinds:
            w.writerow(
                [
                    KIND_TITLES.get(name, name),
                    f"cases {part.cases}",
                    f"TP {_pct(part.pct(ResultType.TP))}",
                    f"TN {_pct(part.pct(ResultType.TN))}",
                    f"FP {_pct(part.pct(ResultType.FP))}",
                    f"FN {_pct(part.pct(ResultType.FN))}",
                    f"F1 {part.f1:.3f}",
                    f"errors {part.errors}",
                ]
            )
    w.writerow(["Metric Definitions", KORE])
    for key, text in settings_pairs(kore_spec(meta, options)):
        w.writerow([f"Metric Setting {key}", text])
    w.writerow([])
    w.writerow(COLUMNS)
    return buf.getvalue()


def _lines(rows: Sequence[ResultRow], meta: RunMeta, options: ScoringOptions) -> str:
    """The utterance blocks of ``rows``, each line ending in ``\r\n`` (``""`` for no rows).

    The one-line case (no entities, or one entity without alternatives) is most of a run, so
    it is built here directly, one f-string per row: the utterance (the field most likely to
    need quotes) is quoted on its own, and the other seventeen fields are checked at once (no
    quote or line break, and exactly sixteen commas: no field holds one); only a row failing
    that check is quoted field by field. Same bytes as ``csv.writer``
    (:func:`_general_lines` is the reference).
    """
    task_state = _task_state(meta)
    lines: list[str] = []
    append = lines.append
    needs_quotes = _NEEDS_QUOTES
    kind_text = _KIND_TEXT
    fp, fn = ResultType.FP, ResultType.FN
    order_text = _ORDER_TEXT
    for case, prediction, result in rows:
        entities = result.entities
        if (
            (
                entities
                and (len(entities) > 1 or len(case.entities) < 1 or case.entities[0].alternatives)
            )
            or (prediction is not None and (prediction.task_state or prediction.engine_scores))
            or (result.matched_bot is not None)
        ):
            _general_lines(lines, case, prediction, result, task_state, options)
            continue
        kind = result.result
        if kind is fp or kind is fn:
            matched_score, expected_score, elimination = _scores(case, prediction, result, options)
        else:
            matched_score = expected_score = elimination = ""
        intents = case.intents
        if len(intents) == 1 and not case.traits:
            expected = intents[0].name
        else:
            expected = expected_intent_text(case)
        if prediction is None or not prediction.traits:
            matched = result.matched_intent or ""
        else:
            matched = matched_intent_text(result, prediction)
        parents = case.parent_intents
        expected_order = result.expected_entity_order
        actual_order = result.actual_entity_order
        if entities:
            er = entities[0]
            entity = f"{er.name},{er.expected},{er.matched or ''},{'True' if er.ok else 'False'}"
        else:
            entity = ",,,"
        tail = (
            f"{expected},{matched},{'||'.join(parents) if parents else ''},{task_state},"
            f"{kind_text[kind]},{entity},"
            f"{'>'.join(expected_order) if expected_order else ''},"
            f"{'>'.join(actual_order) if actual_order else ''},"
            f"{matched_score},{expected_score},{elimination},{result.error or ''},{case.id},"
            f"{order_text[result.entity_order_ok]}"
        )
        if '"' in tail or "\n" in tail or "\r" in tail or tail.count(",") != 16:
            _general_lines(lines, case, prediction, result, task_state, options)
            continue
        utterance = case.utterance
        if needs_quotes(utterance) is not None:
            utterance = '"' + utterance.replace('"', '""') + '"'
        append(f"{utterance},{tail}")
    if lines:
        lines.append("")  # the last row's line terminator
    return "\r\n".join(lines)


def csv_rows(prepared: PreparedRun, meta: RunMeta, lo: int, hi: int) -> bytes:
    """The UTF-8 lines of rows ``lo``..``hi``, for :func:`write_csv_parts`."""
    return _lines(prepared.rows[lo:hi], meta, prepared.options).encode("utf-8")


def render_kore_csv(
    meta: RunMeta,
    rows: Sequence[ResultRow],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    prepared: PreparedRun | None = None,
) -> str:
    summary = prepared.summary if prepared is not None else summarize(results_of(rows))
    kinds = _kind_summaries(prepared.rows if prepared is not None else rows)
    return _header(meta, summary, kinds, options) + _lines(rows, meta, options)


def write_csv_parts(
    path: Path, prepared: PreparedRun, meta: RunMeta, parts: Sequence[bytes]
) -> list[Path]:
    """Write the report from :func:`csv_rows` parts atomically, as UTF-8 with a BOM so
    spreadsheets read accents right."""
    kinds = _kind_summaries(prepared.rows)
    header = _header(meta, prepared.summary, kinds, prepared.options).encode("utf-8")
    atomic_write_chunks(Path(path), ["\ufeff".encode(), header, *parts])
    return [Path(path)]
