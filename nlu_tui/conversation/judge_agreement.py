"""How far the LLM judge agrees with itself over the attempts of a repeated E2E run
(``nlu-tui test e2e --repeat N`` on test cases with ``generative_response_is_relevant`` /
``_is_grounded`` assertions).

Each attempt of a test case holds its own conversation and asks the judge again, so a judged
step (one generative assertion of one test case) has up to N verdicts. Per judged step:
how many attempts were judged, how many of them agree with the most common verdict
(pass/fail), and the spread of the scores (highest minus lowest). Over the run: the agreement
rate, the share of judged steps measured at least twice whose verdicts were all the same.

An attempt that never reached the assertion (an earlier assertion failed, or the engine or
the judge failed: the attempt is an error) gives that step no verdict; it is left out, not
counted as a disagreement. The figures are computed here once, from the stored items, and
stored in the run's summary (``judge_agreement``); the CLI, JSON and JUnit show them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nlu_tui.repeats import REPEAT_OF, is_attempt
from nlu_tui.store.records import StoredItem

JUDGED_TYPES = ("generative_response_is_relevant", "generative_response_is_grounded")


def _judged_rows(item: StoredItem) -> list[dict[str, Any]]:
    rows = item.data.get("assertions") if isinstance(item.data, dict) else None
    return [
        r
        for r in rows or []
        if isinstance(r, dict)
        and r.get("type") in JUDGED_TYPES
        and r.get("status") in ("passed", "failed")
        and isinstance(r.get("score"), int | float)
    ]


def judge_agreement(items: Sequence[StoredItem], repeat: int) -> dict[str, Any] | None:
    """The judge's agreement with itself over the stored items of a repeated run (each item's
    own row, attempt #1, and its attempts #2..#N); None when no step was judged."""
    attempts: dict[str, list[tuple[int, StoredItem]]] = {}
    order: list[StoredItem] = []
    for item in items:
        if is_attempt(item):
            of = str(item.data[REPEAT_OF])
            attempts.setdefault(of, []).append((int(item.data.get("attempt") or 0), item))
        else:
            order.append(item)
    steps: list[dict[str, Any]] = []
    for item in order:
        tries = [item, *(i for _k, i in sorted(attempts.get(item.item_id, []), key=_first))]
        by_step: dict[tuple[Any, str], dict[str, Any]] = {}
        for attempt, tried in enumerate(tries, start=1):
            for row in _judged_rows(tried):
                key = (row.get("line"), str(row["type"]))
                step = by_step.setdefault(
                    key,
                    {
                        "item_id": item.item_id,
                        "name": str(item.data.get("name") or item.item_id),
                        "type": row["type"],
                        "line": row.get("line"),
                        "threshold": row.get("threshold"),
                        "attempts": [],
                        "verdicts": [],
                        "scores": [],
                    },
                )
                step["attempts"].append(attempt)
                step["verdicts"].append(row["status"])
                step["scores"].append(float(row["score"]))
        for step in sorted(by_step.values(), key=lambda s: (s["line"] or 0, s["type"])):
            passed = step["verdicts"].count("passed")
            failed = step["verdicts"].count("failed")
            judged = passed + failed
            step.update(
                judged=judged,
                agreeing=max(passed, failed),
                majority="passed" if passed > failed else "failed" if failed > passed else None,
                unanimous=judged >= 2 and (passed == 0 or failed == 0),
                score_min=min(step["scores"]),
                score_max=max(step["scores"]),
                score_spread=round(max(step["scores"]) - min(step["scores"]), 6),
            )
            steps.append(step)
    if not steps:
        return None
    measured = [s for s in steps if s["judged"] >= 2]
    agreed = [s for s in measured if s["unanimous"]]
    return {
        "repeat": repeat,
        "judged_steps": len(steps),
        "measured": len(measured),
        "agreed": len(agreed),
        "agreement_rate": len(agreed) / len(measured) if measured else None,
        "steps": steps,
    }


def _first(pair: tuple[int, StoredItem]) -> int:
    return pair[0]


def _score(value: float) -> str:
    return f"{round(value, 2):g}"


def step_line(step: dict[str, Any]) -> str:
    """One judged step: ``type (line L): A/J attempts agree (verdict), scores lo-hi (spread
    S)``; ``A/J`` counts the attempts that agree with the most common verdict."""
    verdict = step.get("majority") or "tied"
    lo, hi = float(step["score_min"]), float(step["score_max"])
    return (
        f"{step['type']} (line {step['line']}): {step['agreeing']}/{step['judged']} attempts "
        f"agree ({verdict}), scores {_score(lo)}-{_score(hi)} "
        f"(spread {_score(float(step['score_spread']))})"
    )


def agreement_headline(agreement: dict[str, Any]) -> str:
    rate = agreement.get("agreement_rate")
    share = "n/a" if rate is None else f"{rate:.0%}"
    return (
        f"judge agreement over {agreement.get('repeat')} attempts: {share} of "
        f"{agreement.get('measured', 0)} judged steps unanimous "
        f"({agreement.get('agreed', 0)} agreed, "
        f"{int(agreement.get('measured', 0)) - int(agreement.get('agreed', 0))} disagreed)"
    )


def agreement_lines(agreement: dict[str, Any]) -> list[str]:
    """What the CLI prints: the headline, then each judged step under its test case."""
    from nlu_tui.textsafe import inert

    lines = [agreement_headline(agreement)]
    for step in agreement.get("steps", []):
        mark = "" if step.get("unanimous") or step.get("judged", 0) < 2 else "  DISAGREE"
        lines.append(f"  {inert(str(step.get('name')))}: {step_line(step)}{mark}")
    return lines


def steps_of(agreement: dict[str, Any] | None, item_id: str) -> list[dict[str, Any]]:
    """The judged steps of one test case (for its JUnit ``<testcase>``)."""
    if not agreement:
        return []
    return [s for s in agreement.get("steps", []) if s.get("item_id") == item_id]
