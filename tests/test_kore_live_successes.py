"""``data successes --kore PROFILE --from --to``: "Successful user utterances" read live from
Kore.ai's Get Analytics API (types successintent and successtask, ``skip``/``limit`` paging)
on the loopback stand-in written from Kore.ai's docs (tests/kore_peer.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nlu_tui.cli.main import run as cli
from nlu_tui.formats.native import load_suite
from tests.kore_peer import METRICS, App, KorePeer, serving

CLIENT_ID = "cs-77aa0ecd-6bfe-5ece-92c9-ab54aa2d4285"
SECRET = "Kore-live-s3cret-0042+abcdefghijklmnop"


def record(i: int, kind: str, day: str) -> dict[str, object]:
    intent = ("Book Flight", "Check Balance", "Cancel Trip")[i % 3]
    return {
        "utterance": f"user said {i}",
        "intent": intent,
        "taskName": intent,
        "sessionId": f"s{i}",
        "taskId": f"dg-{i % 3}",
        "isAmbiguous": False,
        "timestamp": f"{day}T10:00:00.000Z",
        "NLAnalysis": {"result": kind, "subType": "dialog"},
    }


def test_successful_user_utterances_come_from_every_page_of_get_analytics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    peer = KorePeer()
    peer.apps[CLIENT_ID] = App(SECRET, {METRICS})
    found = [record(i, "successintent", "2026-11-02") for i in range(250)]
    found.append(record(999, "successintent", "2026-12-01"))  # outside the dates
    # tasks completed in the sessions of the even utterances only
    done = [record(i, "successtask", "2026-11-02") for i in range(0, 250, 2)]
    peer.analytics = {"successintent": found, "successtask": done}
    with serving(peer):
        monkeypatch.setenv("KORE_LIVE_SECRET", SECRET)
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  travel:\n    type: kore\n    url: {peer.url}\n"
            f"    bot_id: {peer.bot_id}\n    client_id: {CLIENT_ID}\n"
            "    client_secret: ${KORE_LIVE_SECRET}\n",
            encoding="utf-8",
        )
        monkeypatch.chdir(tmp_path)
        out = tmp_path / "successes.suite.yaml"
        args = ["data", "successes", "--kore", "travel", "--from", "2026-11-01"]
        assert cli([*args, "--to", "2026-11-30", "--out", str(out)]) == 0
        said = capsys.readouterr().out
        # 250 intents found over 3 pages of 100, 125 tasks over 2: five pages in all
        assert peer.calls["analytics"] == 5 and "in 5 pages" in said
        suite = load_suite(out)
        assert len(suite.cases) == 125  # the intents found whose task completed
        assert {c.utterance for c in suite.cases} == {f"user said {i}" for i in range(0, 250, 2)}
        assert suite.cases[0].intents[0].name == "Book Flight"
        # bad dates: one line naming the option, nothing written
        assert cli([*args, "--to", "2026-13-40", "--out", str(tmp_path / "x.yaml")]) == 2
        assert "--to" in capsys.readouterr().err and not (tmp_path / "x.yaml").exists()


def test_a_profile_without_the_metrics_scope_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    peer = KorePeer()
    peer.apps[CLIENT_ID] = App(SECRET, set())
    with serving(peer):
        monkeypatch.setenv("KORE_LIVE_SECRET", SECRET)
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  travel:\n    type: kore\n    url: {peer.url}\n"
            f"    bot_id: {peer.bot_id}\n    client_id: {CLIENT_ID}\n"
            "    client_secret: ${KORE_LIVE_SECRET}\n",
            encoding="utf-8",
        )
        monkeypatch.chdir(tmp_path)
        args = ["data", "successes", "--kore", "travel", "--from", "2026-11-01", "--to"]
        assert cli([*args, "2026-11-30", "--out", "s.suite.yaml"]) == 2
        err = capsys.readouterr().err
        assert "Get Analytics API" in err and "'Metrics'" in err and err.count("\n") == 1
        assert not (tmp_path / "s.suite.yaml").exists()
