"""The embedded engine: a scikit-learn intent classifier and a rule-based entity extractor.

Importing this package registers the ``embedded`` engine type; scikit-learn itself is only
imported when a model is trained or loaded.
"""

from nlu_tui.engines.embedded.engine import EmbeddedEngine

__all__ = ["EmbeddedEngine"]
