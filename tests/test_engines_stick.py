"""Issue 23, "Engines that stick", in the core: where a relative ``embedded:PATH`` is found,
which engines a workspace remembers and offers, the live engine check, and which files of a
Rasa project are developer utterances."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest
from runner_loopback import LoopbackNlu

from nlu_tui.engine_check import check_engine, quick_check
from nlu_tui.engines.choices import (
    StartChoice,
    engine_choices,
    load_last_choice,
    remember_engine,
    save_last_choice,
    workspace_engines,
)
from nlu_tui.engines.profiles import resolve_engine
from nlu_tui.engines.serve import start_server
from nlu_tui.errors import InputError
from nlu_tui.workspace import Workspace

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"
TRAINING = SAMPLES / "banking_bot.nlu.yml"
MINI = Path(__file__).parent / "fixtures" / "engines" / "mini.nlu.yml"
TOKEN = "rasa-Token-4711"


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    shutil.copy(TRAINING, root / TRAINING.name)
    return root


# --- embedded:PATH relative to the workspace, then the shell's folder -------------------------


def test_relative_embedded_path_is_found_in_the_workspace_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _workspace(tmp_path)
    shell = tmp_path / "shell"
    shell.mkdir()
    monkeypatch.chdir(shell)
    resolved = resolve_engine("embedded:banking_bot.nlu.yml", workspace=root)
    assert resolved.name == f"embedded:{root / 'banking_bot.nlu.yml'}"
    # a file of the same name in the shell's folder does not win over the workspace's
    (shell / "banking_bot.nlu.yml").write_bytes(TRAINING.read_bytes())
    again = resolve_engine("embedded:banking_bot.nlu.yml", workspace=root)
    assert again.name == f"embedded:{root / 'banking_bot.nlu.yml'}"


def test_relative_embedded_path_falls_back_to_the_shell_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "empty-ws"
    root.mkdir()
    shell = _workspace(tmp_path)  # the file is only in the shell's folder
    monkeypatch.chdir(shell)
    resolved = resolve_engine("embedded:banking_bot.nlu.yml", workspace=root)
    assert resolved.name == f"embedded:{shell / 'banking_bot.nlu.yml'}"
    # the CLI has no workspace: the shell's folder is it
    assert resolve_engine("embedded:banking_bot.nlu.yml").name == resolved.name


def test_a_missing_relative_file_names_every_folder_looked_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    shell = tmp_path / "shell"
    shell.mkdir()
    monkeypatch.chdir(shell)
    with pytest.raises(InputError) as caught:
        resolve_engine("embedded:nope.nlu.yml", workspace=root)
    message = str(caught.value)
    assert "nope.nlu.yml" in message and str(root) in message and str(shell) in message


def test_the_cli_run_resolves_a_relative_spec_from_the_shell_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``nlu-tui run`` resolves through the same service (no workspace: the shell's folder)."""
    from nlu_tui.runservice import resolve_run_engine

    shell = _workspace(tmp_path)
    monkeypatch.chdir(shell)
    resolved = resolve_run_engine("embedded:banking_bot.nlu.yml", None, "development", None)
    assert resolved.name == f"embedded:{shell / 'banking_bot.nlu.yml'}"


# --- engines remembered per workspace ---------------------------------------------------------


def test_a_successful_engine_is_offered_to_every_suite_of_its_workspace(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    other = tmp_path / "other-ws"
    root.mkdir()
    other.mkdir()
    a, b = root / "a.suite.yaml", root / "b.suite.yaml"
    spec = "rasa:http://127.0.0.1:5005"
    save_last_choice(str(a), StartChoice(spec, "published"), root)
    assert load_last_choice(str(a)) == StartChoice(spec, "published")
    assert load_last_choice(str(b)) is None  # the preselection stays per suite
    assert spec in [s for s, _ in engine_choices(b, root)]  # but b is offered it
    assert spec not in [s for s, _ in engine_choices(None, other)]  # not another workspace's
    # the conversation tests' engine too, most recent first, each once
    remember_engine(root, "rasa:http://127.0.0.1:5006")
    save_last_choice(str(b), StartChoice(spec, "development"), root)
    assert workspace_engines(root) == [spec, "rasa:http://127.0.0.1:5006"]
    assert load_last_choice(str(a)) == StartChoice(spec, "published")  # kept by the others


def test_a_remembered_embedded_engine_is_labelled_by_its_file(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    spec = f"embedded:{root / 'banking_bot.nlu.yml'}"
    remember_engine(root, spec)
    (label,) = [label for s, label in engine_choices(root / "x.suite.yaml", root) if s == spec]
    assert label.startswith("embedded (banking_bot.nlu.yml)") and "workspace" in label


# --- the live engine check -------------------------------------------------------------------


async def test_check_of_a_served_model_without_its_token() -> None:
    """``GET /version`` (no auth) answers, ``GET /status`` (auth) refuses a request without the
    server's token (Rasa's HTTP API; engine-apis.md §1): reachable, and the refusal said."""
    running = await start_server(MINI, port=0, token=TOKEN)
    try:
        found = await check_engine(f"rasa:{running.url}")
    finally:
        await running.stop()
    # the token is not in an ad-hoc spec, so /status refuses: reachable, the refusal said
    assert found.reached and not found.ok and "refused the token" in found.message


async def test_check_with_a_profile_token_reads_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the profile's token ``GET /status`` names the loaded model's file: the dialog's
    green "reachable, model X" line."""
    root = tmp_path / "ws"
    root.mkdir()
    monkeypatch.setenv("CHECK_TOKEN", TOKEN)
    running = await start_server(MINI, port=0, token=TOKEN)
    try:
        (root / "engines.yaml").write_text(
            "engines:\n  served:\n    type: rasa\n"
            f"    url: {running.url}\n    token: ${{CHECK_TOKEN}}\n",
            encoding="utf-8",
        )
        found = await check_engine("served", workspace=root)
    finally:
        await running.stop()
    assert found.ok and found.reached, found
    assert found.message.startswith("reachable, model mini.nlu.yml"), found.message
    assert TOKEN not in found.message
    assert found.name == "served"


async def test_check_of_a_server_that_is_not_there() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    found = await check_engine(f"rasa:http://127.0.0.1:{port}")
    assert not found.ok and not found.reached
    assert found.message.startswith("not reachable")
    assert found.name  # it resolved: only the server is missing


async def test_check_of_a_server_too_slow_to_answer_is_a_timeout_not_a_refusal() -> None:
    """A server that takes the connection and answers nothing within the check's time (busy,
    or slow) is said as such, and marked so that the run dialog asks again on Start."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        port = silent.getsockname()[1]
        found = await check_engine(f"rasa:http://127.0.0.1:{port}", timeout=0.5)
    assert not found.ok and found.timed_out and not found.reached
    assert found.message.startswith("not answering within 0.5 s"), found.message
    assert found.name
    refused = await check_engine(f"rasa:http://127.0.0.1:{port}", timeout=0.5)
    assert not refused.ok and not refused.timed_out  # closed now: refused, not slow


async def test_check_of_a_generic_http_engine_that_answers(tmp_path: Path) -> None:
    with LoopbackNlu() as server:
        found = await check_engine(f"http:{server.url}/model/parse")
    assert found.ok and found.reached and "reachable" in found.message


async def test_check_of_a_bad_spec_and_a_missing_file(tmp_path: Path) -> None:
    bad = await check_engine("no-such-profile", workspace=tmp_path)
    assert not bad.ok and "no engine profile named" in bad.message and not bad.name
    missing = quick_check("embedded:missing.nlu.yml", workspace=tmp_path)
    assert missing is not None and not missing.ok
    assert "training data not found" in missing.message
    local = quick_check(f"embedded:{TRAINING}")
    assert local is not None and local.ok and "banking_bot.nlu.yml" in local.message
    assert quick_check("rasa:http://127.0.0.1:9") is None  # a server: asked in a worker


# --- a Rasa project's training data ---------------------------------------------------------


def test_a_rasa_projects_data_files_are_developer_utterances(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "data" / "more").mkdir(parents=True)
    shutil.copy(TRAINING, root / "data" / "nlu.yml")
    (root / "data" / "stories.yml").write_text(
        'version: "3.1"\nstories:\n- story: s\n  steps: []\n', encoding="utf-8"
    )
    (root / "data" / "more" / "faq.yaml").write_text(
        'version: "3.1"\nnlu:\n- intent: faq\n  examples: |\n    - what is this\n',
        encoding="utf-8",
    )
    (root / "config.yml").write_text("language: en\n", encoding="utf-8")
    workspace = Workspace(root)
    listed = {info.name: info for info in workspace.list_suites()}
    assert set(listed) == {
        "Developer defined utterances (data/nlu)",
        "Developer defined utterances (data/more/faq)",
    }
    nlu = listed["Developer defined utterances (data/nlu)"]
    assert nlu.read_only and nlu.case_count > 100 and nlu.error is None
    assert workspace.load(root / "data" / "more" / "faq.yaml").cases[0].utterance == (
        "what is this"
    )
