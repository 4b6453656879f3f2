"""pytest plugin registered through the `pytest11` entry point (fixtures arrive with the snapshot work).

Importing this module must never break pytest for a project that does not use it, so it imports nothing
heavy at module level.
"""
