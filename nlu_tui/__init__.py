"""nlu-tui: a terminal workbench for batch-testing NLU engines.

Kept empty of imports so that ``import nlu_tui`` costs nothing.
"""

__version__ = "0.1.0"
