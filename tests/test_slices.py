"""Metrics per tag, intent kind and parent intent: core, JSON report and ``show -f summary``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from nlu_tui.model import (
    CaseResult,
    ExpectedIntent,
    IntentKind,
    Prediction,
    RunStatus,
    Suite,
    TestCase,
)
from nlu_tui.reports.common import RunMeta
from nlu_tui.reports.json_report import build_json_report, render_json_report
from nlu_tui.scoring.case import score_case
from nlu_tui.scoring.slices import slice_lines, slices, slices_dict
from nlu_tui.store import RunStore


def _rows() -> list[tuple[TestCase, Prediction | None, CaseResult]]:
    spec = [
        # utterance, expected, kind, tags, parents, answer (None: error)
        ("a", "pay", None, ["voice"], [], "pay"),  # TP
        ("b", "pay", None, ["voice", "hard"], [], "card"),  # FP
        ("c", "pay", None, ["voice"], [], None),  # ERROR
        ("d", "hours", IntentKind.FAQ, [], [], "hours"),  # TP
        ("e", "yes", None, ["text"], ["pay"], "no"),  # FP
        ("f", "yes", None, [], ["pay", "amount"], "yes"),  # TP
        ("g", None, None, ["text"], [], ""),  # TN
    ]
    rows: list[tuple[TestCase, Prediction | None, CaseResult]] = []
    for text, exp, kind, tags, parents, got in spec:
        case = TestCase(
            text,
            intents=[ExpectedIntent(exp, kind=kind)] if exp else [],
            tags=tags,
            parent_intents=parents,
        )
        pred = Prediction(intent=got) if got is not None else Prediction(error="down")
        rows.append((case, pred, score_case(case, pred)))
    return rows


def test_slices_hand_counted() -> None:
    found = {d: {s.name: s.summary for s in items} for d, items in slices(_rows()).items()}
    tags = found["tag"]
    assert list(tags) == ["hard", "text", "voice", None]  # sorted, untagged last
    voice = tags["voice"]
    assert (voice.cases, voice.errors, voice.tp, voice.fp) == (3, 1, 1, 1)
    assert voice.precision == 0.5 and voice.recall == 1.0 and voice.f1 == pytest.approx(2 / 3)
    assert (tags["text"].fp, tags["text"].tn, tags["text"].intent_success) == (1, 1, 0.5)
    assert (tags["hard"].cases, tags["hard"].fp) == (1, 1)
    assert (tags[None].cases, tags[None].tp) == (2, 2)
    kinds = found["intent_kind"]
    assert list(kinds) == ["faq", None] and kinds["faq"].tp == 1 and kinds[None].cases == 6
    parents = found["parent_intent"]
    assert list(parents) == ["pay", "pay >> amount", None]
    assert parents["pay"].fp == 1 and parents["pay >> amount"].tp == 1
    assert parents[None].cases == 5


def test_slice_figures_equal_summarize_of_the_slice() -> None:
    """The one-pass counting gives what :func:`summarize` gives for the slice's own results."""
    from nlu_tui.model import EntityResult
    from nlu_tui.scoring.slices import _keys
    from nlu_tui.scoring.summary import summarize

    rows = _rows()
    rows[0][2].entities = [EntityResult("n", "1", "1", True), EntityResult("m", "2", None, False)]
    rows[2][2].entities = [EntityResult("n", "1", None, False)]  # an error's: not counted
    for dimension, items in slices(rows).items():
        for s in items:
            members = [r for c, _p, r in rows if s.name in _member_names(_keys(c), dimension)]
            expected = summarize(members)
            for field in ("cases", "errors", "tp", "tn", "fp", "fn", "precision", "recall"):
                assert getattr(s.summary, field) == getattr(expected, field), (s.name, field)
            assert s.summary.f1 == expected.f1 and s.summary.entity_success == (
                expected.entity_success
            )


def _member_names(
    keys: tuple[list[str | None], list[str | None], str | None], dimension: str
) -> list[str | None]:
    tags, kinds, parent = keys
    return {"tag": tags, "intent_kind": kinds, "parent_intent": [parent]}[dimension]


def test_json_report_has_slices_on_both_paths() -> None:
    rows = _rows()
    meta = RunMeta(id="r1", suite="s", engine="e")
    fast = json.loads(render_json_report(meta, rows))
    plain = json.loads(json.dumps(build_json_report(meta, rows)))
    assert fast["slices"] == plain["slices"] == slices_dict(slices(rows))
    voice = next(s for s in fast["slices"]["tag"] if s["name"] == "voice")
    assert voice == {
        "name": "voice",
        "cases": 3,
        "errors": 1,
        "tp": 1,
        "tn": 0,
        "fp": 1,
        "fn": 0,
        "precision": 0.5,
        "recall": 1.0,
        "f1": pytest.approx(2 / 3),
        "intent_success": 0.5,
        "entity_success": None,
    }
    assert fast["slices"]["tag"][-1]["name"] is None


def test_slice_lines_skip_empty_dimensions_and_make_names_inert() -> None:
    case = TestCase("x", intents=[ExpectedIntent("a")], tags=["\x1b[2Jevil"])
    pred = Prediction(intent="a")
    lines = slice_lines(slices([(case, pred, score_case(case, pred))]))
    assert lines[1] == "  by tag" and "\x1b" not in "".join(lines) and "␛[2Jevil" in lines[2]
    assert not any("intent kind" in line or "parent" in line for line in lines)
    bare = TestCase("y", intents=[ExpectedIntent("a")])
    assert slice_lines(slices([(bare, pred, score_case(bare, pred))])) == []


def test_show_summary_lists_slices() -> None:
    rows = _rows()
    store = RunStore()
    run = store.create_run(Suite(name="s", cases=[c for c, _p, _r in rows]), engine_name="e")
    store.add_results(run.id, [(i, p, r) for i, (_c, p, r) in enumerate(rows) if p is not None])
    store.finish_run(run.id, RunStatus.SUCCESS)
    store.close()
    shown = subprocess.run(
        [sys.executable, "-m", "nlu_tui", "show", run.id],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    at = lines.index("  by tag")
    assert lines[at - 1].startswith("slices") and "precision" in lines[at - 1]
    voice = next(line for line in lines if line.strip().startswith("voice"))
    assert voice.split() == ["voice", "3", "1", "0.500", "1.000", "0.667", "50.0%"]
    assert "  by intent kind" in lines and "  by parent intent" in lines
    assert any(line.split()[:4] == ["pay", ">>", "amount", "1"] for line in lines)


def test_untyped_cases_take_their_expected_intents_kind_not_the_wrong_answers() -> None:
    """A suite without kinds (an imported Kore.ai file): each case is typed by the kind the
    engine gave its expected intent where it matched it in the run. A FAQ case the engine
    took for a dialog intent is a FAQ FP, not a dialog one; a case whose intent the engine
    never matched has no known type; a case expecting no intent takes what the engine matched."""
    faq, dialog, talk = IntentKind.FAQ, IntentKind.DIALOG, IntentKind.SMALL_TALK
    spec = [
        # expected, answer, the kind the engine gave its answer
        ("ask_fees", "ask_fees", faq),  # TP
        ("ask_fees", "check_balance", dialog),  # FP: still a FAQ case
        ("check_balance", "check_balance", dialog),  # TP
        ("report_fraud", None, None),  # FN: report_fraud never matched, type unknown
        (None, "greet", talk),  # FP on a case expecting no intent: what the engine matched
    ]
    rows: list[tuple[TestCase, Prediction | None, CaseResult]] = []
    for exp, got, kind in spec:
        case = TestCase("u", intents=[ExpectedIntent(exp)] if exp else [])
        pred = Prediction(intent=got, confidence=0.9 if got else None, intent_kind=kind)
        rows.append((case, pred, score_case(case, pred)))
    kinds = {s.name: s.summary for s in slices(iter(rows))["intent_kind"]}
    assert {k: (s.cases, s.tp, s.fp, s.fn) for k, s in kinds.items()} == {
        "faq": (2, 1, 1, 0),
        "dialog": (1, 1, 0, 0),
        "small_talk": (1, 0, 0, 1),  # no intent expected, small talk matched: FN (Kore.ai)
        None: (1, 0, 0, 1),
    }
