"""NLU.DevOps ``compare``: decisions, statistics, thresholds and outputs (see ``bridge`` for runs)."""
