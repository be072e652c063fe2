"""``show RUN -f html`` and ``-f markdown`` for every kind of run (issue 23 item 8): E2E and
stories runs (summary, every test case, the failed ones with the bot's answers) and DUT runs
(summary, command metrics, failed steps), from real runs against real HTTP peers and the
embedded engine. Text from test files and engines stays inert: a test case named with a
script, markup and escape sequences, and a bot that answers with them."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from chromium_peer import chromium_page, needs_chromium
from conversation_peer import BotState, handler_for
from http_handler_server import serving
from test_conversation_stories_cli import STORIES, PolicyHandler
from test_reports_html_markdown import ESCAPES, MARKUP, SCRIPT, _cells, _Page

from nlu_tui.cli.main import run as cli
from nlu_tui.conversation.reports import story_figures
from nlu_tui.store import RunStore

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"
HOSTILE_NAME = f"greet {SCRIPT}{MARKUP}"
HOSTILE_ANSWER = f"Hi {SCRIPT}<img src=x onerror=alert(2)>{MARKUP}{ESCAPES}"
CONTROLS = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"

E2E = {
    "test_cases": [
        {"test_case": HOSTILE_NAME + "\x1b[31m", "steps": [{"user": "hello"}, {"bot": "Hey!"}]},
        {"test_case": "fine", "steps": [{"user": "hello"}, {"bot": HOSTILE_ANSWER}]},
        {"test_case": "book", "steps": [{"user": "book a table"}, {"bot": "Sure."}]},
    ]
}


def _last_run(kind: str) -> Any:
    return next(r for r in RunStore().list_runs() if r.kind == kind)


def _show(run_id: str, *args: str) -> int:
    return cli(["show", run_id, *args])


def _inert(text: str) -> _Page:
    """The page has our one script and no element or attribute the run's text could add."""
    page = _Page()
    page.feed(text)
    assert [t for t, _a in page.tags if t == "script"] == ["script"]
    assert not [t for t, _a in page.tags if t in ("img", "iframe", "object", "link")]
    assert not any(k.startswith("on") for _t, attrs in page.tags for k in attrs)
    assert not re.search(CONTROLS, text)
    assert 'http-equiv="Content-Security-Policy"' in text
    return page


@pytest.fixture
def e2e_run(tmp_path: Path) -> str:
    """An E2E run whose bot answers the hostile text: 1 test passes, 2 fail."""
    state = BotState()
    state.greeting = HOSTILE_ANSWER
    path = tmp_path / "e2e.yml"
    path.write_text(yaml.safe_dump(E2E, allow_unicode=False), encoding="utf-8")
    with serving(handler_for(state)) as url:
        assert cli(["test", "e2e", str(path), "--engine", f"rasa:{url}"]) == 1
    return str(_last_run("e2e").id)


def test_e2e_run_as_html(tmp_path: Path, e2e_run: str) -> None:
    out = tmp_path / "report.html"
    assert _show(e2e_run, "-f", "html", "-o", str(out)) == 0
    text = out.read_text(encoding="utf-8")
    page = _inert(text)
    body = "".join(page.text)
    summary = {r[0]: r[1] for r in page.tables[1] if len(r) == 2}
    assert (summary["test cases"], summary["passed"], summary["failed"]) == ("3", "1", "2")
    results = page.tables[2]
    assert [r[3] for r in results[1:]] == ["failed", "passed", "failed"]
    assert results[1][1] == HOSTILE_NAME + "␛[31m"  # the name, shown literally
    # the failed test cases: Rasa Pro's difference and the bot's answer, as text
    assert "+ bot: Hey!" in body and f"bot: {HOSTILE_ANSWER[:30]}" in body
    assert "␛]52;c;SGVsbG8=␇" in body


def test_e2e_run_as_markdown_with_a_baseline(
    e2e_run: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert _show(e2e_run, "-f", "markdown", "--diff-with", e2e_run) == 0
    text = capsys.readouterr().out
    assert "| 3 | 1 | 2 | 0 |" in text
    assert "No changes: every test case has the same outcome." in text
    assert not re.search(CONTROLS, text)
    assert not re.search(r"(?<!\\)[<>\[\]]", text.replace("&amp;", ""))
    widths = [
        _cells(line) for line in text.splitlines() if line.startswith("| ") and "---" not in line
    ]
    assert widths and "greet \\<script\\>" in text
    for line in text.splitlines():
        if line.startswith("| ") and "test case" not in line and "wrong" not in line:
            assert _cells(line) in (3, 4), line


def test_stories_run_as_html_and_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "test_stories.yml"
    path.write_text(STORIES, encoding="utf-8")
    with serving(PolicyHandler) as url:
        assert cli(["test", "stories", str(path), "--engine", f"rasa:{url}", "--no-plot"]) == 1
    run = _last_run("stories")
    figures = story_figures(RunStore().load_items(run.id))
    out = tmp_path / "stories.html"
    assert _show(run.id, "-f", "html", "-o", str(out)) == 0
    page = _inert(out.read_text(encoding="utf-8"))
    summary = {r[0]: r[1] for r in page.tables[1] if len(r) == 2}
    assert summary["action F1 (weighted)"] == f"{figures.f1:.3f}"
    assert summary["conversation accuracy"].startswith(f"{figures.conversation_accuracy:.3f}")
    assert "predicted: utter_happy" in "".join(page.text)  # the failed story's prediction
    capsys.readouterr()
    assert _show(run.id, "-f", "markdown") == 0
    text = capsys.readouterr().out
    assert f"| {figures.conversation_accuracy:.3f} | {figures.f1:.3f} |" in text


HOSTILE_DUT_MESSAGE = "just Bart <script>alert(1)</script>"


def hostile_dut_run(tmp_path: Path) -> Any:
    """A DUT run of the sample whose failing user message carries a script."""
    folder = tmp_path / "dut"
    folder.mkdir()
    for name in ("contacts.dut.yml", "contacts.flows.yml", "contacts.nlu.yml"):
        shutil.copy(SAMPLES / name, folder / name)
    dut = folder / "contacts.dut.yml"
    dut.write_text(
        dut.read_text(encoding="utf-8").replace("user: just Bart", f"user: {HOSTILE_DUT_MESSAGE}"),
        encoding="utf-8",
    )
    nlu = folder / "contacts.nlu.yml"
    assert cli(["test", "du", str(dut), "--engine", f"embedded:{nlu}", "--no-output"]) == 1
    return _last_run("dut")


def test_dut_run_as_html_and_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hostile = HOSTILE_DUT_MESSAGE
    run = hostile_dut_run(tmp_path)
    report = run.summary
    out = tmp_path / "dut.html"
    assert _show(run.id, "-f", "html", "-o", str(out)) == 0
    page = _inert(out.read_text(encoding="utf-8"))
    body = "".join(page.text)
    commands = next(t for t in page.tables if t and t[0][:2] == ["command", "total"])
    shown = {row[0]: row for row in commands[1:]}
    for name, m in report["command_metrics"].items():
        assert shown[name][1:5] == [str(m[k]) for k in ("total_count", "tp", "fp", "fn")]
        assert shown[name][7] == f"{m['f1_score']:.4f}"
    assert hostile in body  # the failed step's user message, as text
    assert "set slot name Bart" in body  # what was expected there
    capsys.readouterr()
    assert _show(run.id, "-f", "markdown") == 0
    text = capsys.readouterr().out
    assert f"| {report['number_of_passed_tests']} | {report['number_of_failed_tests']} |" in text
    assert "just Bart \\<script\\>" in text and not re.search(CONTROLS, text)
    # a baseline goes with Markdown only (DUT runs compare since issue 23: see below)
    assert _show(run.id, "-f", "html", "--diff-with", run.id) == 2


def test_dut_run_as_markdown_with_a_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``show DUT_RUN -f markdown --diff-with OTHER``: the test cases that broke and were fixed,
    paired and compared by the same function as E2E runs' (``diff_items``)."""
    from nlu_tui.reports.item_diff import diff_items

    folder = tmp_path / "dut"
    folder.mkdir()
    for name in ("contacts.dut.yml", "contacts.flows.yml", "contacts.nlu.yml"):
        shutil.copy(SAMPLES / name, folder / name)
    dut, nlu = folder / "contacts.dut.yml", folder / "contacts.nlu.yml"
    original = dut.read_text(encoding="utf-8")
    # the baseline: "user removes a contact" says something the bot cannot understand
    dut.write_text(
        original.replace("delete @maria from my contacts", "xyzzy plugh"), encoding="utf-8"
    )
    cli(["test", "du", str(dut), "--engine", f"embedded:{nlu}", "--no-output"])
    before = _last_run("dut")
    dut.write_text(original, encoding="utf-8")
    cli(["test", "du", str(dut), "--engine", f"embedded:{nlu}", "--no-output"])
    after = _last_run("dut")
    assert before.id != after.id
    store = RunStore()
    diff = diff_items(store.load_items(before.id), store.load_items(after.id))
    assert [n.split(" (")[0] for n in diff.fixed] == ["user removes a contact"] and not diff.broke
    capsys.readouterr()
    assert _show(after.id, "-f", "markdown", "--diff-with", before.id) == 0
    text = capsys.readouterr().out
    assert f"#### Against run `{before.id}`" in text
    section = text[text.index("#### Against run") :]
    assert "**Broke: 0**" in section and "**Fixed: 1**" in section, section
    assert "- user removes a contact \\(" in section, section
    capsys.readouterr()
    assert _show(before.id, "-f", "markdown", "--diff-with", after.id) == 0
    section = capsys.readouterr().out.split("#### Against run")[1]
    assert "**Broke: 1**" in section and "- user removes a contact \\(" in section, section
    # the same run against itself: no changes
    assert _show(after.id, "-f", "markdown", "--diff-with", after.id) == 0
    assert "No changes: every test case has the same outcome." in capsys.readouterr().out


@needs_chromium
async def test_conversation_report_in_chromium_has_no_console_error(
    tmp_path: Path, e2e_run: str
) -> None:
    """The E2E report opens in a real browser without a console error, sorting works, and the
    hostile names and answers are text (no alert, no image)."""
    out = tmp_path / "report.html"
    assert _show(e2e_run, "-f", "html", "-o", str(out)) == 0
    async with chromium_page() as page:
        await page.goto(out.as_uri())
        await page.evaluate(
            "window.alerted = false; window.alert = () => { window.alerted = true; }"
        )
        assert await page.evaluate("document.querySelectorAll('script').length") == 1
        assert await page.evaluate("document.querySelectorAll('img').length") == 0
        shown = await page.evaluate("document.body.innerText")
        assert SCRIPT in shown and MARKUP in shown
        outcomes = "Array.from(document.querySelectorAll('table.results tbody tr')).map(r => r.cells[3].dataset.v)"
        await page.evaluate("document.querySelectorAll('table.results th')[3].click()")
        assert await page.evaluate(outcomes) == ["failed", "failed", "passed"]
        await page.screenshot(tmp_path / "report.png")
        assert not await page.evaluate("window.alerted")
        assert page.errors == []


@needs_chromium
async def test_dut_report_in_chromium_has_no_console_error(tmp_path: Path) -> None:
    """The DUT report opens in a real browser without a console error, its command table
    sorts, and the hostile user message is text (no alert)."""
    import asyncio

    run = await asyncio.to_thread(hostile_dut_run, tmp_path)  # the CLI runs its own loop
    out = tmp_path / "dut.html"
    assert _show(run.id, "-f", "html", "-o", str(out)) == 0
    async with chromium_page() as page:
        await page.goto(out.as_uri())
        await page.evaluate(
            "window.alerted = false; window.alert = () => { window.alerted = true; }"
        )
        assert await page.evaluate("document.querySelectorAll('script').length") == 1
        assert HOSTILE_DUT_MESSAGE in await page.evaluate("document.body.innerText")
        names = "Array.from(document.querySelectorAll('table.commands tbody tr')).map(r => r.cells[0].dataset.v)"
        await page.evaluate("document.querySelectorAll('table.commands th')[0].click()")
        shown = await page.evaluate(names)
        assert shown == sorted(shown) and len(shown) == len(run.summary["command_metrics"])
        assert not await page.evaluate("window.alerted")
        assert page.errors == []
