"""`python -m inspector` is the `inspector` command."""

from inspector.cli import command

raise SystemExit(command())
