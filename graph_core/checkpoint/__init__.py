"""Checkpoints: what a stopped run leaves behind, how it is serialized, and where it is stored.

```python
from graph_core.checkpoint import InMemoryCheckpointStore, SqliteCheckpointStore

compiled = graph.compile(interrupt_before=["review"], checkpoint_store=SqliteCheckpointStore("runs.db"))
```
"""

from graph_core.checkpoint.codec import (
    CheckpointSerializationError,
    decode_checkpoint,
    encode_checkpoint,
    register_type,
)
from graph_core.checkpoint.model import Checkpoint
from graph_core.checkpoint.sqlite import SqliteCheckpointStore
from graph_core.checkpoint.store import CheckpointStore, InMemoryCheckpointStore

__all__ = [
    "Checkpoint",
    "CheckpointSerializationError",
    "CheckpointStore",
    "InMemoryCheckpointStore",
    "SqliteCheckpointStore",
    "decode_checkpoint",
    "encode_checkpoint",
    "register_type",
]
