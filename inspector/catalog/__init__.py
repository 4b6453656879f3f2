"""Many runs, not one: a catalog of every run in folders and run files, with filters, statistics
across runs and an index that makes a second listing read only what changed.

```python
from inspector.catalog import Catalog, Filters, fleet_stats, default_index_path

catalog = Catalog(index=default_index_path())
scan = catalog.scan(["runs/"], walk=True)     # walk: diagnostics, visited nodes, per-node facts
errors = [r for r in scan.records if r.status == "error"]
fleet_stats(scan.records).exhaustion_rate
```

Modules, one concept each: `record` (a run's row and its walked facts), `source` (source kinds,
registered by name) and `runfile` (the run-file kind), `index` (SQLite), `catalog` (sources read
through the index), `facts` (the walk), `listing` (filters, sorting, table/JSON/CSV), `where` (the
`--where` condition), `stats` (statistics across runs), `overlay` (many runs summed on their graph).
"""

from __future__ import annotations

from inspector.catalog.catalog import Catalog, Scan
from inspector.catalog.errors import CatalogError
from inspector.catalog.index import default_index_path
from inspector.catalog.listing import Filters
from inspector.catalog.record import RunFacts, RunRecord
from inspector.catalog.runfile import RunFileKind
from inspector.catalog.source import register
from inspector.catalog.stats import FleetStats, fleet_stats, stats_text

register(RunFileKind())  # the built-in kind; each kind's module registers through `source.register`

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
