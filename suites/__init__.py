"""Suites: the runner (worker pool, verdicts, resumable results) and the pytest plugin."""
