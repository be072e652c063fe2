"""What the workbench shows of a DUT run, from its stored summary (Rasa Pro's report dict):
the per-command metrics table and the failed steps with their EXPECTED | PREDICTED diff."""

from __future__ import annotations

from typing import Any

METRIC_COLUMNS = ("command", "total", "tp", "fp", "fn", "precision", "recall", "f1")


def metric_rows(summary: dict[str, Any]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for name, m in (summary.get("command_metrics") or {}).items():
        rows.append(
            (
                str(name),
                str(m.get("total_count", 0)),
                str(m.get("tp", 0)),
                str(m.get("fp", 0)),
                str(m.get("fn", 0)),
                f"{m.get('precision', 0.0):.4f}",
                f"{m.get('recall', 0.0):.4f}",
                f"{m.get('f1_score', 0.0):.4f}",
            )
        )
    return rows


def headline(summary: dict[str, Any]) -> list[str]:
    if not summary.get("command_metrics") and "accuracy" not in summary:
        return ["No figures stored for this run (still running, or canceled before any case)."]
    acc = summary.get("accuracy", {})
    f1 = summary.get("f1_score", {})
    lines = [
        f"test cases: {summary.get('number_of_passed_tests', 0)} passed, "
        f"{summary.get('number_of_failed_tests', 0)} failed "
        f"(accuracy {acc.get('test_cases', 0.0):.4f})",
        f"user steps: {summary.get('number_of_passed_user_utterances', 0)} passed, "
        f"{summary.get('number_of_failed_user_utterances', 0)} failed "
        f"(accuracy {acc.get('user_utterances', 0.0):.4f})",
        f"F1 macro {f1.get('macro', 0.0):.4f}  micro {f1.get('micro', 0.0):.4f}  "
        f"weighted {f1.get('weighted_average', 0.0):.4f}",
    ]
    total = (summary.get("latency") or {}).get("total")
    if total:
        lines.append(f"latency p50 {total['p50'] * 1000:.1f} ms, p90 {total['p90'] * 1000:.1f} ms")
    for component, values in (summary.get("prompt_token") or {}).items():
        lines.append(
            f"prompt tokens ({component}) p50 {values['p50']:.0f}, p90 {values['p90']:.0f}"
        )
    for failure in summary.get("gate_failures") or []:
        lines.append(f"gate failed: {failure}")
    return lines


def failed_step_lines(summary: dict[str, Any]) -> list[str]:
    """One block per failed step: where, the conversation, the diff, the LLM output."""
    out: list[str] = []
    for step in summary.get("failed_test_steps") or []:
        out.append(f"{step.get('file')}::{step.get('test_case')}  (line {step.get('error_line')})")
        out.append(f"  failed at: {step.get('failed_user_utterance')}")
        generators = ", ".join(step.get("command_generators") or []) or "-"
        out.append(f"  command generator(s): {generators}")
        out += [f"  {line}" for line in step.get("conversation") or []]
        out += [f"  {line}" for line in step.get("diff") or []]
        for component, items in (step.get("prompts") or {}).items():
            for item in items:
                if "choices" in item:
                    out.append(f"  LLM output ({component}): {item['choices']}")
        if step.get("error"):
            out.append(f"  error: {step['error']}")
        out.append("")
    return out or ["No failed steps."]
