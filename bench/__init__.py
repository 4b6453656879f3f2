"""Benchmarks: `python3 -m bench [NAME ...]` runs `bench/bench_<NAME>.py` (all of them without names).

Each module exposes `run() -> None`, measures its subject and a baseline in the same process, and prints
ratios and the issue's targets. Nothing here is a test: timings never gate the test suite.
"""
