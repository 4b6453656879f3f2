"""Canonical JSON for topologies: the form snapshot files, diffs and run files can compare byte for byte.

Canonical means: a versioned envelope, keys sorted, every field present (defaults included, so a reader
never has to know the defaults), nodes and edges in the topology's own order (that order is meaningful:
it decides back-edge classification), UTF-8 kept as-is, two-space indent and a final newline.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from graph_core.topology import Topology
from inspector.errors import TopologyFormatError
from inspector.export._coerce import as_topology
from inspector.export._jsontext import dumps_indented

__all__ = ["FORMAT", "READABLE_VERSIONS", "VERSION", "from_json", "to_json", "topology_document"]

FORMAT = "graph-inspector/topology"
VERSION = 2
"""Version 2 added tools, models, lambda functions and edge labels (`ToolSpec`, `ModelSpec`,
`TopologyNode.function`, `TopologyEdge.label`); version 1 documents read as topologies without them."""
READABLE_VERSIONS = (1, 2)


def topology_document(subject: Any, /) -> dict[str, Any]:
    """The JSON-ready envelope `to_json` serialises; useful to embed a topology in a larger document."""
    topology = as_topology(subject)
    return {"format": FORMAT, "version": VERSION, "topology": topology.model_dump(mode="json")}


def to_json(subject: Any, /) -> str:
    """Serialise canonically: the same graph always gives byte-identical text."""
    # the same text as json.dumps(document, sort_keys=True, ensure_ascii=False, indent=2), faster
    return dumps_indented(topology_document(subject)) + "\n"


def from_json(text: str | bytes, /) -> Topology:
    """Read what `to_json` wrote; a wrong format, version or shape is a `TopologyFormatError`."""
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise TopologyFormatError(f"topology JSON is not valid JSON: {exc}") from exc
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise TopologyFormatError(f'not a topology document: expected `"format": "{FORMAT}"`')
    version = document.get("version")
    if type(version) is not int or version not in READABLE_VERSIONS:
        readable = ", ".join(str(v) for v in READABLE_VERSIONS)
        raise TopologyFormatError(
            f"topology document version `{version}` is not supported (this build reads versions {readable})"
        )
    try:
        return Topology.model_validate(document.get("topology"))
    except ValidationError as exc:
        raise TopologyFormatError(f"topology document has an invalid `topology`: {exc}") from exc
