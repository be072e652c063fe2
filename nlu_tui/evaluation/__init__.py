"""Evaluation that trains: data splits, held-out tests, cross-validation, pipeline comparison.

Rasa's ``rasa data split nlu`` and ``rasa test nlu`` (held-out, ``--cross-validation``,
``--config a.yml b.yml``), for any engine that can train (embedded, a real Rasa). Textual-free:
the CLI and the workbench call :mod:`nlu_tui.evaluation.service`.
"""
