"""The Textual workbench: a face over the same service calls as the CLI.

Screens and panes import the core (the scoring core, the engines, the store, Arrow) inside the
handlers and workers that use it, so the first paint loads none of it
(``tests/test_startup_imports.py``); that is what the function-local imports here are for.
"""
