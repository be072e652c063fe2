"""Evaluation that trains (issue 12): ``data split nlu``, ``test nlu`` held-out,
``--cross-validation`` and ``--config a b`` comparison, on the embedded engine.

Oracles: scikit-learn's ``StratifiedKFold`` and metric functions, counts worked out by hand
from Rasa's split procedure, and the data files themselves."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from nlu_tui.cli.main import run
from nlu_tui.formats.rasa_yaml import load_training_data
from nlu_tui.store.runstore import RunStore
from tests.conftest import SAMPLES

BANK = SAMPLES / "banking_bot.nlu.yml"
DEFAULT_CFG = SAMPLES / "embedded_default.config.yml"
NB_CFG = SAMPLES / "embedded_words_nb.config.yml"


def _labels(path: Path) -> list[str]:
    return [e.intent for e in load_training_data(path).examples]


# --- folds and splits ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 42])
def test_folds_equal_sklearn_stratified_kfold(seed: int) -> None:
    from sklearn.model_selection import StratifiedKFold

    from nlu_tui.evaluation.split import stratified_folds

    labels = _labels(BANK)
    ours = stratified_folds(labels, 5, seed)
    theirs = list(
        StratifiedKFold(n_splits=5, shuffle=True, random_state=seed).split(labels, labels)
    )
    assert len(ours) == 5
    for (train, test), (t_train, t_test) in zip(ours, theirs, strict=True):
        assert train == list(t_train)
        assert test == list(t_test)
    # every example is tested exactly once
    assert sorted(i for _tr, te in ours for i in te) == list(range(len(labels)))


def test_rasa_split_counts_by_hand() -> None:
    from nlu_tui.evaluation.split import rasa_split

    # classes a:2, b:5, c:10 at 0.8, rarest first: a takes 1 (int(2*.8)=1), b takes
    # int(7*.8)-1 = 4, c takes int(17*.8)-5 = 8 (at most 9): 13 train, 4 test.
    labels = ["c"] * 10 + ["b"] * 5 + ["a"] * 2
    train, test = rasa_split(labels, 0.8, seed=3)
    assert Counter(labels[i] for i in train) == {"a": 1, "b": 4, "c": 8}
    assert Counter(labels[i] for i in test) == {"a": 1, "b": 1, "c": 2}
    assert rasa_split(labels, 0.8, seed=3) == (train, test)
    # fraction 0 still trains one example per class (Rasa's min one on each side)
    train0, _ = rasa_split(labels, 0.0, seed=3)
    assert Counter(labels[i] for i in train0) == {"a": 1, "b": 1, "c": 1}


def test_drop_rare_lists_dropped() -> None:
    from nlu_tui.evaluation.split import drop_rare

    kept, dropped = drop_rare(["a", "b", "a", "c", "a", "b"], 2)
    assert kept == [0, 1, 2, 4, 5]
    assert dropped == {"c": 1}


# --- data split nlu -----------------------------------------------------------------------------


def test_data_split_nlu_writes_rasa_files(tmp_path: Path) -> None:
    out = tmp_path / "split"
    assert run(["data", "split", "nlu", str(BANK), "--random-seed", "42", "--out", str(out)]) == 0
    train = load_training_data(out / "training_data.yml")
    test = load_training_data(out / "test_data.yml")
    original = load_training_data(BANK)
    both = Counter((e.intent, e.text) for e in train.examples + test.examples)
    assert both == Counter((e.intent, e.text) for e in original.examples)
    per_intent = Counter(e.intent for e in original.examples)
    for intent, n in per_intent.items():
        n_train = sum(1 for e in train.examples if e.intent == intent)
        assert 1 <= n_train <= n - 1
    assert len(train.examples) == int(len(original.examples) * 0.8) + 0 or abs(
        len(train.examples) - 0.8 * len(original.examples)
    ) < len(per_intent)
    assert train.synonyms == original.synonyms
    assert train.regexes == original.regexes and train.lookups == original.lookups
    # same seed, same files
    again = tmp_path / "again"
    run(["data", "split", "nlu", str(BANK), "--random-seed", "42", "--out", str(again)])
    assert (again / "test_data.yml").read_bytes() == (out / "test_data.yml").read_bytes()


# --- configurations -----------------------------------------------------------------------------


def test_embedded_config_errors_name_line_and_field(tmp_path: Path) -> None:
    from nlu_tui.engines.embedded.config import load_embedded_config
    from nlu_tui.errors import InputError

    bad = tmp_path / "bad.yml"
    bad.write_text("features:\n  word_ngrams: [1, 2]\nclassifier:\n  name: RandomForest\n")
    with pytest.raises(InputError) as err:
        load_embedded_config(bad)
    assert err.value.line == 4 and err.value.field == "classifier.name"
    assert "unknown component 'RandomForest'" in str(err.value)
    bad.write_text("features: [1, 2\n")
    with pytest.raises(InputError, match="not valid YAML"):
        load_embedded_config(bad)
    bad.write_text("threshold: 2\n")
    with pytest.raises(InputError) as err:
        load_embedded_config(bad)
    assert err.value.field == "threshold" and err.value.line == 1


def test_default_config_is_the_engine_default() -> None:
    from nlu_tui.engines.embedded.classifier import ClassifierConfig
    from nlu_tui.engines.embedded.config import load_embedded_config

    parsed, _text = load_embedded_config(DEFAULT_CFG)
    assert parsed.classifier == ClassifierConfig()
    assert load_embedded_config(None)[0] == parsed
    nb, _ = load_embedded_config(NB_CFG)
    assert nb.classifier.name == "NaiveBayes" and nb.classifier.char_ngrams is None


def _runs() -> list[Any]:
    store = RunStore()
    try:
        return store.list_runs()
    finally:
        store.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--config", "BADCFG"], "unknown component"),
        (["--cross-validation", "--config", "UNPARSABLE"], "not valid YAML"),
        (["--cross-validation", "--config", "UNKNOWNKEY"], "unknown setting"),
        (["--cross-validation", "--config", "MISSING"], "no such configuration file"),
        (["--config", str(DEFAULT_CFG), "BADCFG", "--runs", "1"], "unknown component"),
        (["--engine", "http:http://127.0.0.1:9/parse", "--cross-validation"], "cannot train"),
        (
            [
                "--engine",
                "http:http://127.0.0.1:9/parse",
                "--config",
                str(DEFAULT_CFG),
                str(NB_CFG),
            ],
            "cannot train",
        ),
        (["--cross-validation", "--folds", "40"], "at least 2 are needed"),
    ],
)
def test_bad_input_exit_2_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    """Item 5: a config that does not parse, an unknown component or setting, a missing
    config, an engine that cannot train, too few examples for the folds in every intent."""
    files = {
        "BADCFG": "classifier:\n  name: Transformer\n",
        "UNPARSABLE": "features: [1, 2\nclassifier: {name: NaiveBayes\n",
        "UNKNOWNKEY": "features:\n  word_ngrams: [1, 2]\npipeline: []\n",
    }
    paths = {"MISSING": str(tmp_path / "missing.yml")}
    for key, text in files.items():
        path = tmp_path / f"{key.lower()}.yml"
        path.write_text(text)
        paths[key] = str(path)
    out = tmp_path / "out"
    args = [paths.get(a, a) for a in args]
    code = run(["test", "nlu", "--nlu", str(BANK), "--out", str(out), *args])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()
    assert _runs() == []


# --- held-out, cross-validation, comparison -----------------------------------------------------


def test_held_out_trains_and_stores_a_suite_run(tmp_path: Path) -> None:
    split = tmp_path / "split"
    run(["data", "split", "nlu", str(BANK), "--random-seed", "1", "--out", str(split)])
    out = tmp_path / "results"
    code = run(
        [
            "test",
            "nlu",
            "--nlu",
            str(split / "test_data.yml"),
            "--train",
            str(split / "training_data.yml"),
            "--config",
            str(NB_CFG),
            "--out",
            str(out),
        ]
    )
    assert code == 0
    (record,) = _runs()
    assert record.kind == "suite" and record.done == record.total
    assert record.total == len(load_training_data(split / "test_data.yml").examples)
    report = json.loads((out / "intent_report.json").read_text())
    assert report["weighted avg"]["support"] == record.total
    assert record.engine_profile["config"] == "embedded_words_nb.config"


def _cv(tmp_path: Path, out: Path, *extra: str) -> int:
    return run(
        [
            "test",
            "nlu",
            "--nlu",
            str(BANK),
            "--cross-validation",
            "--folds",
            "3",
            "--random-seed",
            "5",
            "--out",
            str(out),
            *extra,
        ]
    )


def test_cross_validation_reports_all_folds_and_repeat_with_seed(tmp_path: Path) -> None:
    from sklearn.metrics import accuracy_score, f1_score

    assert _cv(tmp_path, tmp_path / "a") == 0
    assert _cv(tmp_path, tmp_path / "b", "--no-cache", "--jobs", "2") == 0
    for name in ("intent_report.json", "intent_errors.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    first, second = sorted(_runs(), key=lambda r: r.started_at)
    strip = [
        {k: v for k, v in f.items() if not k.endswith("seconds")} for f in first.summary["per_fold"]
    ]
    assert strip == [
        {k: v for k, v in f.items() if not k.endswith("seconds")}
        for f in second.summary["per_fold"]
    ]
    examples = load_training_data(BANK).examples
    assert first.total == len(examples) == first.done  # every example tested, once
    report = json.loads((tmp_path / "a" / "intent_report.json").read_text())
    support = Counter(e.intent.split("/")[0] for e in examples)
    for intent, n in support.items():
        assert report[intent]["support"] == n
    # the stored per-fold figures are scikit-learn's on each fold's stored predictions
    summary = first.summary
    assert [f["fold"] for f in summary["per_fold"]] == [1, 2, 3]
    folds = summary["per_fold"]
    means = {k: sum(f["test"][k] for f in folds) / 3 for k in ("Accuracy", "F1-score")}
    assert summary["test"]["Accuracy"]["mean"] == pytest.approx(means["Accuracy"])
    assert summary["test"]["F1-score"]["mean"] == pytest.approx(means["F1-score"])
    store = RunStore()
    try:
        rows = store.load_results(first.id)
    finally:
        store.close()
    targets = [c.intents[0].name.split("/")[0] for c, _p, _r in rows]
    predicted = [((r.matched_intent or "").split("/")[0]) for _c, _p, r in rows]
    assert report["accuracy"] == pytest.approx(accuracy_score(targets, predicted))
    assert report["weighted avg"]["f1-score"] == pytest.approx(
        f1_score(targets, predicted, average="weighted", labels=sorted(set(targets)))
    )


def test_cross_validation_drops_and_lists_rare_intents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "nlu.yml"
    data.write_text(
        BANK.read_text() + "- intent: rare_one\n  examples: |\n    - only me\n    - and me\n"
    )
    code = run(
        [
            "test",
            "nlu",
            "--nlu",
            str(data),
            "--cross-validation",
            "--folds",
            "3",
            "--random-seed",
            "1",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "dropped 1 intent(s) with fewer than 3 examples: rare_one (2)" in out
    (record,) = _runs()
    assert record.summary["dropped_intents"] == {"rare_one": 2}
    assert "± " in out and "Intent evaluation, mean ± std over 3 folds" in out


def test_comparison_results_json_in_rasa_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cmp"
    code = run(
        [
            "test",
            "nlu",
            "--nlu",
            str(BANK),
            "--config",
            str(DEFAULT_CFG),
            str(NB_CFG),
            "--runs",
            "2",
            "--percentages",
            "0",
            "50",
            "--random-seed",
            "3",
            "--out",
            str(out),
            "--no-plot",
        ]
    )
    assert code == 0
    results = json.loads((out / "results.json").read_text())
    assert set(results) == {"embedded_default.config", "embedded_words_nb.config"}
    for runs in results.values():
        assert len(runs) == 2 and all(len(r) == 2 for r in runs)
        assert all(0.0 < f1 <= 1.0 for r in runs for f1 in r)
    # the F1 of one model is scikit-learn's weighted F1 of its report's test predictions
    report = json.loads(
        (
            out / "run_1" / "0%_exclusion" / "embedded_default.config_report" / "intent_report.json"
        ).read_text()
    )
    assert results["embedded_default.config"][0][0] == pytest.approx(
        report["weighted avg"]["f1-score"]
    )
    assert (out / "nlu_model_comparison_graph.svg").read_text().startswith("<svg")
    assert (out / "run_2" / "test.yml").is_file()
    assert (out / "run_1" / "50%_exclusion" / "train" / "train.yml").is_file()
    text = capsys.readouterr().out
    assert "embedded_default.config" in text and " ± " in text
    # the F1 curve drawn in the terminal: a marker per configuration, the x axis in examples
    assert "Weighted F1 on the test set by training examples" in text
    assert "● embedded_default.config" in text and "■ embedded_words_nb.config" in text
    (record,) = _runs()
    assert record.kind == "nlu-comparison" and record.total == 8 and record.done == 8


def test_cancel_keeps_finished_folds_and_runs_repeat_with_seeds() -> None:
    import asyncio

    from nlu_tui.evaluation import service
    from nlu_tui.model import RunStatus

    request = service.EvalRequest(
        nlu=BANK, engine="embedded", mode=service.CROSS_VALIDATION, folds=4, seed=9, runs=2
    )
    plan = service.plan(request)
    cancel = service.Cancel()
    states: list[tuple[str, str]] = []

    def progress(key: str, state: str, _seconds: float | None) -> None:
        states.append((key, state))
        if key == "run 2 fold 2" and state == "done":
            cancel.set()

    store = RunStore()
    try:
        outcome = asyncio.run(service.evaluate(plan, store, progress, cancel))
    finally:
        store.close()
    assert outcome.status is RunStatus.CANCELED
    first, second = outcome.runs
    assert first.status is RunStatus.SUCCESS and first.done == first.total
    assert first.engine_profile["seed"] == 9 and second.engine_profile["seed"] == 10
    assert second.status is RunStatus.CANCELED and 0 < second.done < second.total
    assert [f["fold"] for f in second.summary["per_fold"]] == [1, 2]
    assert ("run 2 fold 3", "training") not in states
