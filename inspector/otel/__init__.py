"""Runs as OpenTelemetry traces: `mapping` (a run as GenAI spans), `exporters` (OTLP JSON files and
OTLP/HTTP through the SDK), `live` (a callback that sends a run while it happens, from the export
child process: `child_process` starts it, `child` is what it runs, `child_protocol` what they say,
`follower` how it follows the run file), `ids` (deterministic ids) and `names` (the attribute
names, by the pinned semantic conventions).

Needs the `otel` extra (`pip install 'graph-inspector[otel]'`).
"""
