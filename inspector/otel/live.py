"""`OtlpRecorder`: a `Recorder` that also sends the run it records to an OTLP backend, step by step.

```python
from inspector.otel.live import OtlpRecorder

sink = OtlpRecorder("http://127.0.0.1:4318", path="run.jsonl")   # path=None: a temporary file
agent.invoke(messages, callbacks=[sink])                           # graph_core, or LangGraphTarget(...)
warning = sink.shutdown()                                          # flush (bounded); None if all arrived
```

The recording is the one source of truth: an export child process (`inspector.otel.child`, started
with this interpreter when the recorder is made) follows the file the recorder writes and maps each
step as soon as its line is there, exactly as `inspector export` maps it (same span names, attributes
and ids), and sends the spans with the SDK's `BatchSpanProcessor`. The run's process only records: it
loads nothing of OpenTelemetry, and a backend that is down or slow costs the run nothing. `shutdown`
tells the child the run is over and waits for it a bounded time (`wait`: by default the export
timeout and 30 s), then returns its one warning line (the number of spans that did not arrive, or
why nothing was sent). Works wherever a `Recorder` does: graph_core graphs and agents, and LangGraph
graphs through `inspector.adapters.langgraph.LangGraphTarget`. With `OTEL_SDK_DISABLED=true` it is a
plain `Recorder`: no child, nothing sent.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from graph_core.callbacks import RunInfo
from inspector.otel.child_process import ExportChild
from inspector.otel.child_protocol import FINISH_MARGIN, ChildSettings, export_timeout, sdk_disabled
from inspector.recording.recorder import Recorder

__all__ = ["OtlpRecorder"]


class OtlpRecorder(Recorder):
    """Record to `path` (a temporary file, removed at `shutdown`, when None) and send its spans to
    `url` (None: `OTEL_EXPORTER_OTLP_ENDPOINT`) with `headers` (None: `OTEL_EXPORTER_OTLP_HEADERS`)
    as each step is written, from a child process. `timeout` bounds each export (default
    `OTEL_EXPORTER_OTLP_TIMEOUT`, else 3 s); `queue_size` spans may wait to be sent, more are dropped
    and counted; `content` carries message content (default: as
    `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` says); `wait` bounds what `shutdown` waits
    for the child. Other keyword arguments are the `Recorder`'s. `live` is the child, None when
    `OTEL_SDK_DISABLED=true`: then it only records."""

    def __init__(
        self,
        url: str | None = None,
        *,
        path: str | Path | None = None,
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
        content: bool | None = None,
        queue_size: int = 8192,
        wait: float | None = None,
        **options: Any,
    ) -> None:
        self._temporary = path is None
        if path is None:
            handle, name = tempfile.mkstemp(prefix="inspector-otlp-", suffix=".jsonl")
            os.close(handle)
            path = name
        super().__init__(path, **options)
        self.live: ExportChild | None = None
        if not sdk_disabled():
            timeout = export_timeout() if timeout is None else timeout
            settings = ChildSettings(
                path=str(Path(path).resolve()),
                url=url,
                headers=headers,
                timeout=timeout,
                content=content,
                queue_size=queue_size,
                finish=timeout + FINISH_MARGIN if wait is None else wait,
                parent=os.getpid(),
            )
            self.live = ExportChild(settings)

    def on_start(self, info: RunInfo, input: Any) -> None:
        super().on_start(info, input)
        live = self.live
        if live is not None and info.node_key is None and not info.path and not live.following:
            # The header is written: the child may read. A resumed file's earlier segments are not
            # this run's: they were sent when they were recorded.
            continuation = self._continuation
            live.follow(0 if continuation is None else continuation.segments)

    def shutdown(self) -> str | None:
        """Tell the export the run is over and wait for it (bounded), and remove a temporary
        recording; the one warning line to show (spans not delivered, or why nothing was sent), or
        None."""
        self.flush()
        warning = self.live.finish() if self.live is not None else None
        if self._temporary:
            self.close()
            Path(self.path).unlink(missing_ok=True)
        return warning
