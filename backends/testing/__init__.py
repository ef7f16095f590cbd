"""Backends for testing the runner itself (not for certifying anything)."""
