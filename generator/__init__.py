"""Generator: Hypothesis strategies of cases derived from specs, and test-data file writers."""
