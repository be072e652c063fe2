"""Engines: one small module per kind of NLU engine, found through the registry in ``base``."""
