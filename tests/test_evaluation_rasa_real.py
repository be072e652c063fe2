"""Evaluation that trains, against a real Rasa 3.6 trained over its HTTP API (issue 12).

One ``rasa run --enable-api`` without a model serves the module; nlu-tui trains it with
``POST /model/train`` and loads each model with ``PUT /model``. A held-out ``test nlu`` must
write what ``rasa test nlu`` writes for the very model nlu-tui had trained (numbers to 1e-9);
a 3-fold cross-validation and a 2-configuration comparison on the financial demo must finish,
a configuration Rasa cannot build must be reported with Rasa's error. Tiny pipelines (sparse
features and a logistic regression) keep training to seconds.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from nlu_tui.cli.main import run
from nlu_tui.store.runstore import RunStore
from tests.rasa_peer import NLU, project, rasa, served
from tests.test_rasa_eval_real import assert_same

pytestmark = [pytest.mark.rasa, pytest.mark.slow]

CONFIG_LR = """recipe: default.v1
assistant_id: nlu-tui-train-lr
language: en
pipeline:
  - name: WhitespaceTokenizer
  - name: CountVectorsFeaturizer
  - name: CountVectorsFeaturizer
    analyzer: char_wb
    min_ngram: 1
    max_ngram: 4
  - name: LogisticRegressionClassifier
  - name: EntitySynonymMapper
policies: []
"""
CONFIG_WORDS = """recipe: default.v1
assistant_id: nlu-tui-train-words
language: en
pipeline:
  - name: WhitespaceTokenizer
  - name: CountVectorsFeaturizer
  - name: LogisticRegressionClassifier
    max_iter: 50
policies: []
"""
CONFIG_BAD = """recipe: default.v1
language: en
pipeline:
  - name: WhitespaceTokenizer
  - name: NoSuchClassifier
policies: []
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, dict[str, str]]]:
    """(work folder of the server, its URL, Rasa's environment)."""
    work = tmp_path_factory.mktemp("rasa-train")
    env = project(work, CONFIG_LR, "config_lr.yml")
    (work / "config_words.yml").write_text(CONFIG_WORDS)
    (work / "config_bad.yml").write_text(CONFIG_BAD)
    with served(work, env, None) as url:
        yield work, url, env


def test_held_out_equals_rasa_test_nlu_on_the_same_model(
    server: tuple[Path, str, dict[str, str]], tmp_path: Path
) -> None:
    work, url, env = server
    split = work / "split"
    assert run(["data", "split", "nlu", str(NLU), "--random-seed", "42", "--out", str(split)]) == 0
    before = set((work / "models").glob("*.tar.gz")) if (work / "models").exists() else set()
    ours = tmp_path / "ours"
    code = run(
        [
            "test", "nlu", "--nlu", str(split / "test_data.yml"),
            "--train", str(split / "training_data.yml"), "--engine", f"rasa:{url}",
            "--config", str(work / "config_lr.yml"), "--out", str(ours), "--no-plot",
        ]
    )  # fmt: skip
    assert code == 0
    (model,) = set((work / "models").glob("*.tar.gz")) - before  # the model nlu-tui trained
    rasa(
        work, env, "test", "nlu", "--nlu", str(split / "test_data.yml"), "-m", str(model),
        "--out", "rasa_results", "--no-plot",
    )  # fmt: skip
    theirs = work / "rasa_results"
    their_files = {p.name for p in theirs.glob("*.json")}
    assert {"intent_report.json", "intent_errors.json"} <= their_files
    for name in sorted({p.name for p in ours.glob("*.json")} | their_files):
        if name in ("intent_confusion.json", "metric_spec.json"):  # ours only
            continue
        mine = json.loads((ours / name).read_text())
        if name not in their_files:  # Rasa writes no file for an empty list; we write []
            assert mine == [], name
            continue
        assert_same(mine, json.loads((theirs / name).read_text()), name)


def test_cross_validation_three_folds(
    server: tuple[Path, str, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work, url, _env = server
    out = tmp_path / "cv"
    code = run(
        [
            "test", "nlu", "--nlu", str(NLU), "--cross-validation", "--folds", "3",
            "--random-seed", "1", "--engine", f"rasa:{url}", "--config",
            str(work / "config_lr.yml"), "--out", str(out),
        ]
    )  # fmt: skip
    assert code == 0, capsys.readouterr()
    store = RunStore()
    try:
        (record,) = store.list_runs()
    finally:
        store.close()
    assert record.done == record.total > 500
    folds = record.summary["per_fold"]
    assert len(folds) == 3 and all(f["error"] is None for f in folds)
    assert all(0.5 < f["test"]["F1-score"] <= 1.0 for f in folds)
    report = json.loads((out / "intent_report.json").read_text())
    assert report["weighted avg"]["support"] == record.total
    assert "mean ± std over 3 folds" in capsys.readouterr().out


def test_comparison_two_configs_and_a_broken_one(
    server: tuple[Path, str, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work, url, _env = server
    out = tmp_path / "cmp"
    code = run(
        [
            "test", "nlu", "--nlu", str(NLU), "--engine", f"rasa:{url}", "--config",
            str(work / "config_lr.yml"), str(work / "config_words.yml"),
            str(work / "config_bad.yml"), "--runs", "1", "--percentages", "0", "50",
            "--random-seed", "2", "--out", str(out),
        ]
    )  # fmt: skip
    assert code == 3  # finished, but one configuration did not train
    results = json.loads((out / "results.json").read_text())
    assert set(results) == {"config_lr", "config_words", "config_bad"}
    for name in ("config_lr", "config_words"):
        (per_run,) = results[name]
        assert len(per_run) == 2 and all(0.3 < f1 <= 1.0 for f1 in per_run)
    assert results["config_bad"] == [[None, None]]
    text = capsys.readouterr().out
    assert "FAILED run 1 · 0% · config_bad" in text and "NoSuchClassifier" in text
    assert (
        out / "run_1" / "50%_exclusion" / "config_words_report" / "intent_report.json"
    ).is_file()


def test_data_split_keeps_rasa_data_split_counts(
    server: tuple[Path, str, dict[str, str]], tmp_path: Path
) -> None:
    """Per intent, ``data split nlu`` puts as many examples in training and test as
    ``rasa data split nlu`` (Rasa picks them in hash order, so not always the same ones);
    synonyms, regexes and lookups are in both parts, as Rasa writes them."""
    from collections import Counter

    from nlu_tui.formats.rasa_yaml import load_training_data

    work, _url, env = server
    ours = tmp_path / "ours"
    args = ["data", "split", "nlu", str(NLU), "--training-fraction", "0.7", "--out", str(ours)]
    assert run(args) == 0
    rasa(work, env, "data", "split", "nlu", "-u", "data/nlu.yml", "--training-fraction", "0.7",
         "--out", str(tmp_path / "theirs"))  # fmt: skip
    for name in ("training_data.yml", "test_data.yml"):
        mine = load_training_data(ours / name)
        theirs = load_training_data(tmp_path / "theirs" / name)
        intents = Counter(e.intent for e in mine.examples)
        assert intents == Counter(e.intent for e in theirs.examples)
        assert {k: set(v) for k, v in mine.synonyms.items()} == {
            k: set(v) for k, v in theirs.synonyms.items()
        }
        assert mine.regexes == theirs.regexes and mine.lookups == theirs.lookups
