"""`CompiledGraph`: the runnable result of `Graph.compile()`, with invoke/stream entry points and topology.

`invoke`/`ainvoke` run in invoke mode, `stream`/`astream` in stream mode (Eino's `Stream` = a 1-chunk
input stream through `Transform`). Nested graphs run through `run_nested_sync`/`run_nested_async`, with
their own budget and state frame, under the parent's callbacks and path.

A run started from inside another run's node (a lambda or tool calling `invoke`) is top-level in every
other way (own budget, own checkpoint store) but part of that node as Eino's ctx makes it: see
`graph_core.runner.inside`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from typing import Any, Unpack

from graph_core.astream import aone_chunk
from graph_core.call_options import EXTRAS_KEY as CALL_OPTIONS
from graph_core.call_options import resolve_options
from graph_core.callbacks import RunInfo
from graph_core.checkpoint.codec import CheckpointSerializationError, decode_checkpoint
from graph_core.context import _SCOPE, RunScope, StateFrame  # pyright: ignore[reportPrivateUsage]
from graph_core.describe import describe_graph, describe_node
from graph_core.errors import GraphRunError
from graph_core.interrupt import (
    RUNNABLE_PREFIX,
    PointRecord,
    ResumeTargets,
    point_base,
    root_address,
    set_run_point,
)
from graph_core.runner.driver import drive_async, drive_sync
from graph_core.runner.inside import RunPoint, run_point
from graph_core.runner.interrupts import CheckpointPlan, check_fits, inherit, restore
from graph_core.runner.loop import run_graph
from graph_core.runner.options import RunOptions, check_run_options
from graph_core.runner.plan import build_plan
from graph_core.runner.run import Handlers, RunContext, RunData, notify_handlers
from graph_core.spec import FanInMergeConfig, GraphSpec
from graph_core.stream import collect, one_chunk
from graph_core.topology import Topology, TriggerMode, build_topology, trusted_edge, trusted_node

__all__ = ["CompiledGraph"]


def _check_targets(resume_data: Any, addresses: list[str], where: str) -> None:
    """Refuse resume data keyed by interrupt addresses when one of them is not a point of the checkpoint:
    as a mapping with other keys it would reach every point whole, so a typo would go unnoticed."""
    if not isinstance(resume_data, Mapping) or not resume_data:
        return
    keys: list[Any] = list(resume_data)  # pyright: ignore[reportUnknownArgumentType]
    if not all(isinstance(key, str) and key.startswith(RUNNABLE_PREFIX) for key in keys):
        return
    unknown = [key for key in keys if key not in addresses]
    if unknown:
        raise GraphRunError(
            f"cannot resume {where}: resume_data targets {unknown}, which "
            f"{'is not an interrupt point' if len(unknown) == 1 else 'are not interrupt points'} of it "
            f"(its points: {addresses})"
        )


class CompiledGraph:
    """A validated graph, ready to run any number of times (concurrently too: runs share nothing)."""

    def __init__(
        self,
        graph: GraphSpec,
        *,
        name: str | None = None,
        trigger_mode: TriggerMode = TriggerMode.ANY_PREDECESSOR,
        max_run_steps: int | None = None,
        interrupt_before: tuple[str, ...] = (),
        interrupt_after: tuple[str, ...] = (),
        checkpoint_store: Any = None,
        fan_in_merge: dict[str, FanInMergeConfig] | None = None,
    ) -> None:
        self.graph = graph
        self.name = name or ""
        self.trigger_mode = trigger_mode
        self.interrupt_before = interrupt_before
        self.interrupt_after = interrupt_after
        self.checkpoint_store = checkpoint_store
        self.compile_options: dict[str, Any] = {
            "name": name,
            "trigger_mode": trigger_mode,
            "max_run_steps": max_run_steps,
            "interrupt_before": interrupt_before,
            "interrupt_after": interrupt_after,
            "checkpoint_store": checkpoint_store,
        }
        if fan_in_merge:
            self.compile_options["fan_in_merge"] = dict(fan_in_merge)
        self.plan = build_plan(
            graph, trigger_mode=trigger_mode, max_run_steps=max_run_steps, fan_in_merge=fan_in_merge
        )
        self.max_run_steps = self.plan.max_run_steps

    def __repr__(self) -> str:
        return f"CompiledGraph(name={self.name!r}, nodes={list(self.graph.nodes)})"

    # -- topology -----------------------------------------------------------------------------------

    def topology(self) -> Topology:
        """The neutral shape of this graph (nested graphs included) for exporters and recordings."""
        # the engine's own values, already of the declared types: built without re-validation (speed)
        specs = self.graph.nodes
        nodes = [
            trusted_node(
                key=node.key,
                name=node.name,
                kind=node.kind,
                input_key=node.input_key,
                output_key=node.output_key,
                has_pre_handler=node.pre is not None,
                has_post_handler=node.post is not None,
                graph=node.graph.topology() if node.graph is not None else describe_graph(specs[node.key]),
                **describe_node(specs[node.key]),
            )
            for node in self.plan.nodes.values()
            if node.kind not in ("start", "end")
        ]
        edges = [
            trusted_edge(source=edge.source, target=edge.target, branch_index=edge.branch_index)
            if edge.branch is None
            else trusted_edge(
                source=edge.source,
                target=edge.target,
                kind="branch",
                branch_index=edge.branch_index,
                branch_kind=edge.branch.kind,
                label=edge.branch.label(edge.target),
            )
            for edge in self.graph.edges
        ]
        return build_topology(
            name=self.name,
            nodes=nodes,
            edges=edges,
            trigger_mode=self.trigger_mode,
            max_run_steps=self.max_run_steps,
            has_state=self.plan.has_state,
        )

    # -- runs ---------------------------------------------------------------------------------------

    def _context(
        self,
        *,
        stream: bool,
        handlers: Handlers,
        max_steps: int | None,
        path: tuple[str, ...] = (),
        parent_frame: StateFrame | None = None,
        cancel_event: threading.Event | None = None,
        nested: bool = False,
        root: str | None = None,
    ) -> tuple[RunContext, RunData]:
        steps = self.plan.max_run_steps
        if max_steps is not None and max_steps > 0:  # Eino ignores a non-positive WithRuntimeMaxSteps
            if self.plan.dag:
                raise GraphRunError("cannot set max run steps in dag")
            steps = max_steps
        if steps is not None and steps < 1:
            raise GraphRunError("max run steps limit must be at least 1")
        frame = parent_frame
        data = RunData()
        factory = self.graph.state_factory
        if factory is not None:
            frame = StateFrame(factory(), parent_frame)
            data.state = frame.value
        rc = RunContext(
            plan=self.plan,
            graph_name=self.name,
            handlers=handlers,
            stream=stream,
            max_steps=steps,
            path=path,
            frame=frame,
            cancel_event=cancel_event,
            nested=nested,
            # observers (the inspector's Recorder) read the graph's shape from the run scope
            # and interrupt addresses start with the top-level graph's name (see `graph_core.interrupt`)
            extras={"compiled": self, "runnable": root if root is not None else root_address(self.name)},
            interrupt_before=frozenset(self.interrupt_before),
            interrupt_after=frozenset(self.interrupt_after),
        )
        return rc, data

    def _start(
        self,
        entry: str,
        input: Any,
        options: RunOptions,
        *,
        stream: bool,
        aio: bool = False,
        chunks: bool = False,
    ) -> tuple[RunContext, RunData]:
        """A top-level run: new, or resumed from the checkpoint saved under `checkpoint_id` (Eino §7.3).

        `entry` names the public method for error messages; `aio`: a stream-mode run on the running
        event loop (`astream`). An error raised here is reported to the graph callbacks (see
        `_setup_failed`); an unknown option is not: it is a call error, and no run starts.
        """
        check_run_options(entry, options)
        caller = _SCOPE.get()
        # invoked from inside a node of another run (not embedded): part of that node (runner.inside)
        point = run_point(self.name) if caller is not None else None
        path = tuple(options.get("parent_path", ()))
        inherited: tuple[Any, ...] = ()
        if point is not None and caller is not None and caller.callbacks:
            inherited = caller.callbacks
            path = path or (*caller.path, *point.segments)
        callbacks = tuple(options.get("callbacks", ()))
        resolved = None
        call_options = options.get("options")
        if call_options:  # per-call options: their callbacks join the run's, checked first
            extra, resolved = resolve_options(self, call_options, base=path)
            callbacks = (*callbacks, *extra)
        if inherited:  # Eino: the node's callbacks travel in the ctx into the run, the run's own after
            callbacks = (*inherited, *(cb for cb in callbacks if cb not in inherited))
        handlers = Handlers(callbacks)
        rc: RunContext | None = None
        try:
            checkpoint_id = options.get("checkpoint_id")
            force_new_run = options.get("force_new_run", False)
            if not force_new_run:
                self._check_checkpoint(checkpoint_id)
            rc, data = self._context(
                stream=stream,
                handlers=handlers,
                max_steps=options.get("max_steps"),
                path=path,
                # as in Eino, whose state chain follows the ctx, this run's state links to the
                # caller's for `process_state`
                parent_frame=caller.state if caller is not None else None,
                cancel_event=options.get("cancel_event"),
            )
            if point is not None:
                set_run_point(rc.extras, point.root, len(path))
            rc.interrupt_event = options.get("interrupt_event")
            if "tools_node_options" in options:  # read by the ToolsNodes through their scope's extras
                rc.extras["tools_node_options"] = options["tools_node_options"]
            if resolved is not None:  # read by components through `graph_core.call_options`
                rc.extras[CALL_OPTIONS] = resolved
            if aio:
                rc.aio = True
                rc.loop = asyncio.get_running_loop()
            if checkpoint_id is None or force_new_run:  # WithForceNewRun: the store is not read nor written
                if point is not None:
                    inherit(rc, point.record)
                return rc, data
            self._resume(rc, data, checkpoint_id, options, point)
            return rc, data
        except Exception as error:
            self._setup_failed(handlers, rc, input, stream=stream, error=error, chunks=chunks, path=path)
            raise

    def _resume(
        self, rc: RunContext, data: RunData, checkpoint_id: str, options: RunOptions, point: RunPoint | None
    ) -> None:
        """Load the checkpoint saved under `checkpoint_id` (if any) into the run, then apply the state
        modifier; with none saved the run starts anew and saves under the same ID.

        A run inside a rerunning node (`point`) takes that node's resume data unless given its own,
        and finds in the node's record the records of its nodes its own checkpoint does not hold.
        """
        store = self.checkpoint_store
        write_checkpoint_id = options.get("write_checkpoint_id")
        rc.extras["checkpoint_plan"] = CheckpointPlan(store, write_checkpoint_id or checkpoint_id)
        rc.keep_inputs = True
        raw = store.get(checkpoint_id)
        if raw is None:
            if point is not None:
                inherit(rc, point.record)
            return
        where = f"checkpoint {checkpoint_id!r}"
        try:
            cp = decode_checkpoint(raw)
        except CheckpointSerializationError as exc:
            raise CheckpointSerializationError(f"cannot resume {where}: {exc}") from exc
        check_fits(self.plan, cp, where)
        resume_data = options.get("resume_data")
        if resume_data is None and point is not None:  # Eino: the resume data in the ctx reaches it
            resume = point.resume
        else:
            addresses = cp.addresses(rc.address())
            _check_targets(resume_data, addresses, where)
            resume = None if resume_data is None else ResumeTargets(resume_data, addresses)
        restore(rc, data, cp, resume, point.record if point is not None else None)
        rc.extras["resumed_from"] = checkpoint_id
        state_modifier = options.get("state_modifier")
        if state_modifier is not None and rc.frame is not None and self.plan.has_state:
            changed = state_modifier(rc.frame.value)
            if changed is not None:
                rc.frame.value = data.state = changed

    def _setup_failed(
        self,
        handlers: Handlers,
        rc: RunContext | None,
        input: Any,
        *,
        stream: bool,
        error: Exception,
        chunks: bool = False,
        path: tuple[str, ...] = (),
    ) -> None:
        """Report a run that failed before its first step as Eino's deferred callbacks do: the graph's
        start (with the run input; the state, if already made, in scope), then its error.

        The observers run in the run's scope (or, before one exists, a scope naming this graph), so a
        Recorder finds the topology and writes a recording of the failed run. If a start observer
        raises, that error ends the run instead, as it would in `run_graph`.
        """
        if not handlers.callbacks:
            return
        info = RunInfo(None, self.name, "Graph", path, None, self.name)
        if rc is not None:
            scope = rc.scope()
        else:
            scope = RunScope(callbacks=handlers.callbacks, graph_name=self.name, extras={"compiled": self})
        token = _SCOPE.set(scope)
        try:
            try:
                if stream:
                    source = iter(input) if chunks else one_chunk(input)  # `transform` passes the chunks
                    notify_handlers(handlers.start_stream, info, source, stream=True)
                else:
                    notify_handlers(handlers.start, info, input, stream=False)
            except Exception as start_error:
                for fn in handlers.error:
                    fn(info, start_error)
                raise
            for fn in handlers.error:
                fn(info, error)
        finally:
            _SCOPE.reset(token)

    def _check_checkpoint(self, checkpoint_id: str | None) -> None:
        if checkpoint_id is not None and self.checkpoint_store is None:
            raise GraphRunError("receive checkpoint id but have not set checkpoint store")

    def invoke(self, input: Any, **options: Unpack[RunOptions]) -> Any:
        """Run in invoke mode and return the value that reached END.

        The keyword options (`callbacks`, `max_steps`, `checkpoint_id`, `cancel_event`, `state_modifier`,
        `resume_data`, `force_new_run`, `write_checkpoint_id`, `interrupt_event`) are described on
        `graph_core.runner.options.RunOptions`; all four entry points take the same ones.
        """
        rc, data = self._start("CompiledGraph.invoke", input, options, stream=False)
        return drive_sync(run_graph(rc, data, input), rc)

    async def ainvoke(self, input: Any, **options: Unpack[RunOptions]) -> Any:
        """`invoke` on the running event loop: async components are awaited, tasks of a step overlap."""
        rc, data = self._start("CompiledGraph.ainvoke", input, options, stream=False)
        return await drive_async(run_graph(rc, data, input), rc)

    def stream(self, input: Any, **options: Unpack[RunOptions]) -> Iterator[Any]:
        """Run in stream mode; returns the END stream once END is reached (chunks may still be produced)."""
        rc, data = self._start("CompiledGraph.stream", input, options, stream=True)
        return drive_sync(run_graph(rc, data, one_chunk(input)), rc)

    def transform(self, input: Iterable[Any], **options: Unpack[RunOptions]) -> Iterator[Any]:
        """Eino `Transform`: run in stream mode on an input stream (any iterable of chunks).

        `stream(x)` is `transform` of the 1-chunk stream `[x]`; with several chunks each node sees them
        as Eino's would (an input key picks the chunks that carry it; an invoke-only node concatenates).
        """
        rc, data = self._start("CompiledGraph.transform", input, options, stream=True, chunks=True)
        return drive_sync(run_graph(rc, data, iter(input)), rc)

    def collect(self, input: Iterable[Any], **options: Unpack[RunOptions]) -> Any:
        """Eino `Collect`: `transform` of the input stream, its output stream concatenated (as Eino's
        graph derives Collect from Transform)."""
        return collect(self.transform(input, **options))

    async def astream(self, input: Any, **options: Unpack[RunOptions]) -> AsyncIterator[Any]:
        """Run in stream mode on the running event loop; yields the END stream's chunks.

        Async components (a chat model's `astream`, a ToolsNode's `astream`, async generator lambdas,
        `async def` conditions and handlers) run on this loop; sync code that reads a stream runs on
        worker threads (see `graph_core.runner.aio`).
        """
        rc, data = self._start("CompiledGraph.astream", input, options, stream=True, aio=True)
        output = await drive_async(run_graph(rc, data, aone_chunk(input)), rc)
        async for chunk in output:
            yield chunk

    # -- nesting ------------------------------------------------------------------------------------

    def _nested_context(
        self, input: Any, parent: RunContext, key: str, record: PointRecord | None
    ) -> tuple[RunContext, RunData]:
        rc, data = self._context(
            stream=parent.stream,
            handlers=parent.handlers,
            max_steps=None,
            path=(*parent.path, key),
            parent_frame=parent.frame,
            cancel_event=parent.cancel_event,
            nested=True,
            root=parent.extras["runnable"],
        )
        base = point_base(parent.extras)
        if base is not None:  # inside a run started in another run's node: addresses skip its path
            set_run_point(rc.extras, rc.extras["runnable"], base)
        rc.keep_inputs = parent.keep_inputs
        rc.interrupt_event = parent.interrupt_event
        if CALL_OPTIONS in parent.extras:  # per-call options reach nested nodes (looked up by full path)
            rc.extras[CALL_OPTIONS] = parent.extras[CALL_OPTIONS]
        rc.aio = parent.aio
        rc.loop = parent.loop
        if record is not None and record.sub is not None:  # the node reruns: resume the nested run
            restore(rc, data, record.sub, record.resume)
        elif record is not None:  # a graph node of a run inside a rerunning node: its nodes' records
            inherit(rc, record)
        return rc, data

    def run_nested_sync(self, input: Any, parent: RunContext, key: str, record: Any = None) -> Any:
        """Run as node `key` of the parent run: one parent step, own budget, parent callbacks and path.

        `record` is the node's interrupt record when it reruns after a resume; its nested checkpoint
        is restored. A nested interrupt raises `InterruptError` carrying the nested checkpoint.
        """
        rc, data = self._nested_context(input, parent, key, record)
        return drive_sync(run_graph(rc, data, input), rc)

    async def run_nested_async(self, input: Any, parent: RunContext, key: str, record: Any = None) -> Any:
        rc, data = self._nested_context(input, parent, key, record)
        return await drive_async(run_graph(rc, data, input), rc)
