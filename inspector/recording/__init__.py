"""Recorded runs: the run-file format, the `Recorder` callback that writes it, and `read_run`.

```python
from inspector.recording import Recorder, read_run

compiled.invoke(x, callbacks=[Recorder("run.jsonl")])
run = read_run("run.jsonl")
run.status, run.output, [step.nodes for step in run.steps]

compiled.invoke(None, checkpoint_id="t1", callbacks=[Recorder("run.jsonl", resume=True)])  # a resume
run.segments                      # the first run and its resumed continuation, one timeline in `run.steps`
```

Where things are, in the order a step travels. Writing: `recorder` (the callbacks; `on_step_end` decides
whether the step is written now or behind the run, `write_behind`) -> `pending` and `held` (what was noted
between callbacks) -> `state_track` (snapshot or delta; `statediff`) and `encode` (values to JSON-like
data; `value_kinds`, `refs`, `message_json`, `redact`) -> `elision` (what the line leaves out) ->
`step_line` (the bytes of the line; `line_json`) -> `run_writer` (ordering, header, `run_finished`) ->
`sink` (the file). Resuming into the same file: `continuation`. Reading: `fileindex` (lines found by
prefix; `line_parse`) -> `segments` -> `values` (`valuelist`) and `states` -> `elision` again, backward
-> `model` (`Step`, `NodeRun`, ...), joined by `reader.Run`. The format itself: `format`, `header`,
`schema`, `debug_lines`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from inspector.errors import RunFileError
from inspector.recording.format import FORMAT_NAME, FORMAT_VERSION
from inspector.recording.reader import NodeRun, Run, RunFileWarning, Segment, Step, read_run

if TYPE_CHECKING:
    from inspector.recording.recorder import Recorder
    from inspector.recording.redact import DEFAULT_REDACT_KEYS, Redaction

__all__ = [
    "DEFAULT_REDACT_KEYS",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "NodeRun",
    "Recorder",
    "Redaction",
    "Run",
    "RunFileError",
    "RunFileWarning",
    "Segment",
    "Step",
    "read_run",
]


def __getattr__(name: str) -> Any:
    """The writing side, imported when first asked for: reading a run (`inspector show`, `diff`,
    `replay`) does not need the recorder, the encoder or the redaction rules, and leaving them out
    shortens every reading command's start-up."""
    if name == "Recorder":
        from inspector.recording.recorder import Recorder

        return Recorder
    if name in ("DEFAULT_REDACT_KEYS", "Redaction"):
        from inspector.recording import redact

        return getattr(redact, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
