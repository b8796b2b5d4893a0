"""Smoke tests of the benchmark code: correct numbers on tiny inputs, never timings."""
