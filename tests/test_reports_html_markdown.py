"""``show -f html`` and ``show -f markdown``: the figures are the scoring core's (checked against
scikit-learn), and text from suites and engines stays inert in both (no script, no markup, no
escape sequence, no broken table)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest
from chromium_peer import chromium_page, needs_chromium
from scoring_fixture import scored
from sklearn.metrics import precision_recall_fscore_support

from nlu_tui.model import ExpectedIntent, IntentScore, Prediction, ResultType, Suite, TestCase
from nlu_tui.reports import RunMeta, prepare_run
from nlu_tui.reports.html_report import render_html
from nlu_tui.reports.markdown_report import render_markdown
from nlu_tui.rundiff import diff_runs
from nlu_tui.scoring.case import ScoringOptions, score_case
from nlu_tui.scoring.intent_report import shown_label

SCRIPT = "<script>alert(1)</script>"
MARKUP = "[bold red]loud[/]"
ESCAPES = "\x1b]52;c;SGVsbG8=\x07\x1b[2J\x9b31m\u202etxt.exe"
HOSTILE = f"{SCRIPT}{MARKUP}{ESCAPES}|](http://evil)![x](http://e)<img src=x onerror=alert(2)>&#60;"


class _Page(HTMLParser):
    """Collects the elements and text of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def _rows(hostile: bool = False) -> list[tuple[TestCase, Prediction, object]]:
    rows = [(c, p, r) for c, p, _k, r in scored()]
    if not hostile:
        return rows  # type: ignore[return-value]
    case = TestCase(f"say {HOSTILE}", intents=[ExpectedIntent(f"greet{HOSTILE}")])
    case.id = "hostile-1"
    prediction = Prediction(
        intent=f"other{HOSTILE}",
        confidence=0.8,
        ranking=[IntentScore(f"other{HOSTILE}", 0.8)],
        error=None,
    )
    options = ScoringOptions().for_suite(Suite("s", cases=[case]))
    return [*rows, (case, prediction, score_case(case, prediction, options))]  # type: ignore[list-item]


def _meta() -> RunMeta:
    return RunMeta(id="r1", suite=f"suite{HOSTILE}", engine="e", note=f"note {HOSTILE}")


def test_html_figures_are_the_cores_and_equal_scikit_learn() -> None:
    rows = _rows()
    prepared = prepare_run(rows)  # type: ignore[arg-type]
    page = _Page()
    page.feed(render_html(_meta(), rows))  # type: ignore[arg-type]
    summary = {r[0]: r[1] for r in page.tables[1] if len(r) == 2}
    s = prepared.summary
    assert summary["TP / TN / FP / FN"] == f"{s.tp} / {s.tn} / {s.fp} / {s.fn}"
    assert summary["F1"] == f"{s.f1:.4f}"
    # The per-intent table: every label's P/R/F1/support as scikit-learn computes them.
    y_true, y_pred = prepared.labels
    labels = sorted(set(y_true) | set(y_pred))
    p, r, f, n = precision_recall_fscore_support(y_true, y_pred, labels=labels, zero_division=0)
    table = next(t for t in page.tables if t and t[0][:2] == ["intent", "precision"])
    shown = {row[0]: row[1:] for row in table[1:] if len(row) == 5}
    averages = {k: shown.pop(k) for k in ("macro avg", "weighted avg")}
    # (the "no intent" label as every screen spells it: shown_label)
    assert set(shown) == {shown_label(label) for label in labels}
    for i, label in enumerate(labels):
        assert shown[shown_label(label)] == [
            f"{p[i]:.4f}",
            f"{r[i]:.4f}",
            f"{f[i]:.4f}",
            str(int(n[i])),
        ]
    for average in ("macro", "weighted"):
        ap, ar, af, _n = precision_recall_fscore_support(
            y_true, y_pred, labels=labels, average=average, zero_division=0
        )
        assert averages[f"{average} avg"][:3] == [f"{ap:.4f}", f"{ar:.4f}", f"{af:.4f}"]
    # Failed cases: exactly the FP, FN and ERROR cases.
    failed = next(t for t in page.tables if t and t[0][:2] == ["case", "result"])
    want = sorted(c.id for c, _p, res in rows if res.result.value in ("FP", "FN", "ERROR"))  # type: ignore[attr-defined]
    assert sorted(row[0] for row in failed[1:]) == want


def test_html_keeps_hostile_text_inert() -> None:
    text = render_html(_meta(), _rows(hostile=True))  # type: ignore[arg-type]
    page = _Page()
    page.feed(text)
    scripts = [t for t, _a in page.tags if t == "script"]
    assert scripts == ["script"]  # ours only
    assert not [t for t, _a in page.tags if t == "img"]
    assert not any(k.startswith("on") for _t, attrs in page.tags for k in attrs)
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text)
    body = "".join(page.text)
    assert f"say {SCRIPT}{MARKUP}" in body  # shown as text, exactly
    assert "␛]52;c;SGVsbG8=␇" in body
    assert 'http-equiv="Content-Security-Policy"' in text and "default-src 'none'" in text


def _cells(line: str) -> int:
    """The cells of a GitHub table row: split on pipes not escaped by a backslash."""
    return len(re.split(r"(?<!\\)\|", line.strip().strip("|")))


def test_markdown_tables_hold_and_links_do_not_form() -> None:
    rows = _rows(hostile=True)
    # The baseline had the hostile case right: it broke since.
    before = [r for _c, _p, r in rows[:-1]] + [replace(rows[-1][2], result=ResultType.TP)]  # type: ignore[type-var]
    diff = diff_runs(before, (r for _c, _p, r in rows), cases=[c for c, _p, _r in rows])  # type: ignore[misc]
    text = render_markdown(_meta(), rows, diff=diff, baseline="r0")  # type: ignore[arg-type]
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text)
    # No link, image or raw HTML can form: every bracket and angle bracket is escaped.
    assert not re.search(r"(?<!\\)[<>\[\]]", re.sub("(?m)^> ", "", text.replace("&amp;", "")))
    table: int | None = None
    for line in text.splitlines():
        if line.startswith("|"):
            n = _cells(line)
            table = n if table is None else table
            assert n == table, line
        else:
            table = None
    assert "**Broke: 1**" in text and "**Fixed: 0**" in text
    assert "| hostile-1 | say \\<script\\>" in text


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )


@pytest.fixture
def stored_run(tmp_path: Path) -> tuple[str, dict[str, str]]:
    samples = Path(__file__).resolve().parent.parent / "sample_suites"
    env = {"NLU_TUI_DATA_DIR": str(tmp_path / "d"), "NLU_TUI_CONFIG_DIR": str(tmp_path / "c")}
    done = _cli(
        "run",
        str(samples / "banking_bot.suite.yaml"),
        "--engine",
        f"embedded:{samples / 'banking_bot.nlu.yml'}",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    runs = json.loads(_cli("runs", "--json", env=env).stdout)
    return runs[0]["id"], env


def test_show_html_and_markdown_from_the_cli(
    tmp_path: Path, stored_run: tuple[str, dict[str, str]]
) -> None:
    run_id, env = stored_run
    out = tmp_path / "report.html"
    done = _cli("show", run_id, "-f", "html", "-o", str(out), env=env)
    assert done.returncode == 0, done.stderr
    page = _Page()
    page.feed(out.read_text(encoding="utf-8"))
    summary = {r[0]: r[1] for r in page.tables[1] if len(r) == 2}
    as_json = json.loads(_cli("show", run_id, "-f", "json", env=env).stdout)["summary"]
    assert summary["F1"] == f"{as_json['f1']:.4f}"
    assert summary["cases"] == str(as_json["cases"])
    md = _cli("show", run_id, "-f", "markdown", "--diff-with", run_id, env=env)
    assert md.returncode == 0, md.stderr
    assert "No changes: every case has the same outcome." in md.stdout
    wrong = _cli("show", run_id, "-f", "json", "--diff-with", run_id, env=env)
    assert wrong.returncode == 2 and "--diff-with goes with -f markdown" in wrong.stderr


@needs_chromium
async def test_html_report_in_chromium_sorts_and_stays_inert(tmp_path: Path) -> None:
    """The page opens in a real browser without a console error, a click on a header sorts the
    per-intent table (▲ then ▼), and the hostile utterance is text, not a script."""
    page_file = tmp_path / "report.html"
    page_file.write_text(render_html(_meta(), _rows(hostile=True)), encoding="utf-8")  # type: ignore[arg-type]
    async with chromium_page() as page:
        await page.evaluate(
            "window.alerted = false; window.alert = () => { window.alerted = true; }"
        )
        await page.goto(page_file.as_uri())
        await page.evaluate("window.alert = () => { window.alerted = true; }")
        assert await page.evaluate("document.querySelectorAll('script').length") == 1
        assert await page.evaluate("document.querySelectorAll('img').length") == 0
        shown = await page.evaluate("document.body.innerText")
        assert f"say {SCRIPT}{MARKUP}" in shown
        f1 = "Array.from(document.querySelectorAll('table.intents tbody tr')).map(r => parseFloat(r.cells[3].dataset.v))"
        await page.evaluate("document.querySelectorAll('table.intents th')[3].click()")
        ascending = await page.evaluate(f1)
        assert ascending == sorted(ascending) and len(ascending) > 3
        assert (
            await page.evaluate(
                "document.querySelectorAll('table.intents th')[3].getAttribute('aria-sort')"
            )
            == "ascending"
        )
        await page.evaluate("document.querySelectorAll('table.intents th')[3].click()")
        assert await page.evaluate(f1) == sorted(ascending, reverse=True)
        await page.screenshot(tmp_path / "report.png")
        assert not await page.evaluate("window.alerted")
        assert page.errors == []
