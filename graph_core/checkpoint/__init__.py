"""Checkpoints: what a stopped run leaves behind, how it is serialized, and where it is stored.

```python
from graph_core.checkpoint import InMemoryCheckpointStore, SqliteCheckpointStore

compiled = graph.compile(interrupt_before=["review"], checkpoint_store=SqliteCheckpointStore("runs.db"))
```
"""

from typing import TYPE_CHECKING, Any

from graph_core.checkpoint.codec import (
    CheckpointSerializationError,
    decode_checkpoint,
    encode_checkpoint,
    register_type,
)
from graph_core.checkpoint.migrate import migrate_checkpoint_state
from graph_core.checkpoint.model import Checkpoint
from graph_core.checkpoint.store import CheckpointStore, InMemoryCheckpointStore

if TYPE_CHECKING:
    from graph_core.checkpoint.sqlite import SqliteCheckpointStore


def __getattr__(name: str) -> Any:
    """`SqliteCheckpointStore` loads sqlite3 on first use, so `import graph_core` stays light."""
    if name == "SqliteCheckpointStore":
        from graph_core.checkpoint.sqlite import SqliteCheckpointStore

        return SqliteCheckpointStore
    raise AttributeError(f"module 'graph_core.checkpoint' has no attribute {name!r}")


__all__ = [
    "Checkpoint",
    "CheckpointSerializationError",
    "CheckpointStore",
    "InMemoryCheckpointStore",
    "SqliteCheckpointStore",
    "decode_checkpoint",
    "encode_checkpoint",
    "migrate_checkpoint_state",
    "register_type",
]
