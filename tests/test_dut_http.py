"""DUT over the generic HTTP engine: the conversation so far in the request, commands read at a
JSON path (DSL strings or Rasa-shaped mappings), the LLM output and token counts by path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nlu_tui.cli.main import run as cli
from tests.http_handler_server import QuietHandler, serving

SEEN: list[dict] = []


class Commands(QuietHandler):
    def do_POST(self) -> None:
        body = self.read_json()
        SEEN.append(body)
        text = body["message"]
        if text == "hello":
            answer = {"out": {"commands": ["offtopic reply"], "raw": "offtopic reply"}}
        elif body["history"]:  # depends on the conversation so far
            answer = {"out": {"commands": [{"command": "set slot", "name": "x", "value": 1}]}}
        else:
            answer = {"out": {"commands": ["start flow f"], "raw": "start flow f"}}
        answer["usage"] = {"prompt_tokens": 40 + 10 * len(body["history"])}
        self.send_json(json.dumps(answer).encode())


DUT = """\
test_cases:
  - test_case: t
    steps:
      - user: hello
        commands: [offtopic reply]
      - bot: hi there
      - user: set it
        commands: [set slot x 2]
"""


def test_http_engine_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t.yml").write_text(DUT, encoding="utf-8")
    with serving(Commands) as url:
        (tmp_path / "engines.yaml").write_text(
            "engines:\n  cmds:\n    type: http\n"
            f"    url: {url}/predict\n"
            "    body: {message: '{text}', history: '{conversation}', sender: '{sender}'}\n"
            "    commands: out.commands\n    component: MyGenerator\n"
            "    llm_output: out.raw\n    usage: {path: usage, prompt: prompt_tokens}\n",
            encoding="utf-8",
        )
        report = tmp_path / "r.json"
        code = cli(
            [
                "test",
                "du",
                str(tmp_path / "t.yml"),
                "--engine",
                "cmds",
                "--no-output",
                "--json",
                str(report),
            ]
        )
    assert code == 1
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["accuracy"]["user_utterances"] == 0.5
    (failed,) = data["failed_test_steps"]
    assert failed["predicted_commands"] == [
        {"component": "MyGenerator", "commands": ["set slot x 1"]}
    ]
    assert data["prompt_token"]["MyGenerator"]["p50"] == 50.0  # 40 and 60
    histories = sorted((b["message"], b["history"]) for b in SEEN)
    assert histories == [
        ("hello", []),
        (
            "set it",
            [
                {"actor": "user", "text": "hello", "template": None},
                {"actor": "bot", "text": "hi there", "template": None},
            ],
        ),
    ]
    assert len({b["sender"] for b in SEEN}) == 2
