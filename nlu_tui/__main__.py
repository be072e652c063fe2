"""Entry point of the ``nlu-tui`` console script."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from nlu_tui.cli.main import run

    code = run(sys.argv[1:] if argv is None else argv)
    tui = sys.modules.get("nlu_tui.cli.tui")
    if argv is None and tui is not None and getattr(tui, "workbench_ran", False):
        tui.leave_now(code)  # the workbench quit: leave at once (returns if a thread works)
    return code


if __name__ == "__main__":
    sys.exit(main())
