"""The heapsort fallback of the numpy 1.23 argsort port (``nlu_tui.scoring.numpy_argsort``),
which ordinary confusion-matrix rows never reach.

numpy's introsort switches a range to heapsort once the quicksort recursion is deeper than
2·log2(n). Inputs that get there are made with McIlroy's adversary ("A Killer Adversary for
Quicksort", 1999): values are fixed lazily as the sort compares them, so that every partition
is as lopsided as possible. ``tests/fixtures/numpy123_introsort_fallback.json`` holds
numpy 1.23.5's own ``argsort`` of those inputs (and ``kind="heapsort"`` of tie-heavy vectors),
recorded with the Rasa peer venv's numpy; the ``rasa``-marked test recomputes them live.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

import nlu_tui.scoring.numpy_argsort as port

FIXTURE = Path(__file__).parent / "fixtures" / "numpy123_introsort_fallback.json"
PEER_PYTHON = (
    Path(os.environ.get("NLU_TUI_PEERS_DIR", Path.home() / ".cache" / "nlu-tui-peers"))
    / "rasa310"
    / "bin"
    / "python"
)


def killer(n: int) -> list[int]:
    """McIlroy's adversary against the port's own quicksort: an input of ``n`` values."""
    gas = n - 1
    val = [gas] * n
    state: dict[str, Any] = {"solid": 0, "candidate": None}

    class Key:
        def __init__(self, i: int) -> None:
            self.i = i

        def __lt__(self, other: Key) -> bool:
            x, y = self.i, other.i
            if val[x] == gas and val[y] == gas:
                val[x if x == state["candidate"] else y] = state["solid"]
                state["solid"] += 1
            if val[x] == gas:
                state["candidate"] = x
            elif val[y] == gas:
                state["candidate"] = y
            return val[x] < val[y]

    class Values:
        def __getitem__(self, i: int) -> Key:
            return Key(i)

        def __len__(self) -> int:
            return n

    port.argsort(Values())  # type: ignore[arg-type]
    return val


def test_killer_inputs_reach_the_heapsort_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    heapsort = port._heapsort

    def spy(v: Any, idx: list[int], lo: int, n: int) -> None:
        calls.append(n)
        heapsort(v, idx, lo, n)

    monkeypatch.setattr(port, "_heapsort", spy)
    for n in (40, 100, 257):
        base = killer(n)
        # as made, and with ties (halved, capped) that still drive it there
        for values in (base, [x // 2 for x in base], [min(x, n // 2) for x in base]):
            calls.clear()
            assert port.argsort(values) and calls, n  # the fallback ran
            assert sorted(values[i] for i in port.argsort(values)) == sorted(values)
    calls.clear()
    port.argsort(list(range(200)))
    assert calls == []  # ordinary input never does


def test_the_fixture_holds_the_killer_inputs() -> None:
    recorded = json.loads(FIXTURE.read_text())
    assert recorded["numpy"] == "1.23.5"
    inputs = [v for v, _order in recorded["quicksort"]]
    for n in (20, 40, 64, 100, 150, 257):
        assert killer(n) in inputs
    for n in (100, 160, 257):
        assert [min(x, n // 2) for x in killer(n)] in inputs


def test_argsort_through_the_fallback_equals_numpy_1_23() -> None:
    recorded = json.loads(FIXTURE.read_text())
    for values, order in recorded["quicksort"]:
        assert port.argsort(values) == order, len(values)


def test_heapsort_equals_numpy_1_23_heapsort_kind() -> None:
    """``aheapsort_`` alone: numpy's ``kind="heapsort"`` runs the same function on the whole
    array, so tie orders must agree exactly."""
    recorded = json.loads(FIXTURE.read_text())
    for values, order in recorded["heapsort"]:
        idx = list(range(len(values)))
        port._heapsort(values, idx, 0, len(values))
        assert idx == order, values


LIVE = """
import json, sys
import numpy as np
cases = json.load(sys.stdin)
print(json.dumps({
    "numpy": np.__version__,
    "quicksort": [np.argsort(np.array(v, dtype=np.int64)).tolist() for v in cases["quicksort"]],
    "heapsort": [np.argsort(np.array(v, dtype=np.int64), kind="heapsort").tolist()
                 for v in cases["heapsort"]],
}))
"""


@pytest.mark.rasa
def test_against_the_peer_venvs_numpy_live() -> None:
    if not PEER_PYTHON.exists():
        pytest.skip(f"no Rasa peer at {PEER_PYTHON}: run tests/peers/setup_rasa.sh")
    import random

    rng = random.Random(23)
    quick = [killer(n) for n in (33, 77, 129, 300)]
    quick += [[x // 2 for x in killer(n)] for n in (120, 300)]
    quick += [[min(x, n // 3) for x in killer(n)] for n in (90, 200)]
    heap = [[rng.randint(0, rng.randint(0, 9)) for _ in range(rng.randint(1, 120))]
            for _ in range(40)]  # fmt: skip
    done = subprocess.run(
        [str(PEER_PYTHON), "-c", LIVE],
        input=json.dumps({"quicksort": quick, "heapsort": heap}),
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout)
    assert theirs["numpy"].startswith("1.23.")
    for values, order in zip(quick, theirs["quicksort"], strict=True):
        assert port.argsort(values) == order, len(values)
    for values, order in zip(heap, theirs["heapsort"], strict=True):
        idx = list(range(len(values)))
        port._heapsort(values, idx, 0, len(values))
        assert idx == order, values
