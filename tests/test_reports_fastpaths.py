"""The fast paths of scoring and exports give exactly what the general code gives.

Scoring and the exports take shortcuts for the common case (no traits, one entity, a
confidence within 0..1, shared summary and labels); each test here compares a shortcut with
the general code it stands in for, on the hand-checked Kore.ai fixture and on random input.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from scoring_fixture import scored

from nlu_tui.model import (
    CaseResult,
    EntityResult,
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    PredictedEntity,
    Prediction,
    ResultType,
    TestCase,
)
from nlu_tui.reports import REPORT_FORMATS, RunMeta, prepare_run, write_report, write_reports
from nlu_tui.reports.common import ResultRow
from nlu_tui.reports.json_report import render_json_report, result_dict
from nlu_tui.reports.junit import _INVALID_XML, _attr, _attr_values, clean
from nlu_tui.reports.kore_csv import COLUMNS, _case_rows, _csv_line, render_kore_csv
from nlu_tui.reports.rasa_report import (
    intent_errors_json,
    prepared_examples,
    rasa_examples,
    rasa_intent_errors,
)
from nlu_tui.scoring.case import (
    ScoringOptions,
    _match,
    _result_type,
    entity_order,
    matched_intent,
    score_case,
)
from nlu_tui.scoring.confusion import confusion_table
from nlu_tui.scoring.histogram import Histogram, confidence_histogram
from nlu_tui.scoring.intent_report import build_intent_report

META = RunMeta(id="r", suite="S & <co>", engine="e", version="published")
OPTIONS = ScoringOptions(small_talk_intents=frozenset({"hi"}))

names = st.sampled_from(["a", " a ", "b", "None", "", "hi", "P >> a", "Q >> b", "A"])
values = st.one_of(
    st.none(),
    st.sampled_from(["10 USD", "Par.*", "paris", "x||y", "c:1|d:2"]),
    st.integers(-5, 20),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.lists(st.sampled_from(["x", "y", "10"]), max_size=3),
    st.just([{"code": "USD", "amount": 10}]),
    st.just({"c": 1, "d": "2"}),
)


@st.composite
def pairs(draw: st.DrawFn) -> tuple[TestCase, Prediction]:
    intents = [
        ExpectedIntent(n, draw(st.sampled_from([None, IntentKind.SMALL_TALK])))
        for n in draw(st.lists(names, max_size=2))
    ]
    entities = [
        ExpectedEntity(
            draw(st.sampled_from(["amount", "city", "City "])),
            draw(st.sampled_from(["10 USD", "Par.*", "paris", "x||y", "c:1|d:2", "10"])),
            alternatives=draw(st.lists(st.sampled_from(["y||x", "10 usd"]), max_size=1)),
        )
        for _ in range(draw(st.integers(0, 2)))
    ]
    predicted = [
        PredictedEntity(
            draw(st.sampled_from(["amount", "city", "CITY"])),
            draw(values),
            start=draw(st.one_of(st.none(), st.integers(0, 30))),
        )
        for _ in range(draw(st.integers(0, 3)))
    ]
    case = TestCase(
        "u",
        intents=intents,
        parent_intents=draw(st.sampled_from([[], ["P"]])),
        entities=entities,
        entity_order=draw(st.sampled_from([[], ["city", "amount"]])),
    )
    return case, Prediction(intent=draw(st.one_of(st.none(), names)), entities=predicted)


def general_score(case: TestCase, prediction: Prediction, options: ScoringOptions) -> CaseResult:
    """score_case as it was before its shortcuts, from the general functions."""
    matched = matched_intent(prediction, options)
    kind = _result_type(case, prediction, matched, options)
    assigned, ok, flats = _match(case.entities, prediction.entities)
    if case.entities:
        actual, order_ok = entity_order(case, prediction, assigned)
    else:
        actual = []  # nothing expected: no entity of the engine's is matched to an order
        order_ok = False if case.entity_order else None
    return CaseResult(
        case_id=case.id,
        result=kind,
        matched_intent=matched,
        confidence=prediction.confidence,
        entities=[
            EntityResult(e.name, e.value, f, g)
            for e, f, g in zip(case.entities, flats, ok, strict=True)
        ],
        expected_entity_order=list(case.entity_order),
        actual_entity_order=actual,
        entity_order_ok=order_ok,
        latency_ms=prediction.latency_ms,
    )


@settings(max_examples=400, deadline=None)
@given(pairs())
def test_score_case_shortcuts_equal_the_general_path(pair: tuple[TestCase, Prediction]) -> None:
    case, prediction = pair
    assert score_case(case, prediction, OPTIONS) == general_score(case, prediction, OPTIONS)


def fixture_rows() -> list[ResultRow]:
    return [(c, p, r) for c, p, _k, r in scored()]


def test_write_reports_shares_figures_with_the_same_bytes(tmp_path: Path) -> None:
    """Each format written alone (one process, its own summary) and ``write_reports`` (shared
    figures, rows rendered in three processes) write the same bytes."""
    rows = fixture_rows()
    assert any(r.result is ResultType.ERROR for _c, _p, r in rows)
    alone, shared = tmp_path / "alone", tmp_path / "shared"
    targets = {}
    for fmt, spec in REPORT_FORMATS.items():
        target = alone / f"r{spec.extension}" if spec.extension else alone / fmt
        write_report(fmt, target, META, rows, processes=1)
        targets[fmt] = shared / f"r{spec.extension}" if spec.extension else shared / fmt
    written = write_reports(targets, META, rows, processes=3)
    # rasa writes two intent files and, the fixture expecting entities from an engine that
    # names no extractor, entities_report.json and entities_errors.json; and three plots
    # (intent confusion matrix and histogram, the entities' confusion matrix), metric_spec.json;
    # html and markdown one file each
    assert len(written) == 14
    for path in written:
        before = alone / path.relative_to(shared)
        assert path.read_bytes() == before.read_bytes(), path.name


def test_prepared_rasa_examples_equal_the_general_ones_over_any_ranges() -> None:
    rows = fixture_rows()
    prepared = prepare_run(rows, OPTIONS)
    general = rasa_examples(rows, OPTIONS)
    assert general  # the fixture has cases Rasa evaluates
    for cut in range(len(rows) + 1):
        joined = prepared_examples(prepared, 0, cut) + prepared_examples(prepared, cut)
        assert joined == general, cut


def test_prepared_from_the_results_view_equals_a_fresh_one() -> None:
    rows = fixture_rows()
    report = build_intent_report(rows)
    reused = prepare_run(rows, intent_report=report)
    fresh = prepare_run(rows)
    assert (reused.y_true, reused.y_pred, reused.report) == (
        fresh.y_true,
        fresh.y_pred,
        fresh.report,
    )
    assert confusion_table(rows, labels=(report.y_true, report.y_pred)) == confusion_table(rows)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(max_size=8),
            st.text(max_size=4),
            st.text(max_size=4),
            st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False), st.integers()),
        ),
        max_size=5,
    )
)
def test_intent_errors_json_equals_json_dumps(
    examples: list[tuple[str, str, str, float | None]],
) -> None:
    expected = json.dumps(rasa_intent_errors(examples), indent=2, ensure_ascii=False)
    assert intent_errors_json(examples) == expected


@given(
    st.lists(
        st.tuples(
            st.sampled_from(list(ResultType)),
            st.one_of(st.none(), st.floats(-1, 3), st.just(float("nan")), st.just(0.15)),
        ),
        max_size=30,
    )
)
def test_histogram_shortcut_equals_add(items: list[tuple[ResultType, float | None]]) -> None:
    results = [CaseResult(str(i), kind, None, c) for i, (kind, c) in enumerate(items)]
    slow = Histogram()
    for r in results:
        if r.result is not ResultType.ERROR:
            slow.add(r.confidence, r.result in (ResultType.TP, ResultType.TN))
    assert confidence_histogram(results) == slow


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab ,\"\r\n\t;é'")), max_size=6), min_size=2))
def test_csv_line_equals_csv_writer(fields: list[str]) -> None:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerow(fields)
    assert _csv_line(fields) + "\r\n" == buf.getvalue()


def test_kore_csv_lines_equal_csv_writer_on_awkward_text(tmp_path: Path) -> None:
    """Commas, quotes and line breaks in every field the one-line shortcut writes."""
    odd = 'a,"b"\r\nc'
    case = TestCase(
        odd,
        intents=[ExpectedIntent(odd)],
        parent_intents=[odd, "p"],
        entities=[ExpectedEntity(odd, odd)],
        entity_order=[odd],
        id=odd,
    )
    prediction = Prediction(intent="x,y", confidence=0.5, entities=[PredictedEntity(odd, 'v,"')])
    rows: list[ResultRow] = [(case, prediction, score_case(case, prediction))]
    text = render_kore_csv(META, rows)
    table = list(csv.reader(io.StringIO(text, newline="")))
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows(
        _case_rows(case, prediction, rows[0][2], "Published", ScoringOptions())
    )
    assert text.endswith(buf.getvalue())
    assert table[-1][0] == odd and table[-1][COLUMNS.index("Case Id")] == odd


def test_invalid_xml_class_is_the_xml_1_0_complement() -> None:
    """junit's positive class of invalid characters equals XML 1.0's ``Char`` complement."""
    complement = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
    for start in range(0, 0x110000, 0x8000):
        block = "".join(chr(c) for c in range(start, start + 0x8000))
        assert _INVALID_XML.sub("?", block) == complement.sub("?", block)


def test_json_results_equal_result_dict() -> None:
    rows = fixture_rows()
    doc = json.loads(render_json_report(META, rows))
    assert doc["results"] == [result_dict(row) for row in rows]


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x2FF), max_size=12))
def test_junit_clean_shortcut_equals_the_regex(text: str) -> None:
    assert clean(text) == _INVALID_XML.sub("\ufffd", text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.one_of(
                st.sampled_from(list('&<>"\t\n\r\x00\x01\x08\x0b\x1f\ud800\ufffe\uffffa é')),
                st.characters(min_codepoint=0, max_codepoint=0x10FFFF),
            ),
            max_size=8,
        ),
        max_size=6,
    )
)
def test_junit_attribute_values_in_one_pass_equal_one_by_one(texts: list[str]) -> None:
    assert _attr_values(texts) == [_attr(t)[1:-1] for t in texts]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            pairs(),
            st.sampled_from(["plain", 'a "q"', "a,b", "l\r\nm", "é"]),
            st.sampled_from(["id", "i,d", 'i"d']),
            st.one_of(st.none(), st.sampled_from(["HTTP 503", "x,y"])),
        ),
        max_size=6,
    )
)
def test_kore_csv_body_equals_csv_writer_over_the_general_rows(
    items: list[tuple[tuple[TestCase, Prediction], str, str, str | None]],
) -> None:
    """The one-f-string-per-row shortcut against csv.writer on :func:`_case_rows`."""
    rows: list[ResultRow] = []
    for (case, prediction), utterance, case_id, error in items:
        case.utterance, case.id = utterance, case_id
        prediction.error = error
        rows.append((case, prediction, score_case(case, prediction, OPTIONS)))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    for case, prediction, result in rows:
        writer.writerows(_case_rows(case, prediction, result, "Published", OPTIONS))
    body = buf.getvalue()
    text = render_kore_csv(META, rows, OPTIONS)
    assert text.endswith(body)
    assert text[: len(text) - len(body)].endswith("Case Id,Entity Order Result\r\n")
