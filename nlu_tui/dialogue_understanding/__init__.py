"""Dialogue understanding, as Rasa Pro's ``rasa/dialogue_understanding``: the commands a command
generator predicts (their model, DSLs and parser), the flows they name, and how two command
lists compare.

Below the engines (the command-predicting engines read and write commands) and above the
formats (the flows reader reads YAML with ``formats.yaml_loader``); the DU tests themselves
(``nlu-tui test du``) are the service in :mod:`nlu_tui.dut`.
"""
