"""What a finished conversation run shows and writes, rebuilt from its stored items (so a
resumed run reports exactly as one run would).

E2E (Rasa Pro's ``rasa test e2e``): pytest-style text (failures with their diffs, a short
summary naming each failed test case with its file and line, a final count line),
``e2e_results.yml`` (``test_results:`` with ``name``, ``pass_status``, ``expected_steps``,
``difference``, ``assertion_failure``) or Rasa Pro's ``e2e_results_passed.yml`` /
``e2e_results_failed.yml``, the accuracy by assertion type, JUnit XML and JSON. Stories (``rasa test core``): the conversation- and
action-level figures, ``failed_test_stories.yml``, ``stories_with_warnings.yml`` and
``story_report.json`` (scikit-learn's report with Rasa's completion and
``conversation_accuracy``), the action confusion and its ``story_confusion_matrix.png``.
"""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from nlu_tui.conversation.judge_agreement import step_line, steps_of
from nlu_tui.conversation_model import Story
from nlu_tui.fileio import atomic_write_text
from nlu_tui.reports.item_pages import run_payload
from nlu_tui.scoring.rasa_charts import ConfusionChart, confusion_chart
from nlu_tui.store.records import RunRecord, StoredItem

if TYPE_CHECKING:
    from nlu_tui.scoring.rasa_entities import EntityExample

FAILED_STORIES_FILE = "failed_test_stories.yml"
WARNINGS_FILE = "stories_with_warnings.yml"
SUCCESSFUL_STORIES_FILE = "successful_test_stories.yml"
STORY_REPORT_FILE = "story_report.json"
STORY_CONFUSION_FILE = "story_confusion_matrix.png"
STORY_CONFUSION_TITLE = "Action Confusion matrix"
POLICY_ENTITY_TITLE = "Entity Confusion matrix"


def pad(text: str, char: str = "=", minimum: int = 3, width: int | None = None) -> str:
    """Rasa's ``pad``: the text centred in a line of ``char`` as wide as the terminal."""
    columns = width or shutil.get_terminal_size((80, 20)).columns
    padding = max(columns - len(text) - 2, minimum * 2)
    return char * (padding // 2) + " " + text + " " + char * math.ceil(padding / 2)


# --- E2E ------------------------------------------------------------------------------------


def e2e_text(
    items: Sequence[StoredItem], *, fail_fast: bool = False, width: int | None = None
) -> str:
    """Rasa Pro's ``print_test_result`` as plain lines (colour is the face's business)."""
    failed = [i for i in items if i.outcome == "failed"]
    errors = [i for i in items if i.outcome == "error"]
    passed = [i for i in items if i.outcome == "passed"]
    lines: list[str] = []
    if failed or errors:
        lines += ["", pad("FAILURES", width=width)]
    for item in failed:
        d = item.data
        lines.append(pad(f"'{d['name']}' in {d['file']}:{d['line']} failed", "-", width=width))
        lines.append("")
        lines.append(f"Mismatch starting at {d['file']}:{d.get('error_line')}: ")
        lines.append("")
        lines.extend(d.get("difference") or [])
        failure = d.get("assertion_failure")
        if failure:
            lines.append(
                f"Assertion type '{failure['assertion']['type']}' failed with this error "
                f"message: {failure['error_message']}"
            )
            lines.append("")
            lines.append("Actual events transcript:")
            lines.append("")
            lines.extend(failure.get("actual_events_transcript") or [])
    for item in errors:
        d = item.data
        lines.append(pad(f"'{d['name']}' in {d['file']}:{d['line']} errored", "-", width=width))
        lines.append(f"engine error: {d.get('error')}")
    accuracy = assertion_accuracy(items)
    if accuracy:
        lines.append(pad("Accuracy By Assertion Type", width=width))
        lines.extend(accuracy_table(accuracy))
    lines.append(pad("short test summary info", width=width))
    for item in failed:
        lines.append(f"FAILED {item.data['file']}::{item.data['name']}")
    for item in errors:
        lines.append(f"ERROR {item.data['file']}::{item.data['name']} - {item.data.get('error')}")
    if fail_fast and (failed or errors):
        lines.append(pad("stopping after 1 failure", "!", width=width))
    elif not items:
        lines.append(pad("no test cases found", "!", width=width))
    counts = f"{len(failed)} failed, {len(passed)} passed"
    if errors:
        counts += f", {len(errors)} error" + ("s" if len(errors) > 1 else "")
    lines.append(pad(counts, width=width))
    return "\n".join(lines) + "\n"


def e2e_results(items: Sequence[StoredItem]) -> dict[str, Any]:
    """The data of ``e2e_results.yml`` (Rasa Pro's ``write_test_results_to_file``)."""
    results = []
    for item in items:
        d = item.data
        entry: dict[str, Any] = {
            "name": d["name"],
            "pass_status": item.outcome == "passed",
            "expected_steps": d.get("expected_steps", []),
        }
        if d.get("error_path"):
            entry["error_path"] = d["error_path"]
        if d.get("difference"):
            entry["difference"] = d["difference"]
        if d.get("assertion_failure"):
            entry["assertion_failure"] = d["assertion_failure"]
        if d.get("error"):
            entry["error"] = d["error"]
        results.append(entry)
    return {"test_results": results}


def e2e_results_yaml(items: Sequence[StoredItem]) -> str:
    """``e2e_results.yml`` as Rasa writes it: a blank line before each ``- name``."""
    text = yaml.safe_dump(e2e_results(items), sort_keys=False, allow_unicode=True, width=4096)
    out = []
    for line in text.splitlines(True):
        if line.startswith("- name"):
            out.append("\n")
        out.append(line)
    return "".join(out)


def results_file_names(path: Path) -> tuple[Path, Path]:
    """Rasa Pro's ``get_e2e_results_file_name`` for ``--e2e-results PATH``: a folder (or a
    name without suffix) gets ``e2e_results_passed.yml`` and ``e2e_results_failed.yml``, a
    file name ``NAME_passed.yml`` and ``NAME_failed.yml`` beside it."""
    if path.is_dir() or not path.suffix:
        return path / "e2e_results_passed.yml", path / "e2e_results_failed.yml"
    return (
        path.parent / f"{path.stem}_passed.yml",
        path.parent / f"{path.stem}_failed.yml",
    )


def write_split_results(items: Sequence[StoredItem], path: Path) -> list[Path]:
    """Rasa Pro's ``write_test_results_to_file`` twice: the passed test cases and the others
    (failed, and those an engine error stopped), each file written even when empty."""
    passed_file, failed_file = results_file_names(path)
    passed_file.parent.mkdir(parents=True, exist_ok=True)
    passed = [i for i in items if i.outcome == "passed"]
    others = [i for i in items if i.outcome != "passed"]
    atomic_write_text(passed_file, e2e_results_yaml(passed))
    atomic_write_text(failed_file, e2e_results_yaml(others))
    return [passed_file, failed_file]


# --- assertions: accuracy by type ------------------------------------------------------------


def assertion_accuracy(items: Sequence[StoredItem]) -> list[dict[str, Any]]:
    """Rasa Pro's ``AggregateTestStatsCalculator.calculate``, per assertion type in Rasa's
    order: a passed test case counts each of its assertions as passed; a failed one counts its
    failed assertion as failed and, step by step, the assertions before it in the same step
    as passed (and, as Rasa's loop does, every assertion of the later steps too); a test case
    that failed without an assertion failure (its message was not found) or was stopped by an
    engine error counts nothing. ``passed``/``failed``/``not_run`` are what really happened."""
    from nlu_tui.conversation_assertions import TYPES

    rasa_passed: Counter[str] = Counter()
    rasa_failed: Counter[str] = Counter()
    real: dict[str, Counter[str]] = {t: Counter() for t in TYPES}
    for item in items:
        rows = item.data.get("assertions")
        if not rows:
            continue
        for row in rows:
            real.setdefault(row["type"], Counter())[row["status"]] += 1
        if item.outcome == "passed":
            rasa_passed.update(row["type"] for row in rows)
            continue
        if item.outcome != "failed" or not item.data.get("assertion_failure"):
            continue
        failed_row = next(r for r in rows if r["status"] == "failed")
        rasa_failed[failed_row["type"]] += 1
        skip_step = None
        for row in rows:
            if row is failed_row:
                skip_step = row["step_line"]
                continue
            if row["step_line"] == skip_step and row["status"] == "not_run":
                continue
            rasa_passed[row["type"]] += 1
    out = []
    for kind in list(TYPES) + [t for t in real if t not in TYPES]:
        total = rasa_passed[kind] + rasa_failed[kind]
        if not total:
            continue
        out.append(
            {
                "type": kind,
                "accuracy": rasa_passed[kind] / total,
                "passed": real[kind]["passed"],
                "failed": real[kind]["failed"],
                "not_run": real[kind]["not_run"],
            }
        )
    return out


def accuracy_table(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The table ``print_aggregate_stats`` prints (Assertion Type, Accuracy as 0.00%)."""
    width = max(len("Assertion Type"), *(len(r["type"]) for r in rows))
    head = f"{'Assertion Type':^{width}} | {'Accuracy':^8}"
    lines = [head, "-" * len(head)]
    for row in rows:
        lines.append(f"{row['type']:^{width}} | {row['accuracy']:>8.2%}")
    return lines


def _judged(d: dict[str, Any]) -> list[str]:
    """One line per judged generative assertion: its score, threshold and the judge's reason."""
    out = []
    for row in d.get("assertions") or []:
        if row.get("score") is not None:
            out.append(
                f"{row['type']} (line {row['line']}): {row['status']}, score {row['score']} "
                f"(threshold {row['threshold']}): {row.get('reason') or ''}"
            )
    return out


def junit_xml(run: RunRecord, items: Sequence[StoredItem], suite_name: str) -> str:
    """One ``<testcase>`` per test case or story; a failure carries its first mismatch."""
    from xml.etree import ElementTree as ET

    failures = sum(1 for i in items if i.outcome == "failed")
    errors = sum(1 for i in items if i.outcome == "error")
    total_ms = sum(i.latency_ms or 0.0 for i in items)
    root = ET.Element(
        "testsuite",
        name=suite_name,
        tests=str(len(items)),
        failures=str(failures),
        errors=str(errors),
        time=f"{total_ms / 1000.0:.3f}",
    )
    properties = ET.SubElement(root, "properties")
    ET.SubElement(properties, "property", name="run", value=run.id)
    for row in assertion_accuracy(items):
        ET.SubElement(
            properties,
            "property",
            name=f"assertion_accuracy.{row['type']}",
            value=f"{row['accuracy']:.2%}",
        )
    agreement = run.summary.get("judge_agreement") if run.summary else None
    if agreement:
        rate = agreement.get("agreement_rate")
        ET.SubElement(
            properties,
            "property",
            name="judge_agreement",
            value="n/a" if rate is None else f"{rate:.2%}",
        )
        ET.SubElement(
            properties,
            "property",
            name="judge_agreement.steps",
            value=f"{agreement.get('agreed', 0)}/{agreement.get('measured', 0)}",
        )
    for item in items:
        d = item.data
        case = ET.SubElement(
            root,
            "testcase",
            name=str(d.get("name")),
            classname=str(d.get("file")),
            time=f"{(item.latency_ms or 0.0) / 1000.0:.3f}",
        )
        case.set("line", str(d.get("line")))
        failure = d.get("assertion_failure")
        if item.outcome == "failed" and failure:
            node = ET.SubElement(
                case,
                "failure",
                message=f"Assertion type '{failure['assertion']['type']}' failed at "
                f"{d.get('error_path')}: {failure['error_message']}",
                type=str(failure["assertion"]["type"]),
            )
            node.text = "\n".join(failure.get("actual_events_transcript") or []) or None
        elif item.outcome == "failed":
            message = d.get("first_failure") or f"mismatch at {d.get('error_path')}"
            node = ET.SubElement(case, "failure", message=str(message))
            node.text = "\n".join(d.get("difference") or []) or None
        elif item.outcome == "error":
            ET.SubElement(case, "error", message=str(d.get("error")))
        judged = _judged(d) + [
            f"judge agreement: {step_line(s)}" for s in steps_of(agreement, item.item_id)
        ]
        if judged:
            ET.SubElement(case, "system-out").text = "\n".join(judged)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def json_report(run: RunRecord, items: Sequence[StoredItem]) -> str:
    agreement = run.summary.get("judge_agreement") if run.summary else None
    payload = {
        **run_payload(run, items),
        "assertion_accuracy": assertion_accuracy(items),
        **({"judge_agreement": agreement} if agreement else {}),
        "results": [
            {"id": i.item_id, "outcome": i.outcome, "latency_ms": i.latency_ms, **i.data}
            for i in items
        ],
    }
    return json.dumps(payload, ensure_ascii=False, indent=2, default=str) + "\n"


# --- stories ----------------------------------------------------------------------------------


def _story_results(items: Sequence[StoredItem]) -> list[Any]:
    from nlu_tui.conversation.story_eval import StoryResult, Written

    out = []
    for item in items:
        d = item.data
        if "written" not in d:
            continue
        story = Story(name=d["name"], steps=[], file=d["file"], line=d.get("line"))
        written = [
            Written(w["event"], w.get("comment"), bool(w.get("plain"))) for w in d["written"]
        ]
        out.append(
            StoryResult(
                story=story,
                passed=item.outcome == "passed",
                written=written,
                actions=[],
                warning=bool(d.get("warning")),
            )
        )
    return out


def failed_stories_yaml(items: Sequence[StoredItem]) -> str:
    from nlu_tui.conversation import story_writer

    failed = [r for r in _story_results(items) if not r.passed]
    return story_writer.dumps(failed, story_writer.NO_FAILED)


def warnings_yaml(items: Sequence[StoredItem]) -> str:
    from nlu_tui.conversation import story_writer

    warned = [r for r in _story_results(items) if r.passed and r.warning]
    return story_writer.dumps(warned, story_writer.NO_WARNINGS)


def action_pairs(items: Sequence[StoredItem]) -> list[tuple[str, str, str | None]]:
    pairs = []
    for item in items:
        for expected, predicted, policy, _conf in item.data.get("actions") or []:
            pairs.append((str(expected), str(predicted), policy))
    return pairs


def _entity_label(entity: dict[str, Any]) -> str:
    """Rasa's ``TrainingDataWriter.generate_entity`` of one entity (``[three](people)``)."""
    from nlu_tui.conversation.story_eval import entity_attributes

    text = str(entity.get("text", ""))
    start, end = entity.get("start"), entity.get("end")
    span = text[start:end] if isinstance(start, int) and isinstance(end, int) else text
    return f"[{span}]{entity_attributes(span, entity)}"


def aligned_entities(items: Sequence[StoredItem]) -> tuple[list[str], list[str]]:
    """Rasa's ``EvaluationStore.serialise`` for entities: targets and predictions of each
    utterance text paired by position, a missing side written ``None``."""
    targets = [e for i in items for e in i.data.get("entity_targets") or []]
    predictions = [e for i in items for e in i.data.get("entity_predictions") or []]
    texts = sorted({str(e.get("text", "")) for e in targets + predictions})
    out_t: list[str] = []
    out_p: list[str] = []
    for text in texts:
        gold = sorted((e for e in targets if e.get("text") == text), key=lambda e: e["start"])
        got = sorted((e for e in predictions if e.get("text") == text), key=lambda e: e["start"])
        i, j = 0, 0
        while i < len(got) or j < len(gold):
            if i < len(got) and j < len(gold):
                p, g = got[i], gold[j]
                key_p, key_g = (p["start"], p["end"]), (g["start"], g["end"])
                cmp = -1 if key_p < key_g else 1 if key_g < key_p else 0
            else:
                cmp = 1 if j < len(gold) else -1
            if cmp == -1:
                out_p.append(_entity_label(got[i]))
                out_t.append("None")
                i += 1
            elif cmp == 1:
                out_t.append(_entity_label(gold[j]))
                out_p.append("None")
                j += 1
            else:
                out_p.append(_entity_label(got[i]))
                out_t.append(_entity_label(gold[j]))
                i += 1
                j += 1
    return out_t, out_p


def _serialised(items: Sequence[StoredItem]) -> tuple[list[str], list[str]]:
    """Targets and predictions as Rasa serialises them: actions, intents, entities."""
    pairs = action_pairs(items)
    targets = [t for t, _, _ in pairs]
    predictions = [p for _, p, _ in pairs]
    for item in items:
        for gold, got in item.data.get("intents") or []:
            targets.append(gold or "")
            predictions.append(got or "")
    entity_t, entity_p = aligned_entities(items)
    return targets + entity_t, predictions + entity_p


def story_report(items: Sequence[StoredItem]) -> dict[str, Any]:
    """``story_report.json``: scikit-learn's classification report of the actions (with
    ``--e2e`` also the intents and entities; labels: the expected ones), completed as Rasa
    does, with ``conversation_accuracy``."""
    from nlu_tui.scoring.intent_report import classification_report

    targets, predictions = _serialised(items)
    labels = sorted(set(targets))
    report: dict[str, Any] = (
        dict(classification_report(targets, predictions, labels)) if labels else {}
    )
    accuracy = (
        sum(1 for t, p in zip(targets, predictions, strict=True) if t == p) / len(targets)
        if targets
        else 0.0
    )
    if "accuracy" in report and "micro avg" not in report:
        acc = report["accuracy"]
        report["micro avg"] = {
            "precision": acc,
            "recall": acc,
            "f1-score": acc,
            "support": report["macro avg"]["support"],
        }
    elif report and "accuracy" not in report:
        report["accuracy"] = accuracy
    stories = [i for i in items if "written" in i.data]
    correct = sum(1 for i in stories if i.outcome == "passed")
    if stories and report:
        report["conversation_accuracy"] = {
            "accuracy": correct / len(stories),
            "correct": correct,
            "with_warnings": sum(1 for r in _story_results(items) if r.passed and r.warning),
            "total": len(stories),
        }
    return report


def _in_training_data_fraction(pairs: Sequence[tuple[str, str, str | None]]) -> float:
    """Rasa's ``_in_training_data_fraction`` (policy names ending ``_RulePolicy``...)."""
    memorizing = ("RulePolicy", "MemoizationPolicy", "AugmentedMemoizationPolicy")
    inside = [p for p in pairs if p[2] and any(p[2].endswith(f"_{m}") for m in memorizing)]
    return len(inside) / len(pairs) if pairs else 0.0


def _weighted(report: dict[str, Any], key: str) -> float:
    avg = report.get("weighted avg") or {}
    return float(avg.get(key, 0.0))


@dataclass(frozen=True)
class StoryFigures:
    """The figures ``rasa test core`` logs for a stories run (conversation and action level)."""

    correct: int
    total: int
    actions: int
    actions_correct: int
    f1: float
    precision: float
    accuracy: float
    in_data_fraction: float

    @property
    def conversation_accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


def story_figures(items: Sequence[StoredItem]) -> StoryFigures:
    """Computed once for every face (the console text, the HTML and Markdown reports)."""
    stories = [i for i in items if "written" in i.data]
    pairs = action_pairs(items)
    targets, predictions = _serialised(items)
    # Rasa logs "Correct" as len(action targets) x the accuracy over everything it scored
    accuracy = (
        sum(1 for t, p in zip(targets, predictions, strict=True) if t == p) / len(targets)
        if targets
        else 0.0
    )
    report = story_report(items)
    return StoryFigures(
        correct=sum(1 for i in stories if i.outcome == "passed"),
        total=len(stories),
        actions=len(pairs),
        actions_correct=int(len(pairs) * accuracy),
        f1=_weighted(report, "f1-score"),
        precision=_weighted(report, "precision"),
        accuracy=accuracy,
        in_data_fraction=_in_training_data_fraction(pairs),
    )


def stories_text(items: Sequence[StoredItem]) -> str:
    """The evaluation tables ``rasa test core`` logs, then each failed story and its first
    wrong prediction, then the action confusion (expected → predicted, counts)."""
    stories = [i for i in items if "written" in i.data]
    errors = [i for i in items if i.outcome == "error"]
    pairs = action_pairs(items)
    f = story_figures(items)
    lines = [
        "Evaluation Results on CONVERSATION level:",
        f"\tCorrect:          {f.correct} / {f.total}",
        f"\tAccuracy:         {f.conversation_accuracy:.3f}",
        "Evaluation Results on ACTION level:",
        f"\tCorrect:          {f.actions_correct} / {f.actions}",
        f"\tF1-Score:         {f.f1:.3f}",
        f"\tPrecision:        {f.precision:.3f}",
        f"\tAccuracy:         {f.accuracy:.3f}",
        f"\tIn-data fraction: {f.in_data_fraction:.3g}",
    ]
    failed = [i for i in stories if i.outcome == "failed"]
    if failed:
        lines += ["", "Failed stories:"]
        for item in failed:
            d = item.data
            where = d.get("first_failure_line") or d.get("line")
            lines.append(f"  FAILED {d['file']}:{where} {d['name']}: {d.get('first_failure')}")
    for item in errors:
        d = item.data
        lines.append(f"  ERROR {d['file']}:{d.get('line')} {d['name']}: {d.get('error')}")
    confused = Counter((e, p) for e, p, _ in pairs if e != p)
    if confused:
        lines += ["", "Action confusion (expected -> predicted):"]
        for (expected, predicted), count in sorted(
            confused.items(), key=lambda kv: (-kv[1], kv[0])
        ):
            lines.append(f"  {count:>4}  {expected} -> {predicted}")
    return "\n".join(lines) + "\n"


def story_confusion_chart(items: Sequence[StoredItem]) -> ConfusionChart | None:
    """``_plot_story_evaluation``'s matrix: the expected actions against the predicted ones
    (only actions, also with ``--e2e``), over the labels seen on either side; None when no
    action was scored (Rasa would fail to draw an empty matrix)."""
    pairs = Counter((expected, predicted) for expected, predicted, _ in action_pairs(items))
    return confusion_chart(pairs, STORY_CONFUSION_TITLE) if pairs else None


def write_stories_outputs(
    items: Sequence[StoredItem], out_dir: Path, *, plots: bool = True
) -> list[Path]:
    """The files ``rasa test core --out DIR`` writes: ``failed_test_stories.yml``,
    ``stories_with_warnings.yml``, ``story_report.json``, the ``TEDPolicy_*`` entity files
    (:func:`write_policy_entity_files`) and (unless ``plots`` is false, Rasa's ``--no-plot``)
    ``story_confusion_matrix.png``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (
        (FAILED_STORIES_FILE, failed_stories_yaml(items)),
        (WARNINGS_FILE, warnings_yaml(items)),
        (STORY_REPORT_FILE, json.dumps(story_report(items), indent=2) + "\n"),
    ):
        atomic_write_text(out_dir / name, text)
        written.append(out_dir / name)
    written += write_policy_entity_files(items, out_dir, plots=plots)
    chart = story_confusion_chart(items) if plots else None
    if chart is not None:
        from nlu_tui.reports.rasa_plots import write_plots

        written += write_plots(out_dir, [(STORY_CONFUSION_FILE, chart)])
    return written


# --- entities of the policies (TEDPolicy_report.json) -----------------------------------------


def policy_entity_examples(items: Sequence[StoredItem]) -> list[EntityExample]:
    """Rasa's ``entity_results`` of ``rasa test core``: one per action predicted right after a
    user message with text and expected entities (``story_eval.policy_entity_result``)."""
    from nlu_tui.scoring.rasa_entities import EntityExample

    out = []
    for item in items:
        for r in item.data.get("policy_entities") or []:
            out.append(
                EntityExample(
                    text=str(r["text"]),
                    targets=list(r.get("entities") or []),
                    predictions=list(r.get("predicted_entities") or []),
                    tokens=[(int(t[0]), int(t[1])) for t in r.get("tokens") or []],
                )
            )
    return out


def write_policy_entity_files(
    items: Sequence[StoredItem], out_dir: Path, *, plots: bool = True
) -> list[Path]:
    """What ``rasa test core --out DIR`` writes through ``evaluate_entities(entity_results,
    POLICIES_THAT_EXTRACT_ENTITIES, ...)`` (``rasa/core/test.py``, ``rasa/nlu/test.py``), for
    ``TEDPolicy`` whatever the model's policies: ``TEDPolicy_report.json`` (the token-level
    entity report, ``no_entity`` excluded from the rows; ``{}`` when no story has a user
    message with entities), ``TEDPolicy_errors.json`` (each message with a token labelled
    wrong: text, expected entities, the policy's entities; not written when there is none, as
    Rasa's ``_write_errors``) and ``TEDPolicy_confusion_matrix.png`` (unless ``plots`` is false;
    drawn empty when there is nothing, as Rasa)."""
    from nlu_tui.conversation.story_eval import POLICIES_THAT_EXTRACT_ENTITIES
    from nlu_tui.reports.rasa_report import rasa_report_from_counts
    from nlu_tui.scoring.rasa_entities import NO_ENTITY, evaluate_entities

    examples = policy_entity_examples(items)
    written: list[Path] = []
    charts = []
    for evaluation in evaluate_entities(examples, POLICIES_THAT_EXTRACT_ENTITIES):
        name = evaluation.extractor
        report = rasa_report_from_counts(evaluation.pairs, exclude=NO_ENTITY)
        written.append(_rasa_json(out_dir / f"{name}_report.json", report))
        if evaluation.errors:
            errors = [
                {"text": e.text, "entities": e.targets, "predicted_entities": e.predictions}
                for e in evaluation.errors
            ]
            written.append(_rasa_json(out_dir / f"{name}_errors.json", errors))
        if plots:
            chart = confusion_chart(evaluation.pairs, POLICY_ENTITY_TITLE)
            charts.append((f"{name}_confusion_matrix.png", chart))
    if charts:
        from nlu_tui.reports.rasa_plots import write_plots

        written += write_plots(out_dir, charts)
    return written


def _rasa_json(path: Path, obj: Any) -> Path:
    """As ``rasa.shared.utils.io.dump_obj_as_json_to_file``: indent 2, no final newline."""
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False))
    return path
