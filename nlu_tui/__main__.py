"""Entry point of the ``nlu-tui`` console script."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from nlu_tui.cli.main import run

    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
