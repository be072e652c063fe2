"""Dialogue Understanding Tests (``nlu-tui test du``): expected commands per step, as Rasa Pro."""
