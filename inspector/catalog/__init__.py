"""Many runs, not one: a catalog of every run in folders, run files, LangGraph checkpointers (each
thread a run) and OTLP trace files (each run in the file), with filters, statistics across runs and
an index that makes a second listing read only what changed.

```python
from inspector.catalog import Catalog, Filters, fleet_stats, default_index_path

catalog = Catalog(index=default_index_path())
scan = catalog.scan(["runs/", "checkpoints.sqlite"], walk=True)  # walk: diagnostics, nodes, per-node facts
errors = [r for r in scan.records if r.status == "error"]
fleet_stats(scan.records).exhaustion_rate
```

Modules, one concept each: `record` (a run's row and its walked facts), `source` (source kinds,
registered by name; the kinds: `runfile`, `checkpointer`, `tracefile`), `folder` (the recursive
search), `index` (SQLite), `catalog` (sources read through the index), `facts` (the walk), `listing`
(filters, sorting, table/JSON/CSV), `where` (the `--where` condition), `stats` (statistics across
runs), `overlay` (many runs summed on their graph).
"""

from __future__ import annotations

from inspector.catalog.catalog import Catalog, Scan
from inspector.catalog.checkpointer import CheckpointerKind
from inspector.catalog.errors import CatalogError
from inspector.catalog.index import default_index_path
from inspector.catalog.listing import Filters
from inspector.catalog.record import RunFacts, RunRecord
from inspector.catalog.runfile import RunFileKind
from inspector.catalog.source import register
from inspector.catalog.stats import FleetStats, fleet_stats, stats_text
from inspector.catalog.tracefile import TraceFileKind

# The built-in kinds, in the order they claim files; another kind registers through `source.register`.
register(RunFileKind())
register(CheckpointerKind())
register(TraceFileKind())

__all__ = [
    "Catalog",
    "CatalogError",
    "Filters",
    "FleetStats",
    "RunFacts",
    "RunRecord",
    "Scan",
    "default_index_path",
    "fleet_stats",
    "stats_text",
]
