"""Coverage, leakage, performance per intent and training recommendations (nlu-tui coverage).

Expected figures are written by hand from the fixture (counts, the difflib similarities
worked out below), and the CLI is run on the sample bot as a user would.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.coverage import Inventory, add_performance, coverage, find_leaks, normalise
from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    Prediction,
    Suite,
    TestCase,
)
from nlu_tui.scoring.case import score_case

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_suites"

INVENTORY = Inventory(
    source="bot.nlu.yml",
    intents=["greet", "pay_bill", "block_card", "faq/ask_fees", "thank_you"],
    entities=["amount", "card_type"],
    examples=[
        ("hello there", "greet"),
        ("Pay my electricity bill!", "pay_bill"),
        ("thank you so much", "thank_you"),
        ("block my credit card", "block_card"),
    ],
    kinds={"faq/ask_fees": IntentKind.FAQ, "thank_you": IntentKind.SMALL_TALK},
)


def _suite() -> Suite:
    return Suite(
        name="fixture",
        cases=[
            TestCase("hi", [ExpectedIntent("greet")], id="g1"),
            TestCase("good morning", [ExpectedIntent("greet")], id="g2"),
            TestCase("hey", [ExpectedIntent("greet")], id="g3"),
            TestCase("pay my electricity bill", [ExpectedIntent("pay_bill")], id="p1"),  # copy
            TestCase(
                "settle the invoice",
                [ExpectedIntent("pay_bill")],
                entities=[ExpectedEntity("amount", "10")],
                id="p2",
            ),
            TestCase("thanks so much", [ExpectedIntent("thank_you")], id="t1"),  # near copy
            TestCase("what does it cost", [ExpectedIntent("faq/ask_fees"), ExpectedIntent("pay_bill")], id="f1"),
            TestCase("wire money", [ExpectedIntent("transfer")], entities=[ExpectedEntity("payee", "x")], id="x1"),
            TestCase("asdf", [ExpectedIntent("None")], id="n1"),
        ],
    )  # fmt: skip


def test_coverage_counts_and_leakage_by_hand() -> None:
    report = coverage(_suite(), INVENTORY, min_cases=3, near=0.8)
    assert report.tested == {
        "greet": 3,
        "pay_bill": 3,  # p1, p2 and f1 (a case expecting two intents covers both)
        "block_card": 0,
        "faq/ask_fees": 1,
        "thank_you": 1,
    }
    assert report.untested == ["block_card"]
    assert report.under_tested == [("faq/ask_fees", 1), ("thank_you", 1)]
    assert report.unknown == [("transfer", 1)]  # "None" is no intent, not an unknown one
    assert report.entities_untested == ["card_type"] and report.entities_unknown == ["payee"]
    assert report.covered_share == pytest.approx(4 / 5)
    assert report.kinds == {
        "dialog": {"intents": 3, "tested": 2},
        "faq": {"intents": 1, "tested": 1},
        "small_talk": {"intents": 1, "tested": 1},
    }
    identical, near = report.leaks
    assert (identical.case_id, identical.example, identical.similarity) == (
        "p1",
        "Pay my electricity bill!",
        1.0,
    )
    # "thanks so much" (14) ~ "thank you so much" (17): matching blocks "thank" and " so much"
    # (5 + 8 = 13 characters), ratio 2 * 13 / 31
    assert (near.case_id, near.example_intent) == ("t1", "thank_you")
    assert near.similarity == pytest.approx(26 / 31)
    assert [leak.case_id for leak in find_leaks(_suite().cases, INVENTORY.examples, 0.9)] == ["p1"]
    assert [leak.case_id for leak in find_leaks(_suite().cases, INVENTORY.examples, 1.0)] == ["p1"]
    assert normalise("  Pay my electricity   BILL! ") == "pay my electricity bill"


def test_performance_and_training_recommendations_by_hand() -> None:
    suite = _suite()
    answers = {
        "g1": "greet", "g2": "greet", "g3": None,  # greet: recall 2/3
        "p1": "pay_bill", "p2": "block_card",  # pay_bill: p2 missed (taken for block_card)
        "t1": "thank_you", "f1": "faq/ask_fees", "x1": None, "n1": None,
    }  # fmt: skip
    rows = []
    for case in suite.cases:
        prediction = Prediction(answers[case.id], 0.9 if answers[case.id] else None)
        rows.append((case, prediction, score_case(case, prediction)))
    report = coverage(suite, INVENTORY)
    add_performance(report, rows, "run-1", target_recall=0.8, kinds=INVENTORY.kinds)
    health = {h.intent: h for h in report.health}
    assert health["greet"].recall == pytest.approx(2 / 3) and health["greet"].support == 3
    assert health["greet"].confused_with == [("None", 1)]
    assert health["greet"].missed == ["hey"]
    assert health["pay_bill"].recall == pytest.approx(1 / 2)  # p1 TP, p2 FP; f1 went to faq
    assert health["pay_bill"].missed == ["settle the invoice"]
    assert health["block_card"].precision == 0.0 and health["block_card"].support == 0
    assert health["transfer"].recall == 0.0 and health["transfer"].missed == ["wire money"]
    assert [h.intent for h in report.weak] == ["transfer", "pay_bill", "greet"]
    texts = [r.text for r in report.recommendations()]
    assert texts[0] == (
        "train transfer: recall 0.00 over 1 case(s), taken for None (1); "
        "add these 1 utterance(s) as training examples"
    )
    assert texts[1].startswith("train pay_bill: recall 0.50 over 2 case(s), taken for block_card")
    assert texts[3:] == [
        "test 1 intent(s) the suite never tests",
        "add cases to 2 intent(s) tested by fewer than 3 cases",
        "check 1 expected intent(s) the bot does not have (such cases can never pass)",
        "rephrase 1 test utterance(s) copied from the training data (1 identical, "
        "0 near-identical)",
    ]
    by_type = {row["name"]: row for row in report.by_type}
    assert sorted(by_type) == ["dialog", "faq", "small_talk"]  # n1 expects no intent: none
    dialog = by_type["dialog"]  # g1-g3, p1, p2 and x1 (not in the bot: dialog by default)
    assert (dialog["cases"], dialog["tp"], dialog["fp"], dialog["fn"]) == (6, 3, 1, 2)
    assert dialog["precision"] == pytest.approx(3 / 4) and dialog["recall"] == pytest.approx(3 / 5)
    assert dialog["f1"] == pytest.approx(2 * 0.75 * 0.6 / 1.35)
    assert (by_type["faq"]["cases"], by_type["faq"]["tp"]) == (1, 1)  # f1: its first intent
    assert (by_type["small_talk"]["cases"], by_type["small_talk"]["tp"]) == (1, 1)
    doc = report.as_dict()
    assert doc["run_id"] == "run-1" and doc["recommendations"][1]["utterances"] == [
        "settle the invoice"
    ]


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
    }
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )


@pytest.mark.slow
def test_cli_coverage_on_the_sample_bot_before_and_after_a_run(tmp_path: Path) -> None:
    suite = str(SAMPLE / "banking_bot.suite.yaml")
    before = _cli(tmp_path, "coverage", suite, "--engine", "embedded", "--json", "c.json")
    assert before.returncode == 0, before.stderr
    assert "17 intents, 17 tested (100.0%)" in before.stdout
    assert "no finished run of this suite on this engine yet" in before.stdout
    doc = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert doc["intents"] == 17 and doc["untested"] == [] and len(doc["under_tested"]) == 9
    assert doc["entities_unknown"] == ["payment"] and doc["leakage"]["leaks"] == []
    ran = _cli(tmp_path, "run", suite, "--engine", "embedded")
    assert ran.returncode == 0, ran.stderr
    after = _cli(tmp_path, "coverage", suite, "--engine", "embedded", "--json", "c.json")
    assert after.returncode == 0, after.stderr
    doc = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert doc["run_id"] and doc["run_id"] in after.stdout
    weak = [p for p in doc["performance"] if p["recall"] < 0.8]
    assert weak and all(p["missed"] for p in weak)
    assert doc["recommendations"][0]["text"].startswith(f"train {weak[0]['intent']}")


def test_cli_coverage_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    suite = str(SAMPLE / "banking_bot.suite.yaml")
    none = _cli(tmp_path, "coverage", suite)
    assert none.returncode == 2 and "--engine E or --training FILE" in none.stderr
    bad = _cli(tmp_path, "coverage", suite, "--training", "x.yml", "--near", "1.5")
    assert bad.returncode == 2 and "--near" in bad.stderr
    (tmp_path / "engines.yaml").write_text(
        "engines:\n  w:\n    type: luis\n    endpoint: http://127.0.0.1:9\n    app_id: a\n"
        "    key: ${W_TOKEN}\n",
        encoding="utf-8",
    )
    alone = tmp_path / "bank.suite.yaml"  # no training data beside it
    shutil.copyfile(suite, alone)

    def on_vendor() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "nlu_tui", "coverage", str(alone), "--engine", "w", "--no-run"],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env={**os.environ, "W_TOKEN": "abc123456789", "NLU_TUI_DATA_DIR": str(tmp_path / "d")},
        )

    vendor = on_vendor()
    assert vendor.returncode == 2
    assert (
        "does not list its intents here (LUIS lists an app's intents only to its authoring key, "
        "not the prediction key); give its training data with --training FILE, or save it "
        "beside the suite as bank.nlu.yml (Rasa NLU YAML)"
    ) in vendor.stderr
    # the workbench has no --training: the training data beside the suite is the inventory
    shutil.copyfile(SAMPLE / "banking_bot.nlu.yml", tmp_path / "bank.nlu.yml")
    beside = on_vendor()
    assert beside.returncode == 0, beside.stderr
    assert "against bank.nlu.yml: 17 intents" in beside.stdout
    given = _cli(
        tmp_path, "coverage", suite, "--training", str(SAMPLE / "banking_bot.nlu.yml"), "--no-run"
    )
    assert given.returncode == 0 and "17 intents" in given.stdout


def test_cli_coverage_reads_the_intents_a_vendor_engine_lists(tmp_path: Path) -> None:
    """Wit.ai lists its app's intents (``GET /intents``): they are the inventory."""
    from vendor_peer import Seen, VendorPeer

    def reply(seen: Seen) -> tuple[int, dict[str, str], object]:
        assert seen.header("Authorization") == "Bearer wit-t0ken-000000"
        assert (seen.path, seen.query["v"]) == ("/intents", ["20240304"])
        names = ["check_balance", "pay_bill", "wire_abroad"]
        return 200, {}, [{"id": str(i), "name": n} for i, n in enumerate(names)]

    suite = str(SAMPLE / "banking_bot.suite.yaml")
    with VendorPeer(reply) as peer:
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  w:\n    type: wit\n    url: {peer.url}\n    token: ${{W_TOKEN}}\n",
            encoding="utf-8",
        )
        done = subprocess.run(
            [sys.executable, "-m", "nlu_tui", "coverage", suite, "--engine", "w", "--no-run",
             "--json", "c.json"],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
            env={**os.environ, "W_TOKEN": "wit-t0ken-000000", "NLU_TUI_DATA_DIR": str(tmp_path / "d")},
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "against w (intents listed by the engine): 3 intents, 2 tested (66.7%)" in done.stdout
    doc = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert doc["untested"] == ["wire_abroad"]
    # check_balance: five cases, and one accepting report_fraud | faq/ask_fees | check_balance
    assert doc["tested"] == {"check_balance": 6, "pay_bill": 5, "wire_abroad": 0}
    assert len(doc["unknown"]) == 15  # the sample bot's other intents: not in this app


def test_cli_coverage_reads_a_rasa_servers_domain(tmp_path: Path) -> None:
    """A Rasa engine lists its model's intents and entities (``GET /domain``); here the sample
    bot served by ``nlu-tui serve`` (Rasa's HTTP API), so the figures are those of its data."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "nlu_tui", "serve", "--nlu", str(SAMPLE / "banking_bot.nlu.yml"),
         "--port", "0", "--auth-token-env", "SERVE_TOKEN"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "SERVE_TOKEN": "t0ken-4242", "NLU_TUI_DATA_DIR": str(tmp_path / "d")},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = line.split("listening on ", 1)[1].split(" ", 1)[0]
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  bot:\n    type: rasa\n    url: {url}\n    token: ${{SERVE_TOKEN}}\n",
            encoding="utf-8",
        )
        done = subprocess.run(
            [sys.executable, "-m", "nlu_tui", "coverage", str(SAMPLE / "banking_bot.suite.yaml"),
             "--engine", "bot", "--no-run", "--json", "c.json"],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
            env={**os.environ, "SERVE_TOKEN": "t0ken-4242", "NLU_TUI_DATA_DIR": str(tmp_path / "d")},
        )  # fmt: skip
        wrong = subprocess.run(
            [sys.executable, "-m", "nlu_tui", "coverage", str(SAMPLE / "banking_bot.suite.yaml"),
             "--engine", "bot", "--no-run"],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
            env={**os.environ, "SERVE_TOKEN": "wrong-0000", "NLU_TUI_DATA_DIR": str(tmp_path / "d")},
        )  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert done.returncode == 0, done.stderr
    assert "against bot (intents listed by the engine): 17 intents, 17 tested (100.0%)" in (
        done.stdout
    )
    # the same entity figures as from the training file: payment is never annotated there
    assert "entities    untested: -; not in bot: payment" in done.stdout
    assert "leakage     not checked: no training examples listed" in done.stdout
    doc = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert doc["entities_listed"] is True and doc["unknown"] == []
    assert wrong.returncode == 2 and "cannot list the engine's intents" in wrong.stderr
    assert "wrong-0000" not in wrong.stderr


@pytest.mark.rasa
@pytest.mark.slow
def test_cli_coverage_reads_the_domain_of_a_real_rasa(tmp_path: Path) -> None:
    """The real Rasa 3.6 serving the sample bot (tests/peers/bot): its ``GET /domain`` is the
    inventory (the bot's nine intents and two entities, as its domain.yml lists them; Rasa's
    own default intents are not in the answer)."""
    from rasa_peer import RASA, served

    if not RASA.exists():
        pytest.skip(f"no Rasa peer at {RASA}: run tests/peers/setup_rasa.sh (needs Python 3.10)")
    setup = subprocess.run(
        ["bash", str(ROOT / "tests" / "peers" / "setup_bot.sh")],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert setup.returncode == 0, setup.stdout + setup.stderr
    model = setup.stdout.strip().splitlines()[-1]
    (tmp_path / "bot.suite.yaml").write_text(
        "nlu_tui_suite: 1\nname: bot\ncases:\n"
        "  - {utterance: hello, intents: [greet]}\n"
        "  - {utterance: bye, intents: [goodbye]}\n"
        "  - {utterance: a table for two, intents: [book_table],"
        " entities: [{name: people, value: two}]}\n"
        "  - {utterance: play a song, intents: [play_music]}\n",
        encoding="utf-8",
    )
    env = {**os.environ, "RASA_TELEMETRY_ENABLED": "false", "HOME": str(tmp_path)}
    with served(tmp_path, env, model) as url:
        done = _cli(tmp_path, "coverage", "bot.suite.yaml", "--engine", f"rasa:{url}", "--no-run",
                    "--min-cases", "1", "--json", "c.json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    domain = ["greet", "goodbye", "affirm", "deny", "mood_great", "mood_unhappy", "book_table",
              "inform", "bot_challenge"]  # fmt: skip
    assert sorted(doc["tested"]) == sorted(domain)  # Rasa lists them sorted, no defaults
    assert sorted(doc["untested"]) == sorted(set(domain) - {"greet", "goodbye", "book_table"})
    assert doc["unknown"] == [{"intent": "play_music", "cases": 1}]
    assert (doc["entities_untested"], doc["entities_unknown"]) == (["cuisine"], [])


def test_a_faq_case_taken_for_a_dialog_intent_counts_as_faq() -> None:
    """Results per type in the coverage report: a case naming no kind is typed by its expected
    intent's kind in the bot, not by the kind of the wrong intent the engine answered (Kore.ai
    says which kind it matched: that is the answer's kind, not the test case's)."""
    cases = [
        TestCase("what does it cost", [ExpectedIntent("faq/ask_fees")], id="a"),
        TestCase("fees please", [ExpectedIntent("faq/ask_fees")], id="b"),
        TestCase("pay it", [ExpectedIntent("pay_bill")], id="c"),
    ]
    suite = Suite(name="s", cases=cases)
    answers = {
        "a": ("pay_bill", IntentKind.DIALOG),  # FP: a FAQ case answered by a dialog intent
        "b": ("faq/ask_fees", IntentKind.FAQ),
        "c": ("pay_bill", IntentKind.DIALOG),
    }
    rows = []
    for case in cases:
        intent, kind = answers[case.id]
        prediction = Prediction(intent, 0.9, intent_kind=kind)
        rows.append((case, prediction, score_case(case, prediction)))
    report = coverage(suite, INVENTORY)
    add_performance(report, rows, "run-1", kinds=INVENTORY.kinds)
    by_type = {row["name"]: (row["cases"], row["tp"], row["fp"]) for row in report.by_type}
    assert by_type == {"faq": (2, 1, 1), "dialog": (1, 1, 0)}


@pytest.mark.slow
def test_cli_coverage_reads_the_run_of_the_stage_asked_for(tmp_path: Path) -> None:
    """A new suite's first runs test both versions, published last: `coverage` reads the
    development run unless `--stage published` is given (it read the newest of either), and
    says which version it read."""
    shutil.copyfile(SAMPLE / "banking_bot.suite.yaml", tmp_path / "bank.suite.yaml")
    shutil.copyfile(SAMPLE / "banking_bot.nlu.yml", tmp_path / "bank.nlu.yml")
    (tmp_path / "engines.yaml").write_text(
        "engines:\n  bot:\n    type: embedded\n    nlu: bank.nlu.yml\n"
        "    published: {threshold: 0.99}\n",
        encoding="utf-8",
    )
    ids = {}
    for stage in ("development", "published"):
        ran = _cli(tmp_path, "run", "bank.suite.yaml", "--engine", "bot", "--stage", stage)
        assert ran.returncode == 0, ran.stderr
        found = re.search(r"run ([0-9a-f]{12}) ", ran.stdout + ran.stderr)
        assert found is not None
        ids[stage] = found.group(1)
    dev = _cli(tmp_path, "coverage", "bank.suite.yaml", "--engine", "bot", "--json", "c.json")
    assert dev.returncode == 0, dev.stderr
    assert f"performance run {ids['development']} [development]" in dev.stdout
    doc = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert (doc["run_id"], doc["run_stage"]) == (ids["development"], "development")
    pub = _cli(tmp_path, "coverage", "bank.suite.yaml", "--engine", "bot", "--stage", "published")
    assert pub.returncode == 0, pub.stderr
    assert f"performance run {ids['published']} [published]" in pub.stdout
