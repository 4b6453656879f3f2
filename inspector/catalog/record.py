"""One run as the catalog lists it (`RunRecord`), and what a walk over its steps adds (`RunFacts`).

A record is made from what a run's first and last lines say (header, the last step's budget, the
`run_finished` line): cheap, so the first listing of a thousand runs reads kilobytes, not every step.
The facts need every step (the nodes visited, the diagnostics, per-node durations and tokens, the
branches taken): they are computed once per file version and kept in the index beside the record.
Both are plain data that round-trip through JSON (the index stores them as JSON text).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["FIELDS", "NUMERIC_FIELDS", "STATUSES", "NodeFacts", "RunFacts", "RunRecord", "short_id"]

STATUSES = ("ok", "error", "interrupted", "incomplete", "running", "corrupt")
NUMERIC_FIELDS = ("steps", "model_calls", "tool_calls", "tokens", "duration")
FIELDS = (
    "id",
    "path",
    "kind",
    "part",
    "graph",
    "status",
    *NUMERIC_FIELDS,
    "started_at",
    "run_id",
    "diagnostics",
    "tags",
)
"""What a listing can sort by and `--where` can name (strings compare as strings)."""


def short_id(key: str) -> str:
    """Seven hex digits naming a run in a listing, stable for its file (run ids repeat across files:
    every recording of a fixture may call itself `weather`)."""
    return hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:7]


@dataclass
class NodeFacts:
    """One node across one run's steps: how many steps it ran in, each top-level execution's duration,
    the tokens of the steps it ran in (the budget's total before and after), the executions that failed."""

    visits: int = 0
    durations: list[float] = field(default_factory=lambda: [])
    tokens: int = 0
    errors: int = 0


@dataclass
class RunFacts:
    """What a walk over every step of a run found (see the module docstring)."""

    steps: int = 0
    visited: list[str] = field(default_factory=lambda: [])
    diagnostics: list[str] = field(default_factory=lambda: [])
    nodes: dict[str, NodeFacts] = field(default_factory=lambda: {})
    branches: dict[str, dict[str, int]] = field(default_factory=lambda: {})
    cycle: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunFacts:
        nodes = {k: NodeFacts(**v) for k, v in data.get("nodes", {}).items()}
        return cls(
            steps=data.get("steps", 0),
            visited=list(data.get("visited", [])),
            diagnostics=list(data.get("diagnostics", [])),
            nodes=nodes,
            branches={k: dict(v) for k, v in data.get("branches", {}).items()},
            cycle=data.get("cycle"),
        )


@dataclass
class RunRecord:
    """One line of a listing. `path` is the path as found (what the user typed, joined with what the
    folder search found; `FILE#PART` for a run inside a file that holds many); `key` what the index
    files it under (the resolved path, `#PART` after it). `part` names the run inside its source (a
    checkpointer's thread id, a trace file's run id or trace id; empty for a run file), `where` is the
    location its kind opens (a resolved path, or a URL: never stored, as it may carry a password).
    `reason` says why a run is corrupt. `diagnostics` and `visited` are None and `facts` is None until
    the run was walked (the index keeps the first two with the record, the facts beside it)."""

    path: str
    key: str
    kind: str = "runfile"
    part: str = ""
    where: str = ""
    run_id: str = ""
    graph: str = ""
    status: str = "incomplete"
    reason: str = ""
    steps: int = 0
    model_calls: int = 0
    tool_calls: int = 0
    tokens: int = 0
    duration: float | None = None
    started_at: str = ""
    tags: dict[str, str] = field(default_factory=lambda: {})
    diagnostics: list[str] | None = None
    visited: list[str] | None = None
    facts: RunFacts | None = None

    @property
    def id(self) -> str:
        return short_id(self.key)

    def walked(self, facts: RunFacts) -> None:
        """Take what a walk over the run's steps found."""
        self.facts = facts
        self.steps = facts.steps
        self.diagnostics = list(facts.diagnostics)
        self.visited = list(facts.visited)

    def field(self, name: str) -> Any:
        """A listing field by name (`diagnostics` joined with commas, `tags` as `k=v` pairs)."""
        if name == "diagnostics":
            return ",".join(self.diagnostics or [])
        if name == "tags":
            return ",".join(f"{k}={v}" for k, v in sorted(self.tags.items()))
        return getattr(self, name)

    def to_json(self) -> dict[str, Any]:
        """What `inspector runs --json` prints for the run (and the index keeps, without `facts`)."""
        return {
            "id": self.id,
            "path": self.path,
            "kind": self.kind,
            "part": self.part,
            "run_id": self.run_id,
            "graph": self.graph,
            "status": self.status,
            "reason": self.reason,
            "steps": self.steps,
            "model_calls": self.model_calls,
            "tool_calls": self.tool_calls,
            "tokens": self.tokens,
            "duration": self.duration,
            "started_at": self.started_at,
            "tags": dict(self.tags),
            "diagnostics": self.diagnostics,
            "visited": self.visited,
        }

    @classmethod
    def from_json(
        cls, data: dict[str, Any], *, path: str, key: str, where: str = "", facts: RunFacts | None = None
    ) -> RunRecord:
        """The record `to_json` gave (`path`, `key` and `where` as found now: the index keeps none of them
        for display)."""
        diagnostics, visited = data.get("diagnostics"), data.get("visited")
        return cls(
            path=path,
            key=key,
            kind=data.get("kind", "runfile"),
            part=data.get("part", ""),
            where=where,
            run_id=data.get("run_id", ""),
            graph=data.get("graph", ""),
            status=data.get("status", "incomplete"),
            reason=data.get("reason", ""),
            steps=data.get("steps", 0),
            model_calls=data.get("model_calls", 0),
            tool_calls=data.get("tool_calls", 0),
            tokens=data.get("tokens", 0),
            duration=data.get("duration"),
            started_at=data.get("started_at", ""),
            tags=dict(data.get("tags", {})),
            diagnostics=None if diagnostics is None else list(diagnostics),
            visited=None if visited is None else list(visited),
            facts=facts,
        )
