"""numpy 1.23's ``argsort`` (its default introsort), in pure Python, for Rasa's ``confused_with``.

Rasa 3.6 pins numpy < 1.25 and picks a row's ``confused_with`` labels from
``np.argsort(confusion_matrix, axis=1)``; among equal counts the pick depends on the exact sort.
numpy 2 sorts integers with other code (x86-simd-sort), which orders ties differently, so the
installed numpy cannot be used. This is numpy 1.23.5's ``aquicksort_`` and ``aheapsort_``
(``numpy/core/src/npysort/quicksort.cpp``, ``heapsort.cpp``), step by step; tests check it
against argsorts recorded from numpy 1.23.5 (tests/fixtures/numpy123_argsort.json), and the
heapsort fallback on inputs made to reach it (tests/test_numpy_argsort_fallback.py).
"""

from __future__ import annotations

from collections.abc import Sequence

SMALL_QUICKSORT = 15


def _heapsort(v: Sequence[int], idx: list[int], lo: int, n: int) -> None:
    """``aheapsort_`` on ``idx[lo:lo + n]`` (1-based heap ``a[i] = idx[lo + i - 1]``)."""

    def get(i: int) -> int:
        return idx[lo + i - 1]

    def put(i: int, value: int) -> None:
        idx[lo + i - 1] = value

    for start in range(n >> 1, 0, -1):
        tmp = get(start)
        i, j = start, start << 1
        while j <= n:
            if j < n and v[get(j)] < v[get(j + 1)]:
                j += 1
            if v[tmp] < v[get(j)]:
                put(i, get(j))
                i = j
                j += j
            else:
                break
        put(i, tmp)
    while n > 1:
        tmp = get(n)
        put(n, get(1))
        n -= 1
        i, j = 1, 2
        while j <= n:
            if j < n and v[get(j)] < v[get(j + 1)]:
                j += 1
            if v[tmp] < v[get(j)]:
                put(i, get(j))
                i = j
                j += j
            else:
                break
        put(i, tmp)


def argsort(v: Sequence[int]) -> list[int]:
    """``numpy.argsort(v)`` as numpy 1.23 computes it (``kind="quicksort"``, the default)."""
    num = len(v)
    idx = list(range(num))
    if num < 2:
        return idx
    pl, pr = 0, num - 1
    stack: list[tuple[int, int, int]] = []
    cdepth = (num.bit_length() - 1) * 2  # npy_get_msb(num) * 2
    while True:
        if cdepth < 0:
            _heapsort(v, idx, pl, pr - pl + 1)
        else:
            while pr - pl > SMALL_QUICKSORT:
                pm = pl + ((pr - pl) >> 1)
                if v[idx[pm]] < v[idx[pl]]:
                    idx[pm], idx[pl] = idx[pl], idx[pm]
                if v[idx[pr]] < v[idx[pm]]:
                    idx[pr], idx[pm] = idx[pm], idx[pr]
                if v[idx[pm]] < v[idx[pl]]:
                    idx[pm], idx[pl] = idx[pl], idx[pm]
                vp = v[idx[pm]]
                pi, pj = pl, pr - 1
                idx[pm], idx[pj] = idx[pj], idx[pm]
                while True:
                    pi += 1
                    while v[idx[pi]] < vp:
                        pi += 1
                    pj -= 1
                    while vp < v[idx[pj]]:
                        pj -= 1
                    if pi >= pj:
                        break
                    idx[pi], idx[pj] = idx[pj], idx[pi]
                pk = pr - 1
                idx[pi], idx[pk] = idx[pk], idx[pi]
                cdepth -= 1
                if pi - pl < pr - pi:
                    stack.append((pi + 1, pr, cdepth))
                    pr = pi - 1
                else:
                    stack.append((pl, pi - 1, cdepth))
                    pl = pi + 1
            for pi in range(pl + 1, pr + 1):  # insertion sort
                vi = idx[pi]
                vp = v[vi]
                pj = pi
                while pj > pl and vp < v[idx[pj - 1]]:
                    idx[pj] = idx[pj - 1]
                    pj -= 1
                idx[pj] = vi
        if not stack:
            return idx
        pl, pr, cdepth = stack.pop()
