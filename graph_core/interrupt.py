"""Interrupts from inside a run (Eino `compose.Interrupt`/`StatefulInterrupt`/`CompositeInterrupt`).

A node or tool calls `interrupt(info)` (or `interrupt(info, state=...)`) to stop the run at itself: the
call raises an `InterruptSignal` that the runner turns into a checkpoint, with the node recorded as a
*rerun node*. When the run is resumed, the node runs again and can ask what happened before:

```python
def approve(draft: str) -> str:
    if get_interrupt_state() is None:           # first time here
        interrupt({"ask": "approve?"}, state={"draft": draft})
    answer = get_resume_data()                  # what the caller passed to invoke(resume_data=...)
    ...
```

Every interrupt point has an *address*, the path from the top-level graph down to the node (and tool
call): `runnable:agent;node:tools;tool:get_weather:call_1`. As in Eino it starts with `runnable:` and the
top-level graph's name (`compile(name=...)`; empty for an unnamed graph: `runnable:;node:ask`); nested
graphs add only their node keys. Resume data is targeted at an address (or the interrupt ID, which is the
same string), so several interrupted points can be resumed selectively. The address is derived from the
run scope, so it is deterministic across processes.

The runner hands a rerun node its saved record through `RunScope.resume` (a `PointRecord`); tools inside
a ToolsNode find theirs under the node's record by call ID.

A node that runs parts of its own (a batch of processes) gives each part an address with
`address_segment(kind, id)` (Eino `AppendAddressSegment`): inside it, `interrupt()` points at
`...;node:batch;process:p0`, and the part's saved state and resume data are its own. The node then
collects its parts' signals into one `composite_interrupt(info, state, signals)` (Eino
`CompositeInterrupt`), so each part is a root cause under the node, resumable on its own.

A graph invoked from inside a running node (a lambda or a tool that calls `other.invoke(...)`, rather
than a graph node) is a point of that node, as in Eino: its addresses start with the node's address
and `runnable:` + its own name (`runnable:root;node:composite_lambda;runnable:inner;node:inner_lambda`).
The node passes the graph's `InterruptError` to `composite_interrupt`, which hangs the graph's points
under the node's; when the node reruns, the graph run it starts again finds its nodes' saved records
and the resume data in the node's record, whether or not it has a checkpoint store of its own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from graph_core.context import current_scope
from graph_core.errors import InterruptError

__all__ = [
    "ROOT_ADDRESS",
    "RUNNABLE_PREFIX",
    "AbandonedTask",
    "GraphInterrupt",
    "InterruptContext",
    "InterruptInfo",
    "InterruptSignal",
    "PointRecord",
    "ResumeTargets",
    "address_of",
    "address_path",
    "address_segment",
    "composite_interrupt",
    "current_point",
    "get_interrupt_state",
    "get_resume_data",
    "interrupt",
    "is_resume_target",
    "leave_point",
    "locate",
    "outside_address_segments",
    "part_record",
    "point_base",
    "root_address",
    "scope_address",
    "set_run_point",
    "was_interrupted",
]

RUNNABLE_PREFIX = "runnable:"
"""Every interrupt address starts with this, then the top-level graph's name (Eino's runnable segment)."""
ROOT_ADDRESS = "runnable:root"
"""The address of a top-level graph named `root`; also where a signal raised outside any run points."""
_ROOT_KEY = "runnable"  # RunScope.extras key of the run's root address
# RunScope.extras key: how many leading keys of the run's path are its caller's node's (runner.inside)
_BASE_KEY = "runnable_base"
_NO_STATE: Any = object()


class InterruptSignal(Exception):
    """Raised by `interrupt()`; the runner catches it, it is not an error of the node.

    `children` are the signals of the parts of a composite node (a ToolsNode's interrupted calls, by
    call ID).
    """

    def __init__(
        self,
        info: Any = None,
        *,
        state: Any = _NO_STATE,
        address: str = ROOT_ADDRESS,
        children: Mapping[str, InterruptSignal] | None = None,
    ) -> None:
        self.info = info
        self.has_state = state is not _NO_STATE
        self.state = state if self.has_state else None
        self.address = address
        self.children = dict(children or {})
        super().__init__(f"interrupt at {address}: {info!r}")

    def readdress(self, address: str) -> None:
        """Move this point and every part under it to `address` (a ToolsNode completing its calls'
        addresses with the tool names: a graph run inside the call has its points there too)."""
        _move(self, address)


def _move(point: InterruptSignal | PointRecord, address: str) -> None:
    """Move `point` to `address`, and each part under it (an address that starts with the point's) with
    it: the one rule for a live signal and for its saved record."""
    old = point.address
    point.address = address
    if old != address:
        for child in point.children.values():
            if child.address.startswith(old + ";"):
                _move(child, address + child.address[len(old) :])


class GraphInterrupt(threading.Event):
    """Stops a run from outside (Eino `WithGraphInterrupt`); pass it as the `interrupt_event` run option.

    `interrupt()` (or `set()`) is Eino's `interrupt()` without a timeout: the tasks running now finish,
    then the run stops with `InterruptError` whose `after_nodes` are that step's nodes, and the next
    tasks are saved to run first on resume. `interrupt(timeout=seconds)` waits at most that long:
    tasks still running then are abandoned (their threads finish unobserved, async tasks are
    cancelled) and become rerun nodes (`timeout=0`: at once). Either way every rerun node keeps its
    original input (Eino `persistRerunInput`), as it does whenever an `interrupt_event` is given.
    """

    def __init__(self) -> None:
        super().__init__()
        self.deadline: float | None = None  # time.monotonic() after which running tasks are abandoned
        self._wakers: list[Callable[[], object]] = []
        self._lock = threading.Lock()

    def interrupt(self, timeout: float | None = None) -> None:
        with self._lock:
            if timeout is not None:
                deadline = time.monotonic() + max(timeout, 0.0)
                self.deadline = deadline if self.deadline is None else min(self.deadline, deadline)
            wakers = list(self._wakers)
        self.set()
        for wake in wakers:
            wake()

    def remaining(self) -> float | None:
        """Seconds until running tasks are abandoned (0 when due); None while there is no deadline."""
        deadline = self.deadline
        return None if deadline is None else max(deadline - time.monotonic(), 0.0)

    def on_interrupt(self, wake: Callable[[], object]) -> Callable[[], None]:
        """Call `wake` (from the interrupting thread) on every `interrupt()`; returns the unregister."""
        with self._lock:
            self._wakers.append(wake)

        def remove() -> None:
            with self._lock:
                if wake in self._wakers:
                    self._wakers.remove(wake)

        return remove


class AbandonedTask(Exception):
    """A task still running when a `GraphInterrupt` timeout ran out: its node becomes a rerun node."""


@dataclass(slots=True)
class PointRecord:
    """What a checkpoint remembers about one interrupted point, handed back to it when it reruns."""

    address: str
    info: Any = None
    state: Any = None
    has_state: bool = False
    children: dict[str, PointRecord] = field(default_factory=lambda: {})  # by tool call ID
    resume: ResumeTargets | None = None  # run-time only: the resumed run's data
    sub: Any = None  # run-time only: the nested graph's Checkpoint for a rerun graph node

    @classmethod
    def of(cls, signal: InterruptSignal) -> PointRecord:
        children = {key: cls.of(child) for key, child in signal.children.items()}
        return cls(signal.address, signal.info, signal.state, signal.has_state, children)

    def readdress(self, address: str) -> PointRecord:
        """Move this record and its parts to `address` (in place): a checkpoint written by a graph run
        inside a tool call, whose address the ToolsNode completed afterwards."""
        _move(self, address)
        return self

    def with_resume(self, resume: ResumeTargets | None) -> PointRecord:
        """Attach the resumed run's data to this record and its children (in place)."""
        self.resume = resume
        for child in self.children.values():
            child.with_resume(resume)
        return self


@dataclass(frozen=True, slots=True)
class InterruptContext:
    """One interrupt point as the caller sees it (Eino `InterruptCtx`). `id` equals `address`.

    `parent_context` is the enclosing point (Eino `Parent`): a composite node (ToolsNode) around a
    tool call, then each graph around it up to the top-level one, whose `info` is that graph's state
    (None without state); `parent` is its address.
    """

    id: str
    address: str
    info: Any = None
    is_root_cause: bool = True
    parent: str | None = None
    parent_context: InterruptContext | None = None

    def outermost_first(self) -> list[InterruptContext]:
        """This point and its enclosing points, the top-level graph first and this point last."""
        chain: list[InterruptContext] = []
        point: InterruptContext | None = self
        while point is not None:
            chain.append(point)
            point = point.parent_context
        chain.reverse()
        return chain


@dataclass(slots=True)
class InterruptInfo:
    """Why a run stopped (Eino `InterruptInfo`), read from `InterruptError.info`.

    `before_nodes`/`after_nodes` are the static interrupts hit; `rerun_nodes` the nodes that interrupted
    themselves (or that a cancel abandoned); `rerun_nodes_extra` their infos; `state` a deep copy of the
    graph state; `sub_graphs` the infos of the nested graphs that interrupted, by node key (as in Eino,
    such a node is listed there only, not in `rerun_nodes`, although it reruns on resume too);
    `interrupt_contexts` the root causes (Eino: the points that interrupted themselves, or the graph
    that hit a static or external interrupt), each linked to its enclosing points by `parent_context`.
    """

    before_nodes: list[str] = field(default_factory=lambda: [])
    after_nodes: list[str] = field(default_factory=lambda: [])
    rerun_nodes: list[str] = field(default_factory=lambda: [])
    rerun_nodes_extra: dict[str, Any] = field(default_factory=lambda: {})
    state: Any = None
    sub_graphs: dict[str, InterruptInfo] = field(default_factory=lambda: {})
    interrupt_contexts: list[InterruptContext] = field(default_factory=lambda: [])


class ResumeTargets:
    """Resume data of one resumed run, by interrupt address; shared by every point of the run.

    A mapping whose keys are all interrupt addresses (IDs) of the checkpoint targets those points; any
    other value (or a mapping with other keys) is delivered to every interrupted point, which is what a
    caller resuming a single interrupt expects.
    """

    __slots__ = ("by_address", "everywhere", "value")

    def __init__(self, data: Any, addresses: Sequence[str]) -> None:
        known = set(addresses)
        self.value = data
        if isinstance(data, Mapping) and data and all(isinstance(k, str) and k in known for k in data):
            self.by_address: dict[str, Any] = dict(data)  # pyright: ignore[reportUnknownArgumentType]
            self.everywhere = False
        else:
            self.by_address = {}
            self.everywhere = data is not None

    def targets(self, address: str) -> bool:
        """Whether the data is meant for `address`, or for a point inside it (Eino: a composite node
        whose part is resumed is a resume target too)."""
        if self.everywhere or address in self.by_address:
            return True
        inside = address + ";"
        return any(key.startswith(inside) for key in self.by_address)

    def get(self, address: str) -> Any:
        if self.everywhere:
            return self.value
        return self.by_address.get(address)


# -- where the current code is -------------------------------------------------------------------------


def root_address(graph_name: str) -> str:
    """The first segment of every address in a run of the top-level graph named `graph_name`."""
    return RUNNABLE_PREFIX + graph_name


def scope_address(scope: Any) -> str:
    """The root address of the run `scope` belongs to (nested runs inherit their top-level graph's)."""
    extras = getattr(scope, "extras", None)
    return extras.get(_ROOT_KEY, ROOT_ADDRESS) if extras else ROOT_ADDRESS


def address_path(scope: Any) -> tuple[str, ...]:
    """The node keys of `scope`'s path that its addresses name after `scope_address(scope)`: all of
    them, except in a graph run started inside another run's node, whose path starts with that node's
    (for observers) while its root address already names the node."""
    path: tuple[str, ...] = getattr(scope, "path", ())
    extras = getattr(scope, "extras", None)
    base = extras.get(_BASE_KEY, 0) if extras else 0
    return path[base:] if base else path


def address_of(path: Sequence[str], tool: tuple[str, str] | None = None, *, root: str = ROOT_ADDRESS) -> str:
    """The address string of a node path (outermost first), optionally inside one (name, call ID)."""
    parts = [root, *(f"node:{key}" for key in path)]
    if tool is not None:
        parts.append(f"tool:{tool[0]}:{tool[1]}")
    return ";".join(parts)


_SEGMENTS: ContextVar[tuple[str, ...]] = ContextVar("graph_core_address_segments", default=())


@contextmanager
def address_segment(kind: str, id: str) -> Iterator[str]:
    """Code in this block is the part `kind:id` of the current node (Eino `AppendAddressSegment`): its
    interrupts point at `<node address>;kind:id`, and its saved state and resume data are its own.
    Yields the segment (`kind:id`), the key of the part in its node's composite interrupt."""
    if not kind or ";" in kind or ":" in kind or ";" in id:
        raise ValueError(
            f"an address segment needs a kind without ':' or ';' and an id without ';': {kind!r}, {id!r}"
        )
    segment = f"{kind}:{id}"
    token = _SEGMENTS.set((*_SEGMENTS.get(), segment))
    try:
        yield segment
    finally:
        _SEGMENTS.reset(token)


@contextmanager
def outside_address_segments() -> Iterator[None]:
    """Code in this block has no `address_segment` parts: a run that keeps addresses of its own (the
    ChatModelAgent's graph inside a multi-agent flow, whose flow agents add `agent:` segments)."""
    token = _SEGMENTS.set(())
    try:
        yield
    finally:
        _SEGMENTS.reset(token)


def locate() -> tuple[str, PointRecord | None, tuple[str, ...], str]:
    """Where the current code runs: the address of the running node (or tool call), its saved record,
    the address segments entered in it and the tool call's ID. Inside a tool call the address has no
    tool name yet: the ToolsNode that collects the signal knows it and completes the address."""
    from graph_core.tools.context import get_tool_call_id  # lazily: graph_core.tools imports this module

    scope = current_scope()
    call_id = get_tool_call_id()
    tool = ("", call_id) if call_id else None
    segments = _SEGMENTS.get()
    if scope is None:
        return address_of((), tool), None, segments, call_id
    record = scope.resume
    if tool is not None:
        record = record.children.get(call_id) if record is not None else None
    return address_of(address_path(scope), tool, root=scope_address(scope)), record, segments, call_id


def part_record(record: PointRecord | None, segments: Sequence[str]) -> PointRecord | None:
    """The record of the part `segments` (outermost first) under `record`. A part is keyed by its
    segment, or, when it sits in segments that were no point of their own (a graph run inside an
    address segment), by those segments and its own joined."""
    if record is None or not segments:
        return record
    for end in range(1, len(segments) + 1):
        child = record.children.get(";".join(segments[:end]))
        if child is not None:
            found = part_record(child, segments[end:])
            if found is not None:
                return found
    return None


def _here() -> tuple[str, PointRecord | None]:
    """The current address and saved record (see `locate`)."""
    address, record, segments, _ = locate()
    return ";".join([address, *segments]), part_record(record, segments)


# -- a graph run started inside a running node (see graph_core.runner.inside) -------------------------


def set_run_point(extras: dict[str, Any], root: str, base: int) -> None:
    """Give a run started inside another run's node its addresses: they start at `root`, and skip the
    first `base` keys of its path (the node's, there for observers; see `address_path`)."""
    extras[_ROOT_KEY] = root
    extras[_BASE_KEY] = base


def point_base(extras: Mapping[str, Any]) -> int | None:
    """For a run started inside another run's node (see `set_run_point`), how many leading keys of its
    path are that node's; None for any other run. A graph node's run takes its parent's."""
    return extras.get(_BASE_KEY)


def leave_point() -> Callable[[], None]:
    """From here on, code is no part of the current tool call or address segment: a graph run inside
    a node runs its nodes at addresses of their own. Returns the function that comes back."""
    from graph_core.tools.context import _TOOL_CALL_ID  # pyright: ignore[reportPrivateUsage]

    call = _TOOL_CALL_ID.set("")
    segments = _SEGMENTS.set(())

    def back() -> None:
        _SEGMENTS.reset(segments)
        _TOOL_CALL_ID.reset(call)

    return back


def current_point() -> PointRecord | None:
    """The saved record of the running node (or tool call) if it is being rerun after an interrupt."""
    return _here()[1]


def interrupt(info: Any = None, *, state: Any = _NO_STATE) -> None:
    """Stop the run at the current node (or tool call); it reruns on resume. Never returns.

    `state` (any value the checkpoint serializer accepts) is saved with the checkpoint and comes back
    from `get_interrupt_state()` on the rerun.
    """
    address, _ = _here()
    raise InterruptSignal(info, state=state, address=address)


def composite_interrupt(
    info: Any,
    state: Any,
    signals: Mapping[str, InterruptSignal] | Sequence[InterruptSignal | InterruptError],
) -> None:
    """Stop a composite node (one that runs parts, like ToolsNode) whose parts interrupted.

    `signals` are the parts' `InterruptSignal`s: by part key (a ToolsNode's call IDs), or a list of
    signals raised inside `address_segment` blocks, keyed by their segment (Eino `CompositeInterrupt`).
    The list may hold the `InterruptError` of a graph run inside the node: its points become parts of
    the node (keyed `runnable:<name>`), and when the node reruns, so does that graph's interrupted node.
    """
    address, _ = _here()
    if not isinstance(signals, Mapping):
        by_key: dict[str, InterruptSignal] = {}
        for part in signals:
            for signal in _signals_of(part):
                if not signal.address.startswith(address + ";"):
                    raise ValueError(f"signal at {signal.address} is not a part of {address}")
                by_key[signal.address[len(address) + 1 :]] = signal
        signals = by_key
    raise InterruptSignal(info, state=state, address=address, children=signals)


def _signals_of(part: InterruptSignal | InterruptError) -> list[InterruptSignal]:
    """A part's signal; for the `InterruptError` of a graph run inside the node, its points as a tree of
    signals (Eino `FromInterruptContexts`): the graph, its parts by the address segments that follow
    (a tool call by its call ID, as a ToolsNode keeps them), their infos; states stay in the graph's
    own checkpoint, as in Eino."""
    if isinstance(part, InterruptSignal):
        return [part]
    if not isinstance(part, InterruptError):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            "composite interrupt but one of the sub errors is not an interrupt signal nor an "
            f"InterruptError: {part!r}"
        )
    made: dict[str, InterruptSignal] = {}
    tops: list[InterruptSignal] = []
    for context in getattr(part.info, "interrupt_contexts", ()):
        parent: InterruptSignal | None = None
        for link in context.outermost_first():
            signal = made.get(link.address)
            if signal is None:
                signal = made[link.address] = InterruptSignal(link.info, address=link.address)
                if parent is None:
                    tops.append(signal)
                else:
                    parent.children[_part_key(parent.address, link.address)] = signal
            parent = signal
    return tops


def _part_key(parent: str, address: str) -> str:
    """The key of the part at `address` in its parent's record: its last segment, a tool call's ID."""
    segment = address[len(parent) + 1 :]
    if segment.startswith("tool:") and ";" not in segment:
        return segment.split(":", 2)[2]
    return segment


def was_interrupted() -> bool:
    """True while the current node (or tool call) reruns after it interrupted."""
    return _here()[1] is not None


def get_interrupt_state() -> Any:
    """What the current node (or tool call) saved with `interrupt(..., state=...)`; None otherwise."""
    record = _here()[1]
    return record.state if record is not None and record.has_state else None


def is_resume_target() -> bool:
    """True if the caller's resume data is meant for this point (targeted-resume strategy)."""
    record = _here()[1]
    return record is not None and record.resume is not None and record.resume.targets(record.address)


def get_resume_data() -> Any:
    """The resume data the caller passed for this point (`invoke(..., resume_data=...)`); None otherwise."""
    record = _here()[1]
    if record is None or record.resume is None:
        return None
    return record.resume.get(record.address)
