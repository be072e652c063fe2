"""``raw:`` checks: JSONPath assertions on any field of the engine's raw answer (issue 26,
item 4), scored by the core, counted in their own metric, in the JSON, JUnit and HTML reports,
read and written by the native suite format, and warned about when a path can never match the
engine type's answer shape."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from http_handler_server import QuietHandler, serving

from nlu_tui.engines.answer_shapes import EMBEDDED, RASA_PARSE
from nlu_tui.formats import native
from nlu_tui.formats.native_writer import dump_suite
from nlu_tui.model import CaseResult, ExpectedIntent, Prediction, ResultType, TestCase
from nlu_tui.raw_checks import RawCheckError, never_matching, parse_check, split_check
from nlu_tui.reports.common import RunMeta
from nlu_tui.reports.html_report import render_html
from nlu_tui.reports.json_report import build_json_report, render_json_report
from nlu_tui.reports.junit import render_junit
from nlu_tui.scoring.case import score_case
from nlu_tui.scoring.summary import summarize
from nlu_tui.store import RunStore

# A Rasa /model/parse answer with a response selector, as shared/reference/engine-apis.md shows
# the keys (rasa/core/processor.py _parse_message_with_graph + Message.as_dict).
FAQ_ANSWER = {
    "text": "what are your fees",
    "intent": {"name": "faq", "confidence": 0.55},
    "intent_ranking": [{"name": "faq", "confidence": 0.55}, {"name": "greet", "confidence": 0.2}],
    "entities": [{"entity": "city", "start": 0, "end": 5, "value": "Paris"}],
    "response_selector": {
        "all_retrieval_intents": ["faq"],
        "faq": {
            "response": {"intent_response_key": "faq/ask_fees", "confidence": 0.97},
            "ranking": [{"intent_response_key": "faq/ask_fees", "confidence": 0.97}],
        },
    },
}


def _check(text: str, answer: object = FAQ_ANSWER) -> tuple[bool, str | None, str | None]:
    result = parse_check(text).evaluate(answer)
    return result.ok, result.actual, result.reason


def test_each_operator_against_a_rasa_answer() -> None:
    key = "$.response_selector.faq.response.intent_response_key"
    assert _check(f"{key} == faq/ask_fees") == (True, "faq/ask_fees", None)
    assert _check(f"{key} == faq/ask_hours")[0] is False
    assert _check(f"{key} != faq/ask_hours")[0] is True
    assert _check(f'{key} == "faq/ask_fees"')[0] is True  # JSON-quoted text
    assert _check("$.intent.confidence >= 0.5")[0] is True
    assert _check("$.intent.confidence >= 0.6") == (False, "0.55", None)
    assert _check("$.intent.confidence < 0.6")[0] is True
    assert _check("$.intent.confidence == 0.55")[0] is True  # numbers compare as numbers
    assert _check("$.intent.name > 1") == (False, "faq", "not a number")
    assert _check("$.intent.name =~ ^fa")[0] is True
    assert _check("$.intent_ranking[*].name == greet")[0] is True  # any value found
    assert _check("$.intent_ranking[*].name != greet")[0] is False  # none may be equal
    assert _check("$.entities[?@.entity == 'city'].value == Paris")[0] is True
    assert _check("$.response_selector.faq")[0] is True  # no operator: it exists
    assert _check("$.intent.missing == x") == (False, None, "the path finds nothing")
    assert _check("$.intent.name == faq", None)[0] is False


def test_the_operator_is_found_outside_brackets_and_quotes() -> None:
    assert split_check("$.entities[?@.entity == 'a>b'].value >= 2") == (
        "$.entities[?@.entity == 'a>b'].value",
        ">=",
        "2",
    )
    assert split_check("$.intent") == ("$.intent", None, None)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("$.intent[ == 3", "does not parse"),
        ("intent.name == x", "must start with '\\$'"),
        ("$.intent.confidence >= high", "needs a number"),
        ("$.intent.name =~ (", "does not compile"),
        ("$.intent.name ==", "nothing after"),
    ],
)
def test_a_check_that_does_not_parse_says_why(text: str, said: str) -> None:
    with pytest.raises(RawCheckError, match=said):
        parse_check(text)


def test_paths_against_the_declared_answer_shapes() -> None:
    assert (
        never_matching("$.response_selector.faq.response.intent_response_key", RASA_PARSE) is None
    )
    assert never_matching("$.intent_ranking[0].confidence", RASA_PARSE) is None
    assert never_matching("$.entities[?@.entity == 'x'].value.grain", RASA_PARSE) is None
    assert never_matching("$..anything", RASA_PARSE) is None  # descendants: not followed
    assert "'score'" in (never_matching("$.intent.score", RASA_PARSE) or "")
    assert "'topScoringIntent'" in (never_matching("$.topScoringIntent", RASA_PARSE) or "")
    assert never_matching("$.intent.name.first", RASA_PARSE) is not None  # below a scalar
    assert never_matching("$.intent[0]", RASA_PARSE) is not None  # an object, not a list
    assert never_matching("$.response_selector", EMBEDDED) is not None


def test_scored_by_the_core_in_their_own_metric() -> None:
    case = TestCase(
        "what are your fees",
        [ExpectedIntent("faq")],
        raw_checks=["$.intent.confidence >= 0.5", "$.intent.confidence >= 0.6"],
    )
    result = score_case(case, Prediction(intent="faq", confidence=0.55, raw=FAQ_ANSWER))
    assert result.result is ResultType.TP  # the intent result type is not changed
    assert [c.ok for c in result.raw_checks] == [True, False]
    summary = summarize([result])
    assert (summary.raw_checks, summary.raw_checks_ok, summary.raw_check_success) == (2, 1, 0.5)
    assert summary.success == 0  # a failed raw check makes the case not fully correct
    assert summarize([CaseResult("x", ResultType.TP, "a", 1.0)]).raw_check_success is None


def test_native_format_round_trips_raw_checks_and_origin(tmp_path: Path) -> None:
    path = tmp_path / "faq.suite.yaml"
    path.write_text(
        "nlu_tui_suite: 1\nname: faq\ncases:\n"
        "  # a comment the splicing saver keeps\n"
        "  - id: c1\n    utterance: what are your fees\n    intents: [faq]\n"
        "    raw:\n"
        "      - $.response_selector.faq.response.intent_response_key == faq/ask_fees\n"
        "      - '$.intent.confidence >= 0.6'\n"
        "    origin: c0\n"
        "  - id: c2\n    utterance: hello\n    intents: [greet]\n",
        encoding="utf-8",
    )
    suite = native.load_suite(path)
    first = suite.cases[0]
    assert first.raw_checks == [
        "$.response_selector.faq.response.intent_response_key == faq/ask_fees",
        "$.intent.confidence >= 0.6",
    ]
    assert first.origin == "c0"
    again = tmp_path / "again.suite.yaml"
    again.write_text(dump_suite(suite), encoding="utf-8")
    assert native.load_suite(again).cases == suite.cases
    # The splicing saver: change the second case only; the first keeps its bytes.
    suite.cases[1].raw_checks = ["$.intent.name == greet"]
    native.save_suite(suite)
    text = path.read_text(encoding="utf-8")
    assert "# a comment the splicing saver keeps" in text
    assert "      - $.response_selector.faq.response.intent_response_key == faq/ask_fees" in text
    assert native.load_suite(path).cases[1].raw_checks == ["$.intent.name == greet"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args], capture_output=True, text=True, timeout=180
    )


def test_a_jsonpath_that_does_not_parse_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.suite.yaml"
    path.write_text(
        "name: bad\ncases:\n  - utterance: hi\n    intents: [greet]\n    raw:\n"
        "      - $.intent.name == greet\n      - $.intent[ == 3\n",
        encoding="utf-8",
    )
    ran = _cli("run", str(path), "--engine", "rasa:http://127.0.0.1:9")
    assert ran.returncode == 2, ran.stdout + ran.stderr
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1, ran.stderr
    assert f"{path}, line 7, field 'raw'" in lines[0] and "does not parse" in lines[0]
    assert not RunStore().list_runs()  # nothing run


PADDING = "x" * 4000


class _FaqRasa(QuietHandler):
    """Rasa's /model/parse contract; a long field comes first, so an answer cut at
    ``--max-raw-bytes`` loses the response selector that a check reads."""

    def do_GET(self) -> None:
        self.send_json(b'{"version": "3.6.20", "minimum_compatible_version": "3.5.0"}')

    def do_POST(self) -> None:
        text = self.read_json()["text"]
        answer = {"padding": PADDING, **FAQ_ANSWER, "text": text}
        self.send_json(json.dumps(answer).encode())


def test_raw_checks_against_a_loopback_engine_in_json_junit_and_html(tmp_path: Path) -> None:
    suite = tmp_path / "faq.suite.yaml"
    suite.write_text(
        "name: faq\ncases:\n"
        "  - id: fees\n    utterance: what are your fees\n    intents: [faq]\n    raw:\n"
        "      - $.response_selector.faq.response.intent_response_key == faq/ask_fees\n"
        "      - $.intent.confidence >= 0.6\n"
        "      - $.intent.score > 0.1\n",
        encoding="utf-8",
    )
    with serving(_FaqRasa) as url:
        ran = _cli(
            "run", str(suite), "--engine", f"rasa:{url}", "--max-raw-bytes", "300",
            "--json", str(tmp_path / "r.json"), "--junit", str(tmp_path / "r.xml"),
        )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    warning = f"{suite}, line 3, field 'raw': case fees: '$.intent.score > 0.1' can never match"
    assert warning in ran.stderr
    assert "'score' after $.intent is not in the engine's answer" in ran.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["summary"]["raw_checks"] == 3 and report["summary"]["raw_checks_ok"] == 1
    assert report["summary"]["raw_check_success"] == pytest.approx(1 / 3)
    assert [w.startswith(warning) for w in report["run"]["warnings"]] == [True]
    checks = report["results"][0]["raw_checks"]
    assert [(c["ok"], c["actual"], c["reason"]) for c in checks] == [
        (True, "faq/ask_fees", None),
        (False, "0.55", None),
        (False, None, "the path finds nothing"),
    ]
    assert report["results"][0]["result"] == "TP"
    junit = (tmp_path / "r.xml").read_text(encoding="utf-8")
    assert 'failures="1"' in junit
    assert "raw check &#x27;$.intent.confidence &gt;= 0.6&#x27; failed" in junit or (
        "raw check '$.intent.confidence &gt;= 0.6' failed: found '0.55'" in junit
    )
    assert '<property name="warning" value="' in junit
    run_id = ran.stdout.splitlines()[0].split()[1].rstrip(":")
    shown = _cli("show", run_id, "-f", "html", "-o", str(tmp_path / "r.html"))
    assert shown.returncode == 0, shown.stderr
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "1 of 3 checks on the engine" in html and "can never match" in html
    # The store keeps the answer cut at 300 bytes: the check above read the full one.
    store = RunStore()
    (run,) = store.list_runs()
    ((_case, prediction, _result),) = store.load_results(run.id)
    assert isinstance(prediction.raw, str) and "truncated" in prediction.raw
    assert "intent_response_key" not in prediction.raw


def test_reports_built_from_rows_carry_the_checks() -> None:
    case = TestCase("fees", [ExpectedIntent("faq")], id="c1", raw_checks=["$.intent.name == x"])
    prediction = Prediction(intent="faq", confidence=0.55, raw=FAQ_ANSWER)
    rows = [(case, prediction, score_case(case, prediction))]
    meta = RunMeta(id="r1", suite="s", engine="e", warnings=["w1"])
    assert (
        build_json_report(meta, rows)["results"][0]["raw_checks"]
        == json.loads(render_json_report(meta, rows))["results"][0]["raw_checks"]
    )
    assert "raw check '$.intent.name == x' failed: found 'faq'" in render_junit(meta, rows)
    assert "Raw checks" in render_html(meta, rows)


def test_the_results_table_has_a_raw_column_for_runs_with_checks() -> None:
    from nlu_tui.views.result_columns import ResultColumns, visible_columns

    assert ("raw", "Raw") not in visible_columns(False)
    keys = [k for k, _ in visible_columns(True, raw=True)]
    assert keys.index("raw") == keys.index("order") + 1 and "agreement" in keys
    case = TestCase("fees", [ExpectedIntent("faq")], id="c1", raw_checks=["$.a", "$.intent"])
    result = score_case(case, Prediction(intent="faq", confidence=0.5, raw=FAQ_ANSWER))
    columns = ResultColumns()
    columns.add(case, result)
    columns.add(None, CaseResult("c2", ResultType.TP, "faq", 0.9))
    assert columns.to_arrow()["raw"].to_pylist() == ["1/2", ""]


def test_other_formats_keep_or_name_raw_checks(tmp_path: Path) -> None:
    from nlu_tui.formats.registry import export_suite, import_suite
    from nlu_tui.model import Suite

    case = TestCase(
        "what are your fees",
        [ExpectedIntent("faq")],
        id="c1",
        raw_checks=["$.intent.confidence >= 0.6"],
        origin="c0",
    )
    suite = Suite("s", cases=[case])
    export_suite(suite, tmp_path / "s.json", "nludevops")  # NLU.DevOps keeps them (nluTui)
    back = import_suite(tmp_path / "s.json", "nludevops").suite.cases[0]
    assert (back.raw_checks, back.origin) == (case.raw_checks, "c0")
    for fmt, name in (("kore-json", "k.json"), ("rasa", "r.yml"), ("luis", "l.json")):
        warnings = export_suite(suite, tmp_path / name, fmt)
        assert any("raw checks" in w for w in warnings), (fmt, warnings)


@pytest.mark.parametrize(
    "path",
    [
        "$.intent.name",
        "$.intent_ranking[1].name",
        "$.intent_ranking[-1].confidence",
        "$.intent_ranking[5].name",
        "$.intent.name.first",
        "$.entities[0]['value']",
        "$.intent[0]",
        "$.missing",
        "$",
    ],
)
def test_plain_paths_walk_as_the_evaluator_finds(path: str) -> None:
    check = parse_check(path)
    assert check.steps is not None  # keys and indexes only: the direct walk
    general = [m.obj for m in check.compiled.finditer(FAQ_ANSWER)]
    assert check.find(FAQ_ANSWER) == general


def test_validate_with_an_engine_warns_of_paths_that_never_match(tmp_path: Path) -> None:
    suite = tmp_path / "faq.suite.yaml"
    suite.write_text(
        "name: faq\ncases:\n  - id: c1\n    utterance: fees\n    intents: [faq]\n    raw:\n"
        "      - $.intent.confidence >= 0.6\n      - $.topScoringIntent.score > 0.1\n",
        encoding="utf-8",
    )
    plain = _cli("validate", str(suite))
    assert plain.returncode == 0 and "raw-never-matches" not in plain.stdout
    ran = _cli("validate", str(suite), "--engine", "rasa:http://127.0.0.1:9", "--fail-on-warnings")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert ran.stdout.strip().splitlines() == [
        f"{suite}:3: warning: [raw-never-matches] case c1: '$.topScoringIntent.score > 0.1' can "
        "never match a rasa answer ('topScoringIntent' after $ is not in the engine's answer)"
    ]
