"""``nlu-tui generate`` reviewed in a real pseudo-terminal: the proposals are listed, one is
rejected, one edited, "generate more" asks again without repeating what was shown or rejected,
then the accepted ones are added to the suite file; quitting adds nothing."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from nlu_tui.conversation_model import StepKind
from nlu_tui.formats.e2e_cases import read
from nlu_tui.formats.native import load_suite
from tests.llm_peer import LLMPeer, Reply

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"
ROUND_1 = ["how much cash is in savings rn", "check my balance", "balance for my joint acct pls"]
ROUND_2 = ["how much cash is in savings rn", "what do i have left in checking"]


def _default_sigint() -> None:
    """In the child, on its own session: the pseudo-terminal becomes its controlling terminal
    (so Ctrl+C typed there is a SIGINT to it), and SIGINT is not ignored (a test runner
    started in the background ignores it, and children inherit that)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """A process on a pseudo-terminal: what it printed so far, and keys to type."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            args,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            close_fds=True,
            start_new_session=True,  # its own terminal: Ctrl+C there is its own SIGINT
            preexec_fn=_default_sigint,
        )
        os.close(slave)
        self.output = ""

    def expect(self, pattern: str, timeout: float = 60.0) -> str:
        """Wait until ``pattern`` (a regular expression) appears in the output after the last
        match; the output up to its end is consumed."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.output)
            if found:
                seen, self.output = self.output[: found.end()], self.output[found.end() :]
                return seen
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"{pattern!r} never appeared; the terminal shows:\n{self.output}"
                )
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    data = os.read(self.master, 4096)
                except OSError:  # the process ended and closed the terminal
                    data = b""
                if not data:
                    raise AssertionError(f"ended before {pattern!r}:\n{self.output}")
                self.output += data.decode("utf-8", "replace").replace("\r\n", "\n")

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def finish(self) -> int:
        code = self.process.wait(timeout=60)
        os.close(self.master)
        return code


@contextmanager
def generate_in_terminal(tmp_path: Path, url: str, *args: str) -> Iterator[Terminal]:
    env = {
        **os.environ,
        "NLU_TUI_DATA_DIR": str(tmp_path / "data"),
        "NLU_TUI_CONFIG_DIR": str(tmp_path / "config"),
        "NLU_TUI_LLM_BASE_URL": url,
        "NLU_TUI_LLM_MODEL": "loop-model",
        "COLUMNS": "100",
    }
    terminal = Terminal([sys.executable, "-m", "nlu_tui", "generate", *args], tmp_path, env)
    try:
        yield terminal
    finally:
        if terminal.process.poll() is None:
            terminal.process.kill()
            terminal.process.wait()


def _copy(tmp_path: Path, *names: str) -> None:
    for name in names:
        (tmp_path / name).write_bytes((SAMPLES / name).read_bytes())


def test_review_reject_edit_more_and_add_on_a_terminal(tmp_path: Path) -> None:
    _copy(tmp_path, "banking_bot.suite.yaml", "banking_bot.nlu.yml")
    suite_path = tmp_path / "banking_bot.suite.yaml"
    peer = LLMPeer([Reply(json.dumps(ROUND_1)), Reply(json.dumps(ROUND_2))])
    with (
        peer.serving() as url,
        generate_in_terminal(
            tmp_path, url, "banking_bot.suite.yaml", "--intent", "check_balance", "--count", "3"
        ) as term,
    ):
        listed = term.expect(r"review \(3 shown, 3 to add\)> ")
        assert "  2 ✓! check my balance" in listed
        assert "! leakage: identical to training example 'check my balance'" in listed
        term.type("r 2")
        assert "  2 ✗! check my balance" in term.expect(r"to add\)> ")
        term.type("e 3")
        term.expect(r"new text for 3 \(empty keeps it\): ")
        term.type("balance for my joint account please")
        edited = term.expect(r"review \(3 shown, 2 to add\)> ")
        assert "  3 ✓  balance for my joint account please" in edited
        term.type("g")
        more = term.expect(r"review \(4 shown, 3 to add\)> ")
        assert "1 new proposal(s)" in more
        assert "  4 ✓  what do i have left in checking" in more
        term.type("r 9")
        assert "no proposal 9 (1..4)" in term.expect(r"to add\)> ")
        term.type("s")
        assert "added 3 case(s)" in term.expect(r"added .*\n")
        assert term.finish() == 0
    second = peer.requests[1].messages[1]["content"]
    assert "Do not repeat or rephrase any of these (already proposed):" in second
    assert "- check my balance\n" in second  # rejected, still not to be proposed again
    assert "- balance for my joint account please\n" in second  # as edited
    cases = load_suite(suite_path).cases
    added = [c for c in cases if "generated" in c.tags]
    assert [c.utterance for c in added] == [
        "how much cash is in savings rn",
        "balance for my joint account please",
        "what do i have left in checking",
    ]


def test_quit_adds_nothing_and_a_flow_review_adds_dut_cases(tmp_path: Path) -> None:
    _copy(tmp_path, "banking_bot.suite.yaml", "banking_bot.nlu.yml")
    _copy(tmp_path, "contacts.dut.yml", "contacts.flows.yml", "contacts.nlu.yml")
    before = (tmp_path / "banking_bot.suite.yaml").read_bytes()
    flow_round = [
        {"utterance": "add @tim_k to my contacts", "slots": {"handle": "@tim_k"}},
        {"utterance": "new contact pls", "slots": {}},
    ]
    peer = LLMPeer(
        [
            Reply(json.dumps(ROUND_1)),
            Reply("Sure! Here are more: 1. hi"),  # "generate more" answered with prose
            Reply(json.dumps(flow_round)),
        ]
    )
    with peer.serving() as url:
        with generate_in_terminal(
            tmp_path, url, "banking_bot.suite.yaml", "--intent", "check_balance"
        ) as term:
            term.expect(r"to add\)> ")
            term.type("g")  # a malformed answer: said, and the review goes on
            failed = term.expect(r"review \(3 shown, 3 to add\)> ")
            assert "not a JSON array of utterances (starts 'Sure! Here are more" in failed
            term.type("q")
            assert "nothing added" in term.expect(r"nothing added\n")
            assert term.finish() == 0
        with generate_in_terminal(
            tmp_path, url, "contacts.dut.yml", "--flow", "add_contact"
        ) as term:
            listed = term.expect(r"review \(2 shown, 2 to add\)> ")
            assert "  1 ✓  add @tim_k to my contacts   [start flow add_contact; set slot " in listed
            term.type("r 2")
            term.expect(r"1 to add\)> ")
            term.type("s")
            assert "added 1 DUT test case(s)" in term.expect(r"added .*\n")
            assert term.finish() == 0
    assert (tmp_path / "banking_bot.suite.yaml").read_bytes() == before
    cases = read(tmp_path / "contacts.dut.yml").test_cases
    (user,) = [s for s in cases[-1].steps if s.kind is StepKind.USER]
    assert (cases[-1].name, user.text, user.commands) == (
        "generated add_contact 1",
        "add @tim_k to my contacts",
        ["start flow add_contact", "set slot handle @tim_k"],
    )


def _wait_until_reading(pid: int, timeout: float = 10.0) -> None:
    """Wait until ``pid`` sleeps in a read of its terminal. The prompt is printed just before
    that read; a Ctrl+C landing in between is a SIGINT that CPython only notices at the next
    key (the read itself is not interrupted), so a test typing it at once raced the read."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            syscall = Path(f"/proc/{pid}/syscall").read_text().split()[0]
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return  # no /proc here: nothing better than typing at once
        if state == "S" and syscall in {"0", "7", "23", "270", "271"}:  # read, poll, select
            return
        time.sleep(0.02)


def test_ctrl_c_at_the_review_prompt_ends_it_and_adds_nothing(tmp_path: Path) -> None:
    """Ctrl+C at ``review>`` cancels at once (exit 130, "canceled"), as everywhere else.
    The prompt used to block inside the event loop, whose Ctrl+C handler only cancels the
    task at its next await: the process went on waiting for a line."""
    _copy(tmp_path, "banking_bot.suite.yaml", "banking_bot.nlu.yml")
    before = (tmp_path / "banking_bot.suite.yaml").read_bytes()
    peer = LLMPeer([Reply(json.dumps(ROUND_1))])
    with (
        peer.serving() as url,
        generate_in_terminal(
            tmp_path, url, "banking_bot.suite.yaml", "--intent", "check_balance"
        ) as term,
    ):
        term.expect(r"review \(3 shown, 3 to add\)> ")
        _wait_until_reading(term.process.pid)
        os.write(term.master, b"\x03")  # the terminal turns it into SIGINT
        assert "canceled" in term.expect(r"canceled", timeout=10)
        assert term.process.wait(timeout=10) == 130
    assert (tmp_path / "banking_bot.suite.yaml").read_bytes() == before


def test_review_numbers_take_n_n_m_and_all_and_refuse_half_ranges() -> None:
    """`r 2 4-5 all`; a half range (`1-`, `-3`) or a word is refused with the syntax, where
    `r 1-` used to reject proposal 1 alone, silently."""
    import pytest

    from nlu_tui.cli.generate import _numbers

    assert _numbers(["2", "4-5"], 6) == [1, 3, 4]
    assert _numbers(["all"], 3) == [0, 1, 2]
    for bad in ("1-", "-3", "x", "2-1", "7"):
        with pytest.raises(ValueError) as err:
            _numbers([bad], 6)
        assert bad in str(err.value) and "1..6" in str(err.value)
