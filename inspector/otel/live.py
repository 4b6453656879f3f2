"""`OtlpRecorder`: a `Recorder` that also sends the run it records to an OTLP backend, step by step.

```python
from inspector.otel.live import OtlpRecorder

sink = OtlpRecorder("http://127.0.0.1:4318", path="run.jsonl")   # path=None: a temporary file
agent.invoke(messages, callbacks=[sink])                           # graph_core, or LangGraphTarget(...)
warning = sink.shutdown()                                          # flush (bounded); None if all arrived
```

The recording is the one source of truth: a `LiveExport` thread follows the file the recorder writes
and maps each step as soon as its line is there, exactly as `inspector export` maps it (same span
names, attributes and ids), and the spans go to a `BatchSpanProcessor`, whose own thread does the
network. The run's thread only records: a backend that is down or slow costs the run nothing;
`shutdown` sends what is left, waits at most the export timeout and returns one warning line with
the number of spans that did not arrive. Works wherever a `Recorder` does: graph_core graphs and
agents, and LangGraph graphs through `inspector.adapters.langgraph.LangGraphTarget`. With
`OTEL_SDK_DISABLED=true` it is a plain `Recorder`: no thread, no exporter, nothing sent.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from graph_core.callbacks import RunInfo
from inspector.otel.exporters import OtlpSink, sdk_disabled
from inspector.otel.follower import LiveExport
from inspector.otel.mapping import capture_content
from inspector.recording.recorder import Recorder

__all__ = ["OtlpRecorder"]


class OtlpRecorder(Recorder):
    """Record to `path` (a temporary file, removed at `shutdown`, when None) and send its spans to
    `url` (None: `OTEL_EXPORTER_OTLP_ENDPOINT`, with `OTEL_EXPORTER_OTLP_HEADERS`) as each step is
    written. `sink` shares one exporter between recorders; other keyword arguments are the
    `Recorder`'s. `live` is None when `OTEL_SDK_DISABLED=true`: then it only records."""

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
        self.live: LiveExport | None = None
        self.sink = sink
        self._own_sink = sink is None
        if not sdk_disabled():
            self.sink = sink if sink is not None else OtlpSink(url, timeout=timeout)
            self.live = LiveExport(path, self.sink, content=capture_content() if content is None else content)

    def on_start(self, info: RunInfo, input: Any) -> None:
        super().on_start(info, input)
        live = self.live
        if live is not None and info.node_key is None and not info.path and not live.started:
            live.start()

    def shutdown(self) -> str | None:
        """Send what is left, flush (bounded by the timeout), stop, and remove a temporary recording;
        the one warning line to show (spans not delivered, or why nothing was sent), or None."""
        self.flush()
        warning: str | None = None
        if self.live is not None and self.sink is not None:
            self.live.stop(self.sink.timeout + 30)
            warning = self.sink.close() if self._own_sink else None
        if self._temporary:
            self.close()
            Path(self.path).unlink(missing_ok=True)
        if self.live is not None and self.live.fault is not None:
            return f"OTLP export skipped: {self.live.fault}"
        return warning
