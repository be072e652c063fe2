"""The evaluation's figures as plain text lines, for the CLI and the workbench alike: the
per-fold table with mean ± std, and the comparison's F1 per percentage with a bar."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nlu_tui.evaluation.service import EvalOutcome, FoldFigures
    from nlu_tui.store.records import RunRecord


def mean_std_text(pair: tuple[float, float]) -> str:
    return f"{pair[0]:.3f} ± {pair[1]:.3f}"


def held_out_lines(outcome: EvalOutcome) -> list[str]:
    m = outcome.metrics
    return [
        f"intent accuracy {m['Accuracy']:.4f}  F1-score {m['F1-score']:.4f}  "
        f"precision {m['Precision']:.4f}"
    ]


FOLD_COLUMNS = (
    "fold",
    "train acc",
    "train F1",
    "train prec",
    "test acc",
    "test F1",
    "test prec",
    "seconds",
)


def fold_cells(outcome: EvalOutcome) -> list[list[str]]:
    """One row of :data:`FOLD_COLUMNS` per fold (a failed fold: its name and the error)."""
    several = len({f.run for f in outcome.folds}) > 1
    rows = []
    for f in outcome.folds:
        name = f"{f.run + 1}.{f.fold + 1}" if several else f"{f.fold + 1}"
        if f.error or f.train is None or f.test is None:
            rows.append([name, f"failed: {f.error}"])
            continue
        rows.append(
            [
                name,
                *(f"{f.train[m]:.4f}" for m in ("Accuracy", "F1-score", "Precision")),
                *(f"{f.test[m]:.4f}" for m in ("Accuracy", "F1-score", "Precision")),
                f"{f.train_seconds + f.test_seconds:.1f}" + (" (cached)" if f.cached else ""),
            ]
        )
    return rows


def fold_lines(outcome: EvalOutcome) -> list[str]:
    """One line per fold (train and test accuracy, F1, precision, seconds), then the means."""
    out = ["fold   train acc  train F1  train prec   test acc  test F1  test prec   seconds"]
    widths = (9, 9, 11, 10, 8, 10, 9)
    for cells in fold_cells(outcome):
        if len(cells) == 2:
            out.append(f"{cells[0]:<5}  {cells[1]}")
            continue
        seconds, _, cached = cells[7].partition(" ")
        figures = " ".join(f"{c:>{w}}" for c, w in zip([*cells[1:7], seconds], widths, strict=True))
        out.append(f"{cells[0]:<5}  {figures}" + (f"  {cached}" if cached else ""))
    return out + fold_summary_lines(outcome)


def fold_summary_lines(outcome: EvalOutcome) -> list[str]:
    """The intent figures as mean ± std over the folds, then the entity figures per extractor."""
    from nlu_tui.evaluation.metrics import METRICS, summarise

    good = [f for f in outcome.folds if f.train is not None and f.test is not None]
    if not good:
        return []
    train = summarise([f.train for f in good if f.train is not None])
    test = summarise([f.test for f in good if f.test is not None])
    out = [f"Intent evaluation, mean ± std over {len(good)} folds:"]
    for name in METRICS:
        out.append(
            f"  {name:<10} train {mean_std_text(train[name])}   test {mean_std_text(test[name])}"
        )
    return out + entity_lines(good)


def entity_lines(good: Sequence[FoldFigures]) -> list[str]:
    """Per entity extractor, its train and test figures as mean ± std over the folds (Rasa's
    "Entity evaluation results"); nothing when the data has no entities."""
    from nlu_tui.evaluation.metrics import METRICS, summarise_entities

    train = summarise_entities([f.train_entities or {} for f in good])
    test = summarise_entities([f.test_entities or {} for f in good])
    out: list[str] = []
    for extractor in sorted(set(train) | set(test)):
        folds = sum(1 for f in good if extractor in (f.test_entities or {}))
        out.append(f"Entity evaluation, {extractor}, mean ± std over {folds} folds:")
        for name in METRICS:
            tr = mean_std_text(train[extractor][name]) if extractor in train else "-"
            te = mean_std_text(test[extractor][name]) if extractor in test else "-"
            out.append(f"  {name:<10} train {tr}   test {te}")
    return out


def comparison_lines(outcome: EvalOutcome, percentages: Sequence[int]) -> list[str]:
    """The F1 curve as a table: per excluded percentage, each configuration's mean ± std."""
    from nlu_tui.evaluation.curve_svg import curve_points

    out = ["Label-weighted F1 on the test set, mean ± std over runs:"]
    out.append("excluded  examples  " + "".join(f"{name[:24]:<28}" for name in outcome.results))
    curves = {name: curve_points(runs, len(percentages)) for name, runs in outcome.results.items()}
    for i, percentage in enumerate(percentages):
        examples = outcome.examples[i] if i < len(outcome.examples) else 0
        cells = []
        for name in outcome.results:
            point = curves[name][i]
            if point is None:
                cells.append(f"{'failed':<28}")
            else:
                bar = "█" * round(point[0] * 10)
                cells.append(f"{mean_std_text(point)} {bar:<10} "[:28].ljust(28))
        out.append(f"{percentage:>7}%  {examples:>8}  " + "".join(cells))
    return out


def outcome_lines(
    outcome: EvalOutcome, percentages: Sequence[int], fold_table: bool = True
) -> list[str]:
    """Everything the terminal shows of an evaluation, failures and stored runs included
    (``fold_table=False``: without the per-fold lines, for a face that draws them as a table)."""
    from nlu_tui.evaluation import service

    if outcome.mode == service.CROSS_VALIDATION:
        out = fold_lines(outcome) if fold_table else fold_summary_lines(outcome)
    elif outcome.mode == service.COMPARISON:
        out = comparison_lines(outcome, percentages)
    elif outcome.metrics:
        out = held_out_lines(outcome)
    else:
        out = []
    out += [f"FAILED {failure}" for failure in outcome.failures]
    for record in outcome.runs:
        unit = "models" if record.kind != "suite" else "cases"
        # each run of `--runs R` has its own seed (N, N+1, ...): the one it stored
        seed = record.engine_profile.get("seed", outcome.seed)
        seeded = f" (seed {seed})" if outcome.mode != service.HELD_OUT else ""
        out.append(
            f"run {record.id}: {record.status.value}, {record.done}/{record.total} {unit}{seeded}"
        )
    if outcome.files:
        directories = sorted({str(p.parent) for p in outcome.files})
        out.append(
            f"{len(outcome.files)} report files in {', '.join(directories[:3])}"
            + (" ..." if len(directories) > 3 else "")
        )
    return out


def stored_title(record: RunRecord) -> str | None:
    """What a stored ``test nlu`` run was, in one line (None for an ordinary run):
    ``test nlu cross-validation · 5 folds · seed 42 · config embedded_words_nb.config``."""
    mode = record.evaluation
    if mode is None:
        return None
    profile = record.engine_profile
    parts = [f"test nlu {mode}"]
    if profile.get("folds"):
        parts.append(f"{profile['folds']} folds")
    if profile.get("seed") is not None:
        parts.append(f"seed {profile['seed']}")
    if profile.get("config"):
        parts.append(f"config {profile['config']}")
    if profile.get("configs"):
        parts.append("configs " + ", ".join(str(c) for c in profile["configs"]))
    return " · ".join(parts)


def stored_lines(record: RunRecord) -> list[str]:
    """A stored ``test nlu`` run's own figures, from what it stored when it ended: the intent
    (and entity) figures of a cross-validation as mean ± std over its folds, a held-out test's
    intent figures, or a comparison's F1 table and failures ([] for an ordinary run, or an
    evaluation stopped before any figure was stored)."""
    from nlu_tui.evaluation import service

    title = stored_title(record)
    summary = record.summary or {}
    if title is None:
        return []
    out = [title]
    mode = record.evaluation
    if mode == service.CROSS_VALIDATION:
        outcome = service.EvalOutcome(service.CROSS_VALIDATION, record.status)
        for f in summary.get("per_fold") or []:
            entities = f.get("entities") or {}
            outcome.folds.append(
                service.FoldFigures(
                    0,
                    int(f.get("fold", 1)) - 1,
                    int(summary.get("seed") or 0),
                    f.get("train"),
                    f.get("test"),
                    float(f.get("train_seconds") or 0.0),
                    float(f.get("test_seconds") or 0.0),
                    False,
                    f.get("error"),
                    entities.get("train"),
                    entities.get("test"),
                )
            )
        out += fold_lines(outcome) if outcome.folds else []
    elif mode == service.COMPARISON and summary.get("results"):
        outcome = service.EvalOutcome(
            service.COMPARISON,
            record.status,
            results=summary["results"],
            examples=list(summary.get("examples") or []),
        )
        out += comparison_lines(outcome, summary.get("percentages") or [])
        out += [f"FAILED {failure}" for failure in summary.get("failures") or []]
    elif summary.get("intent"):
        outcome = service.EvalOutcome(service.HELD_OUT, record.status, metrics=summary["intent"])
        out += held_out_lines(outcome)
    return out


def comparison_compact_lines(record: RunRecord) -> list[str]:
    """A stored comparison in a narrow space (the workbench's Results header): one line of
    mean F1s per configuration, then what the columns are."""
    from nlu_tui.evaluation.curve_svg import curve_points

    summary = record.summary or {}
    results = summary.get("results") or {}
    percentages = list(summary.get("percentages") or [])
    examples = list(summary.get("examples") or [])
    out = []
    for name, runs in results.items():
        points = curve_points(runs, len(percentages))
        cells = " ".join("failed" if p is None else f"{p[0]:.3f}" for p in points)
        out.append(f"{name}: {cells}")
    if percentages:
        left = "/".join(str(p) for p in percentages)
        sizes = "/".join(str(n) for n in examples)
        out.append(f"mean F1 with {left} % left out ({sizes} training examples)")
    out += [f"FAILED {failure}" for failure in summary.get("failures") or []]
    return out
