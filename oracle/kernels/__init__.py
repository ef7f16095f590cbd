"""Vectorized NumPy kernels shared by several operator oracles (and several dialects)."""
