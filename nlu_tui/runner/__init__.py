"""The asynchronous runner: a suite against an engine, results into the run store."""

from nlu_tui.runner.events import ProgressEvent, RunPhase
from nlu_tui.runner.options import RunOptions
from nlu_tui.runner.run import Run, run_suite

__all__ = ["ProgressEvent", "Run", "RunOptions", "RunPhase", "run_suite"]
