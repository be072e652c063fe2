"""Engine profiles: lookup order, stages, run limits, and secrets that stay references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nlu_tui import paths
from nlu_tui.engines.embedded import EmbeddedEngine
from nlu_tui.engines.http_generic import GenericHttpEngine
from nlu_tui.engines.profiles import RunSettings, list_profiles, resolve_engine
from nlu_tui.engines.rasa import RasaEngine
from nlu_tui.errors import InputError

MINI = Path(__file__).parent / "fixtures" / "engines" / "mini.nlu.yml"
SECRET = "tok-9f8e7d6c5b4a"


def _write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "engines.yaml"
    path.write_text(text)
    return path


def test_profile_with_stages_run_settings_and_env_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RASA_TOKEN", SECRET)
    _write(
        tmp_path,
        """engines:
  bank-rasa:
    type: rasa
    url: http://127.0.0.1:5005
    token: ${RASA_TOKEN}
    concurrency: 16
    rate_limit: 20
    retries: 5
    published:
      url: http://127.0.0.1:6006
      concurrency: 4
""",
    )
    suite = tmp_path / "bank.suite.yaml"
    dev = resolve_engine("bank-rasa", suite_path=suite)
    assert isinstance(dev.engine, RasaEngine)
    assert dev.engine.token == SECRET and dev.engine.base_url == "http://127.0.0.1:5005"
    assert dev.settings == RunSettings(concurrency=16, rate_limit=20.0, timeout=30.0, retries=5)
    assert dev.profile_public["token"] == "${RASA_TOKEN}"
    assert SECRET not in json.dumps(dev.profile_public)
    assert dev.redact(f"failed with {SECRET}") == "failed with ***"
    pub = resolve_engine("bank-rasa", suite_path=suite, stage="published")
    assert isinstance(pub.engine, RasaEngine)
    assert pub.engine.base_url == "http://127.0.0.1:6006"
    assert pub.settings.concurrency == 4 and pub.settings.retries == 5
    assert pub.profile_public["stage"] == "published"
    assert SECRET not in json.dumps(pub.profile_public)


def test_lookup_order_suite_then_workspace_then_config(tmp_path: Path) -> None:
    suite_dir, workspace, config = tmp_path / "suites", tmp_path / "ws", paths.config_dir()
    body = "engines:\n  bot:\n    type: http\n    url: http://127.0.0.1:{port}/p\n"
    _write(config, body.format(port=3) + "  only-config:\n    type: rasa\n")
    _write(workspace, body.format(port=2))
    suite = suite_dir / "x.suite.yaml"
    found = resolve_engine("bot", suite_path=suite, workspace=workspace)
    assert isinstance(found.engine, GenericHttpEngine) and ":2/" in found.engine.url
    _write(suite_dir, body.format(port=1))
    found = resolve_engine("bot", suite_path=suite, workspace=workspace)
    assert isinstance(found.engine, GenericHttpEngine) and ":1/" in found.engine.url
    assert found.source == suite_dir / "engines.yaml"
    assert resolve_engine("only-config", workspace=workspace).profile_public["source"] == str(
        config / "engines.yaml"
    )
    assert set(list_profiles(suite, workspace)) == {"bot", "only-config"}


def test_relative_training_path_is_relative_to_the_profile(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "bot.nlu.yml").write_text(MINI.read_text())
    _write(
        tmp_path,
        "engines:\n  local:\n    type: embedded\n    nlu: data/bot.nlu.yml\n    threshold: 0.5\n",
    )
    resolved = resolve_engine("local", workspace=tmp_path)
    assert isinstance(resolved.engine, EmbeddedEngine)
    assert resolved.engine.path == (tmp_path / "data" / "bot.nlu.yml").resolve()
    assert resolved.engine.threshold == 0.5


def test_adhoc_specs(tmp_path: Path) -> None:
    embedded = resolve_engine(f"embedded:{MINI}", workspace=tmp_path)
    assert isinstance(embedded.engine, EmbeddedEngine)
    assert embedded.profile_public == {
        "name": f"embedded:{MINI.resolve()}",
        "type": "embedded",
        "nlu": str(MINI.resolve()),
        "concurrency": 8,
        "rate_limit": None,
        "timeout": 30.0,
        "retries": 3,
    }
    rasa = resolve_engine("rasa:http://127.0.0.1:5005", workspace=tmp_path)
    assert isinstance(rasa.engine, RasaEngine) and rasa.engine.base_url == "http://127.0.0.1:5005"
    http = resolve_engine("http:http://127.0.0.1:9/parse", workspace=tmp_path)
    assert isinstance(http.engine, GenericHttpEngine)
    # Bare "embedded" trains from the suite's sibling x.nlu.yml.
    (tmp_path / "bank.nlu.yml").write_text(MINI.read_text())
    bare = resolve_engine("embedded", suite_path=tmp_path / "bank.suite.yaml", workspace=tmp_path)
    assert isinstance(bare.engine, EmbeddedEngine)
    assert bare.engine.path == (tmp_path / "bank.nlu.yml").resolve()
    with pytest.raises(InputError, match="training data not found"):
        resolve_engine(f"embedded:{tmp_path / 'nope.yml'}", workspace=tmp_path)
    with pytest.raises(InputError, match="no engine profile named 'nobody'"):
        resolve_engine("nobody", workspace=tmp_path)


@pytest.mark.parametrize(
    "snippet,field,line",
    [
        ("    type: rasa\n    token: abc123\n", "engines.p.token", 4),
        (
            "    type: http\n    url: http://x/p\n    headers:\n      Authorization: Bearer abc123\n",
            "engines.p.headers.Authorization",
            6,
        ),
        (
            "    type: http\n    url: http://x/p\n    headers: {X-Api-Key: 'k-1'}\n",
            "engines.p.headers.X-Api-Key",
            5,
        ),
        ("    type: rasa\n    url: http://h/?token=abc\n", "engines.p.url", 4),
        ("    type: rasa\n    url: http://user:pw@h/\n", "engines.p.url", 4),
        (
            "    type: rasa\n    published:\n      password: hunter2\n",
            "engines.p.published.password",
            5,
        ),
    ],
)
def test_inline_secrets_are_rejected(tmp_path: Path, snippet: str, field: str, line: int) -> None:
    path = _write(tmp_path, "engines:\n  p:\n" + snippet)
    with pytest.raises(InputError) as caught:
        resolve_engine("p", workspace=tmp_path)
    err = caught.value
    assert (err.path, err.field, err.line) == (path, field, line)
    assert "environment variable" in err.message or "credential" in err.message
    for secret in ("abc123", "k-1", "hunter2", "pw@"):
        assert secret not in str(err)


def test_reference_with_scheme_word_is_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NLU_TOKEN", SECRET)
    _write(
        tmp_path,
        "engines:\n  p:\n    type: http\n    url: http://127.0.0.1:9/p\n"
        "    headers: {Authorization: 'Bearer ${NLU_TOKEN}'}\n",
    )
    resolved = resolve_engine("p", workspace=tmp_path)
    assert isinstance(resolved.engine, GenericHttpEngine)
    assert resolved.engine.headers["Authorization"] == f"Bearer {SECRET}"
    assert resolved.profile_public["headers"] == {"Authorization": "Bearer ${NLU_TOKEN}"}
    assert resolved.engine.secrets == [SECRET]


def test_missing_env_var_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ABSENT_TOKEN", raising=False)
    path = _write(
        tmp_path,
        "engines:\n  p:\n    type: rasa\n    url: http://127.0.0.1:1\n    token: ${ABSENT_TOKEN}\n",
    )
    with pytest.raises(InputError) as caught:
        resolve_engine("p", workspace=tmp_path)
    assert caught.value.message == "environment variable ABSENT_TOKEN is not set"
    assert (caught.value.path, caught.value.line, caught.value.field) == (
        path,
        5,
        "engines.p.token",
    )


@pytest.mark.parametrize(
    "text,field,line,message",
    [
        ("engines:\n  p:\n    url: http://x\n", "engines.p.type", 2, "missing 'type'"),
        ("engines:\n  p:\n    type: watson\n", "engines.p.type", 3, "unknown engine type"),
        (
            "engines:\n  p:\n    type: rasa\n    concurrency: many\n",
            "engines.p.concurrency",
            4,
            "positive",
        ),
        (
            "engines:\n  p:\n    type: rasa\n    published:\n      timeout: -1\n",
            "engines.p.published.timeout",
            5,
            "positive",
        ),
        (
            "engines:\n  p:\n    type: rasa\n    published: yes\n",
            "engines.p.published",
            4,
            "mapping",
        ),
        (
            "engines:\n  p:\n    type: rasa\n    token: ${lower case}\n",
            "engines.p.token",
            4,
            "malformed",
        ),
        ("engines:\n  p:\n    type: http\n    url: ftp://x\n", "engines.p", 2, "url must start"),
        ("engines: [1, 2]\n", "engines", 1, "'engines:' mapping"),
    ],
)
def test_bad_profiles_name_file_line_and_field(
    tmp_path: Path, text: str, field: str, line: int, message: str
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(InputError, match=message) as caught:
        resolve_engine("p", workspace=tmp_path)
    assert (caught.value.path, caught.value.field, caught.value.line) == (path, field, line)


def test_broken_yaml_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "engines:\n  p:\n    type: rasa\n   url: [\n")
    with pytest.raises(InputError) as caught:
        resolve_engine("p", workspace=tmp_path)
    assert caught.value.path == path and caught.value.line is not None


def test_bad_stage(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="stage"):
        resolve_engine(f"embedded:{MINI}", workspace=tmp_path, stage="staging")


def test_adhoc_specs_ignore_a_broken_profile_file_and_refuse_inline_tokens(tmp_path: Path) -> None:
    _write(tmp_path, "engines: [broken\n")
    assert isinstance(resolve_engine(f"embedded:{MINI}", workspace=tmp_path).engine, EmbeddedEngine)
    with pytest.raises(InputError, match="not valid YAML"):
        resolve_engine("some-profile", workspace=tmp_path)
    with pytest.raises(InputError, match="ENV_VAR") as caught:
        resolve_engine(f"rasa:http://127.0.0.1:5005/?token={SECRET}", workspace=tmp_path)
    with pytest.raises(InputError, match="ENV_VAR"):
        resolve_engine(f"http:http://u:{SECRET}@127.0.0.1:9/p", workspace=tmp_path)
    assert SECRET not in str(caught.value)
    with pytest.raises(InputError, match="needs a URL"):
        resolve_engine("rasa:", workspace=tmp_path)
