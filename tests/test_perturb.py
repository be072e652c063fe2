"""``nlu-tui perturb`` and robustness reports (issue 26, item 2): seeded perturbations that keep
the expectations, byte-identical output for a seed, each case linked to its original, rates
checked, and the per-intent F1 change clean vs perturbed that ``run --robustness`` and ``show``
print, checked against a recomputation here (scikit-learn's own classification_report)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.formats import native
from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase
from nlu_tui.perturbation import PerturbOptions, perturb_case, perturb_suite
from nlu_tui.store import RunStore

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"
SUITE = SAMPLES / "banking_bot.suite.yaml"
NLU = SAMPLES / "banking_bot.nlu.yml"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args], capture_output=True, text=True, timeout=600
    )


def test_a_seed_writes_the_same_bytes_twice_and_links_each_case(tmp_path: Path) -> None:
    switches = ["--typos", "0.1", "--case", "--punctuation", "--drop-words", "0.05"]
    outs = []
    for name, seed in (("a", "7"), ("b", "7"), ("c", "8")):
        out = tmp_path / f"{name}.suite.yaml"
        ran = _cli("perturb", str(SUITE), *switches, "--seed", seed, "-o", str(out))
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout.startswith(f"wrote {out}: 54 cases")
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert outs[0] != outs[2]
    original = native.load_suite(SUITE)
    perturbed = native.load_suite(tmp_path / "a.suite.yaml")
    assert perturbed.name == "Banking bot (perturbed)"
    assert perturbed.extra["perturbation"]["seed"] == 7
    by_id = {c.id: c for c in original.cases}
    assert [c.origin for c in perturbed.cases] == [c.id for c in original.cases]
    changed = 0
    for case in perturbed.cases:
        source = by_id[case.origin or ""]
        assert case.id == f"{source.id}~p7"
        assert case.intents == source.intents and case.traits == source.traits
        assert case.tags == source.tags
        changed += case.utterance != source.utterance
        # each entity kept is still where it says, or its value is still in the utterance
        for entity in case.entities:
            if entity.start is not None and entity.end is not None:
                assert entity.text is None or case.utterance[entity.start : entity.end] == (
                    entity.text
                )
    assert changed > 40
    # The entity expectations it dropped are named, one warning each.
    ran = _cli(
        "perturb", str(SUITE), *switches, "--seed", "7", "-o", str(tmp_path / "a.suite.yaml")
    )
    assert ran.returncode == 2 and "exists" in ran.stderr  # never overwritten without --force


@pytest.mark.parametrize(
    ("switch", "value"), [("--typos", "1.5"), ("--drop-words", "-0.1"), ("--typos", "nan")]
)
def test_a_rate_outside_0_to_1_is_one_line_and_exit_2(
    tmp_path: Path, switch: str, value: str
) -> None:
    out = tmp_path / "p.suite.yaml"
    ran = _cli("perturb", str(SUITE), switch, value, "-o", str(out))
    assert ran.returncode == 2
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and f"field '{switch}'" in lines[0] and "from 0 to 1" in lines[0]
    assert not out.exists()
    ran = _cli("run", str(SUITE), "-e", f"embedded:{NLU}", "--robustness", switch, value)
    assert ran.returncode == 2 and f"field '{switch}'" in ran.stderr
    assert not RunStore().list_runs()  # nothing run


def test_entities_are_protected_and_their_spans_follow_the_edits() -> None:
    case = TestCase(
        "Please, send 250 dollars to Leonardo today!",
        [ExpectedIntent("transfer_money")],
        entities=[
            ExpectedEntity("amount", "250 dollars", start=13, end=24, text="250 dollars"),
            ExpectedEntity("payee", "Leonardo"),
            ExpectedEntity("when", "2024-05-01"),  # a normalised value: its place is unknown
        ],
        entity_order=["amount", "payee", "when"],
        id="t1",
    )
    options = PerturbOptions(typos=1.0, punctuation=True, drop_words=0.5, seed=0)
    for seed in range(30):
        new, applied, notes = perturb_case(
            case, PerturbOptions(**{**options.describe(), "seed": seed})
        )  # type: ignore[arg-type]
        assert new.origin == "t1" and new.utterance != case.utterance
        amount, payee = new.entities
        assert amount.start is not None and amount.end is not None
        assert new.utterance[amount.start : amount.end] == "250 dollars" == amount.text
        assert "Leonardo" in new.utterance and payee.value == "Leonardo"
        assert new.entity_order == ["amount", "payee"]
        assert notes == [
            "case t1: entity 'when' dropped from the perturbed case (its place in the "
            "utterance is unknown, so it could not be protected)"
        ]
        assert "punctuation" in applied
    # Letter case alone keeps even an entity whose place is unknown (values ignore case).
    new, applied, notes = perturb_case(case, PerturbOptions(case=True, seed=1))
    assert len(new.entities) == 3 and not notes
    # The same seed, the same case: the same perturbation, whatever else is in the suite.
    alone = perturb_suite(Suite("s", cases=[case]), options).suite.cases[0]
    other = TestCase("hello there friend", id="t0")
    among = perturb_suite(Suite("s", cases=[other, case]), options).suite.cases[1]
    assert alone == among


def _intent_lines(text: str) -> dict[str, tuple[int, float, float, float, int, int]]:
    """The per-intent lines of a printed robustness report."""
    rows = {}
    for line in text.splitlines():
        m = re.match(
            r"^  (.+?)\s+(\d+)\s+(\d\.\d{4})\s+(\d\.\d{4})\s+([+-]\d\.\d{4})\s+(\d+)\s+(\d+)$",
            line,
        )
        if m:
            rows[m.group(1)] = (
                int(m.group(2)),
                float(m.group(3)),
                float(m.group(4)),
                float(m.group(5)),
                int(m.group(6)),
                int(m.group(7)),
            )
    return rows


@pytest.mark.slow
def test_run_robustness_on_the_sample_suite_matches_a_recomputation() -> None:
    from sklearn.metrics import classification_report

    from nlu_tui.scoring.intent_report import label_sequences

    ran = _cli(
        "run", str(SUITE), "--engine", f"embedded:{NLU}", "--robustness",
        "--typos", "0.3", "--drop-words", "0.2", "--punctuation", "--case", "--seed", "5",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    store = RunStore()
    perturbed_run, clean_run = store.list_runs()  # newest first
    assert perturbed_run.options["robustness_of"] == clean_run.id
    assert perturbed_run.suite_name == "Banking bot (perturbed)"
    clean = store.load_results(clean_run.id)
    perturbed = store.load_results(perturbed_run.id)
    assert len(clean) == len(perturbed) == 54

    def f1s(rows: list) -> tuple[dict[str, float], dict[str, int]]:  # type: ignore[type-arg]
        y_true, y_pred = label_sequences([(c, r) for c, _p, r in rows])
        report = classification_report(y_true, y_pred, output_dict=True, zero_division=0)
        labels = {k: v for k, v in report.items() if isinstance(v, dict) and "avg" not in k}
        return (
            {k: v["f1-score"] for k, v in labels.items()},
            {k: int(v["support"]) for k, v in labels.items()},
        )

    clean_f1, support = f1s(clean)
    pert_f1, _ = f1s(perturbed)
    ok_before = {c.id: r.intent_ok for c, _p, r in clean}
    broke: dict[str, int] = {}
    fixed: dict[str, int] = {}
    for case, _p, result in perturbed:
        original = next(c for c, _q, _r in clean if c.id == case.origin)
        label = label_sequences([(original, next(r for c, _q, r in clean if c.id == case.origin))])[
            0
        ][0]
        if ok_before[case.origin or ""] and not result.intent_ok:
            broke[label] = broke.get(label, 0) + 1
        elif result.intent_ok and not ok_before[case.origin or ""]:
            fixed[label] = fixed.get(label, 0) + 1
    printed = _intent_lines(ran.stdout)
    labels = sorted(set(clean_f1) | set(pert_f1))
    assert sorted(k.strip() for k in printed) == [label[:28] for label in labels]
    deltas = []
    for label in labels:
        row = printed[label[:28]]
        c, p = clean_f1.get(label, 0.0), pert_f1.get(label, 0.0)
        assert row[0] == support.get(label, 0)
        assert row[1] == pytest.approx(c, abs=5e-5) and row[2] == pytest.approx(p, abs=5e-5)
        assert row[3] == pytest.approx(p - c, abs=1e-4)
        assert (row[4], row[5]) == (broke.get(label, 0), fixed.get(label, 0))
        deltas.append(p - c)
    assert any(d != 0 for d in deltas)  # the perturbations made a difference somewhere
    assert sum(broke.values()) > 0
    # `show` of either run prints the same report, and `show -f json` holds it.
    for run in (clean_run, perturbed_run):
        shown = _cli("show", run.id)
        assert shown.returncode == 0, shown.stderr
        assert _intent_lines(shown.stdout) == printed
    shown = _cli("show", perturbed_run.id, "-f", "json")
    report = json.loads(shown.stdout)["robustness"]
    assert (report["clean_run"], report["perturbed_run"]) == (clean_run.id, perturbed_run.id)
    by_intent = {i["intent"]: i for i in report["intents"]}
    for label in labels:
        assert by_intent[label]["perturbed_f1"] - by_intent[label]["clean_f1"] == pytest.approx(
            pert_f1.get(label, 0.0) - clean_f1.get(label, 0.0)
        )
        assert by_intent[label]["broke"] == broke.get(label, 0)
