"""Export a topology: networkx, DOT, Mermaid, canonical JSON, and SVG/PNG through Graphviz.

Every function takes a `Topology`, a `CompiledGraph` (`.topology()`), an agent (`.compiled`) or a `Graph`
(compiled on the fly); `as_topology` is that coercion. All exporters are pure and deterministic; only
`render` needs the system `dot` binary.
"""

from inspector.export._canonical import (
    FORMAT,
    READABLE_VERSIONS,
    VERSION,
    from_json,
    to_json,
    topology_document,
)
from inspector.export._coerce import as_topology
from inspector.export._dot import to_dot, to_graphviz
from inspector.export._escape import dot_text, dot_tooltip, mermaid_text
from inspector.export._mermaid import to_mermaid
from inspector.export._networkx import from_networkx, to_networkx
from inspector.export._overlay import HEAT, RunOverlay
from inspector.export._render import INSTALL_HINT, render

__all__ = [
    "FORMAT",
    "HEAT",
    "INSTALL_HINT",
    "READABLE_VERSIONS",
    "VERSION",
    "RunOverlay",
    "as_topology",
    "dot_text",
    "dot_tooltip",
    "from_json",
    "from_networkx",
    "mermaid_text",
    "render",
    "to_dot",
    "to_graphviz",
    "to_json",
    "to_mermaid",
    "to_networkx",
    "topology_document",
]
