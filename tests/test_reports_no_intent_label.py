"""One spelling of "no intent" in every report people read (issue 23: ``None``, ``(none)`` and
``(no intent)`` named the same thing on three screens and in the reports).

A case that expects no intent, answers that match none (an empty answer, and the engine's
``None`` intent, which scoring treats as no intent) and a case that should have matched one:
the HTML page, the Markdown summary (with its broke/fixed list) and the JUnit failure lines
all say :data:`~nlu_tui.scoring.intent_report.NO_INTENT_LABEL`, never ``(none)`` or ``None``.
"""

from __future__ import annotations

import re
from typing import Any

from nlu_tui.model import ExpectedIntent, IntentScore, Prediction, Suite, TestCase
from nlu_tui.reports import RunMeta
from nlu_tui.reports.html_report import render_html
from nlu_tui.reports.junit import failure_details
from nlu_tui.reports.markdown_report import render_markdown
from nlu_tui.rundiff import diff_runs
from nlu_tui.scoring.case import ScoringOptions, score_case
from nlu_tui.scoring.intent_report import NO_INTENT_LABEL

OTHER_SPELLINGS = re.compile(r"\(none\)|<none>|\bNone\b")


def _case(case_id: str, utterance: str, intent: str | None) -> TestCase:
    case = TestCase(utterance, intents=[ExpectedIntent(intent)] if intent else [])
    case.id = case_id
    return case


def _answer(intent: str | None) -> Prediction:
    ranking = [IntentScore(intent, 0.9)] if intent else []
    return Prediction(intent=intent, confidence=0.9 if intent else None, ranking=ranking)


def _rows(answers: dict[str, str | None]) -> list[Any]:
    cases = [
        _case("c1", "hello there", "greet"),
        _case("c2", "what is the weather", None),  # expects no intent
        _case("c3", "send money to tom", "transfer_money"),
        _case("c4", "bye", "goodbye"),
    ]
    options = ScoringOptions().for_suite(Suite("s", cases=cases))
    rows = []
    for case in cases:
        prediction = _answer(answers[case.id])
        rows.append((case, prediction, score_case(case, prediction, options)))
    return rows


BEFORE = {"c1": "greet", "c2": "greet", "c3": "transfer_money", "c4": "goodbye"}
"""The baseline: c2 (expects no intent) is a false positive, the rest right."""
AFTER = {"c1": "greet", "c2": None, "c3": "None", "c4": None}
"""This run: c2 fixed; c3 broke to the engine's ``None`` intent, c4 to no answer at all."""


def _meta() -> RunMeta:
    return RunMeta(id="run-after", suite="s", engine="embedded:x.nlu.yml", status="success")


def test_html_report_says_no_intent() -> None:
    page = render_html(_meta(), _rows(AFTER))
    assert NO_INTENT_LABEL in page
    # the failed cases (expected and matched), the per-intent table and the confusion
    failed = page[page.index('id="failed"') :]
    assert failed.count(NO_INTENT_LABEL) >= 2, failed
    intents = page[page.index('id="intents"') : page.index('id="confusion"')]
    assert NO_INTENT_LABEL in intents, intents
    confusion = page[page.index('id="confusion"') : page.index('id="failed"')]
    assert NO_INTENT_LABEL in confusion, confusion
    # the engine's own ranking ("None 0.900", what it answered) is its raw answer, kept as is
    shown = re.sub(r"<script.*?</script>|<td>None 0\.900</td>", "", page, flags=re.S)
    assert not OTHER_SPELLINGS.search(shown)


def test_markdown_summary_and_its_diff_say_no_intent() -> None:
    before, after = _rows(BEFORE), _rows(AFTER)
    diff = diff_runs(
        [r for _c, _p, r in before], [r for _c, _p, r in after], cases=[c for c, _p, _r in after]
    )
    text = render_markdown(_meta(), after, diff=diff, baseline="run-before")
    broke = text[text.index("**Broke") : text.index("**Fixed")]
    assert f"FN {NO_INTENT_LABEL}" in broke, text
    fixed = text[text.index("**Fixed") :]
    assert f"TN {NO_INTENT_LABEL}" in fixed, text
    assert not OTHER_SPELLINGS.search(text), text


def test_junit_failure_lines_say_no_intent() -> None:
    lines = [line for c, p, r in _rows(AFTER) for line in failure_details(c, p, r)]
    assert f"FN: expected intent 'transfer_money', matched {NO_INTENT_LABEL}" in lines, lines
    assert f"FN: expected intent 'goodbye', matched {NO_INTENT_LABEL}" in lines, lines
    assert not any(OTHER_SPELLINGS.search(line) for line in lines), lines
    # and a false positive on a case that expects none
    fp = _rows(BEFORE)[1]
    assert failure_details(*fp) == [f"FP: expected intent {NO_INTENT_LABEL}, matched 'greet'"]
