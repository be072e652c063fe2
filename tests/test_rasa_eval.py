"""Rasa's evaluation as ``rasa test nlu`` does it (Rasa 3.6 ``rasa/nlu/test.py``), without Rasa.

Entities: the token-tag scoring of Rasa's "Testing Your Assistant" page, seed 002's "near
Alexanderplatz tonight" table row by row. Intents: the fallback undone
(``undo_fallback_prediction``), duplicates dropped as Rasa's reader drops them
(``TrainingData.sanitize_examples``), ``--successes`` and ``--no-errors``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from nlu_tui.engines.rasa import parse_rasa_answer
from nlu_tui.model import ExpectedEntity, ExpectedIntent, TestCase
from nlu_tui.reports import RunMeta, write_report, write_reports
from nlu_tui.reports.rasa_report import RasaOptions, rasa_report_from_counts
from nlu_tui.scoring.case import score_case
from nlu_tui.scoring.rasa_entities import (
    NO_ENTITY,
    EntityExample,
    evaluate_entities,
    simple_tokens,
    token_label,
)

NO_PLOTS = RasaOptions(plots=False)

META = RunMeta(id="r", suite="s", engine="rasa")
TEXT = "near Alexanderplatz tonight"
TOKENS = [(0, 4), (5, 19), (20, 27)]
TARGETS = [
    {"start": 0, "end": 19, "value": "near Alexanderplatz", "entity": "loc"},
    {"start": 20, "end": 27, "value": "tonight", "entity": "time"},
]


def ent(start: int, end: int, name: str, **more: Any) -> dict[str, Any]:
    return {"start": start, "end": end, "value": TEXT[start:end], "entity": name, **more}


# Seed 002, "Entity Scoring": extracted -> simple tags (score = tokens labelled right).
SEED_002_TABLE = [
    ("[near Alexanderplatz](loc) [tonight](time)", [ent(0, 19, "loc"), ent(20, 27, "time")],
     ["loc", "loc", "time"], 3),
    ("[near](loc) [Alexanderplatz](loc) [tonight](time)",
     [ent(0, 4, "loc"), ent(5, 19, "loc"), ent(20, 27, "time")], ["loc", "loc", "time"], 3),
    ("near [Alexanderplatz](loc) [tonight](time)", [ent(5, 19, "loc"), ent(20, 27, "time")],
     [NO_ENTITY, "loc", "time"], 2),
    ("[near](loc) Alexanderplatz [tonight](time)", [ent(0, 4, "loc"), ent(20, 27, "time")],
     ["loc", NO_ENTITY, "time"], 2),
    ("[near Alexanderplatz tonight](loc)", [ent(0, 27, "loc")], ["loc", "loc", "loc"], 2),
]  # fmt: skip


def test_the_tokenizer_cuts_the_seed_text_as_rasas_whitespace_tokenizer() -> None:
    assert simple_tokens(TEXT) == TOKENS
    assert simple_tokens("Hi, Berlin! -- ok?") == [(0, 2), (4, 10), (15, 17)]
    assert simple_tokens("") == []


@pytest.mark.parametrize(("markup", "extracted", "tags", "score"), SEED_002_TABLE)
def test_seed_002_near_alexanderplatz_row(
    markup: str, extracted: list[dict[str, Any]], tags: list[str], score: int
) -> None:
    assert [token_label(t, TARGETS) for t in TOKENS] == ["loc", "loc", "time"]
    assert [token_label(t, extracted) for t in TOKENS] == tags, markup
    example = EntityExample(TEXT, TARGETS, [dict(e, extractor="X") for e in extracted], TOKENS)
    (evaluation,) = evaluate_entities([example])
    hits = sum(n for (t, p), n in evaluation.pairs.items() if t == p)
    assert hits == score, markup
    assert evaluation.errors == ([] if score == 3 else [example])
    report = rasa_report_from_counts(evaluation.pairs, exclude=NO_ENTITY)
    assert NO_ENTITY not in report
    assert report["accuracy"] == pytest.approx(score / 3)
    _check_against_sklearn(report, evaluation.pairs)


def _check_against_sklearn(report: dict[str, Any], pairs: Any) -> None:
    """Rasa's ``get_evaluation_metrics(..., exclude_label=NO_ENTITY)`` on scikit-learn."""
    import sklearn.metrics

    targets = [t for (t, _p), n in pairs.items() for _ in range(n)]
    preds = [p for (_t, p), n in pairs.items() for _ in range(n)]
    labels = list(set(targets) - {NO_ENTITY})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = sklearn.metrics.classification_report(
            targets, preds, labels=labels, output_dict=True
        )
    accuracy = sklearn.metrics.accuracy_score(targets, preds)
    # rasa/model_testing.py make_classification_report_complete
    if "accuracy" in theirs and "micro avg" not in theirs:
        acc = theirs["accuracy"]
        support = theirs["macro avg"]["support"]
        theirs["micro avg"] = {"precision": acc, "recall": acc, "f1-score": acc, "support": support}
    elif "accuracy" not in theirs and "micro avg" in theirs:
        theirs["accuracy"] = accuracy
    assert set(report) == set(theirs)
    for key, row in theirs.items():
        if isinstance(row, dict):
            for metric, value in row.items():
                assert report[key][metric] == pytest.approx(value, abs=1e-12), (key, metric)
        else:
            assert report[key] == pytest.approx(row, abs=1e-12)


def test_labels_are_type_group_role_and_the_best_fit_wins() -> None:
    entities = [
        {"start": 0, "end": 6, "entity": "city", "role": "destination", "group": "1"},
        {"start": 5, "end": 12, "entity": "date"},
    ]
    assert token_label((0, 6), entities) == "city.1.destination"
    assert token_label((5, 12), entities) == "date"  # 7 shared characters beat 1
    assert token_label((13, 15), entities) == NO_ENTITY
    assert token_label((0, 6), [{"start": 0, "end": 6, "entity": "city", "role": "from"}]) == (
        "city.from"
    )


def _row(case: TestCase, answer: dict[str, Any]) -> Any:
    prediction = parse_rasa_answer(answer, case.utterance)
    return case, prediction, score_case(case, prediction)


def _answer(
    text: str, intent: str, ranking: list[tuple[str, float]], **more: Any
) -> dict[str, Any]:
    return {
        "text": text,
        "intent": {"name": intent, "confidence": ranking[0][1]},
        "intent_ranking": [{"name": n, "confidence": c} for n, c in ranking],
        **more,
    }


def test_the_fallback_is_undone_as_rasa_test_nlu_does(tmp_path: Path) -> None:
    rows = [
        _row(
            TestCase("hm hello", intents=[ExpectedIntent("greet")], id="a"),
            _answer("hm hello", "nlu_fallback", [("nlu_fallback", 0.7), ("greet", 0.41)]),
        ),
        _row(
            TestCase("bye then", intents=[ExpectedIntent("bye")], id="b"),
            _answer("bye then", "nlu_fallback", [("nlu_fallback", 0.7), ("greet", 0.39)]),
        ),
        _row(
            TestCase("bye", intents=[ExpectedIntent("bye")], id="c"),
            _answer("bye", "bye", [("bye", 0.9), ("greet", 0.1)]),
        ),
    ]
    assert rows[0][1].intent is None  # Kore.ai-style scoring still sees no intent
    write_report("rasa", tmp_path, META, rows)
    report = json.loads((tmp_path / "intent_report.json").read_text())
    errors = json.loads((tmp_path / "intent_errors.json").read_text())
    assert report["accuracy"] == pytest.approx(2 / 3)
    assert report["bye"]["confused_with"] == {"greet": 1}
    assert errors == [
        {
            "text": "bye then",
            "intent": "bye",
            "intent_prediction": {"name": "greet", "confidence": 0.39},
        }
    ]


def test_a_lone_fallback_stays_as_rasa_leaves_it() -> None:
    # undo_fallback_prediction needs a second ranking entry; without it nothing is undone.
    p = parse_rasa_answer(_answer("x", "nlu_fallback", [("nlu_fallback", 1.0)]), "x")
    assert p.pre_fallback_intent is None


def test_duplicates_are_dropped_as_rasas_reader_drops_them(tmp_path: Path) -> None:
    def case(text: str, intent: str, i: int) -> TestCase:
        return TestCase(text, intents=[ExpectedIntent(intent)], id=f"c{i}")

    answer = _answer("hi", "bye", [("bye", 0.8), ("greet", 0.2)])
    rows = [
        _row(case("hi", "greet", 0), answer),
        _row(case("hi", "greet", 1), answer),  # the same example: dropped
        _row(case("hi", "hello", 2), answer),  # another intent: another example
    ]
    write_report("rasa", tmp_path, META, rows)
    report = json.loads((tmp_path / "intent_report.json").read_text())
    errors = json.loads((tmp_path / "intent_errors.json").read_text())
    assert report["macro avg"]["support"] == 2
    assert [e["intent"] for e in errors] == ["greet", "hello"]


def _entity_rows() -> list[Any]:
    text = "pay my credit card now"
    case = TestCase(
        text,
        intents=[ExpectedIntent("pay")],
        entities=[ExpectedEntity("account_type", "credit", text="credit card", start=7, end=18)],
        id="e1",
    )
    crf = {"entity": "account_type", "start": 7, "end": 13, "value": "credit",
           "extractor": "CRFEntityExtractor", "confidence_entity": 0.9}  # fmt: skip
    regex = {"entity": "account_type", "start": 7, "end": 18, "value": "credit card",
             "extractor": "RegexEntityExtractor"}  # fmt: skip
    duckling = {"entity": "time", "start": 19, "end": 22, "value": "x",
                "extractor": "DucklingEntityExtractor"}  # fmt: skip
    answer = _answer(
        text, "pay", [("pay", 0.9), ("greet", 0.1)],
        entities=[crf, regex, duckling],
        text_tokens=[[0, 3], [4, 6], [7, 13], [14, 18], [19, 22]],
    )  # fmt: skip
    plain = TestCase("hello", intents=[ExpectedIntent("greet")], id="e2")
    return [
        _row(case, answer),
        _row(plain, _answer("hello", "greet", [("greet", 0.8), ("pay", 0.2)], entities=[])),
    ]


def test_one_report_and_errors_file_per_extractor(tmp_path: Path) -> None:
    written = write_report("rasa", tmp_path, META, _entity_rows())
    assert sorted(p.name for p in written) == sorted(
        [
            "intent_report.json",
            "intent_errors.json",
            "CRFEntityExtractor_report.json",
            "CRFEntityExtractor_errors.json",
            "RegexEntityExtractor_report.json",
            "RegexEntityExtractor_errors.json",
            # the plots (rasa/nlu/test.py): a histogram only for the extractors with
            # confidences (EXTRACTORS_WITH_CONFIDENCES: CRF and DIET)
            "intent_confusion_matrix.png",
            "intent_histogram.png",
            "CRFEntityExtractor_confusion_matrix.png",
            "CRFEntityExtractor_histogram.png",
            "RegexEntityExtractor_confusion_matrix.png",
            "metric_spec.json",  # ours: which definitions the folder follows
        ]
    )  # Duckling is pretrained: Rasa leaves it out
    crf = json.loads((tmp_path / "CRFEntityExtractor_report.json").read_text())
    # tokens pay my credit card now hello: targets O O at at O O, CRF O O at O O O
    assert crf["account_type"]["precision"] == 1.0
    assert crf["account_type"]["recall"] == 0.5
    assert crf["account_type"]["support"] == 2
    assert crf["accuracy"] == pytest.approx(5 / 6)
    assert "no_entity" not in crf and crf["account_type"]["confused_with"] == {}
    errors = json.loads((tmp_path / "CRFEntityExtractor_errors.json").read_text())
    assert len(errors) == 1 and errors[0]["text"] == "pay my credit card now"
    assert errors[0]["entities"] == [
        {"start": 7, "end": 18, "value": "credit", "entity": "account_type"}
    ]
    assert [e["extractor"] for e in errors[0]["predicted_entities"]] == [
        "CRFEntityExtractor",
        "RegexEntityExtractor",
    ]
    regex = json.loads((tmp_path / "RegexEntityExtractor_report.json").read_text())
    assert regex["accuracy"] == 1.0
    assert json.loads((tmp_path / "RegexEntityExtractor_errors.json").read_text()) == []


def test_successes_and_no_errors(tmp_path: Path) -> None:
    rows = _entity_rows()
    written = write_reports(
        {"rasa": tmp_path}, META, rows, rasa=RasaOptions(successes=True, errors=False)
    )
    names = {p.name for p in written}
    assert "intent_errors.json" not in names and "CRFEntityExtractor_errors.json" not in names
    assert {"intent_successes.json", "CRFEntityExtractor_successes.json"} <= names
    successes = json.loads((tmp_path / "intent_successes.json").read_text())
    assert [s["intent"] for s in successes] == ["pay", "greet"]
    assert successes[0]["intent_prediction"] == {"name": "pay", "confidence": 0.9}
    # Rasa lists an example among the successes when any entity token is right.
    crf = json.loads((tmp_path / "CRFEntityExtractor_successes.json").read_text())
    assert [s["text"] for s in crf] == ["pay my credit card now"]


def test_no_entity_files_when_no_case_expects_an_entity(tmp_path: Path) -> None:
    rows = _entity_rows()[1:]
    written = write_report("rasa", tmp_path, META, rows)
    assert [p.name for p in written] == [
        "intent_report.json",
        "intent_errors.json",
        "intent_confusion_matrix.png",
        "intent_histogram.png",
        "metric_spec.json",
    ]


def test_list_notation_puts_the_first_entity_on_the_token(tmp_path: Path) -> None:
    """``[ice cream][{"entity": "food"}, {"entity": "desert"}]``: two expected entities on one
    span; Rasa's ``pick_best_entity_fit`` (numpy ``argmax``) keeps the first."""
    from nlu_tui.formats.rasa_markup import parse_example

    parsed = parse_example('I like [ice cream][{"entity": "food"}, {"entity": "desert"}]')
    case = TestCase(parsed.text, intents=[ExpectedIntent("inform")], entities=parsed.entities)
    predicted = {"entity": "desert", "start": 7, "end": 16, "value": "ice cream", "extractor": "X"}
    answer = _answer(parsed.text, "inform", [("inform", 1.0), ("greet", 0.0)], entities=[predicted])
    write_report("rasa", tmp_path, META, [_row(case, answer)])
    report = json.loads((tmp_path / "X_report.json").read_text())
    assert report["food"]["support"] == 2 and report["food"]["recall"] == 0.0
    assert report["food"]["confused_with"] == {"desert": 2}
    errors = json.loads((tmp_path / "X_errors.json").read_text())
    assert [e["entity"] for e in errors[0]["entities"]] == ["food", "desert"]


def _selector(key: str, confidence: float) -> dict[str, Any]:
    response = {
        "intent_response_key": key,
        "confidence": confidence,
        "utter_action": f"utter_{key}",
    }
    return {"all_retrieval_intents": ["faq"], "default": {"response": response, "ranking": []}}


def test_retrieval_intents_and_the_response_selection_report(tmp_path: Path) -> None:
    """Rasa's reader splits ``faq/ask_fees`` into intent ``faq`` and intent_response_key
    ``faq/ask_fees`` (``Message.separate_intent_response_key``); ``get_eval_data`` reads the
    predicted key from ``response_selector`` (``default`` when no selector is named for the
    retrieval intent), and ``evaluate_response_selections`` drops examples without a key."""

    def row(text: str, expected: str, intent: str, key: str, conf: float, i: int) -> Any:
        case = TestCase(text, intents=[ExpectedIntent(expected)], id=f"q{i}")
        ranking = [(intent, 0.9), ("greet" if intent != "greet" else "faq", 0.1)]
        return _row(case, _answer(text, intent, ranking, response_selector=_selector(key, conf)))

    rows = [
        row("what are the fees", "faq/ask_fees", "faq", "faq/ask_fees", 0.8, 0),
        row("when are you open", "faq/ask_hours", "faq", "faq/ask_fees", 0.6, 1),
        row("hello", "greet", "greet", "faq/ask_hours", 0.3, 2),
    ]
    written = write_reports({"rasa": tmp_path}, META, rows, rasa=RasaOptions(successes=True))
    intents = json.loads((tmp_path / "intent_report.json").read_text())
    assert set(intents) - {"accuracy", "micro avg", "macro avg", "weighted avg"} == {"faq", "greet"}
    assert intents["accuracy"] == 1.0
    assert "response_selection_report.json" in {p.name for p in written}
    report = json.loads((tmp_path / "response_selection_report.json").read_text())
    assert report["macro avg"]["support"] == 2  # "hello" has no response key: dropped
    assert report["faq/ask_hours"]["recall"] == 0.0
    assert report["faq/ask_hours"]["confused_with"] == {"faq/ask_fees": 1}
    errors = json.loads((tmp_path / "response_selection_errors.json").read_text())
    assert errors == [
        {
            "text": "when are you open",
            "intent_response_key_target": "faq/ask_hours",
            "intent_response_key_prediction": {"name": "faq/ask_fees", "confidence": 0.6},
        }
    ]
    successes = json.loads((tmp_path / "response_selection_successes.json").read_text())
    assert [s["text"] for s in successes] == ["what are the fees"]


def test_no_response_report_with_fewer_than_two_response_keys(tmp_path: Path) -> None:
    case = TestCase("fees?", intents=[ExpectedIntent("faq/ask_fees")], id="f")
    answer = _answer("fees?", "faq", [("faq", 1.0), ("greet", 0.0)])
    written = write_reports({"rasa": tmp_path}, META, [_row(case, answer)], rasa=NO_PLOTS)
    assert [p.name for p in written] == [
        "intent_report.json", "intent_errors.json", "metric_spec.json",
    ]  # fmt: skip


def test_argsort_orders_ties_as_numpy_1_23_which_rasa_runs_on() -> None:
    """``confused_with`` picks among equal counts by ``np.argsort``; Rasa 3.6 runs on numpy
    1.23.5, whose introsort orders ties unlike numpy 2. The fixture was recorded with the Rasa
    peer venv's numpy (``np.argsort(row.reshape(1, -1), axis=1)``, rows of 1 to 150 values)."""
    from nlu_tui.scoring.numpy_argsort import argsort

    recorded = json.loads(
        (Path(__file__).parent / "fixtures" / "numpy123_argsort.json").read_text()
    )
    assert recorded["numpy"] == "1.23.5"
    for row, expected in recorded["rows"]:
        assert argsort(row) == expected, row


def test_confused_with_ties_as_in_rasa() -> None:
    """Seen against the real Rasa (DIET pipeline): a row with tied counts of 1 listed ``inform``
    where numpy 2's argsort would list another label. 17 labels leave the insertion sort."""
    labels = [f"l{i:02d}" for i in range(17)]
    pairs = {("l00", "l00"): 5, ("l00", "l03"): 2}
    pairs.update({("l00", label): 1 for label in labels[4:]})
    pairs.update({(label, label): 1 for label in labels[1:]})
    report = rasa_report_from_counts(pairs)
    # np.argsort([5, 0, 0, 2] + [1] * 13) ends with 15, 3, 0 in numpy 1.23.5 (16, 3, 0 in 2.4)
    assert report["l00"]["confused_with"] == {"l03": 2, "l15": 1}


def test_an_engine_answering_the_whole_retrieval_name_is_scored_as_rasa_splits_it(
    tmp_path: Path,
) -> None:
    """An engine other than Rasa (here the embedded one's shape: no ``response_selector``) that
    answers ``faq/ask_fees``: the intent report scores ``faq`` against ``faq`` (Rasa's reader
    splits the name; its classifier only ever answers ``faq``), the response selection report
    scores the whole names."""
    from nlu_tui.model import Prediction

    def row(text: str, expected: str, answered: str, i: int) -> Any:
        case = TestCase(text, intents=[ExpectedIntent(expected)], id=f"w{i}")
        prediction = Prediction(intent=answered, confidence=0.8, raw={"intent": answered})
        return case, prediction, score_case(case, prediction)

    rows = [
        row("what are the fees", "faq/ask_fees", "faq/ask_fees", 0),
        row("when are you open", "faq/ask_hours", "faq/ask_fees", 1),
        row("hello", "greet", "greet", 2),
    ]
    write_reports({"rasa": tmp_path}, META, rows, rasa=NO_PLOTS)
    intents = json.loads((tmp_path / "intent_report.json").read_text())
    assert intents["accuracy"] == 1.0 and intents["faq"]["support"] == 2
    responses = json.loads((tmp_path / "response_selection_report.json").read_text())
    assert responses["faq/ask_fees"]["precision"] == 0.5
    assert responses["faq/ask_hours"]["confused_with"] == {"faq/ask_fees": 1}


def test_an_expected_entity_with_only_a_value_is_placed_where_an_export_would_place_it() -> None:
    """Kore.ai-style suites give an entity's value but no span: the Rasa reports read it where
    the suite's export to Rasa YAML puts it (its value found in the utterance, ignoring
    case), so such suites get entity reports too; a value nowhere in the text stays unplaced."""
    from nlu_tui.reports.rasa_report import target_entities

    case = TestCase(
        "Pay my Credit card bill",
        intents=[ExpectedIntent("pay")],
        entities=[ExpectedEntity("account_type", "credit card"), ExpectedEntity("x", "absent")],
    )
    placed, unplaced = target_entities(case)
    assert (placed["start"], placed["end"]) == (7, 18)
    assert unplaced["start"] is None and unplaced["end"] is None


def test_roles_and_groups_of_an_imported_rasa_file_label_the_tokens(tmp_path: Path) -> None:
    """Roles and groups read from Rasa YAML (``[Berlin]{"entity": "city", "role": "from"}``)
    reach the token labels as Rasa's reader gives them to ``evaluate_entities``
    (``type[.group][.role]``): a right type with the wrong role is a confusion between the two
    labels, not a hit; the engine's own role and group come from its answer."""
    from nlu_tui.formats.registry import import_suite

    data = tmp_path / "test.yml"
    data.write_text(
        'version: "3.1"\nnlu:\n- intent: fly\n  examples: |\n'
        '    - fly from [Berlin]{"entity": "city", "role": "from"} to '
        '[LA]{"entity": "city", "role": "to", "group": "1"}\n',
        encoding="utf-8",
    )
    (case,) = import_suite(data).suite.cases
    text = case.utterance  # "fly from Berlin to LA"
    found = [
        {"entity": "city", "start": 9, "end": 15, "value": "Berlin", "role": "to",
         "extractor": "DIETClassifier", "confidence_entity": 0.9, "confidence_role": 0.6},
        {"entity": "city", "start": 19, "end": 21, "value": "LA", "role": "to", "group": "1",
         "extractor": "DIETClassifier", "confidence_entity": 0.8},
    ]  # fmt: skip
    answer = _answer(text, "fly", [("fly", 0.9), ("greet", 0.1)], entities=found)
    write_reports({"rasa": tmp_path / "out"}, META, [_row(case, answer)], rasa=NO_PLOTS)
    report = json.loads((tmp_path / "out" / "DIETClassifier_report.json").read_text())
    labels = set(report) - {"accuracy", "micro avg", "macro avg", "weighted avg"}
    assert labels == {"city.from", "city.1.to"}
    assert report["city.from"]["recall"] == 0.0
    assert report["city.from"]["confused_with"] == {"city.to": 1}
    assert report["city.1.to"]["f1-score"] == 1.0
    assert report["accuracy"] == pytest.approx(4 / 5)  # fly from [Berlin] to LA
