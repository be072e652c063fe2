"""The fastest safe YAML loader this PyYAML build offers, shared by the YAML formats.

libyaml's C loader composes large suites and training files about ten times faster than the
pure-Python one; PyYAML builds without libyaml lack it, so fall back to ``SafeLoader``.
"""

from __future__ import annotations

import yaml

try:
    SafeLoader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    SafeLoader = yaml.SafeLoader
