"""``nlu-tui test stories`` against a scripted policy server over real HTTP (``/domain``,
``/model/predict``): the files ``rasa test core --out DIR`` writes, with the story confusion
matrix image drawn from the action pairs (``_plot_story_evaluation``) unless ``--no-plot``."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from http_handler_server import QuietHandler, serving

from nlu_tui.cli.main import run as cli
from nlu_tui.conversation import reports
from nlu_tui.store import RunStore

STORIES = """\
version: "3.1"
stories:
- story: greet
  steps:
  - intent: greet
  - action: utter_greet
- story: bye
  steps:
  - intent: goodbye
  - action: utter_goodbye
"""

REPLIES = {"greet": "utter_greet", "goodbye": "utter_happy"}
"""The scripted policy: after a user intent, its reply (a wrong one for ``goodbye``); after
any action, ``action_listen``."""


class PolicyHandler(QuietHandler):
    def do_GET(self) -> None:
        if self.path.startswith("/version"):
            self.send_json(b'{"version": "3.6.21", "minimum_compatible_version": "3.6.21"}')
        elif self.path.startswith("/domain"):
            self.send_json(b'{"slots": {}, "forms": {}}')
        else:
            self.send_json(b'{"error": "not found"}', 404)

    def do_POST(self) -> None:
        if not self.path.startswith("/model/predict"):
            self.send_json(b'{"error": "not found"}', 404)
            return
        events = self.read_json()
        last = events[-1] if events else {}
        action = "action_listen"
        if last.get("event") == "user":
            action = REPLIES.get(last["parse_data"]["intent"]["name"], "action_listen")
        names = sorted({"action_listen", *REPLIES.values(), "utter_goodbye"})
        scores = [{"action": n, "score": 1.0 if n == action else 0.0} for n in names]
        body = {"scores": scores, "policy": "RulePolicy", "confidence": 1.0}
        self.send_json(json.dumps(body).encode())


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def test_stories_write_rasas_files_and_the_story_confusion_matrix(tmp_path: Path) -> None:
    path = tmp_path / "test_stories.yml"
    path.write_text(STORIES, encoding="utf-8")
    out, bare = tmp_path / "results", tmp_path / "bare"
    with serving(PolicyHandler) as url:
        code = cli(["test", "stories", str(path), "--engine", f"rasa:{url}", "--out", str(out)])
        again = ["test", "stories", str(path), "--engine", f"rasa:{url}", "--out", str(bare)]
        assert cli([*again, "--no-plot"]) == 1
    assert code == 1  # one story failed
    failed = (out / "failed_test_stories.yml").read_text(encoding="utf-8")
    assert "- action: utter_goodbye  # predicted: utter_happy" in failed
    assert (out / "story_report.json").is_file() and (out / "stories_with_warnings.yml").is_file()
    width, height = _png_size(out / "story_confusion_matrix.png")
    assert width > 1000 and height > 1000  # Rasa's 20 x 20 inch figure
    assert sorted(p.name for p in bare.iterdir()) == [
        "TEDPolicy_report.json",  # rasa test core writes it even without entities (--no-plot)
        "failed_test_stories.yml",
        "stories_with_warnings.yml",
        "story_report.json",
    ]
    # no user message with entities: Rasa's evaluate_entities writes an empty report, no
    # TEDPolicy_errors.json (nothing wrong) and, with plots, an empty confusion matrix
    assert json.loads((bare / "TEDPolicy_report.json").read_text(encoding="utf-8")) == {}
    assert (out / "TEDPolicy_confusion_matrix.png").is_file()
    assert not (out / "TEDPolicy_errors.json").exists()
    store = RunStore()
    run = store.list_runs(limit=1)[0]
    chart = reports.story_confusion_chart(store.load_items(run.id))
    assert chart is not None and chart.title == "Action Confusion matrix"
    # sklearn's confusion_matrix(targets, predictions) over unique_labels, worked out by hand:
    # greet: utter_greet right, then action_listen right; bye: utter_goodbye predicted as
    # utter_happy, then action_listen right
    assert chart.labels == ["action_listen", "utter_goodbye", "utter_greet", "utter_happy"]
    assert chart.matrix == [[2, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0], [0, 0, 0, 0]]
