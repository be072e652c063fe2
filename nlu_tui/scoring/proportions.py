"""A pass rate and its confidence interval: the Wilson score interval.

For ``k`` successes in ``n`` trials, ``p = k / n`` and ``z`` the normal quantile
(1.959963984540054 for 95 %)::

    centre = (p + z²/(2n)) / (1 + z²/n)
    half   = z / (1 + z²/n) · sqrt(p(1 − p)/n + z²/(4n²))

E. B. Wilson, "Probable inference, the law of succession, and statistical inference", JASA 22
(1927) 209–212; R. G. Newcombe, "Two-sided confidence intervals for the single proportion:
comparison of seven methods", Statistics in Medicine 17 (1998) 857–872, method 3. Unlike the
normal ("Wald") interval it stays inside 0..1 and is not empty at 0 of n or n of n, which is
what a handful of simulated conversations per scenario gives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054
"""The 0.975 quantile of the standard normal distribution."""


@dataclass(frozen=True)
class PassRate:
    passed: int
    total: int
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "passed": self.passed,
            "total": self.total,
            "pass_rate": self.rate,
            "ci95_low": self.low,
            "ci95_high": self.high,
        }


def wilson_interval(passed: int, total: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``passed`` of ``total`` ((0, 1) when ``total`` is 0)."""
    if total <= 0:
        return 0.0, 1.0
    if not 0 <= passed <= total:
        raise ValueError(f"{passed} passed of {total}")
    p = passed / total
    z2 = z * z
    denominator = 1.0 + z2 / total
    centre = (p + z2 / (2 * total)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total))
    return max(0.0, centre - half), min(1.0, centre + half)


def pass_rate(passed: int, total: int) -> PassRate:
    low, high = wilson_interval(passed, total)
    return PassRate(passed, total, low, high)
