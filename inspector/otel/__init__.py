"""Runs as OpenTelemetry traces: `mapping` (a run as GenAI spans), `exporters` (OTLP JSON files and
OTLP/HTTP through the SDK), `live` (a callback that sends a run while it happens), `ids`
(deterministic ids) and `names` (the attribute names, by the pinned semantic conventions).

Needs the `otel` extra (`pip install 'graph-inspector[otel]'`).
"""
