"""`OtlpRecorder`: a `Recorder` that also sends each run it records to an OTLP backend as it ends.

```python
from inspector.otel.live import OtlpRecorder

sink = OtlpRecorder("http://127.0.0.1:4318", path="run.jsonl")   # path=None: a temporary file
agent.invoke(messages, callbacks=[sink])                           # graph_core, or LangGraphTarget(...)
warning = sink.shutdown()                                          # flush (bounded); None if all arrived
```

The recording is the one source of truth: when a run (or a resumed segment) ends, its segment is read
back and mapped exactly as `inspector export` maps it (same span names, attributes and ids), and the
spans go to a `BatchSpanProcessor`, whose own thread does the network. A backend that is down or
slow costs the run nothing; `shutdown` waits at most the export timeout and returns one warning line
with the number of spans that did not arrive. Works wherever a `Recorder` does: graph_core graphs and
agents, and LangGraph graphs through `inspector.adapters.langgraph.LangGraphTarget`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from graph_core.callbacks import RunInfo
from inspector.otel.exporters import SCOPE, OtlpSink
from inspector.otel.ids import KeyedIds
from inspector.otel.mapping import capture_content, emit_segment
from inspector.otel.names import SCHEMA_URL
from inspector.recording.reader import read_run
from inspector.recording.recorder import Recorder

__all__ = ["OtlpRecorder"]


class OtlpRecorder(Recorder):
    """Record to `path` (a temporary file, removed at `shutdown`, when None) and send each finished
    run or segment to `url` (None: `OTEL_EXPORTER_OTLP_ENDPOINT`). `sink` shares one exporter between
    recorders; other keyword arguments are the `Recorder`'s."""

    def __init__(
        self,
        url: str | None = None,
        *,
        path: str | Path | None = None,
        sink: OtlpSink | None = None,
        timeout: float | None = None,
        content: bool | None = None,
        **options: Any,
    ) -> None:
        self._temporary = path is None
        if path is None:
            handle, name = tempfile.mkstemp(prefix="inspector-otlp-", suffix=".jsonl")
            os.close(handle)
            path = name
        super().__init__(path, **options)
        self.sink = sink if sink is not None else OtlpSink(url, timeout=timeout)
        self._own_sink = sink is None
        self._content = capture_content() if content is None else content
        self.send_fault: str | None = None

    def on_end(self, info: RunInfo, output: Any) -> None:
        super().on_end(info, output)
        if info.node_key is None and not info.path:
            self._send()

    def on_error(self, info: RunInfo, error: BaseException) -> None:
        super().on_error(info, error)
        if info.node_key is None and not info.path:
            self._send()

    def _send(self) -> None:
        """Map the segment that just ended and hand its spans to the batch processor."""
        if self.fault is not None:
            return
        try:
            self.flush()
            run = read_run(self.path)
            ids = KeyedIds(run.run_id)
            provider = self.sink.provider(ids)
            tracer = provider.get_tracer(SCOPE, schema_url=SCHEMA_URL)
            emit_segment(run, run.segments[-1], tracer, ids, content=self._content)
        except Exception as exc:  # a sink never breaks the run it observes
            self.send_fault = self.send_fault or f"{type(exc).__name__}: {exc}"

    def shutdown(self) -> str | None:
        """Flush what is queued (bounded by the timeout), stop, and remove a temporary recording; the
        one warning line to show (spans not delivered, or why nothing was sent), or None."""
        warning = self.sink.close() if self._own_sink else None
        if self._temporary:
            self.close()
            Path(self.path).unlink(missing_ok=True)
        if self.send_fault is not None:
            return f"OTLP export skipped: {self.send_fault}"
        return warning
