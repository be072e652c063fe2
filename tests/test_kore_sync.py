"""``nlu-tui kore list|pull|push`` against the loopback Kore.ai stand-in (tests/kore_peer.py,
written from Kore.ai's API docs: Get/Export/Import Batch Test Suite, Upload File, the JWT)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nlu_tui.cli.main import run as cli
from tests.kore_peer import EXECUTION, MANAGEMENT, App, KorePeer, serving

CLIENT_ID = "cs-5250bdc9-6bfe-5ece-92c9-ab54aa2d4285"
SECRET = "Kore-sync-s3cret-0042+abcdefghijklmnop"

# A suite in Kore.ai's documented batch-test JSON (the Batch Testing page's sample shape).
SEED = {
    "testCases": [
        {"input": "book a flight to Paris", "intent": "Book Flight"},
        {
            "input": "fly from Berlin to Rome tomorrow",
            "intent": "Book Flight",
            "entities": [
                {"entityValue": "Berlin", "entityName": "Source"},
                {"entityValue": "Rome", "entityName": "Destination"},
            ],
            "entityOrder": ["Source", "Destination"],
        },
        # Alternatives as the docs' universal-bot sample spells them ("Intent 1|Intent 2"); the
        # " | " spelling of the multi-intent sample comes back as "|" (the same intents).
        {"input": "what is my balance", "intent": "Check Balance|Account Summary"},
        {"input": "change it to Monday", "intent": "Change Date", "parentIntent": "Book Flight"},
    ]
}


def seed_bytes(doc: object = SEED) -> bytes:
    return (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def make_peer(scopes: set[str] | None = None) -> KorePeer:
    peer = KorePeer()
    peer.apps[CLIENT_ID] = App(SECRET, scopes if scopes is not None else {EXECUTION, MANAGEMENT})
    return peer


def profile(folder: Path, url: str, bot_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KORE_SYNC_SECRET", SECRET)
    (folder / "engines.yaml").write_text(
        f"engines:\n  travel:\n    type: kore\n    url: {url}\n    bot_id: {bot_id}\n"
        f"    client_id: {CLIENT_ID}\n    client_secret: ${{KORE_SYNC_SECRET}}\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(folder)


def test_pull_then_push_round_trips_a_suite_byte_equal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(make_peer()) as peer:
        peer.seed_suite("Flights regression", seed_bytes(), "flight intents")
        profile(tmp_path, peer.url, peer.bot_id, monkeypatch)
        assert cli(["kore", "pull", "travel", "--dir", "suites"]) == 0
        target = tmp_path / "suites" / "Flights-regression.suite.yaml"
        assert target.is_file() and "Book Flight" in target.read_text(encoding="utf-8")
        assert cli(["kore", "push", str(target)]) == 0
        assert "updated on the bot" in capsys.readouterr().out
        # What the bot holds after pull + push is byte-equal to what it held before.
        assert peer.suites["Flights regression"].file == seed_bytes()
        assert peer.calls["import"] == 1 and peer.calls["upload"] == 1
        # `kore list` shows it; the secret never reaches the output.
        assert cli(["kore", "list", "travel"]) == 0
        out = capsys.readouterr().out
        assert "Flights regression" in out and "never run" in out and SECRET not in out


def test_a_remote_suite_changed_since_the_pull_is_not_overwritten_without_force(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(make_peer()) as peer:
        peer.seed_suite("Flights regression", seed_bytes())
        profile(tmp_path, peer.url, peer.bot_id, monkeypatch)
        assert cli(["kore", "pull", "travel"]) == 0
        changed = {"testCases": [*SEED["testCases"], {"input": "hi", "intent": "Greet"}]}
        peer.suites["Flights regression"].file = seed_bytes(changed)  # edited on the platform
        target = tmp_path / "Flights-regression.suite.yaml"
        capsys.readouterr()
        assert cli(["kore", "push", str(target)]) == 2
        err = capsys.readouterr().err
        assert "changed since the last pull" in err and err.count("\n") == 1
        assert peer.suites["Flights regression"].file == seed_bytes(changed)
        assert peer.calls["import"] == 0
        assert cli(["kore", "push", str(target), "--force"]) == 0
        assert peer.suites["Flights regression"].file == seed_bytes()


def test_pull_never_clobbers_a_file_changed_locally(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(make_peer()) as peer:
        peer.seed_suite("Flights regression", seed_bytes())
        profile(tmp_path, peer.url, peer.bot_id, monkeypatch)
        assert cli(["kore", "pull", "travel"]) == 0
        target = tmp_path / "Flights-regression.suite.yaml"
        edited = target.read_text(encoding="utf-8") + "# my edit\n"
        target.write_text(edited, encoding="utf-8")
        assert cli(["kore", "pull", "travel"]) == 2
        assert "changed locally" in capsys.readouterr().err
        assert target.read_text(encoding="utf-8") == edited
        assert cli(["kore", "pull", "travel", "--force"]) == 0
        assert "# my edit" not in target.read_text(encoding="utf-8")


def test_a_profile_without_the_management_scope_is_one_line_naming_the_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(make_peer(scopes={EXECUTION})) as peer:
        peer.seed_suite("Flights regression", seed_bytes())
        profile(tmp_path, peer.url, peer.bot_id, monkeypatch)
        assert cli(["kore", "pull", "travel"]) == 2
        err = capsys.readouterr().err
        assert "Batch Tests Management" in err and "profile 'travel'" in err
        assert err.count("\n") == 1 and SECRET not in err
        assert not list(tmp_path.glob("*.suite.yaml"))


def test_a_suite_name_kore_refuses_is_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(make_peer()) as peer:
        profile(tmp_path, peer.url, peer.bot_id, monkeypatch)
        (tmp_path / "s.json").write_bytes(seed_bytes())
        assert cli(["kore", "push", "s.json", "--profile", "travel", "--name", "a/b"]) == 2
        assert "Import Batch Test Suite API" in capsys.readouterr().err
        assert not peer.suites


def test_the_rate_limit_is_waited_out_then_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(make_peer()) as peer:
        peer.seed_suite("Flights regression", seed_bytes())
        profile(tmp_path, peer.url, peer.bot_id, monkeypatch)
        waits: list[str] = []

        def wait(response: object, cap: float) -> float:
            waits.append(getattr(response, "headers", {}).get("Retry-After"))
            return 0.01

        monkeypatch.setattr("nlu_tui.engines.kore_platform._retry_after", wait)
        peer.throttle_next = 2  # two 429s, then the calls go through
        assert cli(["kore", "pull", "travel"]) == 0
        assert peer.calls["429"] == 2 and waits == ["1", "1"]
        peer.per_minute = 1  # over the limit for good: one line naming the API, exit 3
        peer.window.clear()
        assert cli(["kore", "pull", "travel", "--force"]) == 3
        err = capsys.readouterr().err
        assert "Export Batch Test Suite API: rate limit reached" in err


def test_ml_utterances_become_the_read_only_developer_defined_utterances_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from nlu_tui.workspace import Workspace
    from tests.kore_peer import UTTERANCES

    with serving(make_peer(scopes={UTTERANCES})) as peer:
        peer.ml_utterances["configured"] = [
            ("Book Flight", "book a flight to paris"),
            ("Book Flight", "I need a ticket"),
            ("Check Status", "where is my flight"),
            ("Check Status", "book a flight to paris"),  # trained for two tasks: one case
        ]
        peer.ml_utterances["published"] = [("Book Flight", "book a flight to paris")]
        profile(tmp_path, peer.url, peer.bot_id, monkeypatch)
        assert cli(["kore", "utterances", "travel"]) == 0
        out = capsys.readouterr().out
        assert "4 ML utterances (3 cases)" in out and SECRET not in out
        assert peer.calls["mlexport"] == 1 and peer.calls["mlexport_status"] == 2
        saved = tmp_path / "travel.kore-utterances.json"
        # the workspace lists it as Kore.ai's built-in suite, read-only, expecting each task
        suite = Workspace(tmp_path).load(saved)
        assert suite.read_only and suite.name == "Developer defined utterances (travel)"
        assert [(c.utterance, c.intent_names) for c in suite.cases] == [
            ("book a flight to paris", ["Book Flight", "Check Status"]),
            ("I need a ticket", ["Book Flight"]),
            ("where is my flight", ["Check Status"]),
        ]
        assert saved in Workspace(tmp_path).training_paths()
        # --published asks for the published tasks only
        assert cli(["kore", "utterances", "travel", "--published"]) == 0
        assert len(Workspace(tmp_path).load(saved).cases) == 1


def test_ml_utterances_refused_or_failed_leave_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.kore_peer import UTTERANCES

    with serving(make_peer(scopes={EXECUTION})) as peer:  # no Utterances Export scope
        profile(tmp_path, peer.url, peer.bot_id, monkeypatch)
        saved = tmp_path / "travel.kore-utterances.json"
        saved.write_bytes(b"[]")
        assert cli(["kore", "utterances", "travel"]) == 2
        err = capsys.readouterr().err
        assert "Utterances Export" in err and err.count("\n") == 1 and SECRET not in err
        peer.apps[CLIENT_ID].scopes.add(UTTERANCES)
        peer.ml_export_fails = True
        assert cli(["kore", "utterances", "travel"]) == 3
        assert "export failed" in capsys.readouterr().err
        assert saved.read_bytes() == b"[]"


def test_an_export_in_an_unexpected_shape_is_refused_naming_the_entry() -> None:
    from nlu_tui.errors import InputError
    from nlu_tui.formats.kore_ml_utterances import read_entries

    ok = b'{"utterances": [{"taskName": "A", "sentence": "hi"}]}'
    assert read_entries(ok, "f") == [("A", "hi")]
    for bad, said in (
        (b'[{"taskName": "A", "sentence": "hi"}, {"taskName": "B"}]', "utterance 2"),
        (b'{"tasks": []}', "expected a list"),
        (b"[1]", "utterance 1"),
        (b"{", "not JSON"),
    ):
        with pytest.raises(InputError, match=said):
            read_entries(bad, "f")
