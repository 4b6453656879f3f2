"""Recorded runs: the run-file format, the `Recorder` callback that writes it, and `read_run`.

```python
from inspector.recording import Recorder, read_run

compiled.invoke(x, callbacks=[Recorder("run.jsonl")])
run = read_run("run.jsonl")
run.status, run.output, [step.nodes for step in run.steps]

compiled.invoke(None, checkpoint_id="t1", callbacks=[Recorder("run.jsonl", resume=True)])  # a resume
run.segments                      # the first run and its resumed continuation, one timeline in `run.steps`
```
"""

from inspector.errors import RunFileError
from inspector.recording.format import FORMAT_NAME, FORMAT_VERSION
from inspector.recording.reader import NodeRun, Run, RunFileWarning, Segment, Step, read_run
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
